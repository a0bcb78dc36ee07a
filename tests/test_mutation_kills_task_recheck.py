"""A composed task judged again with its services apart (mutants of library/verify/tasks.py
that survived the other tests, bench/mutation.py), here in an in-process env over one memo
service: an argument the plan says it took from an earlier step's output must be what that
step gave, else the task names the step and the argument; and an answer fact read from a step
the plan does not have (past its end, or no step at all) is a fact the services never gave,
said so rather than read from a step that is not there."""

from __future__ import annotations

from typing import Any

from library.compose.task import Task
from library.rollout.env import InProcessEnv
from library.verify.tasks import recheck_task

from .test_mutation_kills_task_verify import Editable

MEMO = {"id": "m1", "title": "Draft", "size": 0}
READ = {"tool": "memos__get_memo", "arguments": {"memo_id": "m1"}, "write": False}
# The new size must be the title's length: the criterion wants size 5 ("Draft").
DONE = {
    "kind": "field_updated",
    "service": "memos",
    "collection": "memos",
    "id": "m1",
    "field": "size",
    "value": 5,
}


def _task(plan: list[dict[str, Any]], answer: list[dict[str, Any]] | None = None) -> Task:
    return Task(
        task_id="t",
        seed=0,
        services=["memos"],
        domain="office",
        capabilities=[],
        difficulty="easy",
        instruction="Set the memo's size.",
        template_instruction="Set the memo's size.",
        initial_state={"memos": {"memos": {"m1": MEMO}}},
        gold_plan=plan,
        rubric=[DONE],
        answer=answer or [],
    )


def _set_title(title: str, bound: bool) -> dict[str, Any]:
    step = {"tool": "memos__set_memo", "arguments": {"memo_id": "m1", "title": title}}
    if bound:  # the plan says the title was read from step 0's output
        step["binds"] = {"title": {"from": "step", "step": 0, "path": "title"}}
    return {**step, "write": True}


SIZE = {"tool": "memos__set_memo", "arguments": {"memo_id": "m1", "size": 5}, "write": True}


def _recheck(task: Task) -> str | None:
    return recheck_task(InProcessEnv([Editable]), task)


def test_a_task_whose_plan_and_answer_are_what_the_services_give_holds() -> None:
    answer = [{"step": 0, "path": "title", "value": "Draft", "label": "title"}]
    assert _recheck(_task([READ, _set_title("Draft", bound=True), SIZE], answer)) is None


def test_an_argument_taken_from_an_earlier_output_must_be_what_it_gave() -> None:
    plan = [READ, _set_title("Forged", bound=True), SIZE]
    assert _recheck(_task(plan)) == "step 1 (memos__set_memo): title is not what the services give"
    # The same value written by the user (no binding) is the user's to choose.
    assert _recheck(_task([READ, _set_title("Forged", bound=False), SIZE])) is None


def test_an_answer_from_a_step_the_plan_does_not_have_is_not_given_by_the_services() -> None:
    reason = "the answer's title is not what the services give"
    for step in (3, None, "0"):
        answer = [{"step": step, "path": "title", "value": "Draft", "label": "title"}]
        assert _recheck(_task([READ, SIZE], answer)) == reason, step
