"""``compoworld server`` (the Prefect server with its UI) and ``compoworld serve`` (the
deployments, served from this process so a person can trigger runs from the UI)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Annotated

import typer
from rich.console import Console

from flows.settings import server_env


def server(
    port: Annotated[int, typer.Option(help="Port of the API and UI.")] = 4200,
) -> None:
    """Start the Prefect server with its UI on 127.0.0.1 (runs until stopped)."""
    console = Console()
    console.print(
        f"Prefect UI: http://127.0.0.1:{port}   then, in another shell:\n"
        f"  export PREFECT_API_URL=http://127.0.0.1:{port}/api && compoworld serve"
    )
    cmd = [
        sys.executable,
        "-m",
        "prefect",
        "server",
        "start",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    # The UI calls the API at PREFECT_UI_API_URL, which defaults to port 4200 whatever --port is.
    # Cross-origin calls from this UI's loopback pages only (Prefect's default is `*`).
    env = os.environ | server_env(port) | {"PREFECT_UI_API_URL": f"http://127.0.0.1:{port}/api"}
    raise typer.Exit(subprocess.call(cmd, env=env))


def serve(
    cron: Annotated[str, typer.Option(help="Schedule of the nightly expansion.")] = "0 2 * * *",
    timezone: Annotated[str, typer.Option(help="Time zone of the schedule.")] = "UTC",
) -> None:
    """Serve the factory, the nightly expansion (on its schedule), every stage flow and SFT
    training, so runs can be triggered from the UI. Needs PREFECT_API_URL (see
    `compoworld server`)."""
    from prefect import serve as prefect_serve
    from prefect.client.schemas.schedules import CronSchedule

    from flows import stages
    from flows.factory import factory
    from flows.nightly import nightly_expansion
    from flows.training import train_sft

    if not os.environ.get("PREFECT_API_URL"):
        Console(stderr=True).print(
            "[red]error:[/red] PREFECT_API_URL is not set: start `compoworld server` and export "
            "PREFECT_API_URL=http://127.0.0.1:4200/api"
        )
        raise typer.Exit(2)
    deployments = [
        factory.to_deployment(name="factory", tags=["compoworld"]),
        nightly_expansion.to_deployment(
            name="nightly-expansion",
            schedule=CronSchedule(cron=cron, timezone=timezone),
            tags=["compoworld", "nightly"],
        ),
    ]
    for stage in stages.STAGE_FLOWS:
        deployments.append(stage.to_deployment(name=stage.name, tags=["compoworld", "stage"]))
    # Training runs here too, in $COMPOWORLD_TRAIN_PYTHON; on a team's setup it has its own
    # GPU pool (prefect.yaml).
    deployments.append(train_sft.to_deployment(name="train-sft", tags=["compoworld", "gpu"]))
    prefect_serve(*deployments, limit=1)
