"""Hostile inputs outside the sandbox: SQL, spec files, racing writers, secrets, model faults.

One test per attack of issue 13 (items 4 to 8); each fails when its defence is removed.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from warehouse import Warehouse, WarehouseError

from .warehouse_rows import run_row

# -- compoworld sql is read-only (item 4) ---------------------------------------------------


@pytest.fixture
def cli_home(home: Path) -> Warehouse:
    """A home whose warehouse holds one ``runs`` row, as ``compoworld sql`` sees it."""
    wh = Warehouse(home / "warehouse")
    wh.append("runs", [run_row("r1")], batch_id="b1")
    return wh


def _sql(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["sql", *args])
    return result.exit_code, result.output


def test_sql_explain_analyze_copy_into_the_warehouse_is_refused(cli_home: Warehouse) -> None:
    folder = cli_home.table_dir("runs")
    code, out = _sql(f"EXPLAIN /* x */ ANALYZE COPY (SELECT * FROM runs) TO '{folder}/x.parquet'")
    assert code == 2 and "EXPLAIN ANALYZE runs the statement" in out
    assert cli_home.count("runs") == 1  # the attack doubled the table
    assert [p.name for p in folder.iterdir()] == ["b1.parquet"]


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("COPY runs TO '{folder}/y.parquet'", "COPY statements are not allowed"),
        ("EXPLAIN (ANALYZE) SELECT 1", "EXPLAIN ANALYZE"),
        ("EXPLAIN COPY runs TO '{folder}/y.parquet'", "EXPLAIN of COPY statement"),
        ("ATTACH '{folder}/x.db' AS x", "ATTACH statements are not allowed"),
        ("INSTALL httpfs", "INSTALL (LOAD) statements are not allowed"),
        ("LOAD httpfs", "LOAD statements are not allowed"),
        ("SET enable_external_access = true", "SET statements are not allowed"),
        ("PRAGMA enable_profiling", "PRAGMA statements are not allowed"),
        ("SELECT 1; COPY runs TO '{folder}/y.parquet'", "one statement at a time (2 given"),
    ],
)
def test_sql_refuses_everything_but_one_query(cli_home: Warehouse, sql: str, reason: str) -> None:
    folder = cli_home.table_dir("runs")
    with pytest.raises(WarehouseError, match="read-only") as info:
        cli_home.query_readonly(sql.format(folder=folder))
    assert reason in str(info.value)
    assert [p.name for p in folder.iterdir()] == ["b1.parquet"]


def test_sql_plain_explain_and_queries_still_work(cli_home: Warehouse) -> None:
    assert cli_home.query_readonly("EXPLAIN SELECT * FROM runs").num_rows == 1
    assert cli_home.query_readonly("SELECT count(*) AS n FROM runs").to_pylist() == [{"n": 1}]


@pytest.mark.parametrize(
    "source",
    [
        "read_csv('http://127.0.0.1:9/x.csv')",  # the attack: DuckDB installed httpfs and fetched
        "read_csv('/etc/passwd')",
        "read_parquet('{outside}')",
    ],
)
def test_sql_cannot_reach_files_or_the_network(
    cli_home: Warehouse, tmp_path: Path, source: str
) -> None:
    outside = tmp_path / "outside.parquet"
    Warehouse(tmp_path / "other").append("runs", [run_row("x")], batch_id="o")
    outside.write_bytes(next((tmp_path / "other").rglob("o.parquet")).read_bytes())
    code, out = _sql(f"SELECT * FROM {source.format(outside=outside)}")
    assert code == 2 and "reaches outside the warehouse" in out


def test_sql_connection_is_locked_down(cli_home: Warehouse) -> None:
    con = cli_home.locked_connection()
    try:

        def setting(name: str) -> object:
            return con.sql(f"SELECT current_setting('{name}') AS v").to_arrow_table()[0][0].as_py()

        assert setting("enable_external_access") is False
        assert setting("autoinstall_known_extensions") is False
        assert setting("autoload_known_extensions") is False
        assert str(cli_home.root) in str(setting("allowed_directories"))
        with pytest.raises(Exception, match="configuration has been locked"):
            con.execute("SET autoload_known_extensions = true")
    finally:
        con.close()


def test_sql_csv_writes_list_columns_as_json(cli_home: Warehouse) -> None:
    code, out = _sql(
        "SELECT ['crm', 'mail'] AS services, {'a': 1} AS s, NULL::VARCHAR[] AS e", "-f", "csv"
    )
    assert code == 0, out
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["services", "s", "e"]
    assert json.loads(rows[1][0]) == ["crm", "mail"] and json.loads(rows[1][1]) == {"a": 1}
    assert rows[1][2] == ""
