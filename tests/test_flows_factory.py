"""The factory flow runs for real against a temporary Prefect API and records itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from tasks.runs import recorded_run
from warehouse import Warehouse

from .conftest import FACTORY_REFERENCE, FactoryRun


def test_recorded_run_writes_failed_runs_too(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(RuntimeError), recorded_run(wh, "demo", {"x": 1}, run_id="r-fail") as s:
        s["partial"] = True
        raise RuntimeError("stage exploded")
    row = wh.query("select * from runs").to_pylist()[0]
    assert row["status"] == "failed" and "stage exploded" in row["error"]
    assert json.loads(row["summary"]) == {"partial": True}


@pytest.mark.slow
@FACTORY_REFERENCE
def test_factory_flow_records_a_run_visible_to_sql(
    factory_reference: FactoryRun, reference_home: Path
) -> None:
    # The session's factory run (conftest.factory_reference): two services, four tasks.
    assert factory_reference.completed
    summary = factory_reference.summary
    assert summary["ingest"]["services"] == 2
    assert summary["build"]["tools_verified"] > 0
    assert summary["compose"]["composed"] == 4
    runner = CliRunner()
    result = runner.invoke(
        app, ["sql", "select flow, status, summary from runs", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 1 and rows[0]["flow"] == "factory" and rows[0]["status"] == "completed"
    assert json.loads(rows[0]["summary"])["compose"] == summary["compose"]
    tasks = runner.invoke(app, ["sql", "select count(*) as n from tasks", "--format", "json"])
    assert json.loads(tasks.stdout) == [{"n": 4}]
    by_domain = runner.invoke(
        app,
        [
            "sql",
            "select t.domain, count(*) as rollouts, avg(s.reward) as reward from rollouts r "
            "join tasks t using (task_id) join rollout_scores s using (rollout_id) "
            "group by t.domain order by t.domain",
            "--format",
            "json",
        ],
    )
    rows = json.loads(by_domain.stdout)
    # The oracle rolls out in both modes (direct and gateway): exports hold both.
    oracle = summary["rollout"]["oracle"]["rollouts"]
    gateway = summary["rollout"]["oracle-gateway"]["rollouts"]
    assert oracle == gateway > 0
    assert sum(r["rollouts"] for r in rows) == oracle + gateway
    assert all(r["reward"] == 1.0 for r in rows)  # the oracle completes every task
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    keys = [
        "factory-summary",
        "factory-build-tiers",
        "factory-task-mix",
        "factory-criterion-pass-rates",
        "factory-exports",
    ]
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=keys))
        )
    assert {a.key for a in found} == set(keys)
    markdown = next(a for a in found if a.key == "factory-summary").data
    assert "compose" in markdown and "export chat_jsonl" in markdown
    exports = summary["export"]["exports"]
    assert exports["chat_jsonl"]["records"] > 0 and Path(exports["chat_jsonl"]["path"]).exists()


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
