"""Task verification: the four checks a composed task must pass to be kept.

1. the gold plan passes every criterion;
2. doing nothing fails (the initial state with an empty answer is not complete);
3. replay is deterministic: the plan, run on a fresh World built from the task's exported
   initial state, gives the same results and the same final state;
4. every write matters: dropping any single write step fails at least one criterion.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from library.rubric import Criterion
from library.runtime import Snapshot, World
from library.runtime.world import hash_state

GOLD_FAILS = "gold_fails_criterion"
NOTHING_PASSES = "nothing_passes"
NONDETERMINISTIC = "nondeterministic_replay"
REDUNDANT_WRITE = "redundant_write"

States = Mapping[str, Any]


def run_plan(
    world: World, plan: Sequence[Mapping[str, Any]], skip: int | None = None
) -> list[dict[str, Any]]:
    """Call every step's tool with its arguments (all but ``skip``); the envelopes."""
    return [world.call(s["tool"], s["arguments"]) for i, s in enumerate(plan) if i != skip]


def canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def passes(criteria: Sequence[Criterion], initial: States, final: States, answer: str) -> bool:
    return all(c.check(initial, final, answer) for c in criteria)


def verify(
    criteria: Sequence[Criterion],
    plan: Sequence[Mapping[str, Any]],
    answer: str,
    world: World,
    initial: Snapshot,
    view: Callable[[Snapshot], States],
    replay: Callable[[], World],
    gold: Sequence[dict[str, Any]],
    final_hashes: Mapping[str, str],
    *,
    drop_writes: bool = True,
    gold_run: bool = True,
) -> str | None:
    """The reason the task fails verification, or None. ``world`` is left in any state;
    ``view`` turns a snapshot into exported-state form; ``replay`` builds the fresh World.
    ``drop_writes=False`` leaves check 4 to the caller (the mutation gate runs it as its
    ``drop_write`` mutants); ``gold_run=False`` leaves check 1 to it too (the gate runs
    and judges the gold plan before its mutants: ``MutationReport.gold_passes``)."""
    start = view(initial)
    world.restore(initial)
    if gold_run and not passes(criteria, start, view(_after(world, plan)), answer):
        return GOLD_FAILS
    if passes(criteria, start, start, ""):
        return NOTHING_PASSES
    for i, step in enumerate(plan):
        if not drop_writes or not step.get("write"):
            continue
        world.restore(initial)
        run_plan(world, plan, skip=i)
        if passes(criteria, start, view(world.snapshot()), answer):
            return REDUNDANT_WRITE
    fresh = replay()
    envelopes = run_plan(fresh, plan)
    if canonical(envelopes) != canonical(list(gold)):
        return NONDETERMINISTIC
    for name, digest in final_hashes.items():
        if hash_state(fresh.services[name].state) != digest:
            return NONDETERMINISTIC
    return None


def _after(world: World, plan: Sequence[Mapping[str, Any]]) -> Snapshot:
    run_plan(world, plan)
    return world.snapshot()
