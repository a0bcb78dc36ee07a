"""The ``compoworld`` command line."""

from __future__ import annotations

import logging
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import orjson
import typer
from rich.console import Console
from rich.table import Table

from flows.alerts_command import alerts
from flows.build_command import build
from flows.compose_command import compose, graph
from flows.eval_command import eval_
from flows.export_command import export
from flows.ingest_command import ingest
from flows.mcp_command import mcp
from flows.serve_command import serve, server
from flows.settings import warehouse_root
from flows.show_command import show_app
from flows.status_command import status

if TYPE_CHECKING:
    import pyarrow as pa

# Quiet defaults for the embedded Prefect server (telemetry and CORS: flows/__init__.py).
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# A new machine's first run migrates Prefect's database: more than the default 20 s on 2 cores.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
# The temporary server cannot start when PREFECT_HOME's parent folders are missing.
Path(os.environ.get("PREFECT_HOME", "~/.prefect")).expanduser().mkdir(parents=True, exist_ok=True)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
logging.getLogger("great_expectations").setLevel(logging.WARNING)

F = TypeVar("F", bound=Any)  # a Prefect flow

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
app.command(help="Curate the judged rollouts and write the exports.")(export)
app.command(name="eval", help="Compare policies on held-out tasks: pass^1, pass^k, reward.")(eval_)
app.command(help="Start the Prefect server and its UI on 127.0.0.1.")(server)
app.command(help="Serve the deployments (factory, nightly expansion, stages) to the UI.")(serve)
app.command(help="Serve a task or services as an MCP server (stdio or HTTP).")(mcp)
app.add_typer(show_app, name="show")
app.command(help="The library's trend over the last runs (from the warehouse).")(status)
app.command(help="Alert automations for the nightly expansion (failed, grew nothing).")(alerts)


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

        pacsv.write_csv(_flat_columns(result), sys.stdout.buffer)
    else:
        table = Table(*result.column_names, show_lines=False)
        for row in rows:
            table.add_row(*("" if v is None else str(v) for v in row.values()))
        console.print(table)
        console.print(f"[dim]{len(rows)} row(s)[/dim]")


def _flat_columns(result: pa.Table) -> pa.Table:
    """``result`` with its nested columns (lists, structs, maps) as JSON text, for CSV."""
    import pyarrow as pa

    for i, field in enumerate(result.schema):
        if pa.types.is_nested(field.type):
            text = [
                None if v is None else orjson.dumps(v, default=str).decode()
                for v in result.column(i).to_pylist()
            ]
            result = result.set_column(
                i, pa.field(field.name, pa.string()), pa.array(text, pa.string())
            )
    return result


RunnerOption = Annotated[
    str | None,
    typer.Option(
        "--task-runner",
        help="Where build and rollout batches run: threads[:N], dask[:N|:tcp://host:port], "
        "ray[:N|:host:port] (default: $COMPOWORLD_TASK_RUNNER, else threads:2).",
    ),
]


def _check_runner(runner: str | None) -> None:
    """Refuse a bad --task-runner (or $COMPOWORLD_TASK_RUNNER) before anything starts."""
    from flows.runners import TaskRunnerSettingError, check_runner

    try:
        check_runner(runner)
    except TaskRunnerSettingError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


def _with_runner(flow: F, runner: str | None) -> F:
    """``flow`` on the task runner the option names (its own otherwise)."""
    if runner is None:
        return flow
    from flows.runners import task_runner

    return flow.with_options(task_runner=task_runner(runner))


@app.command()
def run(
    tasks: Annotated[int, typer.Option(help="Tasks to compose.")] = 200,
    workers: Annotated[int, typer.Option(help="Sandboxed worker processes per batch.")] = 2,
    runner: RunnerOption = None,
    specs: Annotated[
        list[str] | None,
        typer.Option(help="Spec files or folders to build from (default: the bundled corpus)."),
    ] = None,
) -> None:
    """Run the main job (the factory flow) on the embedded defaults, or on --specs."""
    from flows.early_api import start_in_background, wait_until_up

    _check_runner(runner)
    api = start_in_background()  # boots while the imports below load
    from flows.factory import LAZY_IMPORTS, factory
    from flows.report import print_run_summary

    console.print(
        "[bold]CompoWorld factory[/bold]: ingest, build, graph, compose, rollout, judge, "
        f"curate, export on {', '.join(specs) if specs else 'the bundled corpus'} "
        "(Prefect flow 'factory')"
    )
    flow = _with_runner(factory, runner)
    wait_until_up(api, meanwhile=LAZY_IMPORTS)
    paths = [str(Path(p).resolve()) for p in specs] if specs else None
    print_run_summary(flow(spec_paths=paths, tasks=tasks, workers=workers), console)


