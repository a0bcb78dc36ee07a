"""The train stages: SFT on a chat export and GRPO on warehouse tasks, each run in the
training environment as a subprocess.

The control plane (Prefect, this module) and the training stack (torch, TRL, vLLM) live in
two environments (DESIGN.md), so nothing here imports ``training``: a stage starts
``<python> -m training.sft`` (or ``training.grpo``) with the project root as working
directory, relays its output line by line, and reads ``<out>/metrics.json`` back; one
``training_runs`` row records it (for GRPO with the data's lineage: query, Parquet files).
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
    warehouse: str | None = None  # set: pull completed rollouts by SQL instead of `data`
    where: str | None = None

    def interpreter(self) -> str:
        return train_python(self.python)

    def command(self) -> list[str]:
        cmd = launcher(self.interpreter(), self.processes)
        if self.warehouse:
            cmd += ["training.sft", "--warehouse", self.warehouse]
            cmd += ["--where", self.where] if self.where else []
        else:
            cmd += ["training.sft", "--data", self.data]
        cmd += ["--out"]
        cmd += [self.out_dir, "--model", self.model, "--max-steps", str(self.max_steps)]
        cmd += ["--seed", str(self.seed), "--batch-size", str(self.batch_size)]
        cmd += ["--max-length", str(self.max_length)]
        if self.lr is not None:
            cmd += ["--lr", repr(self.lr)]
        return cmd


@dataclass(slots=True)
class GRPORequest:
    """A ``training.grpo`` run: RL tasks selected from the warehouse, rewarded by CFRR."""

    warehouse: str
    out_dir: str
    model: str = "tiny"
    max_steps: int = 20
    where: str | None = None
    split: str = "rl"
    limit: int | None = None
    reference_policy: str | None = None
    band: tuple[float, float] = (0.05, 0.95)
    num_generations: int = 4
    batch_size: int = 4
    max_completion_length: int | None = None
    max_tool_calls: int = 16
    lr: float | None = None
    seed: int = 0
    lora: bool = False
    use_vllm: bool = False
    vllm_mode: str = "colocate"
    python: str | None = None
    processes: int = 1  # > 1: one per GPU through `accelerate launch --multi_gpu`

    def interpreter(self) -> str:
        return train_python(self.python)

    def command(self) -> list[str]:
        cmd = launcher(self.interpreter(), self.processes)
        cmd += ["training.grpo", "--warehouse", self.warehouse, "--out", self.out_dir]
        cmd += ["--model", self.model, "--max-steps", str(self.max_steps)]
        cmd += ["--split", self.split, "--seed", str(self.seed)]
        cmd += ["--num-generations", str(self.num_generations)]
        cmd += ["--batch-size", str(self.batch_size), "--max-tool-calls", str(self.max_tool_calls)]
        optional = {
            "--where": self.where,
            "--limit": self.limit,
            "--reference-policy": self.reference_policy,
            "--max-completion-length": self.max_completion_length,
            "--lr": None if self.lr is None else repr(self.lr),
        }
        for flag, value in optional.items():
            if value is not None:
                cmd += [flag, str(value)]
        if self.reference_policy:
            cmd += ["--band", f"{self.band[0]},{self.band[1]}"]
        if self.lora:
            cmd.append("--lora")
        if self.use_vllm:
            cmd += ["--use-vllm", "--vllm-mode", self.vllm_mode]
        return cmd


def launcher(python: str, processes: int) -> list[str]:
    """``python -m`` (one process), or ``accelerate launch`` over ``processes`` GPUs; the
    training module's name comes next."""
    if processes <= 1:
        return [python, "-m"]
    launch = ["accelerate.commands.launch", "--multi_gpu", "--num_machines", "1"]
    return [python, "-m", *launch, "--num_processes", str(processes), "-m"]


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


