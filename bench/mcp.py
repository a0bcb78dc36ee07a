"""What the MCP protocol costs: tool calls per second through ``compoworld mcp`` over stdio
and streamable HTTP (the SDK's own client, one session; and HTTP with many sessions at once)
beside the same call in process. Prints figures; asserts nothing.

    .venv/bin/python bench/mcp.py            # 300 calls a transport, 20 concurrent sessions
    .venv/bin/python bench/mcp.py --calls 1000 --sessions 50

The server runs in a subprocess and the client here, so on a small machine both share its
cores: the figures are what one client sees, not the server's ceiling.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path, and this file would shadow
# the ``mcp`` package it measures.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent]

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from library.compose import compose_tasks  # noqa: E402
from library.rollout import InProcessEnv  # noqa: E402
from library.serve.episode import Episode  # noqa: E402
from library.services import reference_service_classes  # noqa: E402
from warehouse import Warehouse  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOOL, ARGS = "crm__list_contacts", {"limit": 5}


def in_process_us(episode: Episode, n: int) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            episode.call(TOOL, ARGS)
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


async def calls_per_s(client: Client, n: int) -> float:
    await client.call_tool(TOOL, ARGS)  # warm
    t0 = time.perf_counter()
    for _ in range(n):
        await client.call_tool(TOOL, ARGS)
    return n / (time.perf_counter() - t0)


def cli(home: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "COMPOWORLD_HOME": str(home)}
    env.pop("COMPOWORLD_WAREHOUSE", None)
    return [sys.executable, "-m", "flows.cli", "mcp", *args], env


async def stdio_rate(home: Path, task_id: str, n: int) -> float:
    cmd, env = cli(home, "--task", task_id)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=str(ROOT))
    async with Client(stdio_client(params)) as client:
        return await calls_per_s(client, n)


async def http_rates(url: str, n: int, sessions: int) -> tuple[float, float, float]:
    """(calls/s of one session, calls/s of ``sessions`` at once, session set-ups/s)."""
    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            one = await calls_per_s(client, n)
        per = max(1, n // sessions)

        async def session() -> None:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                for _ in range(per):
                    await client.call_tool(TOOL, ARGS)

        t0 = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(sessions):
                tg.start_soon(session)
        many = per * sessions / (time.perf_counter() - t0)

        t0 = time.perf_counter()
        for _ in range(10):
            async with Client(streamable_http_client(url, http_client=http)) as client:
                pass
        setups = 10 / (time.perf_counter() - t0)
    return one, many, setups


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_http(home: Path, task_id: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd, env = cli(home, "--task", task_id, "--transport", "http", "--port", str(port))
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("the MCP server did not start") from None
            time.sleep(0.1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=20)
    opts = parser.parse_args(argv)

    classes = reference_service_classes()
    task = compose_tasks(classes, 1, seed=0).tasks[0]
    episode = Episode(task, InProcessEnv(classes), "direct")
    episode.reset()
    us = in_process_us(episode, 2000)
    rows: list[tuple[str, Any]] = [("in process (Episode.call)", f"{1e6 / us:,.0f} calls/s")]

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        Warehouse(home / "warehouse").append("tasks", [task.to_row()])
        rate = anyio.run(stdio_rate, home, task.task_id, opts.calls)
        rows.append(("MCP stdio, one session", f"{rate:,.0f} calls/s"))
        proc, url = serve_http(home, task.task_id)
        try:
            one, many, setups = anyio.run(http_rates, url, opts.calls, opts.sessions)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    rows.append(("MCP HTTP, one session", f"{one:,.0f} calls/s"))
    rows.append((f"MCP HTTP, {opts.sessions} sessions at once", f"{many:,.0f} calls/s"))
    rows.append(("MCP HTTP, session set-up", f"{setups:,.1f} sessions/s"))

    print(f"tool {TOOL}, {opts.calls} calls a transport, {os.cpu_count()} cores")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


if __name__ == "__main__":
    main()
