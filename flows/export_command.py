"""``compoworld export``: curate the judged rollouts and write the exports, without a flow."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from flows.settings import home, warehouse_root


def export(
    tools: Annotated[
        str,
        typer.Option(
            "--tools",
            help="Tools per sample: 'all' (every tool the agent was offered) or 'called+N' "
            "(the tools it called plus N others, those of the same services first). Gateway "
            "samples keep their four meta-tools either way.",
        ),
    ] = "all",
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default: $COMPOWORLD_HOME/exports).")
    ] = None,
) -> None:
    """Curate the judged rollouts (direct and gateway), run the quality gate, and write
    chat.jsonl, hf_dataset/, compoworld.jsonl and rl_tasks.jsonl."""
    from tasks.curate import curate
    from tasks.export import ExportBlocked, ToolsPolicy, export_all
    from warehouse import Warehouse

    console = Console()
    try:
        policy = ToolsPolicy.parse(tools)
    except ValueError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    wh = Warehouse(warehouse_root())
    curation = curate(wh)
    try:
        records = export_all(
            wh, out or home() / "exports", curation.kept, curation=curation, tools=policy
        )
    except ExportBlocked as exc:
        console.print(exc.markdown)
        raise typer.Exit(1) from None
    table = Table(title=f"exports (tools: {policy})")
    for column in ("kind", "records", "new", "path"):
        table.add_column(column)
    for r in records:
        table.add_row(r.kind, str(r.records), "yes" if r.new else "no", r.path)
    console.print(table)
    kept, considered = len(curation.kept), curation.considered
    console.print(f"curation: kept {kept} of {considered} rollouts; dropped {curation.dropped}")