def run_training(
    request: SFTRequest | GRPORequest, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Run ``training.sft`` / ``training.grpo`` in the training environment; return its
    ``metrics.json``."""
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
    request: SFTRequest | GRPORequest,
    metrics: dict[str, Any],
    *,
    started: dt.datetime,
    finished: dt.datetime,
    duration_s: float,
    export_id: str | None,
) -> dict[str, Any]:
    lineage = metrics.get("lineage") or {}
    data = getattr(request, "data", None)
    return {
        "run_id": run_id,
        "kind": metrics.get("kind", "sft"),
        "status": metrics.get("status", "completed"),
        "started_at": started,
        "finished_at": finished,
        "duration_s": round(duration_s, 3),
        "model": request.model,
        "model_dir": metrics.get("model_dir"),
        "data_path": metrics.get("data_path") or str(Path(data).resolve() if data else ""),
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
        "query": lineage.get("sql"),
        "where_clause": lineage.get("where"),
        "data_files": lineage.get("files"),
        "selection": lineage.get("band"),
        "mean_reward": metrics.get("mean_reward"),
        "completion_rate": metrics.get("completion_rate"),
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
    export_id = export_id or export_id_of(wh, request.data)
    row, metrics = _train_and_record(wh, request, run_id, export_id, log)
    summary = {k: v for k, v in row.items() if k not in ("metrics", "parameters")}
    summary["losses"] = [
        {"step": x.get("step"), "loss": x["loss"]} for x in metrics.get("losses", [])
    ]
    for key in ("steps_per_second_after_first", "precision", "loss_mode", "dropped_too_long"):
        summary[key] = metrics.get(key)
    summary["model_parameters"] = metrics.get("parameters")
    return summary


def _train_and_record(
    wh: Warehouse,
    request: SFTRequest | GRPORequest,
    run_id: str,
    export_id: str | None,
    log: Callable[[str], None],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train, then append one ``training_runs`` row (batch id = run id, so a retried write
    adds nothing); the row and the metrics."""
    started = dt.datetime.now(dt.UTC)
    t0 = time.perf_counter()
    metrics = run_training(request, log)
    row = training_row(
        run_id,
        request,
        metrics,
        started=started,
        finished=dt.datetime.now(dt.UTC),
        duration_s=time.perf_counter() - t0,
        export_id=export_id,
    )
    wh.append("training_runs", [row], batch_id=run_id)
    return row, metrics


def rl_stage(
    wh: Warehouse, request: GRPORequest, run_id: str, *, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """GRPO on RL tasks selected from ``wh``, then one ``training_runs`` row with the
    selection's lineage (query, Parquet files, band). Returns the row without the bulky
    metrics, for run summaries."""
    row, metrics = _train_and_record(wh, request, run_id, None, log)
    summary = {k: v for k, v in row.items() if k not in ("metrics", "parameters", "query")}
    lineage = metrics.get("lineage") or {}
    summary["data_files"] = {t: len(f) for t, f in (lineage.get("files") or {}).items()}
    summary["selection"] = _band_summary(lineage.get("band"))
    summary["per_step"] = [
        {k: x.get(k) for k in ("step", "reward", "completion_rate", "env_share", "step_s")}
        for x in metrics.get("per_step", [])
    ]
    for key in ("env_share", "services", "rollouts_path", "precision"):
        summary[key] = metrics.get(key)
    summary["model_parameters"] = metrics.get("parameters")
    return summary


def _band_summary(band: dict[str, Any] | None) -> dict[str, Any] | None:
    if not band:
        return None
    keys = ("policy", "low", "high", "candidates", "kept", "too_easy", "too_hard", "unmeasured")
    return {k: band.get(k) for k in keys}


def rl_markdown(summary: dict[str, Any]) -> str:
    """The train-rl run's artifact: the data, the band, and the reward step by step."""
    band = summary.get("selection")
    kept = (
        f"{band['kept']} of {band['candidates']} in [{band['low']}, {band['high']}] under "
        f"`{band['policy']}` ({band['too_easy']} too easy, {band['too_hard']} too hard, "
        f"{band['unmeasured']} unmeasured)"
        if band
        else "no band (every selected task)"
    )
    files = ", ".join(f"{t}: {n}" for t, n in (summary.get("data_files") or {}).items())
    rows = [
        ("model", f"`{summary['model']}` ({summary.get('model_parameters')} parameters)"),
        ("tasks", f"{summary['samples']} (`--where {summary.get('where_clause')}`)"),
        ("Parquet files read", files),
        ("data digest", f"`{summary['data_sha256']}`"),
        ("pass-rate band", kept),
        ("services", summary.get("services")),
        ("mean reward (CFRR)", summary.get("mean_reward")),
        ("completion rate", summary.get("completion_rate")),
        ("environment share of step time", summary.get("env_share")),
        ("trained model", f"`{summary['model_dir']}`"),
    ]
    lines = ["# CompoWorld train-rl run", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    lines += ["", "| step | reward | completion | env share | seconds |", "|---|---|---|---|---|"]
    lines += [
        f"| {x['step']} | {x['reward']} | {x['completion_rate']} | {x['env_share']} | "
        f"{x['step_s']} |"
        for x in summary.get("per_step") or []
    ]
    return "\n".join(lines)


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
