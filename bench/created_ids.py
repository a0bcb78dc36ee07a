"""Another valid order of a plan's creates still completes its task. Prints numbers.

    .venv/bin/python bench/created_ids.py [SPECS_PATH] [N]

Composes N tasks (default 60) over the specs (default ../shared/specs). For each task whose
plan creates a record a later step refers to by id (a zone, then its cryptokey), a later
create that needs neither is moved first (the TSIG key before the zone), the plan is
replayed with its binds resolved from this run's outputs, and the rubric is evaluated. Ids
come from a per-service counter, so the new records get other ids than the gold run's.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from library.compose import compose_tasks, make_env  # noqa: E402
from library.compose.mutants import run_plan_dynamic  # noqa: E402
from library.compose.run import task_world  # noqa: E402
from library.compose.spec_library import spec_library  # noqa: E402
from library.rubric.evaluate import evaluate  # noqa: E402


def _needs(step: Mapping[str, Any]) -> set[int]:
    return {b["step"] for b in step["binds"].values() if isinstance(b.get("step"), int)}


def reordered(plan: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]] | None:
    """The plan with one later independent create moved before a create that a later step
    refers to, its binds renumbered; None where there is no such pair."""
    for i, first in enumerate(plan):
        if not (first["write"] and first["kind"] == "create"):
            continue
        if not any(i in _needs(s) for s in plan[i + 1 :]):
            continue
        for j in range(i + 1, len(plan)):
            later = plan[j]
            if later["write"] and later["kind"] == "create" and all(d < i for d in _needs(later)):
                order = [k for k in range(len(plan)) if k != j]
                order.insert(i, j)
                index = {old: new for new, old in enumerate(order)}
                out = []
                for old in order:
                    step = copy.deepcopy(dict(plan[old]))
                    for bind in step["binds"].values():
                        if isinstance(bind.get("step"), int):
                            bind["step"] = index[bind["step"]]
                    out.append(step)
                return out
        return None
    return None


def main() -> None:
    specs = sys.argv[1] if len(sys.argv) > 1 else str(ROOT.parent / "shared" / "specs")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    lib = spec_library([specs])
    env = make_env(lib.classes, lib.nodes)
    tasks = compose_tasks([], n, env=env, seed=0).tasks
    tried = complete = 0
    for task in tasks:
        plan = reordered(task.gold_plan)
        if plan is None:
            continue
        world = task_world(task, lib.classes)
        initial = {name: s.model_dump(mode="json") for name, s in world.snapshot().states.items()}
        run_plan_dynamic(world, plan)
        final = {name: s.state.model_dump(mode="json") for name, s in world.services.items()}
        verdicts = evaluate(task.rubric, initial, final, task.gold_reply or "")
        tried += 1
        complete += all(verdicts)
        if not all(verdicts):
            failed = [c for c, ok in zip(task.rubric, verdicts, strict=True) if not ok]
            print(f"  fails: {task.task_id} {failed[:2]}")
    print(f"{len(tasks)} tasks; plans with a create reordered: {tried}; still complete: {complete}")


if __name__ == "__main__":
    main()
