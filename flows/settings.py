"""Where CompoWorld keeps its data: ``$COMPOWORLD_HOME`` (default ``./.compoworld``)."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_HOME = ".compoworld"


def home() -> Path:
    return Path(os.environ.get("COMPOWORLD_HOME", DEFAULT_HOME)).resolve()


def warehouse_root() -> Path:
    return home() / "warehouse"
