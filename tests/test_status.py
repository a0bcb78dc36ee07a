"""The library's trend from a warehouse with several runs (``compoworld status`` and the
``library-health`` figures), the UI parameters' validation, and the stage reporter's
sampling of rejections: no Prefect server needed."""

from __future__ import annotations

import datetime as dt
import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.health import even_rows, health_markdown
from tasks.health import bar_chart, library_health
from warehouse import Warehouse

from .warehouse_rows import run_row

T0 = dt.datetime(2026, 11, 28, 2, tzinfo=dt.UTC)


def at(hours: float) -> dt.datetime:
    return T0 + dt.timedelta(hours=hours)


def service(name: str, tier: str, verified: int, built: dt.datetime) -> dict[str, object]:
    return {
        "service_id": f"{name}-{tier}",
        "name": name,
        "code": "",
        "code_hash": "h",
        "input_hash": "i",
        "tier": tier,
        "status": "verified",
        "attempts": 0,
        "tools_total": verified,
        "tools_verified": verified,
        "built_at": built,
        "duration_s": 1.0,
    }


def task(task_id: str, domain: str, created: dt.datetime) -> dict[str, object]:
    return {
        "task_id": task_id,
        "seed": 0,
        "services": ["crm", "helpdesk"],
        "domain": domain,
        "capabilities": ["cross-service"],
        "difficulty": "easy",
        "instruction": "do it",
        "initial_state": "{}",
        "gold_plan": "[]",
        "rubric": "[]",
        "split": "sft",
        "catch_rate": 1.0,
        "created_at": created,
    }


def rollout(rollout_id: str, task_id: str, policy: str, created: dt.datetime) -> dict[str, object]:
    return {
        "rollout_id": rollout_id,
        "task_id": task_id,
        "group_id": f"g-{rollout_id}",
        "sample": 0,
        "policy": policy,
        "mode": "direct",
        "messages": "[]",
        "tools": "[]",
        "steps": 1,
        "tool_calls": 1,
        "invalid_tool_calls": 0,
        "tool_errors": 0,
        "duration_s": 0.1,
        "status": "finished",
        "created_at": created,
    }


def score(rollout_id: str, task_id: str, reward: float) -> dict[str, object]:
    return {
        "rollout_id": rollout_id,
        "task_id": task_id,
        "group_id": f"g-{rollout_id}",
        "completed": reward == 1.0,
        "rubric_score": reward,
        "reward": reward,
        "advantage": 0.0,
    }


@pytest.fixture
def grown(home: Path) -> Warehouse:
    """Three growth runs: the factory (2 compiler services, 2 tasks), a nightly that added a
    coding-agent service and a task, and a nightly with nothing new; plus a stage run that
    is no growth run."""
    wh = Warehouse(home / "warehouse")
    wh.append("services", [service("crm", "compiler", 10, at(0.5))], batch_id="s1")
    wh.append("services", [service("helpdesk", "compiler", 6, at(0.6))], batch_id="s2")
    wh.append("services", [service("mail", "coding_agent", 4, at(24.5))], batch_id="s3")
    wh.append("tasks", [task("t1", "support", at(0.7)), task("t2", "sales", at(0.7))])
    wh.append("tasks", [task("t3", "support", at(24.7))])
    wh.append(
        "rollouts",
        [
            rollout("r1", "t1", "oracle", at(0.8)),
            rollout("r2", "t1", "litellm:m", at(0.8)),
            rollout("r3", "t3", "litellm:m", at(24.8)),
        ],
    )
    wh.append(
        "rollout_scores",
        [score("r1", "t1", 1.0), score("r2", "t1", 0.0), score("r3", "t3", 1.0)],
    )
    compose = {"compose": {"written": 2, "acceptance": 0.4, "mutation_catch_rate": 0.98}}
    runs = [
        run_row("f1", ended_at=at(1), summary=json.dumps(compose)),
        run_row("n1", flow="nightly-expansion", ended_at=at(25), summary="{}"),
        run_row(
            "n2",
            flow="nightly-expansion",
            ended_at=at(49),
            summary=json.dumps({"nothing_new": "no spec files in drop"}),
        ),
        run_row("s1", flow="build-services", ended_at=at(50)),
    ]
    for row in runs:
        wh.append("runs", [row], batch_id=str(row["run_id"]))
    return wh


