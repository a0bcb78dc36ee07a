"""Evaluation metrics: pass^1, pass^k and mean reward per policy, overall and by domain,
capability and difficulty, with bootstrap confidence intervals.

A *trial* is one judged rollout; a task is evaluated with n trials (``--k``). Success is full
completion (every rubric criterion passed). Following tau-bench (Yao et al., 2024), pass^k is
the probability that k i.i.d. trials of a task *all* succeed, estimated without bias from the
n >= k trials observed, c of them successful, as

    pass^k(task) = C(c, k) / C(n, k)

and averaged over tasks (pass^1 is then the mean success rate). Mean reward is the
Completion-Focused Rubric Reward of the judge, averaged per task and then over tasks, so
every task weighs the same whatever its number of trials.

Confidence intervals resample *tasks* with replacement (a percentile bootstrap): the trials
of one task are not independent of each other, tasks are. Seeded, so a rerun prints the same
interval.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import comb
from typing import Any

CONFIDENCE = 0.95
RESAMPLES = 1000
SLICE_KINDS = ("all", "domain", "capability", "difficulty")


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's per-task estimate of P(k i.i.d. trials all succeed): C(c, k) / C(n, k)."""
    if k < 1 or n < k or not 0 <= c <= n:
        raise ValueError(f"pass^k needs 1 <= k <= n and 0 <= c <= n; got n={n}, c={c}, k={k}")
    return comb(c, k) / comb(n, k)


@dataclass(frozen=True, slots=True)
class Trial:
    task_id: str
    sample: int
    completed: bool
    reward: float


@dataclass(frozen=True, slots=True)
class TaskInfo:
    domain: str
    capabilities: tuple[str, ...]
    difficulty: str


@dataclass(frozen=True, slots=True)
class Estimate:
    value: float | None  # None: no task of the slice has enough trials
    lo: float | None
    hi: float | None
    tasks: int  # tasks the estimate averages over


@dataclass(slots=True)
class SliceMetrics:
    policy: str
    slice_kind: str  # all | domain | capability | difficulty
    slice: str
    tasks: int
    trials: int
    pass1: Estimate
    passk: Estimate
    mean_reward: Estimate
    pass_hat: dict[int, float] = field(default_factory=dict)  # pass^j for j = 1..k

    def to_row(self) -> dict[str, Any]:
        row = {k: v for k, v in asdict(self).items() if not isinstance(v, dict)}
        for name in ("pass1", "passk", "mean_reward"):
            est: Estimate = getattr(self, name)
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = est.value, est.lo, est.hi
        row["passk_tasks"] = self.passk.tasks
        row["pass_hat"] = {str(j): v for j, v in self.pass_hat.items()}
        return row


@dataclass(frozen=True, slots=True)
class _TaskScore:
    n: int
    c: int
    reward: float  # mean over the task's trials


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def bootstrap(
    values: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: str = "",
) -> Estimate:
    """The mean of per-task ``values`` and its percentile-bootstrap interval over tasks."""
    if not values:
        return Estimate(None, None, None, 0)
    mean = _mean(values)
    if len(values) == 1 or min(values) == max(values):
        return Estimate(mean, mean, mean, len(values))
    rng = random.Random(hashlib.blake2b(seed.encode(), digest_size=8).digest())
    n = len(values)
    means = sorted(_mean(rng.choices(values, k=n)) for _ in range(resamples))
    tail = (1 - confidence) / 2
    lo = means[int(tail * (resamples - 1))]
    hi = means[round((1 - tail) * (resamples - 1))]
    return Estimate(mean, lo, hi, n)


def _slices(info: TaskInfo) -> Iterable[tuple[str, str]]:
    yield "all", "all"
    yield "domain", info.domain
    for capability in sorted(set(info.capabilities)):
        yield "capability", capability
    yield "difficulty", info.difficulty


def summarize(
    policy: str,
    trials: Iterable[Trial],
    tasks: Mapping[str, TaskInfo],
    k: int,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
) -> list[SliceMetrics]:
    """One ``SliceMetrics`` per slice (overall first, then by domain, capability and
    difficulty, each sorted). Tasks with fewer than ``k`` trials (infrastructure faults left
    some out) count in pass^1 and mean reward, not in pass^k."""
    if k < 1:
        raise ValueError("k must be >= 1")
    by_task: dict[str, list[Trial]] = defaultdict(list)
    for trial in trials:
        if trial.task_id not in tasks:
            raise KeyError(f"trial of unknown task {trial.task_id!r}")
        by_task[trial.task_id].append(trial)
    scores = {
        tid: _TaskScore(len(ts), sum(t.completed for t in ts), _mean([t.reward for t in ts]))
        for tid, ts in by_task.items()
    }
    members: dict[tuple[str, str], list[str]] = defaultdict(list)
    for tid in sorted(scores):
        for key in _slices(tasks[tid]):
            members[key].append(tid)
    order = {kind: i for i, kind in enumerate(SLICE_KINDS)}
    out = []
    for (kind, name), tids in sorted(members.items(), key=lambda e: (order[e[0][0]], e[0][1])):
        ss = [scores[t] for t in tids]
        seed = f"{policy}|{kind}|{name}"
        full = [s for s in ss if s.n >= k]
        out.append(
            SliceMetrics(
                policy=policy,
                slice_kind=kind,
                slice=name,
                tasks=len(ss),
                trials=sum(s.n for s in ss),
                pass1=bootstrap(
                    [s.c / s.n for s in ss],
                    confidence=confidence,
                    resamples=resamples,
                    seed=seed + "|1",
                ),
                passk=bootstrap(
                    [pass_hat_k(s.n, s.c, k) for s in full],
                    confidence=confidence,
                    resamples=resamples,
                    seed=seed + "|k",
                ),
                mean_reward=bootstrap(
                    [s.reward for s in ss],
                    confidence=confidence,
                    resamples=resamples,
                    seed=seed + "|r",
                ),
                pass_hat={
                    j: _mean([pass_hat_k(s.n, s.c, j) for s in full]) for j in range(1, k + 1)
                }
                if full
                else {},
            )
        )
    return out
