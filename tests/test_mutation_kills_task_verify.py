"""The four checks a composed task must pass (mutants of library/compose/verify.py that
survived the other tests, bench/mutation.py), on a one-collection service and criteria built
here: the gold plan must pass every criterion (unless the caller judges it), doing nothing
must fail, every write must matter (unless the caller checks that), and a replay on a fresh
World must give the same answers and the same final state."""

from __future__ import annotations

from typing import Any

import pytest

from library.compose.verify import (
    GOLD_FAILS,
    NONDETERMINISTIC,
    NOTHING_PASSES,
    REDUNDANT_WRITE,
    verify,
)
from library.runtime import Snapshot, World, tool
from library.runtime.world import hash_state

from .test_mutation_kills_conformance import Memo, Memos, MemoState


class Editable(Memos):
    @tool(write=True)
    def set_memo(self, memo_id: str, title: str | None = None, size: int | None = None) -> Memo:
        """Change a memo.

        Args:
            memo_id: The memo's id.
            title: A new title.
            size: A new size.
        """
        return self.update("memos", memo_id, title=title, size=size)


class Field:
    """A criterion: the memo's field holds a value in the final state (and the answer says
    ``answer`` when one is asked for)."""

    def __init__(self, field: str, value: Any, answer: str = "") -> None:
        self.field, self.value, self.answer = field, value, answer

    def check(self, initial: Any, final: Any, answer: str) -> bool:
        held = final["memos"]["memos"]["m1"][self.field] == self.value
        return held and self.answer in answer


def _step(**arguments: Any) -> dict[str, Any]:
    return {"tool": "memos__set_memo", "arguments": {"memo_id": "m1", **arguments}, "write": True}


def _world(title: str = "Draft", size: int = 0) -> tuple[World, Snapshot]:
    service = Editable(MemoState(memos={"m1": Memo(id="m1", title=title, size=size)}))
    world = World([service], seed=0)
    return world, world.snapshot()


def _view(snap: Snapshot) -> dict[str, Any]:
    return {name: state.model_dump(mode="json") for name, state in snap.states.items()}


def _verify(
    criteria: list[Field], plan: list[dict], title: str = "Draft", answer: str = "", **more: Any
) -> str | None:
    world, initial = _world(title)
    gold = [world.call(s["tool"], s["arguments"]) for s in plan]
    hashes = {name: hash_state(s.state) for name, s in world.services.items()}
    replay = more.pop("replay", lambda: _world(title)[0])
    gold = more.pop("gold", gold)
    hashes = more.pop("hashes", hashes)
    return verify(criteria, plan, answer, world, initial, _view, replay, gold, hashes, **more)


DONE = [Field("title", "Done")]


def test_a_task_that_keeps_every_promise_passes() -> None:
    assert _verify(DONE, [_step(title="Done")]) is None
    with_answer = [Field("title", "Done", answer="42")]
    assert _verify(with_answer, [_step(title="Done")], answer="It is 42.") is None


def test_a_gold_plan_that_fails_a_criterion_fails_unless_the_caller_judges_it() -> None:
    assert _verify(DONE, [_step(title="Nearly")]) == GOLD_FAILS
    assert _verify([Field("title", "Done", answer="42")], [_step(title="Done")]) == GOLD_FAILS
    assert _verify(DONE, [_step(title="Nearly")], gold_run=False) is None


def test_a_task_that_doing_nothing_completes_fails() -> None:
    assert _verify(DONE, [_step(title="Done")], title="Done") == NOTHING_PASSES
    # the empty answer is what doing nothing says
    asked = [Field("title", "Done", answer="42")]
    outcome = _verify(asked, [_step(title="Done")], title="Done", answer="42")
    assert outcome == REDUNDANT_WRITE  # not NOTHING_PASSES: the title was set already


def test_a_write_that_does_not_matter_fails_unless_the_caller_checks_it() -> None:
    plan = [_step(size=3), _step(title="Done")]
    assert _verify(DONE, plan) == REDUNDANT_WRITE
    assert _verify(DONE, plan, drop_writes=False) is None
    read = {**_step(size=3), "write": False}  # only writes are dropped
    assert _verify(DONE, [read, _step(title="Done")]) is None
    both = [Field("title", "Done"), Field("size", 3)]
    assert _verify(both, plan) is None


def test_a_replay_with_other_answers_or_another_state_fails() -> None:
    plan = [_step(title="Done")]
    other = [{"success": True, "data": {"id": "m1", "title": "Else", "size": 0}}]
    assert _verify(DONE, plan, gold=other) == NONDETERMINISTIC
    assert _verify(DONE, plan, hashes={"memos": "0" * 32}) == NONDETERMINISTIC
    assert _verify(DONE, plan, hashes={}) is None
    assert _verify(DONE, plan, replay=lambda: _world(size=5)[0]) == NONDETERMINISTIC


@pytest.mark.parametrize("gold_run", [True, False])
def test_the_world_is_left_usable(gold_run: bool) -> None:
    world, initial = _world()
    plan = [_step(title="Done")]
    gold = [{"success": True, "data": {"id": "m1", "title": "Done", "size": 0}}]
    hashes: dict[str, str] = {}
    assert verify(DONE, plan, "", world, initial, _view, lambda: _world()[0], gold, hashes,
                  gold_run=gold_run) is None  # fmt: skip
    assert world.call("memos__set_memo", {"memo_id": "m1", "size": 1})["success"]
