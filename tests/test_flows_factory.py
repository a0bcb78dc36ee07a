"""The factory flow runs for real against a temporary Prefect API and records itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from tasks.reference import describe_reference_world
from tasks.runs import recorded_run
from warehouse import Warehouse


def test_reference_world_summary_is_deterministic() -> None:
    a, b = describe_reference_world(seed=1), describe_reference_world(seed=1)
    assert a == b
    assert a["services"] >= 1 and a["tools"] >= 8 and a["records"] > 0


def test_recorded_run_writes_failed_runs_too(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(RuntimeError), recorded_run(wh, "demo", {"x": 1}, run_id="r-fail") as s:
        s["partial"] = True
        raise RuntimeError("stage exploded")
    row = wh.query("select * from runs").to_pylist()[0]
    assert row["status"] == "failed" and "stage exploded" in row["error"]
    assert json.loads(row["summary"]) == {"partial": True}


def test_factory_flow_records_a_run_visible_to_sql(prefect_harness: None, home: Path) -> None:
    from flows.factory import factory

    state = factory(seed=0, seed_size=10, return_state=True)
    assert state.is_completed()
    summary = state.result()
    assert summary["reference_world"]["tools"] >= 8
    result = CliRunner().invoke(
        app, ["sql", "select flow, status, summary from runs", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 1 and rows[0]["flow"] == "factory" and rows[0]["status"] == "completed"
    assert json.loads(rows[0]["summary"])["reference_world"] == summary["reference_world"]


def test_sql_command_formats_and_errors(home: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(
        app, ["sql", "select 1 as a, 'x' as b", "--format", "csv"]
    ).stdout.splitlines() == ['"a","b"', '1,"x"']
    assert "1 row" in runner.invoke(app, ["sql", "select 1 as a"]).stdout
    bad = runner.invoke(app, ["sql", "drop view runs"])
    assert bad.exit_code == 2 and "read-only" in bad.output
    missing = runner.invoke(app, ["sql", "select * from nowhere"])
    assert missing.exit_code == 2 and "nowhere" in missing.output
