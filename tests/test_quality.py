"""The Great Expectations suites over tasks, rollouts and rollout_scores."""

from __future__ import annotations

import orjson
import pytest

from tests.test_curate import messages_for, rollout_row, score_row, seed, task_row
from warehouse import Warehouse
from warehouse.quality import (
    QualityReport,
    json_list_problem,
    messages_problem,
    tools_problem,
    validate_tables,
)


@pytest.fixture
def wh(tmp_path) -> Warehouse:
    return Warehouse(tmp_path / "wh")


def _by(report: QualityReport, table: str, column: str) -> list:
    return [f for f in report.failures if f.table == table and f.column == column]


def test_clean_tables_pass(wh: Warehouse) -> None:
    seed(
        wh,
        [task_row("t1"), task_row("t2", split="rl")],
        [rollout_row("r1", "t1"), rollout_row("r2", "t1", policy="oracle")],
    )
    report = validate_tables(wh)
    assert report.success, report.to_markdown()
    assert report.rows == {"tasks": 2, "rollouts": 2, "rollout_scores": 2}
    assert report.evaluated > 20
    assert "Data quality: passed" in report.to_markdown()


def test_bad_rows_are_named_with_reasons(wh: Warehouse) -> None:
    bad_messages = messages_for("hi")[2:]  # starts with the assistant's tool call
    seed(
        wh,
        [
            task_row("t1"),
            task_row("t-blank", instruction="   "),
            task_row("t-rubric", rubric=[], split="train"),
        ],
        [
            rollout_row("r-ok", "t1"),
            rollout_row("r-orphan", "t-missing"),
            rollout_row("r-msgs", "t1", messages=bad_messages, status="crashed"),
        ],
        [
            score_row("r-ok", "t1", reward=1.7),
            score_row("r-orphan", "t-missing"),
            score_row("r-msgs", "t1", rubric_score=-0.1),
        ],
    )
    report = validate_tables(wh)
    assert not report.success

    (orphan,) = _by(report, "rollouts", "task_id")
    assert orphan.sample_rows == ["r-orphan"] and orphan.unexpected_count == 1
    assert "'t-missing' is not in the tasks table" in orphan.why
    (reward,) = _by(report, "rollout_scores", "reward")
    assert reward.sample_rows == ["r-ok"] and "[0, 1]" in reward.why and "1.7" in reward.why
    (score,) = _by(report, "rollout_scores", "rubric_score")
    assert score.sample_rows == ["r-msgs"]
    (blank,) = _by(report, "tasks", "instruction")
    assert blank.sample_rows == ["t-blank"] and "empty" in blank.why
    (rubric,) = _by(report, "tasks", "rubric")
    assert rubric.sample_rows == ["t-rubric"] and "empty list" in rubric.why
    (split,) = _by(report, "tasks", "split")
    assert split.sample_rows == ["t-rubric"] and "train" in split.why
    (msgs,) = _by(report, "rollouts", "messages")
    assert msgs.sample_rows == ["r-msgs"] and "system/user" in msgs.why
    (status,) = _by(report, "rollouts", "status")
    assert status.sample_rows == ["r-msgs"]
    assert len(report.failures) == 8

    md = report.to_markdown()
    assert "Data quality: FAILED" in md
    for rid in ("r-orphan", "r-ok", "r-msgs", "t-blank", "t-rubric"):
        assert rid in md
    assert md.count("\n| ") == 1 + 8  # header + one line per failure


def test_duplicates_and_scope(wh: Warehouse) -> None:
    seed(wh, [task_row("t1")], [rollout_row("r1", "t1"), rollout_row("r2", "t1")])
    wh.append("rollouts", [rollout_row("r1", "t1", sample=1)])  # the same id, a second batch
    report = validate_tables(wh)
    (dup,) = [f for f in report.failures if f.expectation == "expect_column_values_to_be_unique"]
    assert dup.table == "rollouts" and dup.sample_rows == ["r1"] and dup.unexpected_count == 2
    # Restricted to the rows an export uses, the old duplicate does not block.
    scoped = validate_tables(wh, rollout_ids=["r2"], task_ids=["t1"])
    assert scoped.success and scoped.rows == {"tasks": 1, "rollouts": 1, "rollout_scores": 1}


def test_empty_warehouse_passes(wh: Warehouse) -> None:
    report = validate_tables(wh)
    assert report.success and report.rows == {"tasks": 0, "rollouts": 0, "rollout_scores": 0}


def test_shape_rules() -> None:
    ok = orjson.dumps(messages_for("hi")).decode()
    assert messages_problem(ok) is None
    stray = messages_for("hi")
    stray[3]["tool_call_id"] = "call_9"
    assert "answers no earlier call" in (messages_problem(orjson.dumps(stray)) or "")
    assert messages_problem("{not json") is not None and messages_problem(None) == "is null"
    assert json_list_problem('[{"kind": "x"}]', item_key="kind") is None
    assert json_list_problem('{"kind": "x"}') == "is a JSON dict, not a list"
    assert tools_problem('[{"type": "function", "function": {"name": "f"}}]') is None
    assert tools_problem('[{"type": "function"}]') is not None
