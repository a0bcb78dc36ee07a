"""``compoworld show task ID``: one task as a reviewer reads it (terminal, or ``--html``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from flows.settings import warehouse_root

show_app = typer.Typer(
    help="Show one artifact of the warehouse for review.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


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
    from tasks.review import TaskNotFound, find_task, renderables, review_task, to_html
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
