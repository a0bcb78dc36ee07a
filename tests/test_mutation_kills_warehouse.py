"""The warehouse's folder and JSON columns (mutants of warehouse/store.py that survived the
other tests, bench/mutation.py): a warehouse opened at a folder not made yet (a path or a
``file://`` URL) makes it, parents and all; a map keyed by numbers (a count per day, per
step) is stored with its keys as text, as JSON has them, in the order it was given, and a
list keeps its order."""

from __future__ import annotations

import json
from pathlib import Path

from warehouse import Warehouse

from .warehouse_rows import run_row


def test_a_map_keyed_by_numbers_is_stored_with_text_keys_in_order(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    wh.append("runs", [run_row("r1", parameters={3: "c", 1: "a", "steps": [2, 1]})])
    stored = wh.query("select parameters from runs").column("parameters")[0].as_py()
    assert stored == '{"3":"c","1":"a","steps":[2,1]}'
    assert list(json.loads(stored)) == ["3", "1", "steps"]


def test_a_warehouse_in_a_folder_not_made_yet_makes_it_and_its_parents(tmp_path: Path) -> None:
    for location in (tmp_path / "home" / "data", f"file://{tmp_path}/other/data"):
        wh = Warehouse(location)
        assert wh.root.is_dir() and wh.count("runs") == 0
        assert Warehouse(location).root == wh.root  # and opens it again as it is
