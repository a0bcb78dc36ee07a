"""``compoworld ingest PATH...``: spec files, folders or globs into the warehouse."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from flows.settings import warehouse_root


def ingest(
    paths: Annotated[list[str], typer.Argument(help="Spec files, folders or globs.")],
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", help="Worker processes (default: one per core, max 8)."),
    ] = None,
) -> None:
    """Ingest tool specifications into the warehouse."""
    from tasks.ingest import discover, ingest_files
    from warehouse import Warehouse

    console = Console()
    err = Console(stderr=True)
    found = discover(paths)
    if found.missing:
        names = ", ".join(repr(m) for m in found.missing)
        err.print(
            f"[red]error:[/red] no such file or folder, or a glob that matches nothing: {names}",
            soft_wrap=True,  # never break a path across lines
        )
        raise typer.Exit(2)
    for folder in found.empty:
        err.print(
            f"[yellow]warning:[/yellow] no spec files (.json, .yaml, .yml, .jsonl) in {folder!r}",
            soft_wrap=True,
        )
    if not found.files and not found.refused:
        console.print("nothing to ingest")
        return

    wh = Warehouse(warehouse_root())
    t0 = time.perf_counter()
    with Progress(
        TextColumn("[bold]ingesting[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[current]}", style="dim"),
        console=console,
        transient=False,
    ) as progress:
        total = len(found.files) + len(found.refused)
        task = progress.add_task("ingest", total=total, current="")

        def advance(result) -> None:
            progress.update(task, advance=1, current=result.path[-60:])

        stats = ingest_files(
            found.files, wh.location, workers=workers, on_result=advance, refused=found.refused
        )
        progress.update(task, current="")
    elapsed = time.perf_counter() - t0

    summary = Table(title="ingest summary", show_header=False)
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    summary.add_row("documents", f"{stats.documents} new, {stats.skipped} already ingested")
    summary.add_row("services", str(stats.services))
    summary.add_row("tools", str(len(stats.tools)))
    summary.add_row("write share", f"{stats.write_share:.0%}")
    summary.add_row("share classified (resource + verb)", f"{stats.classified_share:.0%}")
    summary.add_row("share linked to another service", f"{stats.cross_service_share:.0%}")
    summary.add_row("size", f"{stats.bytes / 2**20:.2f} MB in {elapsed:.1f} s")
    console.print(summary)

    if stats.errors:
        by_kind: dict[str, list[int]] = {}
        for (kind, severity), n in stats.errors.items():
            by_kind.setdefault(kind, [0, 0])[0 if severity == "error" else 1] += n
        errors = Table(title="spec_errors by kind")
        errors.add_column("kind")
        errors.add_column("errors (dropped)", justify="right")
        errors.add_column("warnings (kept)", justify="right")
        for kind, (e, w) in sorted(by_kind.items(), key=lambda kv: -sum(kv[1])):
            errors.add_row(kind, str(e), str(w))
        console.print(errors)
        console.print('[dim]details: compoworld sql "SELECT * FROM spec_errors"[/dim]')
