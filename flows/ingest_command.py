"""``compoworld ingest`` (placeholder until the ingestion stage lands)."""

from __future__ import annotations

from typing import Annotated

import typer


def ingest(
    paths: Annotated[list[str], typer.Argument(help="Spec files, folders or globs.")],
) -> None:
    """Ingest tool specifications into the warehouse."""
    raise typer.BadParameter("ingestion is not built yet")
