"""The warehouse: atomic, idempotent Parquet appends and read-only SQL over DuckDB views."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from warehouse import Warehouse, WarehouseError

from .conftest import ROOT
from .warehouse_rows import NOW, run_row


def test_empty_tables_are_queryable(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    result = wh.query("select * from runs")
    assert result.num_rows == 0
    assert "run_id" in result.column_names


def test_append_is_idempotent_by_batch_id_and_by_content(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    assert wh.append("runs", [run_row("r1")], batch_id="b1") is True
    assert wh.append("runs", [run_row("r1-again")], batch_id="b1") is False
    assert wh.append("runs", [run_row("r2")]) is True
    assert wh.append("runs", [run_row("r2")]) is False  # same content, same default id
    assert sorted(wh.query("select run_id from runs").column("run_id").to_pylist()) == ["r1", "r2"]
    assert not list(tmp_path.rglob(".tmp-*"))  # no temp files left behind


def test_json_columns_and_new_files_show_up_in_views(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    wh.append("runs", [run_row("r1", parameters={"n": 3, "tags": ["a"]})])
    assert wh.count("runs") == 1
    wh.append("runs", [run_row("r2")])
    assert wh.count("runs") == 2
    n = wh.query("select parameters->>'$.n' as n from runs where run_id='r1'").column("n")[0]
    assert n.as_py() == "3"


def test_arrow_input_is_conformed_to_the_schema(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    table = pa.table(
        {
            "run_id": ["a"],
            "flow": ["f"],
            "status": ["ok"],
            "started_at": [NOW],
            "ended_at": [NOW],
            "duration_s": [0.1],
        }
    )
    assert wh.append("runs", table)
    assert wh.query("select error from runs").column("error").to_pylist() == [None]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"run_id": "x"}], "lacks required column 'flow'"),
        ([run_row("x", colour="red")], "unknown columns ['colour']"),
        ([run_row("x", duration_s="slow")], "runs:"),
    ],
)
def test_bad_rows_are_refused_with_a_clear_error(tmp_path: Path, rows: list, message: str) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(WarehouseError, match=None) as info:
        wh.append("runs", rows)
    assert message in str(info.value)
    assert wh.count("runs") == 0


def test_unknown_table_and_bad_batch_id(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(KeyError, match="unknown warehouse table 'nope'"):
        wh.append("nope", [])
    with pytest.raises(WarehouseError, match="batch id"):
        wh.append("runs", [run_row("x")], batch_id="../escape")


@pytest.mark.parametrize(
    "sql",
    [
        "create table t as select 1",
        "copy runs to '/tmp/x.csv'",
        "select 1; drop view runs",
        "insert into runs select * from runs",
        "attach 'x.db'",
    ],
)
def test_query_readonly_refuses_writes(tmp_path: Path, sql: str) -> None:
    with pytest.raises(WarehouseError, match="read-only"):
        Warehouse(tmp_path).query_readonly(sql)


WRITER = """
import sys, time, datetime as dt, json, pathlib
import pyarrow.parquet as pq
from warehouse import Warehouse
wh = Warehouse(sys.argv[1]); who = sys.argv[2]; meet = pathlib.Path(sys.argv[3])
other = "b" if who == "a" else "a"
now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
shared = {"i": None}
write_table = pq.write_table

def write_then_meet(table, where, **kw):
    # Both writers of a shared batch meet after writing their temporary file (so both have
    # passed the store's exists() check) and before publishing it: a true race every time.
    write_table(table, where, **kw)
    if shared["i"] is not None:
        (meet / f"{who}-{shared['i']}").touch()
        deadline = time.monotonic() + 20
        while not (meet / f"{other}-{shared['i']}").exists() and time.monotonic() < deadline:
            time.sleep(0.0005)

pq.write_table = write_then_meet
won = {}
for i in range(40):
    row = {"run_id": f"{who}-{i}", "flow": "f", "status": "ok", "started_at": now,
           "ended_at": now, "duration_s": 0.0}
    shared["i"] = None
    wh.append("runs", [row], batch_id=f"{who}-{i}")
    shared["i"] = i
    mine = row | {"run_id": f"shared-{i}", "flow": who}
    won[i] = wh.append("runs", [mine], batch_id=f"shared-{i}")
print(json.dumps(won))
"""


def test_two_processes_racing_on_batch_ids_one_wins_each(tmp_path: Path) -> None:
    """Both writers of each shared batch id reach the publish step together; exactly one
    must win, and the stored rows must be the winner's (an overwrite lets both "win")."""
    meet = tmp_path / "meet"
    meet.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path / "wh"), who, str(meet)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    won = {who: json.loads(out) for who, out in zip(("a", "b"), outs, strict=True)}
    wh = Warehouse(tmp_path / "wh")
    rows = wh.query("select run_id, flow from runs").to_pylist()
    own = sorted(r["run_id"] for r in rows if not r["run_id"].startswith("shared"))
    assert own == sorted([f"a-{i}" for i in range(40)] + [f"b-{i}" for i in range(40)])
    stored = {r["run_id"]: r["flow"] for r in rows if r["run_id"].startswith("shared")}
    assert len(rows) == 120 and len(stored) == 40
    for i in range(40):
        winners = [who for who in ("a", "b") if won[who][str(i)]]
        assert len(winners) == 1, f"shared-{i}: {winners or 'nobody'} won"
        assert stored[f"shared-{i}"] == winners[0], f"shared-{i} holds the loser's rows"
    assert len(list((tmp_path / "wh" / "runs" / "v1").glob("*.parquet"))) == 120
