"""Where CompoWorld keeps its data: ``$COMPOWORLD_HOME`` (default ``./.compoworld``), and its
warehouse: ``$COMPOWORLD_WAREHOUSE`` (a folder or an fsspec URL), default ``<home>/warehouse``."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = ".compoworld"


def home() -> Path:
    return Path(os.environ.get("COMPOWORLD_HOME", DEFAULT_HOME)).resolve()


def warehouse_root() -> str | Path:
    """The warehouse location: a shared folder or URL lets workers on many machines write one."""
    return os.environ.get("COMPOWORLD_WAREHOUSE") or home() / "warehouse"
