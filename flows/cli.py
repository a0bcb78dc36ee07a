"""The ``compoworld`` command line."""

from __future__ import annotations

import logging
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from flows.build_command import build
from flows.compose_command import compose, graph
from flows.ingest_command import ingest
from flows.serve_command import serve, server
from flows.settings import warehouse_root

# Quiet defaults for the embedded Prefect server (STACK.md: analytics cause "database is locked").
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# A new machine's first run migrates Prefect's database: more than the default 20 s on 2 cores.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
# The temporary server cannot start when PREFECT_HOME's parent folders are missing.
Path(os.environ.get("PREFECT_HOME", "~/.prefect")).expanduser().mkdir(parents=True, exist_ok=True)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
logging.getLogger("great_expectations").setLevel(logging.WARNING)

app = typer.Typer(
    help="CompoWorld: tool specs in, verified services, tasks and training data out.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

app.command(help="Ingest tool specifications (files, folders, globs) into the warehouse.")(ingest)
app.command(help="Generate and verify services from the ingested specs.")(build)
app.command(help="Build the dependency graph of verified tools; statistics and a picture.")(graph)
app.command(help="Compose verified cross-service tasks (random walks over the graph).")(compose)
app.command(help="Start the Prefect server and its UI on 127.0.0.1.")(server)
app.command(help="Serve the deployments (factory, nightly expansion, stages) to the UI.")(serve)


class OutputFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="A read-only SQL query over the warehouse tables.")],
    fmt: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.table,
) -> None:
    """Query the warehouse (read-only). Tables: runs, and those added by later stages."""
    from warehouse import Warehouse, WarehouseError

    try:
        result = Warehouse(warehouse_root()).query_readonly(query)
    except (WarehouseError, Exception) as exc:  # duckdb binder/catalog errors included
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    rows = result.to_pylist()
    if fmt is OutputFormat.json:
        sys.stdout.buffer.write(orjson.dumps(rows, default=str, option=orjson.OPT_APPEND_NEWLINE))
    elif fmt is OutputFormat.csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(result, sys.stdout.buffer)
    else:
        table = Table(*result.column_names, show_lines=False)
        for row in rows:
            table.add_row(*("" if v is None else str(v) for v in row.values()))
        console.print(table)
        console.print(f"[dim]{len(rows)} row(s)[/dim]")


@app.command()
def run() -> None:
    """Run the main job (the factory flow) on the embedded defaults."""
    from flows.factory import factory
    from flows.report import print_run_summary

    console.print(
        "[bold]CompoWorld factory[/bold]: ingest, build, graph, compose, rollout, judge, "
        "curate, export on the bundled corpus (Prefect flow 'factory')"
    )
    print_run_summary(factory(), console)


@app.command()
def nightly(
    drop: Annotated[
        str | None, typer.Option(help="Drop folder of spec files (default: $COMPOWORLD_HOME/drop).")
    ] = None,
    tasks: Annotated[int, typer.Option(help="Tasks to compose around the new services.")] = 50,
) -> None:
    """Run the nightly expansion once: new spec files in, new services, tasks and exports out."""
    from flows.nightly import nightly_expansion
    from flows.report import print_run_summary

    summary = nightly_expansion(drop=drop, tasks=tasks)
    if "nothing_new" in summary:
        console.print(f"nothing new: {summary['nothing_new']}")
        return
    console.print(f"new or changed services: {', '.join(summary['new_services'])}")
    print_run_summary(summary, console)


if __name__ == "__main__":
    app()
