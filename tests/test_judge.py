"""The judge: per-criterion results, completion, rubric score, the Completion-Focused Rubric
Reward and GRPO advantages per group; hand-computed on a small task, then end to end with
the oracle and a scripted half-solving model through litellm."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from library.compose import Task, compose_tasks
from library.judge import judge_group, judge_rollouts
from library.llm import LLMClient, MemoryCallStore
from library.llm.testing import ScriptedModel
from library.rollout import (
    AssistantTurn,
    InProcessEnv,
    LiteLLMPolicy,
    OraclePolicy,
    Policy,
    Rollout,
    RolloutSettings,
    run_groups,
)
from library.services import reference_service_classes
from warehouse.schemas import table_schema
from warehouse.store import to_table

# -- a task small enough to judge by hand -----------------------------------------------------

ALICE = {"id": "c1", "name": "Alice", "title": "Engineer"}
BOB = {"id": "c2", "name": "Bob", "title": "Sales"}
RUBRIC = [
    {
        "kind": "field_updated",
        "service": "crm",
        "collection": "contacts",
        "id": "c1",
        "field": "title",
        "value": "CTO",
    },
    {"kind": "record_unchanged", "service": "crm", "collection": "contacts", "id": "c2"},
    {"kind": "answer_contains", "value": 42},
]
SMALL = Task(
    task_id="t-small",
    seed=0,
    services=["crm"],
    domain="sales",
    capabilities=["guard", "answer"],
    difficulty="easy",
    instruction="Make Alice the CTO, leave Bob alone, and tell me the total.",
    template_instruction="",
    initial_state={"crm": {"contacts": {"c1": ALICE, "c2": BOB}}},
    gold_plan=[],
    rubric=RUBRIC,
)


def rollout(sample: int, alice: str, bob: str, answer: str | None, group: str = "g") -> Rollout:
    contacts = {"c1": ALICE | {"title": alice}, "c2": BOB | {"title": bob}}
    return Rollout(
        rollout_id=f"r{sample}",
        task_id=SMALL.task_id,
        group_id=group,
        sample=sample,
        policy="test",
        mode="direct",
        messages=[],
        tools=[],
        final_answer=answer,
        final_states={"crm": {"contacts": contacts}},
        status="finished",
    )


GROUP = [
    rollout(0, "CTO", "Sales", "The total is 42."),  # passes all three
    rollout(1, "CTO", "Sales", None),  # no answer
    rollout(2, "Engineer", "Sales", "42"),  # forgot the update
    rollout(3, "Engineer", "VP", "about forty"),  # touched Bob, no update, no number
]


def test_small_group_by_hand() -> None:
    j = judge_group(SMALL, GROUP)
    assert j.passes == [[True, True, True], [True, True, False], [False, True, True], [False] * 3]
    # p_c = [2/4, 3/4, 2/4]; 1 - p_c + 0.1 = [0.6, 0.35, 0.6], summing to 1.55.
    assert j.reward.pass_rates == [0.5, 0.75, 0.5]
    assert j.reward.weights == pytest.approx([12 / 31, 7 / 31, 12 / 31])
    assert j.completed == [True, False, False, False]
    # r = 0.5 * completed + 0.5 * sum of the weights passed.
    assert j.rewards == pytest.approx([1.0, 19 / 62, 19 / 62, 0.0])
    assert j.rubric_scores == pytest.approx([1.0, 2 / 3, 2 / 3, 0.0])
    mean = (1 + 19 / 31) / 4
    std = (sum((r - mean) ** 2 for r in [1, 19 / 62, 19 / 62, 0]) / 4) ** 0.5
    expected = [(r - mean) / (std + 1e-6) for r in [1, 19 / 62, 19 / 62, 0]]  # GRPO's eps
    assert j.advantages == pytest.approx(expected)
    assert j.advantages[0] > 0 > j.advantages[3]


def test_rows_fit_the_warehouse() -> None:
    j = judge_group(SMALL, GROUP)
    rows = j.criterion_rows()
    assert len(rows) == 12
    assert rows[4] == {
        "rollout_id": "r1",
        "task_id": "t-small",
        "criterion": 1,
        "kind": "record_unchanged",
        "description": "In crm, the contacts record (c2) is left unchanged.",
        "passed": True,
        "weight": pytest.approx(7 / 31),
    }
    scores = j.score_rows()
    assert [s["completed"] for s in scores] == [True, False, False, False]
    assert {s["group_id"] for s in scores} == {"g"}
    for name, table_rows in (("criterion_results", rows), ("rollout_scores", scores)):
        schema = table_schema(name)
        assert set(table_rows[0]) == set(schema.schema.names)
        assert to_table(table_rows, schema).num_rows == len(table_rows)


def test_a_rollout_without_final_states_fails_everything() -> None:
    lost = GROUP[0].model_copy(update={"final_states": None, "status": "error"})
    j = judge_group(SMALL, [lost, GROUP[1]])
    assert j.passes[0] == [False, False, False]  # even the answer: nothing can be checked
    assert j.rewards[0] == 0.0


def test_groups_are_judged_apart() -> None:
    other = [rollout(i, "CTO", "Sales", "42", group="h") for i in range(2)]
    judged = judge_rollouts([SMALL], [*GROUP, *other])
    assert [(j.group_id, len(j.rollout_ids)) for j in judged] == [("g", 4), ("h", 2)]
    assert judged[1].rewards == [1.0, 1.0]
    with pytest.raises(ValueError, match="one group"):
        judge_group(SMALL, [GROUP[0], other[0]])
    with pytest.raises(KeyError):
        judge_rollouts([], GROUP)


# -- end to end: the oracle against a scripted half-solver ------------------------------------

CLASSES = reference_service_classes()


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    composed = compose_tasks(CLASSES, 6, seed=0).tasks
    return [t for t in composed if sum(s["write"] for s in t.gold_plan) >= 2][:3]


def half_solver(tasks: list[Task]) -> Any:
    """A scripted model reply: the gold plan up to half of its writes, one call per turn,
    then the gold answer (so only the skipped writes' criteria can fail)."""
    by_instruction = {t.instruction: t for t in tasks}

    def reply(body: dict[str, Any]) -> Any:
        task = by_instruction[body["messages"][1]["content"]]
        writes = [i for i, s in enumerate(task.gold_plan) if s["write"]]
        steps = task.gold_plan[: writes[len(writes) // 2 - 1] + 1]
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn >= len(steps):
            return task.gold_answer()
        step = steps[turn]
        return {"tool_calls": [{"name": step["tool"], "arguments": step["arguments"]}]}

    return reply


@pytest.fixture
def half(tasks: list[Task]) -> Iterator[LiteLLMPolicy]:
    with ScriptedModel([half_solver(tasks)] * 200) as model:
        yield LiteLLMPolicy(LLMClient(model.settings(), MemoryCallStore()))


def groups(tasks: list[Task], policy: Any, group_size: int = 2) -> list[list[Rollout]]:
    settings = RolloutSettings(group_size=group_size)
    return asyncio.run(run_groups(tasks, policy, lambda: InProcessEnv(CLASSES), settings))


def test_half_solver_scores_below_the_oracle(tasks: list[Task], half: LiteLLMPolicy) -> None:
    assert tasks
    oracle = [judge_group(t, g) for t, g in zip(tasks, groups(tasks, OraclePolicy), strict=True)]
    halves = [judge_group(t, g) for t, g in zip(tasks, groups(tasks, half), strict=True)]
    for o, h in zip(oracle, halves, strict=True):
        assert o.rewards == [1.0, 1.0] and o.completed == [True, True]
        assert h.completed == [False, False]
        assert max(h.rewards) < 0.5 <= min(o.rewards)  # no completion: at most 1 - alpha
        assert h.rubric_scores[0] < 1
        # Identical samples: nothing to prefer, so no advantage either way.
        assert h.advantages == pytest.approx([0.0, 0.0])
        # The per-criterion results say which criteria failed, in words.
        first = [r for r in h.criterion_rows() if r["rollout_id"] == h.rollout_ids[0]]
        failed = [r for r in first if not r["passed"]]
        assert failed and all(r["description"].endswith(".") for r in failed)
        assert {r["kind"] for r in failed} & {
            "record_created",
            "field_updated",
            "record_deleted",
            "answer_contains",
        }
    # Partial credit: writes done before stopping pass their criteria.
    assert any(h.rewards[0] > 0 for h in halves)


class Mixed:
    """Even samples by the oracle, odd ones by the half-solver: one group, two behaviours."""

    name = "mixed"

    def __init__(self, even: Policy, odd: Policy) -> None:
        self.policies = (even, odd)

    async def act(self, messages: Any, tools: Any, *, sample: int) -> AssistantTurn:
        return await self.policies[sample % 2].act(messages, tools, sample=sample)


def test_advantages_favour_the_completing_samples(tasks: list[Task], half: LiteLLMPolicy) -> None:
    mixed = groups(tasks, lambda t: Mixed(OraclePolicy(t), half), group_size=4)
    for task, group in zip(tasks, mixed, strict=True):
        j = judge_group(task, group)
        assert j.completed == [True, False, True, False]
        rates = j.reward.pass_rates
        assert all(p in (0.5, 1.0) for p in rates) and 0.5 in rates
        # Criteria only the oracle passes weigh the most.
        assert max(j.reward.weights) == j.reward.weights[rates.index(0.5)]
        assert j.rewards[0] == j.rewards[2] == pytest.approx(1.0) and j.rewards[1] < 0.5
        assert j.advantages[0] > 0 > j.advantages[1]
