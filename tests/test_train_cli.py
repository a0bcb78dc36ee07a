"""The training commands as a person runs them: ``compoworld train`` (SFT) and ``compoworld
train rl`` (GRPO) in a fresh process against a configured Prefect server, their printed
result read back, and what they recorded in the warehouse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from library.compose import compose_tasks
from library.services import reference_service_classes
from warehouse import Warehouse

pytestmark = pytest.mark.slow  # a fresh interpreter (torch, TRL) per command
ROOT = Path(__file__).resolve().parents[1]
CHAT = ROOT / "tests" / "data" / "chat_sample.jsonl"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One home and one Prefect home for both commands (Prefect migrates its database once)."""
    return tmp_path_factory.mktemp("train-cli")


def compoworld(tmp: Path, *args: str, timeout: int = 400) -> subprocess.CompletedProcess[str]:
    from prefect.settings import PREFECT_API_URL

    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env |= {
        "COMPOWORLD_HOME": str(tmp / "home"),
        "PREFECT_HOME": str(tmp / "prefect"),
        "COLUMNS": "200",
        # A configured Prefect server (the session's): each command would otherwise boot a
        # temporary one, and the commands that do are tested in test_cli_run.py.
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
    }
    cmd = [sys.executable, "-m", "flows.cli", *args]
    return subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def printed_json(stdout: str) -> dict:
    """The JSON object the command prints last (log lines may come before it)."""
    return json.loads(stdout[stdout.index("{") :])


def test_train_sft_prints_its_result(prefect_harness: None, shared: Path) -> None:
    proc = compoworld(shared, "train", "--model", "tiny", "--max-steps", "2", "--export", str(CHAT))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    result = printed_json(proc.stdout)
    assert result["kind"] == "sft" and result["steps"] == 2
    assert result["started_at"] < result["finished_at"]  # datetimes printed as text
    assert Path(result["model_dir"], "model.safetensors").is_file()


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
