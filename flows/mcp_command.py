"""``compoworld mcp``: serve a task (or bare services) as an MCP server, over stdio or
streamable HTTP on 127.0.0.1. Needs the ``serve`` extra."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from flows.settings import warehouse_root


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


class ServeMode(StrEnum):
    direct = "direct"
    gateway = "gateway"


def mcp(
    task: Annotated[
        str | None, typer.Option("--task", help="A task id (or a unique prefix of one).")
    ] = None,
    services: Annotated[
        str | None, typer.Option("--services", help="Bare services instead: a,b,c.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bare services' records.")] = 0,
    mode: Annotated[
        ServeMode, typer.Option(help="direct: every tool; gateway: the four meta-tools.")
    ] = ServeMode.direct,
    transport: Annotated[Transport, typer.Option(help="stdio, or streamable HTTP.")] = (
        Transport.stdio
    ),
    port: Annotated[int, typer.Option(help="HTTP port on 127.0.0.1.")] = 8000,
) -> None:
    """Serve a task or services as an MCP server (one World per session; episode control
    through the compoworld/reset and compoworld/score methods, not through tools)."""
    err = Console(stderr=True)  # stdout is the protocol's channel over stdio
    try:
        import mcp  # noqa: F401  # the extra, checked before any work

        from tasks.review import TaskNotFound
        from tasks.serve import UnknownService, serve_mcp, served
        from warehouse import Warehouse
    except ImportError as exc:
        err.print(f"[red]error:[/red] {exc}; install the extra: pip install 'compoworld[serve]'")
        raise typer.Exit(2) from None
    names = [s.strip() for s in (services or "").split(",") if s.strip()]
    if (task is None) == (not names):
        err.print("[red]error:[/red] give either --task ID or --services a,b")
        raise typer.Exit(2)
    try:
        what = served(
            Warehouse(warehouse_root()),
            task_id=task.strip() if task else None,
            services=names,
            seed=seed,
            mode=mode.value,
        )
    except (TaskNotFound, UnknownService) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    try:
        if transport is Transport.http:
            err.print(f"MCP on http://127.0.0.1:{port}/mcp ({what.task.task_id}, {mode.value})")
        serve_mcp(what, transport.value, port)
    except KeyboardInterrupt:
        pass
    finally:
        what.close()
