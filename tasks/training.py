"""The train stage: SFT on a chat export, run in the training environment as a subprocess.

The control plane (Prefect, this module) and the training stack (torch, TRL, vLLM) live in
two environments (DESIGN.md), so nothing here imports ``training``: the stage starts
``<python> -m training.sft`` with the project root as working directory, relays its output
line by line, and reads ``<out>/metrics.json`` back; one ``training_runs`` row records it.
``python`` is the training environment's interpreter: ``COMPOWORLD_TRAIN_PYTHON``, else this
one (the ``train`` extra installs torch and TRL beside the control plane for CPU runs).
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from warehouse import Warehouse

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PYTHON_ENV_VAR = "COMPOWORLD_TRAIN_PYTHON"
METRICS_FILE = "metrics.json"  # the contract with training/sft.py
STDERR_TAIL_LINES = 30


class TrainingFailed(RuntimeError):
    """The training subprocess failed; the message ends with the tail of its stderr."""


@dataclass(slots=True)
class SFTRequest:
    data: str
    out_dir: str
    model: str = "tiny"
    max_steps: int = 20
    python: str | None = None
    lr: float | None = None
    seed: int = 0
    batch_size: int = 1
    max_length: int = 32768
    processes: int = 1  # > 1: one per GPU through `accelerate launch --multi_gpu`

    def interpreter(self) -> str:
        return train_python(self.python)

    def command(self) -> list[str]:
        cmd = [self.interpreter(), "-m"]
        if self.processes > 1:
            cmd += ["accelerate.commands.launch", "--multi_gpu", "--num_machines", "1"]
            cmd += ["--num_processes", str(self.processes), "-m"]
        cmd += ["training.sft", "--data", self.data, "--out"]
        cmd += [self.out_dir, "--model", self.model, "--max-steps", str(self.max_steps)]
        cmd += ["--seed", str(self.seed), "--batch-size", str(self.batch_size)]
        cmd += ["--max-length", str(self.max_length)]
        if self.lr is not None:
            cmd += ["--lr", repr(self.lr)]
        return cmd


def train_python(python: str | None = None) -> str:
    """The training environment's interpreter: the argument, ``$COMPOWORLD_TRAIN_PYTHON``,
    else the running one."""
    return python or os.environ.get(PYTHON_ENV_VAR) or sys.executable


def latest_chat_export(wh: Warehouse, home: Path) -> tuple[str, str | None]:
    """(path, export id) of the newest ``chat_jsonl`` export; ``<home>/exports/chat.jsonl``
    (id unknown) when none is recorded."""
    rows = wh.query(
        "SELECT export_id, path FROM exports WHERE kind = 'chat_jsonl' "
        "ORDER BY created_at DESC, export_id LIMIT 1"
    ).to_pylist()
    if rows:
        return rows[0]["path"], rows[0]["export_id"]
    return str(home / "exports" / "chat.jsonl"), None


def export_id_of(wh: Warehouse, path: str) -> str | None:
    """The newest ``chat_jsonl`` export recorded at ``path``, if any."""
    rows = wh.query(
        "SELECT export_id FROM exports WHERE kind = 'chat_jsonl' AND path = ? "
        "ORDER BY created_at DESC LIMIT 1",
        [str(Path(path).resolve())],
    ).to_pylist()
    return rows[0]["export_id"] if rows else None


def _pump(stream: IO[str], log: Callable[[str], None], keep: collections.deque | None) -> None:
    for line in stream:
        line = line.rstrip("\n")
        if keep is not None:
            keep.append(line)
        if line.strip():
            log(line)


def run_streaming(
    cmd: list[str],
    log: Callable[[str], None],
    *,
    cwd: Path = PROJECT_ROOT,
    env: dict[str, str] | None = None,
) -> tuple[int, list[str]]:
    """Run ``cmd``, passing each stdout and stderr line to ``log`` as it comes; return the
    exit code and the last lines of stderr."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
        errors="replace",
    )
    assert proc.stdout is not None and proc.stderr is not None
    tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
    readers = [
        threading.Thread(target=_pump, args=(proc.stdout, log, None), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, log, tail), daemon=True),
    ]
    for t in readers:
        t.start()
    try:
        rc = proc.wait()
    except BaseException:  # interrupted (flow cancelled): do not leave the trainer running
        proc.kill()
        proc.wait()
        raise
    for t in readers:
        t.join()
    return rc, list(tail)


