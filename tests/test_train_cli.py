"""The training commands as a person runs them: ``compoworld train`` (SFT) and ``compoworld
train rl`` (GRPO) in a fresh process against a configured Prefect server, their printed
result read back, and what they recorded in the warehouse."""

from __future__ import annotations

import datetime as dt
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from library.compose import compose_tasks
from library.services import reference_service_classes
from training.sft import file_sha256
from warehouse import Warehouse

from .conftest import command_env

pytestmark = pytest.mark.slow  # a fresh interpreter (torch, TRL) per command
ROOT = Path(__file__).resolve().parents[1]
CHAT = ROOT / "tests" / "data" / "chat_sample.jsonl"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One home and one Prefect home for both commands (Prefect migrates its database once)."""
    return tmp_path_factory.mktemp("train-cli")


def compoworld(tmp: Path, *args: str, timeout: int = 400) -> subprocess.CompletedProcess[str]:
    # A configured Prefect server (the session's): the commands that boot a temporary one
    # are tested in test_cli_run.py.
    env = command_env(
        session_api=True,
        COMPOWORLD_HOME=str(tmp / "home"),
        PREFECT_HOME=str(tmp / "prefect"),
        COLUMNS="200",
    )
    cmd = [sys.executable, "-m", "flows.cli", *args]
    return subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def printed_json(stdout: str) -> dict:
    """The JSON object the command prints last (log lines may come before it)."""
    return json.loads(stdout[stdout.index("{") :])


def test_train_sft_prints_its_result_and_records_the_run(
    prefect_harness: None, shared: Path
) -> None:
    """`compoworld train` with no --export trains on the newest chat export the warehouse
    records, prints its result, and records the run (lineage, metrics, an artifact)."""
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    home = shared / "home"
    chat = home / "exports" / "chat.jsonl"
    chat.parent.mkdir(parents=True)
    chat.write_text(CHAT.read_text().splitlines(keepends=True)[0])  # one record: quicker
    wh = Warehouse(home / "warehouse")
    row = {
        "export_id": "e1",
        "kind": "chat_jsonl",
        "path": str(chat.resolve()),
        "records": 1,
        "created_at": dt.datetime.now(dt.UTC),
    }
    wh.append("exports", [row], batch_id="e1")

    proc = compoworld(shared, "train", "--model", "tiny", "--max-steps", "2")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    result = printed_json(proc.stdout)
    assert result["kind"] == "sft" and result["steps"] == 2
    assert result["started_at"] < result["finished_at"]  # datetimes printed as text
    assert Path(result["model_dir"], "model.safetensors").is_file()

    [run] = wh.query("SELECT * FROM training_runs WHERE kind = 'sft'").to_pylist()
    assert run["run_id"] == result["run_id"] and run["status"] == "completed"
    assert run["export_id"] == "e1" and run["data_path"] == str(chat.resolve())
    assert run["data_sha256"] == file_sha256(chat) and run["steps"] == 2 and run["samples"] == 1
    assert math.isfinite(run["final_loss"]) and run["device"] == "cpu"
    assert run["out_dir"] == str(home.resolve() / "training" / run["run_id"])
    assert json.loads(run["metrics"])["final_loss"] == run["final_loss"]
    assert Path(run["model_dir"], "config.json").is_file()
    runs = wh.query("SELECT status FROM runs WHERE flow = 'train-sft'").to_pylist()
    assert runs == [{"status": "completed"}]
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["train-sft-summary"]))
        )
    assert any(run["run_id"] in (a.data or "") for a in found)


def test_train_rl_records_lineage_and_the_judges_rewards(
    prefect_harness: None, shared: Path
) -> None:
    tasks = compose_tasks(reference_service_classes(), 4, seed=1).tasks[:2]
    wh = Warehouse(shared / "home" / "warehouse")
    wh.append("tasks", [t.model_copy(update={"split": "rl"}).to_row() for t in tasks])
    proc = compoworld(
        shared,
        "train",
        "rl",
        "--model",
        "tiny",
        "--max-steps",
        "2",
        "--num-generations",
        "2",
        "--batch-size",
        "2",
        "--max-completion-length",  # a random model writes noise: keep it short
        "24",
        "--max-tool-calls",
        "2",
        "--where",
        "t.split = 'rl' and t.steps > 0",
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    result = printed_json(proc.stdout)
    assert result["kind"] == "grpo" and result["steps"] == 2
    assert result["data_files"] == {"tasks": 1} and result["samples"] == 2
    assert result["where_clause"] == "t.split = 'rl' and t.steps > 0"
    [row] = wh.query("SELECT * FROM training_runs WHERE kind = 'grpo'").to_pylist()
    assert row["run_id"] == result["run_id"] and "t.steps > 0" in row["query"]
    files = json.loads(row["data_files"])["tasks"]
    assert files == sorted(str(p) for p in (shared / "home" / "warehouse").rglob("tasks/*/*"))
    # The logged reward of each step is the mean of the judge's CFRR over its rollouts.
    metrics = json.loads(row["metrics"])
    records = [json.loads(x) for x in Path(metrics["rollouts_path"]).read_text().splitlines()]
    for step in metrics["per_step"]:
        rewards = [r["score"]["reward"] for r in records if r["step"] == step["step"]]
        assert len(rewards) == 2
        assert step["reward"] == pytest.approx(sum(rewards) / 2, abs=1e-6)
    runs = wh.query("SELECT status FROM runs WHERE flow = 'train-rl'").to_pylist()
    assert runs == [{"status": "completed"}]
