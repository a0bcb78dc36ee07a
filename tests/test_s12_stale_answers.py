"""An answer is never a number the plan has made stale: a subscription's MRR is not asked
after its seats change, nor a reservation's total after its rooms do (the record's other
numbers moved, and its money may follow from them)."""

from __future__ import annotations

import json

from library.compose import compose_tasks, make_env
from library.compose.corpus import bundled_library
from library.compose.task import Task


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _stale(task: Task) -> list[str]:
    """Numeric answers held by a record that a write of the plan gives a new number."""
    out = []
    for row in task.answer or []:
        if not _number(row["value"]):
            continue
        for colls in task.initial_state.values():
            for records in colls.values():
                for rid, record in (records if isinstance(records, dict) else {}).items():
                    if not isinstance(record, dict) or row["value"] not in record.values():
                        continue
                    for step in task.gold_plan:
                        numbers = [v for v in step["arguments"].values() if _number(v)]
                        if step["write"] and rid in json.dumps(step["arguments"]) and numbers:
                            out.append(f"{row['label']} after {step['tool']}")
    return out


def test_no_answer_is_a_number_the_plan_changed_the_basis_of() -> None:
    lib = bundled_library()
    env = make_env(lib.classes, lib.nodes)
    tasks = compose_tasks([], 120, env=env, seed=1212).tasks
    answered = [t for t in tasks if any(_number(r["value"]) for r in t.answer or [])]
    assert len(answered) >= 5  # numeric answers are asked
    assert [s for t in tasks for s in _stale(t)] == []
