"""The reviewer's view of a task whose threshold lives in a policy note: the note's lookup
feeds the step that follows it, and the threshold line says where the rule is, never a
sentence of None."""

from __future__ import annotations

from library.compose import Task, composed, make_env
from library.compose.review import review_task
from tests.libraries import bundled_library


def _policy_task() -> tuple[Task, int, int, str]:
    """A composed task with a threshold read from a policy note: (task, note step, step
    following it, the argument it sets)."""
    lib = bundled_library()
    env = make_env(lib.classes, lib.nodes)
    for task in composed(env, seed=909, max_candidates=4000):
        for j, step in enumerate(task.gold_plan):
            for name, b in step["binds"].items():
                if b.get("rule") == "threshold" and isinstance(b.get("policy"), int):
                    return task, b["policy"], j, name
    raise AssertionError("no task with a policy-note threshold in 4,000 candidates")


def test_a_policy_note_feeds_the_step_that_follows_it() -> None:
    task, note, reader, name = _policy_task()
    review = review_task(task)
    feeds = review.steps[note].feeds
    assert f"step {reader + 1} {name} <- the policy the note states" in feeds
    assert not any(f.startswith("nothing") for f in feeds)
    threshold = review.steps[reader].threshold
    assert "policy note" in threshold and "None" not in threshold
