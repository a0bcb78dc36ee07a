"""The judge: rubric results, completion, rubric score and the Completion-Focused Rubric
Reward of each group of rollouts.

Judging reads only the task's initial states and each rollout's final states and final
answer (no service code runs), so it is fast, deterministic and safe on untrusted services.
A rollout without final states (its environment failed) fails every criterion: nothing it
did can be checked. A rollout that ended on an infrastructure fault (status ``infra_error``:
the model server failed, not the agent) is left out: it gets no criterion results, no
reward and no advantage, and does not move its group's pass rates. A group with nothing
left to judge gets no judgement, so a later run redoes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from library.compose.task import Task
from library.reward import ALPHA, EPS, GroupReward, cfrr, group_advantages, rubric_score
from library.rollout.record import INFRA_ERROR
from library.rubric import Criterion, load_criteria


class Judged(Protocol):
    """What the judge reads of a rollout (``library.rollout.Rollout`` has it)."""

    @property
    def rollout_id(self) -> str: ...

    @property
    def task_id(self) -> str: ...

    @property
    def group_id(self) -> str: ...

    @property
    def final_states(self) -> Mapping[str, Any] | None: ...

    @property
    def final_answer(self) -> str | None: ...

    @property
    def status(self) -> str: ...


def judgeable(rollout: Judged) -> bool:
    """False for a rollout the infrastructure failed: it says nothing about the agent."""
    return rollout.status != INFRA_ERROR


@dataclass(frozen=True, slots=True)
class GroupJudgement:
    task_id: str
    group_id: str
    rollout_ids: list[str]
    criteria: list[Criterion]
    passes: list[list[bool]]  # [rollout][criterion]
    reward: GroupReward  # pass rates, weights w_c, completion and r_i
    rubric_scores: list[float]
    advantages: list[float]  # GRPO: r normalized within the group
    excluded: tuple[str, ...] = ()  # rollouts left out: infrastructure faults

    @property
    def rewards(self) -> list[float]:
        return self.reward.rewards

    @property
    def completed(self) -> list[bool]:
        return self.reward.completed

    def criterion_rows(self) -> list[dict[str, Any]]:
        """``criterion_results`` rows: one per rollout and criterion."""
        descriptions = [c.describe() for c in self.criteria]
        return [
            {
                "rollout_id": rid,
                "task_id": self.task_id,
                "criterion": c,
                "kind": criterion.kind,
                "description": descriptions[c],
                "passed": passed,
                "weight": self.reward.weights[c],
            }
            for rid, row in zip(self.rollout_ids, self.passes, strict=True)
            for c, (criterion, passed) in enumerate(zip(self.criteria, row, strict=True))
        ]

    def score_rows(self) -> list[dict[str, Any]]:
        """``rollout_scores`` rows: one per rollout."""
        return [
            {
                "rollout_id": rid,
                "task_id": self.task_id,
                "group_id": self.group_id,
                "completed": done,
                "rubric_score": score,
                "reward": reward,
                "advantage": advantage,
            }
            for rid, done, score, reward, advantage in zip(
                self.rollout_ids,
                self.completed,
                self.rubric_scores,
                self.rewards,
                self.advantages,
                strict=True,
            )
        ]


def check_rollout(
    criteria: Sequence[Criterion], initial: Mapping[str, Any], rollout: Judged
) -> list[bool]:
    """Pass/fail of each criterion on one rollout."""
    final = rollout.final_states
    if final is None:
        return [False] * len(criteria)
    answer = rollout.final_answer or ""
    return [c.check(initial, final, answer) for c in criteria]


def judge_group(
    task: Task, rollouts: Sequence[Judged], *, eps: float = EPS, alpha: float = ALPHA
) -> GroupJudgement:
    """Judge the G rollouts of one group of ``task``."""
    if not rollouts:
        raise ValueError("judge_group: no rollouts")
    strays = {r.task_id for r in rollouts} - {task.task_id}
    groups = {r.group_id for r in rollouts}
    if strays or len(groups) != 1:
        raise ValueError(
            f"judge_group: rollouts must be one group of task {task.task_id}; got tasks "
            f"{sorted(strays)} besides it and groups {sorted(groups)}"
        )
    kept = [r for r in rollouts if judgeable(r)]
    if not kept:
        raise ValueError(
            f"judge_group: every rollout of group {groups.pop()} ended on an infrastructure "
            "fault; there is nothing to judge"
        )
    criteria = load_criteria(task.rubric)
    passes = [check_rollout(criteria, task.initial_state, r) for r in kept]
    reward = cfrr(passes, eps=eps, alpha=alpha)
    return GroupJudgement(
        task_id=task.task_id,
        group_id=groups.pop(),
        rollout_ids=[r.rollout_id for r in kept],
        criteria=criteria,
        passes=passes,
        reward=reward,
        rubric_scores=[rubric_score(row) for row in passes],
        advantages=group_advantages(reward.rewards),
        excluded=tuple(r.rollout_id for r in rollouts if not judgeable(r)),
    )


def judge_rollouts(
    tasks: Mapping[str, Task] | Iterable[Task],
    rollouts: Iterable[Judged],
    *,
    eps: float = EPS,
    alpha: float = ALPHA,
) -> list[GroupJudgement]:
    """Group rollouts by ``group_id`` (order kept) and judge each group against its task;
    groups whose every rollout ended on an infrastructure fault are left unjudged."""
    by_id = dict(tasks) if isinstance(tasks, Mapping) else {t.task_id: t for t in tasks}
    groups: dict[str, list[Judged]] = defaultdict(list)
    for rollout in rollouts:
        groups[rollout.group_id].append(rollout)
    out = []
    for members in groups.values():
        if not any(judgeable(r) for r in members):
            continue
        task = by_id.get(members[0].task_id)
        if task is None:
            raise KeyError(f"judge_rollouts: no task {members[0].task_id!r} for its rollouts")
        out.append(judge_group(task, members, eps=eps, alpha=alpha))
    return out
