"""``compoworld alerts``: create the nightly expansion's alert automations."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import typer
from rich.console import Console


def alerts(
    notify: Annotated[
        str | None,
        typer.Option(
            help="A saved notification block, <block type>/<name> (e.g. slack-webhook/ops)."
        ),
    ] = None,
    quiet_hours: Annotated[
        float, typer.Option(min=0.001, help="Alert when the nightly grew nothing for this long.")
    ] = 49.0,
) -> None:
    """Create (or replace) the automations that fire when a nightly-expansion run fails or
    the nightly grows nothing for two nights, on the server PREFECT_API_URL names."""
    import os

    from flows.alerts import AlertSetupError, create_alerts

    console = Console()
    if not os.environ.get("PREFECT_API_URL"):
        console.print(
            "[red]error:[/red] PREFECT_API_URL is not set: alerts live on a running server "
            "(compoworld server), not on a temporary one"
        )
        raise typer.Exit(2)
    try:
        made = create_alerts(notify, timedelta(hours=quiet_hours))
    except AlertSetupError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    console.print(f"automation 'nightly-expansion failed': {made.failed}")
    console.print(f"automation 'nightly-expansion grew nothing': {made.quiet}")