def test_trend_counts_what_the_library_held_after_each_growth_run(grown: Warehouse) -> None:
    health = library_health(grown)
    assert [(r["flow"], r["services"], r["tools_verified"], r["tasks"]) for r in health.trend] == [
        ("factory", 2, 16, 2),
        ("nightly-expansion", 3, 20, 3),
        ("nightly-expansion", 3, 20, 3),
    ]
    first, second, last = health.trend
    assert (first["services_compiler"], first["services_coding_agent"]) == (2, 0)
    assert (second["tools_compiler"], second["tools_coding_agent"]) == (16, 4)
    assert first["acceptance"] == 0.4 and first["mutation_catch_rate"] == 0.98
    assert first["reward litellm:m/direct"] == 0.0 and second["reward litellm:m/direct"] == 0.5
    assert "reward oracle/direct" in first and last["note"] == "no spec files in drop"
    assert [(d["domain"], d["tasks"]) for d in health.domains] == [("support", 2), ("sales", 1)]
    assert {p["policy"]: p["mean_reward"] for p in health.policies} == {
        "litellm:m/direct": 0.5,
        "oracle/direct": 1.0,
    }
    # The last N runs only, oldest first.
    assert [r["flow"] for r in library_health(grown, last=1).trend] == ["nightly-expansion"]
    chart = bar_chart(health)
    assert chart.count("█" * 40) == 2 and "2 -> 3" in chart  # 20 tools: the longest bars
    table = even_rows(health.trend)
    assert len({tuple(r) for r in table}) == 1  # one header for the UI's table
    assert "| support | 2 |" in health_markdown(health)


def test_status_command_prints_the_trend_table(grown: Warehouse) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["status", "--last", "5"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "The library after each of the last 5 runs" in result.output
    assert result.output.count("nightly-expansion") == 2 and "Tasks per domain" in result.output
    assert "verified tools after each run" in result.output
    data = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert [r["tools_verified"] for r in data["trend"]] == [16, 20, 20]


def test_status_on_an_empty_warehouse_says_so(home: Path) -> None:
    result = CliRunner().invoke(app, ["status"])
    assert result.exit_code == 0 and "no factory or nightly-expansion runs" in result.output


@pytest.mark.parametrize(
    ("parameters", "named"),
    [
        ({"tasks": 0}, "tasks"),
        ({"group_size": 0}, "group_size"),
        ({"mode": "sideways"}, "mode"),
        ({"spec_paths": ["/no/such/specs"]}, "no spec file or folder"),
        ({"spec_paths": ["ftp://example.org/a.json"]}, "only http and https"),
        ({"task_runner": "gpu:3"}, "unknown kind 'gpu'"),
    ],
)
def test_factory_parameters_refuse_bad_values_naming_them(
    parameters: dict[str, object], named: str
) -> None:
    from prefect.exceptions import ParameterTypeError

    from flows.factory import factory

    with pytest.raises(ParameterTypeError, match=named):
        factory.validate_parameters(parameters)


def test_factory_parameters_accept_folders_urls_and_runners() -> None:
    from flows.factory import factory
    from flows.nightly import nightly_expansion

    good = factory.validate_parameters(
        {
            "spec_paths": ["library/specs", "https://example.org/openapi.json"],
            "mode": "gateway",
            "task_runner": "threads:4",
        }
    )
    assert good["mode"] == "gateway" and good["task_runner"] == "threads:4"
    with pytest.raises(Exception, match="tasks"):
        nightly_expansion.validate_parameters({"tasks": -1})


def test_reporter_lists_the_first_rejections_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from flows.progress import SAMPLE, StageReporter

    report = StageReporter("build")
    with caplog.at_level(logging.INFO, logger="compoworld"):
        for i in range(SAMPLE + 30):
            report.rejected(f"svc.tool{i}", "not_found: no such record" if i % 2 else "timeout")
        report.finish("build done")
    lines = [r.getMessage() for r in caplog.records if r.name == "compoworld.build"]
    assert sum("rejected:" in line for line in lines) == SAMPLE
    assert "30 more rejections not listed one by one: not_found (15), timeout (15)" in lines
    assert lines[-1] == "build done"


def test_training_step_lines_move_the_training_progress_artifact(prefect_harness: None) -> None:
    from prefect import flow, get_client

    from flows.training import training_log

    @flow(name="train-sft-lines")
    def feed(lines: list[str]) -> list[float]:
        """The training task's log callback fed the trainer's lines, as sft_task does."""
        report, log = training_log("train-sft", 4)
        seen = []
        for line in lines:
            log(line)
            with get_client(sync_client=True) as client:
                found = client.read_artifacts(limit=200)
            seen.append(next(a.data for a in found if a.id == report.artifact_id))
        return seen

    lines = [
        "{'loss': 1.0}",  # not a step line: the artifact stays
        "[sft] step 2/4 loss 1.0000",
        "[grpo] step 4/4 reward 1.0000 completion 1.0 tool calls/rollout 1.00",
    ]
    assert feed(lines) == [0, 50, 100]
