"""Shared by the serving tests: a small warehouse of composed tasks over the reference
services, MCP clients on the real transports, and a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from library.compose import Task, compose_tasks
from library.compose.run import task_world
from library.services import reference_service_classes
from warehouse import Warehouse

CLASSES = reference_service_classes()
ROOT = Path(__file__).resolve().parents[1]


def make_home(root: Path, n: int = 3, seed: int = 0) -> tuple[Path, list[Task]]:
    """A COMPOWORLD_HOME whose warehouse holds ``n`` composed tasks (split ``rl``)."""
    tasks = [
        t.model_copy(update={"split": "rl"}) for t in compose_tasks(CLASSES, n, seed=seed).tasks
    ]
    home = root / "home"
    Warehouse(home / "warehouse").append("tasks", [t.to_row() for t in tasks])
    return home, tasks


def initial_states(task: Task) -> dict[str, Any]:
    """The task's services as they start (what a do-nothing episode ends with)."""
    world = task_world(task, CLASSES)
    return {n: world.services[n].state.model_dump(mode="json") for n in task.services}


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COMPOWORLD_WAREHOUSE"}
    return env | {"COMPOWORLD_HOME": str(home), "NO_COLOR": "1"}


def cli_args(*args: str) -> list[str]:
    return ["-m", "flows.cli", "mcp", *args]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def http_server(home: Path, args: Sequence[str]) -> Iterator[str]:
    """``compoworld mcp --transport http`` in a subprocess; yields its URL."""
    port = free_port()
    cmd = [sys.executable, *cli_args(*args, "--transport", "http", "--port", str(port))]
    proc = subprocess.Popen(
        cmd, env=cli_env(home), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError("the MCP server did not start in 60 s") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def make_built_home(root: Path, services: Sequence[str], n: int = 2) -> Path:
    """A COMPOWORLD_HOME with ``services`` (bundled specs) compiled into generated code and
    ``n`` tasks composed over them."""
    from library.llm import LLMSettings
    from tasks.build import BuildSettings, build_services
    from tasks.compose import compose_stage
    from tasks.ingest import bundled_corpus, ingest_paths

    home = root / "home"
    wh = Warehouse(home / "warehouse")
    ingest_paths([str(bundled_corpus() / s) for s in services], wh.root)
    build_services(wh, BuildSettings(llm=LLMSettings(model=None)))
    compose_stage(wh, n, seed=3, min_services=2)
    return home
