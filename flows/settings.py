"""Where CompoWorld keeps its data: ``$COMPOWORLD_HOME`` (default ``./.compoworld``), and its
warehouse: ``$COMPOWORLD_WAREHOUSE`` (a folder or an fsspec URL), default ``<home>/warehouse``."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = ".compoworld"

UI_PORT = 4200  # where `compoworld server` (and `prefect server start`) listen by default
CORS_ORIGINS = "PREFECT_SERVER_API_CORS_ALLOWED_ORIGINS"
# Prefect 3.9 also reads the older name; a value under either one is the user's choice.
CORS_ORIGINS_NAMES = (CORS_ORIGINS, "PREFECT_SERVER_CORS_ALLOWED_ORIGINS")


def home() -> Path:
    return Path(os.environ.get("COMPOWORLD_HOME", DEFAULT_HOME)).resolve()


def warehouse_root() -> str | Path:
    """The warehouse location: a shared folder or URL lets workers on many machines write one."""
    return os.environ.get("COMPOWORLD_WAREHOUSE") or home() / "warehouse"


def loopback_origins(port: int) -> str:
    """The pages allowed to call a local API cross-origin: its own UI under either loopback
    name (the UI may be opened as localhost while it calls 127.0.0.1), nothing else."""
    return f"http://127.0.0.1:{port},http://localhost:{port}"


def prefect_defaults() -> dict[str, str]:
    """Prefect settings every entry point applies unless the environment already sets them.

    - telemetry off: the server's (``PREFECT_SERVER_ANALYTICS_ENABLED``; on the temporary
      server its heartbeat also logs "database is locked", STACK.md) and the SDK's
      (``DO_NOT_TRACK``, read on import and before each event);
    - CORS: Prefect's API answers ``*`` by default, so any web page the user opens could
      drive the local API; only loopback origins of the UI's port are allowed.
    """
    return {
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        CORS_ORIGINS: loopback_origins(UI_PORT),
    }


def apply_prefect_defaults() -> None:
    """Set :func:`prefect_defaults` in ``os.environ`` where unset; before Prefect is imported,
    so its settings (and the servers it starts, which inherit the environment) take them."""
    for name, value in prefect_defaults().items():
        if name == CORS_ORIGINS and any(n in os.environ for n in CORS_ORIGINS_NAMES):
            continue  # the user's origins, under either name
        os.environ.setdefault(name, value)


def server_env(port: int) -> dict[str, str]:
    """Settings for a local API server started on ``port``: the loopback origins of that
    port, unless the user chose other origins (a value other than the default)."""
    default = loopback_origins(UI_PORT)
    if any(os.environ.get(name, default) != default for name in CORS_ORIGINS_NAMES):
        return {}
    return {CORS_ORIGINS: loopback_origins(port)}
