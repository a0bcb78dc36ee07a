"""Near twins never straddle training and evaluation: tasks about the same record of the
same world (one person's offboarding composed twice) land in the same split."""

from __future__ import annotations

from collections import defaultdict

from library.compose import compose_tasks, make_env
from library.compose.corpus import bundled_library
from library.compose.task import Task


def _about(task: Task) -> tuple[int, str, str]:
    """The world and the opening lookup (what the request is about, found by what)."""
    opening = task.gold_plan[0]
    return task.seed, opening["tool"], repr(sorted(opening["arguments"].items()))


def test_tasks_about_the_same_record_of_one_world_share_a_split() -> None:
    lib = bundled_library()
    tasks = compose_tasks([], 80, env=make_env(lib.classes, lib.nodes), seed=0).tasks
    groups: dict[tuple[int, str, str], list[str]] = defaultdict(list)
    for task in tasks:
        groups[_about(task)].append(task.split)
    twins = [splits for splits in groups.values() if len(splits) >= 2]
    assert len(twins) >= 2  # a run has such twins: the rule is exercised
    assert all(len(set(splits)) == 1 for splits in twins), twins
    assert {t.split for t in tasks} == {"sft", "rl", "eval"}
