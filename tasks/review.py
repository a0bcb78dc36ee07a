"""Finding a task for review: by id or a unique id prefix, from the warehouse (the glue the
``compoworld show task`` command uses; the review itself is ``library.compose.review``)."""

from __future__ import annotations

from library.compose import Task
from library.compose.review import renderables, review_task, to_html
from tasks.rollout import load_tasks
from warehouse import Warehouse

__all__ = ["TaskNotFound", "find_task", "renderables", "review_task", "to_html"]
_MAX_LISTED = 5


class TaskNotFound(LookupError):
    pass


def find_task(wh: Warehouse, task_id: str) -> Task:
    """The task with this id, or else the one task whose id starts with it."""
    found = load_tasks(wh, task_ids=[task_id])
    if found:
        return found[0]
    like = task_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    ids = (
        wh.query(
            "select distinct task_id from tasks where task_id like $p escape '\\' "
            f"order by task_id limit {_MAX_LISTED + 1}",
            {"p": like},
        )
        .column(0)
        .to_pylist()
    )
    if len(ids) == 1:
        return load_tasks(wh, task_ids=ids)[0]
    where = f"in the warehouse {wh.location}"
    if not ids:
        raise TaskNotFound(f"no task with id {task_id!r} {where}")
    shown = ", ".join(ids[:_MAX_LISTED]) + (", …" if len(ids) > _MAX_LISTED else "")
    raise TaskNotFound(f"task id prefix {task_id!r} is ambiguous {where}: {shown}")
