"""The reviewer view finds the record behind a step by its id whatever the spec calls the
id field: a checklist spec's tasks carry ``task_id`` (the catalog's ``id_key``), not ``id``,
and the chosen record of a selection rule is still named, not "(not identified)" nor an
id-less "(inferred)" guess. A record's other ids (``project_id``) name other records."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from library.compose.review import renderables, review_task
from library.compose.task import Task

_TASKS = {
    rid: {"task_id": rid, "title": title, "due_date": due, "project_id": "pro_1"}
    for rid, title, due in (
        ("tas_1", "Renew the SSL certificate", "2026-08-01"),
        ("tas_2", "Review the Q3 budget", "2026-08-09"),
        ("tas_3", "Order new laptops", "2026-08-04"),
    )
}


def _task() -> Task:
    plan: list[dict[str, Any]] = [
        {
            "tool": "checklist__get_all_tasks",
            "kind": "lookup",
            "arguments": {},
            "binds": {},
            "select": {"rule": "latest", "field": "due_date"},
        },
        {
            "tool": "checklist__update_task",
            "kind": "action",
            "write": True,
            "arguments": {"task_id": "tas_2", "title": "Q3 budget reviewed"},
            "binds": {
                "task_id": {"from": "step", "step": 0, "path": "[1].task_id"},
                "title": {"from": "user"},
            },
        },
        {
            "tool": "checklist__get_project",
            "kind": "lookup",
            "arguments": {"project_id": "pro_1"},
            "binds": {"project_id": {"from": "step", "step": 0, "path": "[1].project_id"}},
        },
    ]
    decoys = [
        {"step": 0, "service": "checklist", "collection": "tasks", "id": rid, "path": f"[{i}]"}
        | {"why": "matched"}
        for i, rid in ((0, "tas_1"), (2, "tas_3"))
    ]
    return Task(
        task_id="t_review_ids",
        seed=0,
        services=["checklist"],
        domain="operations",
        capabilities=["selection-rule"],
        difficulty="medium",
        instruction='Rename the checklist task that\'s due last to "Q3 budget reviewed".',
        template_instruction="",
        initial_state={
            "checklist": {
                "tasks": _TASKS,
                "projects": {"pro_1": {"project_id": "pro_1", "name": "Finance"}},
            }
        },
        gold_plan=plan,
        rubric=[],
        decoys=decoys,
    )


def test_the_chosen_record_is_found_by_its_spec_named_id() -> None:
    review = review_task(_task())
    view = review.steps[0].decoys
    assert view is not None
    assert view.chosen is not None and view.chosen.id == "tas_2", view.chosen
    assert view.chosen.collection == "tasks" and not view.chosen.inferred
    # the id heads the column; it is not shown again as a field that differs
    assert "task_id" not in view.fields
    task_id = next(a for a in review.steps[1].args if a.name == "task_id")
    assert "checklist.tasks tas_2 · task_id" in task_id.detail, task_id.detail


def test_another_records_id_does_not_stand_for_the_record() -> None:
    """``project_id`` read off the chosen task names its project, not the task itself."""
    review = review_task(_task())
    project = next(a for a in review.steps[2].args if a.name == "project_id")
    assert "checklist.tasks tas_2 · project_id" in project.detail, project.detail


def test_the_terminal_view_names_the_chosen_record() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200)
    for part in renderables(review_task(_task())):
        console.print(part)
    text = out.getvalue()
    assert "not identified" not in text
    assert "chosen tas_2" in text and "output: [1]: checklist.tasks tas_2\n" in text
