"""Running a composed task: the World it starts in, and the gold plan (or any plan) run on
it, with states exported for the rubric. Used by verification-minded tests, an oracle
policy and the judge; the lead wires them into the sandbox."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from library.compose.task import Task
from library.compose.verify import run_plan
from library.rubric import completion, evaluate
from library.runtime import Service, World
from library.seed import seed_pool

DEFAULT_SEED_SIZE = 10


def _by_name(
    classes: Mapping[str, type[Service]] | Iterable[type[Service]],
) -> dict[str, type[Service]]:
    return dict(classes) if isinstance(classes, Mapping) else {c.name: c for c in classes}


def task_world(
    task: Task,
    classes: Mapping[str, type[Service]] | Iterable[type[Service]],
    *,
    gateway: bool = False,
    pool_seed: int = 0,
    seed_size: int = DEFAULT_SEED_SIZE,
) -> World:
    """The World a task starts in: its services with their initial states, plus (gateway
    mode) its distractor services seeded from the shared pool."""
    by_name = _by_name(classes)
    names = list(task.services)
    if gateway:
        names += [s for s in task.distractor_services if s in by_name]
    world = World([by_name[n]() for n in sorted(names)], seed=task.seed)
    if gateway:
        world.seed_states(seed_pool(pool_seed), seed_size)
    world.load_states(task.initial_state)
    return world


def run_task(
    task: Task,
    classes: Mapping[str, type[Service]] | Iterable[type[Service]],
    plan: Sequence[Mapping[str, Any]] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(final exported states of the task's services, envelopes) after running ``plan``
    (the gold plan by default) from the task's initial state."""
    world = task_world(task, classes)
    envelopes = run_plan(world, task.gold_plan if plan is None else plan)
    final = {name: world.services[name].state.model_dump(mode="json") for name in task.services}
    return final, envelopes


def judge_states(task: Task, final: Mapping[str, Any], answer: str) -> list[bool]:
    """Per-criterion results of a final state and answer."""
    return evaluate(task.rubric, task.initial_state, final, answer)


def completes(
    task: Task,
    classes: Mapping[str, type[Service]] | Iterable[type[Service]],
    plan: Sequence[Mapping[str, Any]] | None = None,
    answer: str | None = None,
) -> bool:
    """Whether running ``plan`` and answering ``answer`` completes the task (defaults: the
    gold plan and the gold answer)."""
    final, _ = run_task(task, classes, plan)
    reply = task.gold_answer() if answer is None else answer
    return completion(task.rubric, task.initial_state, final, reply)
