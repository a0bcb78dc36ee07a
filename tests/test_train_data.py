"""SFT data pulled from the warehouse with SQL: completed oracle rollouts selected by
``--where``, streamed into ``datasets``, trained on by the tiny model, and the selection's
lineage in the metrics."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from library.compose import compose_tasks
from library.judge import judge_rollouts
from library.rollout import InProcessEnv, OraclePolicy, RolloutSettings, run_groups_sync
from library.services import reference_service_classes
from tasks.training import SFTRequest, training_row
from training.data import SelectionError, select_sft_trajectories
from training.sft import InputError, SFTSettings, parse_args, train
from warehouse import Warehouse

CLASSES = reference_service_classes()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    tasks = compose_tasks(CLASSES, 3, seed=2).tasks
    settings = RolloutSettings(group_size=1, mode="direct")
    groups = run_groups_sync(tasks, OraclePolicy, lambda: InProcessEnv(CLASSES), settings)
    rollouts = [r for g in groups for r in g]
    judged = judge_rollouts(tasks, rollouts)
    wh = Warehouse(tmp_path_factory.mktemp("sft-wh"))
    wh.append("tasks", [t.to_row() for t in tasks])
    wh.append("rollouts", [r.to_row() for r in rollouts])
    wh.append("rollout_scores", [row for j in judged for row in j.score_rows()])
    return wh


def test_sft_selection_streams_completed_rollouts_with_lineage(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    domain = warehouse.query("SELECT min(domain) AS d FROM tasks").column("d")[0].as_py()
    where = f"t.domain = '{domain}' and s.reward >= 0.9"
    ds, lineage = select_sft_trajectories(warehouse, where=where, cache_dir=tmp_path)
    expected = (
        warehouse.query(
            "SELECT r.rollout_id FROM rollouts r JOIN tasks t USING (task_id) "
            f"WHERE t.domain = '{domain}' ORDER BY 1"
        )
        .column(0)
        .to_pylist()
    )
    assert ds["rollout_id"] == expected and lineage.rows == len(expected) >= 1
    assert set(lineage.files) == {"rollouts", "rollout_scores", "tasks"}
    first = ds[0]["messages"]
    assert first[0]["role"] == "system" and first[-1]["role"] == "assistant"
    assert any(m["tool_calls"] for m in first)
    with pytest.raises(SelectionError, match="the selection is empty"):
        select_sft_trajectories(warehouse, where="s.reward > 2")


def test_sft_trains_on_a_warehouse_selection_and_records_its_lineage(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    """What ``python -m training.sft --warehouse W --where X`` (the train-sft stage's command)
    does, in process, and the ``training_runs`` row the stage writes from its metrics."""
    request = SFTRequest(
        data=warehouse.location,
        out_dir=str(tmp_path / "out"),
        max_steps=2,
        warehouse=warehouse.location,
        where="s.reward >= 0.9",
    )
    command = request.command()
    settings = parse_args(command[command.index("training.sft") + 1 :])
    assert (settings.warehouse, settings.where) == (warehouse.location, "s.reward >= 0.9")
    metrics = json.loads(json.dumps(train(settings), default=str))  # as metrics.json reads
    assert metrics["steps"] == 2 and metrics["samples"] == warehouse.count("rollouts")
    now = dt.datetime.now(dt.UTC)
    row = training_row(
        "sft-wh-1", request, metrics, started=now, finished=now, duration_s=1.0, export_id=None
    )
    warehouse.append("training_runs", [row], batch_id="sft-wh-1")
    [stored] = warehouse.query("SELECT * FROM training_runs").to_pylist()
    assert stored["where_clause"] == "s.reward >= 0.9" and "s.completed" in stored["query"]
    files = json.loads(stored["data_files"])
    assert set(files) == {"rollouts", "rollout_scores", "tasks"} and all(files.values())
    assert stored["data_sha256"] == metrics["lineage"]["digest"] and metrics["loss_finite"]
    with pytest.raises(InputError, match="the selection is empty"):
        train(SFTSettings(warehouse=warehouse.location, out=str(tmp_path), where="false"))
