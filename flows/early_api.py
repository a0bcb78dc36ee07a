"""Boot a temporary Prefect API server while the stages' heavy imports load.

Without ``PREFECT_API_URL`` a flow's first call starts Prefect's temporary local server and
waits for it: 6-10 s on 2 cores (STACK.md), most of it the server process importing Prefect's
server code, and 3 s of the same imports in the calling process just to start it. Here the
server process is started before anything imports Prefect: the same command Prefect runs for
its temporary server, on a free port, with ``PREFECT_API_URL`` pointing at it. The server
then boots on one core while this process imports the stages (litellm, Great Expectations,
Prefect's client) on the other, and the flow starts as soon as both are done. The server
ends with this process.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from flows.settings import server_env


class TemporaryApiError(RuntimeError):
    pass


@dataclass(slots=True)
class TemporaryApi:
    process: subprocess.Popen[bytes]
    url: str
    timeout_s: float
    stderr: IO[bytes]
    _ready: threading.Event = field(default_factory=threading.Event)
    _error: str | None = None

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._error = (
                    f"the temporary Prefect server exited with code {self.process.returncode}"
                )
                break
            health = f"{self.url}/health"
            with contextlib.suppress(OSError), urllib.request.urlopen(health, timeout=2) as answer:
                if answer.status == 200:
                    break
            time.sleep(0.1)
        else:
            self._error = (
                f"the temporary Prefect server did not answer within {self.timeout_s:.0f} s"
            )
        self._ready.set()

    def stop(self) -> None:
        # Killed, not shut down gracefully: nothing in it outlives the run (its SQLite
        # database is crash-safe), and a graceful stop costs the run a second.
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _die_with_parent() -> None:
    """In the server process: end when this process ends, even by SIGKILL (Linux), so a
    killed run leaves no server behind."""
    if sys.platform == "linux":
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_in_background() -> TemporaryApi | None:
    """Start the server process and a thread that waits for it; None when a server is set
    (``PREFECT_API_URL``) or Prefect is already imported (its settings are read by then)."""
    if os.environ.get("PREFECT_API_URL") or "prefect" in sys.modules:
        return None
    spec = importlib.util.find_spec("prefect")
    if spec is None or not spec.submodule_search_locations:
        return None  # no Prefect here: let the flow call say so
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--app-dir",
        str(package_dir.parent),
        "--factory",
        "prefect.server.api.server:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "error",
        "--lifespan",
        "on",
    ]
    # What Prefect's own temporary server sets: no UI, ephemeral mode; and cross-origin
    # calls from its own loopback origins only (not Prefect's `*`).
    env = (
        os.environ
        | server_env(port)
        | {
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
        }
    )
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server; read on failure)
    process = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr, preexec_fn=_die_with_parent
    )
    timeout = float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120"))
    api = TemporaryApi(process, f"http://127.0.0.1:{port}/api", timeout, stderr)
    atexit.register(api.stop)
    os.environ["PREFECT_API_URL"] = api.url  # before Prefect is imported, so it is used
    threading.Thread(target=api.wait_healthy, name="prefect-api-start", daemon=True).start()
    return api


def wait_until_up(api: TemporaryApi | None, meanwhile: Iterable[str] = ()) -> None:
    """Block until the server answers; a clear error (with its stderr) if it cannot start.

    ``meanwhile``: modules the run will import later anyway (the stages import their heavy
    libraries lazily), imported now while the server boots on the other core.
    """
    if api is None:
        return
    for module in meanwhile:
        if api._ready.is_set():
            break
        importlib.import_module(module)
    api._ready.wait()
    if api._error is not None:
        api.stop()
        api.stderr.seek(0)
        stderr = api.stderr.read().decode(errors="replace")[-3000:]
        raise TemporaryApiError(f"{api._error}; its stderr:\n{stderr}")
