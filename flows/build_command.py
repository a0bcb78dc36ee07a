"""``compoworld build``: generate and verify services from the ingested specs."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from flows.settings import warehouse_root


def build(
    service: Annotated[
        list[str] | None, typer.Option("--service", "-s", help="Only these services.")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Sandbox workers.")] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the conformance worlds.")] = 0,
) -> None:
    """Build services from ingested specs: compiler, coding agent, world model; verify each."""
    from tasks.build import BuildSettings, ServiceResult, build_services, current_specs
    from warehouse import Warehouse

    console = Console()
    wh = Warehouse(warehouse_root())
    total = len(current_specs(wh, service))
    if total == 0:
        console.print("no ingested specs to build: run [bold]compoworld ingest PATH[/bold] first")
        raise typer.Exit(1)
    settings = BuildSettings(seed=seed, workers=workers)
    if not settings.llm.configured:
        console.print(
            "[yellow]no model configured[/yellow]: compiler tier only; tools it cannot verify "
            "are rejected (set COMPOWORLD_LLM_MODEL for the coding-agent and world-model tiers)"
        )
    with Progress(
        TextColumn("[bold]building[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[current]}", style="dim"),
        console=console,
    ) as progress:
        bar = progress.add_task("build", total=total, current="")

        def advance(result: ServiceResult) -> None:
            progress.update(bar, advance=1, current=result.service)

        summary = build_services(wh, settings, service, on_result=advance)
    console.print(summary_table(summary.to_dict()))


def summary_table(s: dict) -> Table:
    table = Table(title="build summary")
    table.add_column("tier")
    for col in ("services", "tools verified", "fell back to next tier"):
        table.add_column(col, justify="right")
    names = {"compiler": "compiler", "coding_agent": "coding agent", "world_model": "world model"}
    for row in s["tiers"]:
        table.add_row(
            names[row["tier"]], str(row["services"]), str(row["verified"]), str(row["fell_back"])
        )
    table.add_row("[red]rejected[/red]", "", "", str(s["rejected"]))
    table.caption = (
        f"{s['services_built']} services built, {s['services_already_built']} already built; "
        f"{s['tools_verified']}/{s['tools']} tools verified ({s['verified_share']:.1%}) "
        f'in {s["wall_s"]:.1f} s; reasons: compoworld sql "select tool, reason from '
        f"service_tools where status = 'rejected'\""
    )
    return table
