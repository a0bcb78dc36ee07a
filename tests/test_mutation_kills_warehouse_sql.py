"""What the warehouse says when it refuses (mutants of warehouse/store.py that survived the
other tests, bench/mutation.py, seed 10): untrusted SQL is one SELECT or a plain EXPLAIN of
one, and a refusal names the statement as written and as DuckDB classes it (``TRUNCATE
(DELETE)``), a second statement, EXPLAIN ANALYZE or an EXPLAIN of a write; rows that do not
fit a table are refused naming the table, the row and the column; a batch id is
alphanumeric; and a URL names a folder of a protocol fsspec knows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from warehouse import Warehouse
from warehouse.schemas import table_schema
from warehouse.store import WarehouseError, _open_url, _protocol_package, content_id, to_table

from .warehouse_rows import run_row

REFUSED = {
    "": "no SQL statement given",
    " ; ": "no SQL statement given",
    "select 1; select 2": "read-only: one statement at a time (2 given, separated by ';')",
    "delete from runs": "read-only: DELETE statements are not allowed (only SELECT)",
    "truncate runs": "read-only: TRUNCATE (DELETE) statements are not allowed (only SELECT)",
    "insert into runs values (1)": "read-only: INSERT statements are not allowed (only SELECT)",
    "install httpfs": "read-only: INSTALL (LOAD) statements are not allowed (only SELECT)",
    "checkpoint": "read-only: CHECKPOINT (CALL) statements are not allowed (only SELECT)",
    "copy runs to 'x.csv'": "read-only: COPY statements are not allowed (only SELECT)",
    "pragma version": "read-only: PRAGMA statements are not allowed (only SELECT)",
    "explain analyze select 1": (
        "read-only: EXPLAIN ANALYZE runs the statement it explains and is not allowed "
        "(plain EXPLAIN is)"
    ),
    "EXPLAIN (ANALYSE) SELECT 1": (
        "read-only: EXPLAIN ANALYZE runs the statement it explains and is not allowed "
        "(plain EXPLAIN is)"
    ),
    "explain delete from runs": (
        "read-only: EXPLAIN of DELETE statement is not allowed (only SELECT)"
    ),
}


@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    wh = Warehouse(tmp_path)
    wh.append("runs", [run_row("r1"), run_row("r2", status="failed")])
    return wh


def test_a_refusal_names_the_statement_as_written_and_as_classed(wh: Warehouse) -> None:
    for sql, message in REFUSED.items():
        with pytest.raises(WarehouseError) as refused:
            wh.query_readonly(sql)
        assert str(refused.value) == message, sql
    with pytest.raises(WarehouseError, match=r"^SQL does not parse: .*selec"):
        wh.query_readonly("selec 1")
    assert wh.count("runs") == 2  # nothing refused ran


def test_one_select_or_a_plain_explain_of_one_is_answered(wh: Warehouse) -> None:
    answer = wh.query_readonly("select run_id from runs where status = 'failed'")
    assert answer.column("run_id").to_pylist() == ["r2"]
    assert wh.query_readonly("select count(*) as n from runs;").column("n")[0].as_py() == 2
    assert wh.query_readonly("explain /* analyze */ select 1").num_rows >= 1
    counted = wh.query_readonly("with f as (select * from runs) select count(*) as n from f")
    assert counted.column("n")[0].as_py() == 2


def test_rows_that_do_not_fit_a_table_are_refused_naming_where() -> None:
    runs = table_schema("runs")
    with pytest.raises(WarehouseError, match=r"^runs: row 1 has unknown columns \['color'\]$"):
        to_table([run_row("a"), run_row("b", color="red")], runs)
    lacking = {k: v for k, v in run_row("a").items() if k != "run_id"}
    with pytest.raises(WarehouseError, match=r"^runs: row 0 lacks required column 'run_id'$"):
        to_table([lacking], runs)
    with pytest.raises(WarehouseError, match=r"^runs: "):
        to_table([run_row("a", duration_s="slow")], runs)
    table = to_table([run_row("a")], runs)
    with pytest.raises(WarehouseError, match=r"^runs: required column 'run_id' is missing$"):
        to_table(table.drop_columns(["run_id"]), runs)
    with pytest.raises(WarehouseError, match=r"^runs: unknown columns \['extra'\]$"):
        to_table(table.append_column("extra", pa.array([1])), runs)
    required = ["run_id", "flow", "status", "started_at", "ended_at", "duration_s"]
    filled = to_table(table.select(required[::-1]), runs)  # reordered, nullable ones added
    assert filled.column_names == runs.schema.names
    assert filled.column("error").to_pylist() == [None]


def test_a_batch_is_named_by_its_content_and_a_given_id_must_be_alphanumeric(
    tmp_path: Path,
) -> None:
    wh = Warehouse(tmp_path)
    runs = table_schema("runs")
    same = content_id(to_table([run_row("a")], runs))
    assert same == content_id(to_table([run_row("a")], runs)) and len(same) == 32
    assert same != content_id(to_table([run_row("b")], runs))
    assert wh.append("runs", [run_row("a")]) and not wh.append("runs", [run_row("a")])
    assert wh.has_batch("runs", same)
    for bad in ("../x", "-lead", "a b", "x" * 201):
        with pytest.raises(WarehouseError, match="must be alphanumeric"):
            wh.append("runs", [run_row("c")], batch_id=bad)
    assert wh.append("runs", [run_row("c")], batch_id="v1.batch_2-a")
    assert wh.count("runs") == 2


def test_a_url_names_a_folder_of_a_protocol_fsspec_knows() -> None:
    with pytest.raises(WarehouseError, match=r"name a folder, e\.g\. memory://compoworld"):
        _open_url("memory://")
    with pytest.raises(WarehouseError, match=r"^warehouse 'nope://x': fsspec cannot open it"):
        _open_url("nope://x")
    with pytest.raises(WarehouseError, match="chained fsspec URLs"):
        Warehouse("simplecache::memory://x")
    assert _open_url("memory://x/")[1] == "/x"
    assert (_protocol_package("s3"), _protocol_package("nope")) == ("s3fs", "?")
