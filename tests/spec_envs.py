"""The composition environment over some of ``../shared/specs``, for the real-spec tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compose import ComposeConfig, ComposeEnv, make_env
from library.compose.spec_library import spec_library

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"


def spec_env(*paths: Path) -> ComposeEnv:
    """The environment over these spec files (the test is skipped where one is missing)."""
    if not all(p.is_file() for p in paths):
        pytest.skip("specs not present")
    library = spec_library(list(paths))
    return make_env(library.classes, library.nodes, config=ComposeConfig())
