"""``compoworld show task ID``: one task as a reviewer reads it (terminal, or ``--html``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from flows.settings import warehouse_root

if TYPE_CHECKING:
    from library.compose import Task
    from warehouse import Warehouse

show_app = typer.Typer(
    help="Show one artifact of the warehouse for review.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
_MAX_LISTED = 5


class TaskNotFound(LookupError):
    pass


def find_task(wh: Warehouse, task_id: str) -> Task:
    """The task with this id, or else the one task whose id starts with it."""
    from tasks.rollout import load_tasks

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


@show_app.command(
    "task",
    help="One task as a reviewer judges it: instruction, plan with provenance, decoys, rubric.",
)
def show_task(
    task_id: Annotated[str, typer.Argument(help="A task id, or a unique prefix of one.")],
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write the review as a self-contained HTML page here."),
    ] = None,
) -> None:
    """One task as a reviewer judges it: header, instruction, the plan with where every
    argument came from, selection rules beside their decoys, rubric, answer, house rules and
    the initial records it touches."""
    from library.compose.review import renderables, review_task, to_html
    from warehouse import Warehouse

    console = Console()
    err = Console(stderr=True)
    try:
        task = find_task(Warehouse(warehouse_root()), task_id.strip())
    except TaskNotFound as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(1) from None
    review = review_task(task)
    if html is not None:
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(to_html(review), encoding="utf-8")
        console.print(f"wrote {html}", highlight=False)
        return
    for part in renderables(review):
        console.print(part)