@app.command()
def nightly(
    drop: Annotated[
        str | None, typer.Option(help="Drop folder of spec files (default: $COMPOWORLD_HOME/drop).")
    ] = None,
    tasks: Annotated[int, typer.Option(help="Tasks to compose around the new services.")] = 50,
    runner: RunnerOption = None,
) -> None:
    """Run the nightly expansion once: new spec files in, new services, tasks and exports out."""
    from flows.early_api import start_in_background, wait_until_up

    _check_runner(runner)
    api = start_in_background()
    from flows.factory import LAZY_IMPORTS
    from flows.nightly import nightly_expansion
    from flows.report import print_run_summary

    flow = _with_runner(nightly_expansion, runner)
    wait_until_up(api, meanwhile=LAZY_IMPORTS)
    summary = flow(drop=drop, tasks=tasks)
    if "nothing_new" in summary:
        return  # the run's log said so
    print_run_summary(summary, console)


train_app = typer.Typer(
    help="Train in the training environment ($COMPOWORLD_TRAIN_PYTHON, default this Python; "
    "needs the `train` extra there): SFT on the chat export (`compoworld train`), or GRPO "
    "with the rubric reward on warehouse tasks (`compoworld train rl`).",
    invoke_without_command=True,
    no_args_is_help=False,
)
app.add_typer(train_app, name="train")

ModelOption = Annotated[
    str, typer.Option(help="A local model folder, or 'tiny' (built here, for smoke runs).")
]


def _print_result(result: dict[str, Any]) -> None:
    # Rows carry datetimes (started_at, finished_at): JSON has no such type, print them as text.
    console.print_json(data={k: v for k, v in result.items() if k != "losses"}, default=str)


def _run_training(start: Any) -> dict[str, Any]:
    """Start the embedded API, run the training flow ``start()`` imports and calls."""
    from flows.early_api import start_in_background, wait_until_up

    api = start_in_background()
    from tasks.training import TrainingFailed

    wait_until_up(api)
    try:
        return start()["train"]
    except TrainingFailed as exc:
        err_console.print(f"[red]training failed:[/red] {exc}")
        raise typer.Exit(1) from None


@train_app.callback()
def train(
    ctx: typer.Context,
    model: ModelOption = "tiny",
    max_steps: Annotated[int, typer.Option(help="Optimizer steps.")] = 20,
    export: Annotated[
        str | None, typer.Option(help="A chat.jsonl export (default: the newest one).")
    ] = None,
    where: Annotated[
        str | None,
        typer.Option(
            help="Train on the completed rollouts this SQL selects from the warehouse instead "
            "(r: rollouts, s: rollout_scores, t: tasks; 'true' for all)."
        ),
    ] = None,
) -> None:
    """SFT (TRL) on the curated chat export, in the training environment
    ($COMPOWORLD_TRAIN_PYTHON, default this Python; needs the `train` extra there)."""
    if ctx.invoked_subcommand is not None:
        return

    def start() -> dict[str, Any]:
        from flows.training import train_sft

        return train_sft(export_path=export, model=model, max_steps=max_steps, where=where)

    _print_result(_run_training(start))


@train_app.command("rl")
def train_rl_command(
    model: ModelOption = "tiny",
    max_steps: Annotated[int, typer.Option(help="Optimizer steps.")] = 20,
    where: Annotated[
        str | None,
        typer.Option(help="SQL over t (the tasks table), e.g. \"t.domain = 'finance'\"."),
    ] = None,
    split: Annotated[str, typer.Option(help="Task split ('' for every split).")] = "rl",
    limit: Annotated[int | None, typer.Option(help="At most this many tasks.")] = None,
    reference_policy: Annotated[
        str | None,
        typer.Option(help="Keep only tasks whose pass rate under this policy is in the band."),
    ] = None,
    band: Annotated[str, typer.Option(help="LOW,HIGH pass rates kept.")] = "0.05,0.95",
    num_generations: Annotated[int, typer.Option(help="G: rollouts per task.")] = 4,
    batch_size: Annotated[int, typer.Option(help="Rollouts per device per step.")] = 4,
    max_completion_length: Annotated[
        int | None, typer.Option(help="Tokens per rollout (default: 256 tiny, 4096 others).")
    ] = None,
    max_tool_calls: Annotated[int, typer.Option(help="Tool-calling turns per rollout.")] = 16,
    lora: Annotated[bool, typer.Option(help="Train LoRA adapters (peft).")] = False,
    use_vllm: Annotated[bool, typer.Option(help="Generate with vLLM (GPU).")] = False,
) -> None:
    """GRPO (TRL) on RL tasks selected from the warehouse, rewarded by the
    Completion-Focused Rubric Reward within each group; records the data's lineage."""
    try:
        low, high = (float(x) for x in band.split(","))
    except ValueError:
        err_console.print("[red]error:[/red] --band is LOW,HIGH, e.g. 0.1,0.9")
        raise typer.Exit(2) from None

    def start() -> dict[str, Any]:
        from flows.training import train_rl

        return train_rl(
            model=model,
            max_steps=max_steps,
            where=where,
            split=split,
            limit=limit,
            reference_policy=reference_policy,
            band_low=low,
            band_high=high,
            num_generations=num_generations,
            batch_size=batch_size,
            max_completion_length=max_completion_length,
            max_tool_calls=max_tool_calls,
            lora=lora,
            use_vllm=use_vllm,
        )

    _print_result(_run_training(start))


if __name__ == "__main__":
    app()
