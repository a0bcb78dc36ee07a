"""Hostile inputs outside the sandbox: SQL, spec files, racing writers, secrets, model faults.

One test per attack of issue 13 (items 4 to 8); each fails when its defence is removed.
"""

from __future__ import annotations

import csv
import io
import json
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from flows.cli import app
from library.compose import Task
from library.judge import judge_rollouts
from library.rollout import Rollout
from tasks.compose import write_tasks
from tasks.rollout import write_judged
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


# -- writers racing on one warehouse (item 6) -----------------------------------------------

CONTACTS = {"c1": {"id": "c1", "name": "Alice", "title": "Engineer"}}


def small_task(task_id: str) -> Task:
    return Task(
        task_id=task_id,
        seed=0,
        services=["crm"],
        domain="sales",
        capabilities=["answer"],
        difficulty="easy",
        instruction=f"Tell me the total ({task_id}).",
        template_instruction="",
        initial_state={"crm": {"contacts": CONTACTS}},
        gold_plan=[],
        rubric=[{"kind": "answer_contains", "value": 42}],
    )


def small_group(task: Task) -> list[Rollout]:
    return [
        Rollout(
            rollout_id=f"{task.task_id}-r{sample}",
            task_id=task.task_id,
            group_id=f"{task.task_id}-g",
            sample=sample,
            policy="test",
            mode="direct",
            messages=[],
            tools=[],
            final_answer=answer,
            final_states={"crm": {"contacts": CONTACTS}},
            status="finished",
        )
        for sample, answer in enumerate(["42", "no idea"])
    ]


Writer = Callable[[Warehouse], object]


class PausingWarehouse(Warehouse):
    """A writer that stops right after it first reads ``table`` (its check), until released."""

    def __init__(self, root: str | Path, table: str) -> None:
        super().__init__(root)
        self.table, self.checked, self.release = table, threading.Event(), threading.Event()

    def query(self, sql: str, params: Any = None) -> pa.Table:
        result = super().query(sql, params)
        reads_table = f'"{self.table}"' in sql or f" {self.table}" in sql
        if reads_table and not self.checked.is_set():
            self.checked.set()
            assert self.release.wait(10), "the test never released the first writer"
        return result


def interleave(root: str | Path, table: str, first: Writer, second: Writer) -> bool:
    """Run ``first`` up to its check, then ``second`` (on another Warehouse of the same
    folder), then the rest of ``first``. True when ``second`` had to wait for ``first``: it
    could not even read the table while ``first`` stood between its check and its write."""
    wh_a, wh_b = PausingWarehouse(root, table), PausingWarehouse(root, table)
    wh_b.release.set()
    a = threading.Thread(target=first, args=(wh_a,))
    b = threading.Thread(target=second, args=(wh_b,))
    a.start()
    assert wh_a.checked.wait(10)
    b.start()
    waited = not wh_b.checked.wait(0.4)
    if not waited:
        b.join(10)  # the second writer ran through: let it finish before the first goes on
    wh_a.release.set()
    a.join(10)
    b.join(10)
    assert not a.is_alive() and not b.is_alive()
    return waited


@pytest.mark.parametrize("where", ["folder", "url"])
def test_overlapping_write_tasks_write_each_task_once(tmp_path: Path, where: str) -> None:
    # A local folder locks a file; a warehouse at a URL, this process's threads.
    location = str(tmp_path) if where == "folder" else f"memory://race-{uuid.uuid4().hex}"
    tasks = [small_task(f"t{i}") for i in range(6)]
    waited = interleave(
        location,
        "tasks",
        lambda wh: write_tasks(wh, tasks[:4], run="a"),
        lambda wh: write_tasks(wh, tasks[2:], run="b"),
    )
    ids = Warehouse(location).query("select task_id from tasks").column(0).to_pylist()
    assert sorted(ids) == [f"t{i}" for i in range(6)]  # the attack stored 10 rows for 6 ids
    assert waited


def test_overlapping_write_judged_write_each_rollout_once(tmp_path: Path) -> None:
    tasks = [small_task(f"t{i}") for i in range(3)]
    rollouts = [r for t in tasks for r in small_group(t)]
    judged = judge_rollouts(tasks, rollouts)
    waited = interleave(
        tmp_path,
        "rollouts",
        lambda wh: write_judged(wh, rollouts[:4], judged[:2]),
        lambda wh: write_judged(wh, rollouts[2:], judged[1:]),
    )
    wh = Warehouse(tmp_path)
    for table in ("rollouts", "criterion_results", "rollout_scores"):  # one criterion a task
        ids = wh.query(f"select rollout_id from {table}").column(0).to_pylist()
        assert sorted(ids) == sorted(r.rollout_id for r in rollouts), table
    assert waited


def test_append_absent_keeps_units_whole_and_reruns_add_nothing(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    rows = [run_row("r1", flow="a"), run_row("r1", flow="b"), run_row("r2")]
    assert wh.append_absent("runs", rows, key="run_id", prefix="runs") == 3
    assert wh.append_absent("runs", [*rows, run_row("r3")], key="run_id", prefix="runs") == 1
    assert wh.count("runs") == 4
    with pytest.raises(KeyError, match="unknown warehouse table"):
        wh.append_absent("nope", rows, key="run_id", prefix="x")