def run_sft(request: SFTRequest, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run ``training.sft`` in the training environment; return its ``metrics.json``."""
    cmd = request.command()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.setdefault("HF_HUB_OFFLINE", "1")  # never download at run time
    log(f"$ {' '.join(cmd)}")
    try:
        rc, tail = run_streaming(cmd, log, env=env)
    except OSError as exc:  # the interpreter does not exist or cannot run
        raise TrainingFailed(
            f"cannot start the training interpreter {cmd[0]!r} ({exc}); set "
            f"{PYTHON_ENV_VAR} or the flow's `python` parameter"
        ) from exc
    if rc != 0:
        stderr = "\n".join(tail) or "(no stderr)"
        raise TrainingFailed(f"training exited with code {rc}; last stderr lines:\n{stderr}")
    metrics_path = Path(request.out_dir) / METRICS_FILE
    try:
        return json.loads(metrics_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise TrainingFailed(f"training exited 0 but {metrics_path} is unreadable: {exc}") from exc


def training_row(
    run_id: str,
    request: SFTRequest,
    metrics: dict[str, Any],
    *,
    started: dt.datetime,
    finished: dt.datetime,
    duration_s: float,
    export_id: str | None,
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "kind": "sft",
        "status": metrics.get("status", "completed"),
        "started_at": started,
        "finished_at": finished,
        "duration_s": round(duration_s, 3),
        "model": request.model,
        "model_dir": metrics.get("model_dir"),
        "data_path": metrics.get("data_path") or str(Path(request.data).resolve()),
        "data_sha256": metrics["data_sha256"],
        "export_id": export_id,
        "samples": metrics.get("samples"),
        "steps": metrics["steps"],
        "final_loss": metrics.get("final_loss"),
        "train_loss": metrics.get("train_loss"),
        "device": metrics.get("device"),
        "out_dir": str(Path(request.out_dir).resolve()),
        "python": request.interpreter(),
        "parameters": asdict(request),
        "metrics": metrics,
    }


def sft_stage(
    wh: Warehouse,
    request: SFTRequest,
    run_id: str,
    *,
    export_id: str | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train, then append one ``training_runs`` row (batch id = run id, so a retried write
    adds nothing). Returns the row without the bulky metrics, for run summaries."""
    started = dt.datetime.now(dt.UTC)
    t0 = time.perf_counter()
    metrics = run_sft(request, log)
    row = training_row(
        run_id,
        request,
        metrics,
        started=started,
        finished=dt.datetime.now(dt.UTC),
        duration_s=time.perf_counter() - t0,
        export_id=export_id or export_id_of(wh, request.data),
    )
    wh.append("training_runs", [row], batch_id=run_id)
    summary = {k: v for k, v in row.items() if k not in ("metrics", "parameters")}
    summary["losses"] = [
        {"step": x.get("step"), "loss": x["loss"]} for x in metrics.get("losses", [])
    ]
    for key in ("steps_per_second_after_first", "precision", "loss_mode", "dropped_too_long"):
        summary[key] = metrics.get(key)
    summary["model_parameters"] = metrics.get("parameters")
    return summary


def training_markdown(summary: dict[str, Any]) -> str:
    """The run's artifact: where things are and how the loss went."""

    def fmt(x: Any) -> str:
        if isinstance(x, float):
            return f"{x:.4f}"
        return f"{x:,}" if isinstance(x, int) else str(x)

    rate = summary.get("steps_per_second_after_first")
    rows = [
        ("model", f"`{summary['model']}` ({fmt(summary.get('model_parameters'))} parameters)"),
        ("data", f"`{summary['data_path']}` (sha256 `{summary['data_sha256'][:16]}`)"),
        ("export", summary.get("export_id") or "not recorded"),
        ("samples", f"{summary['samples']} ({summary.get('dropped_too_long') or 0} too long)"),
        ("loss", summary.get("loss_mode")),
        ("steps", f"{summary['steps']} ({rate} steps/s after the first)"),
        ("final loss", fmt(summary["final_loss"])),
        ("device", f"{summary['device']} ({summary.get('precision')})"),
        ("duration", f"{summary['duration_s']:.1f} s"),
        ("trained model", f"`{summary['model_dir']}`"),
    ]
    lines = ["# CompoWorld train-sft run", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    losses = summary.get("losses") or []
    if losses:
        lines += ["", "| step | loss |", "|---|---|"]
        lines += [f"| {x['step']} | {x['loss']:.4f} |" for x in losses]
    query = 'compoworld sql "select * from training_runs"'
    lines += ["", f"Run `{summary['run_id']}`; query it: `{query}`"]
    return "\n".join(lines)
