"""``compoworld graph`` and ``compoworld compose``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from flows.settings import home, warehouse_root


def graph() -> None:
    """Build the dependency graph of the verified tools: degree statistics and a picture."""
    from tasks.compose import graph_stage
    from warehouse import Warehouse

    console = Console()
    try:
        result = graph_stage(Warehouse(warehouse_root()), home() / "graph")
    except LookupError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    stats = result.stats
    table = Table(title=f"dependency graph {result.graph_id}", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in stats.items():
        table.add_row(key.replace("_", " "), str(value))
    console.print(table)
    console.print(f"service graph picture: {result.html_path}")


def compose(
    n: Annotated[int, typer.Option("--n", help="How many verified tasks to compose.")] = 100,
    min_services: Annotated[int, typer.Option(help="Fewest distinct services per task.")] = 2,
    max_services: Annotated[int, typer.Option(help="Most distinct services per task.")] = 5,
    seed: Annotated[int, typer.Option(help="Seed of the walks.")] = 0,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Sandbox workers.")] = 2,
    paraphrase: Annotated[
        bool | None,
        typer.Option(
            "--paraphrase/--no-paraphrase",
            help="Rewrite instructions with the configured model, literals kept "
            "(default: COMPOWORLD_PARAPHRASE).",
        ),
    ] = None,
) -> None:
    """Compose verified cross-service tasks by random walks over the dependency graph."""
    from tasks.compose import compose_stage
    from warehouse import Warehouse

    console = Console()
    with console.status(f"composing {n} tasks on {workers} sandbox workers"):
        try:
            summary = compose_stage(
                Warehouse(warehouse_root()),
                n,
                seed=seed,
                min_services=min_services,
                max_services=max_services,
                workers=workers,
                paraphrase=paraphrase,
            ).to_dict()
        except (LookupError, ValueError) as exc:
            console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from None
    table = Table(title="compose summary", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for key in (
        "requested",
        "composed",
        "written",
        "tasks_per_s",
        "acceptance",
        "three_plus_services_share",
        "near_duplicates_dropped",
        "motif_share",
        "mutation_catch_rate",
        "paraphrased",
        "wall_s",
    ):
        table.add_row(key.replace("_", " "), str(summary[key]))
    table.add_row(
        "mutants caught by kind",
        ", ".join(f"{k} {v:.0%}" for k, v in summary["mutation_by_kind"].items() if v is not None),
    )
    table.add_row("difficulty", ", ".join(f"{k} {v}" for k, v in summary["difficulty"].items()))
    table.add_row("motifs", ", ".join(f"{k} {v}" for k, v in summary["motifs"].items()))
    for note in summary["notes"]:
        table.add_row("note", note)
    table.add_row(
        "capabilities", ", ".join(f"{k} {v:.0%}" for k, v in summary["capability_share"].items())
    )
    table.add_row("domains", ", ".join(f"{k} {v}" for k, v in summary["domains"].items()))
    table.add_row(
        "rejected walks", ", ".join(f"{k} {v}" for k, v in summary["rejections"].items()) or "none"
    )
    console.print(table)
