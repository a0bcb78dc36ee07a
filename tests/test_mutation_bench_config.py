"""``bench/mutation.py`` runs, for each mutant, the tests ``[tool.mutmut]`` selects: a kill
test left out of that list kills nothing there (19 files were, once), so every one is in."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_mutation_kill_test_is_one_mutmut_runs() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    selected = set(config["pytest_add_cli_args_test_selection"])
    kills = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_mutation_kills_*.py")}
    assert kills and not kills - selected, sorted(kills - selected)
    assert all((ROOT / t).is_file() for t in selected), sorted(selected)
