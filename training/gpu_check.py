"""GPU check: SFT and GRPO steps of a ~0.5B Qwen3-shaped model on composed tasks, with the
project's GPU options and with TRL's plain settings, side by side.

    training/gpu_check.sh                      # one GPU, under 8 minutes
    python -m training.gpu_check --cpu-smoke   # the same driver on CPU: tiny model, no vLLM

What it does, in a temporary folder (``--out DIR`` keeps it):

1. **Tasks.** Composes ``--tasks`` tasks over the reference services (``library.compose``),
   rolls each out once with the oracle (gateway mode, as GRPO's environments, without the
   discovery turns) and judges it, and writes tasks,
   rollouts and scores to a fresh warehouse: the SFT data (completed oracle rollouts) and the
   GRPO tasks (every split) are then pulled from it by ``training.sft`` / ``training.grpo``
   exactly as in a real run. The GPU environment has no Prefect (it cannot share an
   environment with vLLM), so this uses the library directly rather than ``compoworld run``.
2. **Model.** A randomly initialised Qwen3 (``training.tiny``, size ``0.5b``: Qwen3-0.6B's
   widths, 32 layers, ~0.5B parameters with the small BPE vocabulary trained on the
   transcripts), saved in fp32; nothing is downloaded. vLLM loads an fp32 checkpoint in bf16.
3. **Four runs**, each in its own process (so one run's GPU memory, vLLM's included, is gone
   before the next starts; ``--cpu-smoke`` runs them in the driver's process, which imports
   the training stack once), through the entry points' own functions and options:

   ============  =======================================================================
   sft project   ``training.sft``: bf16 (where the GPU has it), gradient checkpointing
   sft plain     ``training.sft``: fp32, no gradient checkpointing
   grpo project  ``training.grpo``: ``--use-vllm --vllm-mode colocate --bf16
                 --gradient-checkpointing``
   grpo plain    ``training.grpo``: generation with ``transformers`` (TRL's default, no
                 vLLM), fp32, no gradient checkpointing
   ============  =======================================================================

   "plain" is TRL's trainers with none of these options: note that TRL 1.16's own configs
   default ``bf16`` and ``gradient_checkpointing`` to True, so "plain" switches them off to
   show what they buy. ``training.sft`` has no precision option (it takes bf16 wherever the
   GPU has it): the plain SFT run's worker turns it off (``--fp32``).

Printed per run: steps, median step time (the first step is shown apart: warm-up), tokens/s
(tokens the trainer processed, from TRL's ``num_tokens``: the samples' tokens for SFT,
prompt + completion tokens for GRPO), generated tokens/s (GRPO), peak memory (torch's
peak reserved GPU memory in the run's process; on CPU the process's peak RSS), the
whole device's peak (NVML / nvidia-smi, sampled while the run lasts) and the run's wall time
(start-up, model loading and vLLM's start included); then the project/plain ratios
and one ``GPU_CHECK_JSON {...}`` line (also ``<out>/gpu_check.json``).

Exit codes: 0 every run completed; 1 a run failed; 2 no CUDA GPU (the GPU mode) or bad
options; 3 vLLM or the training stack is missing. Never imports Prefect.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 480  # the GPU check's target: under 8 minutes
SMOKE_ENV_VAR = "GPU_CHECK_CPU_SMOKE"
JSON_PREFIX = "GPU_CHECK_JSON "
RESULT_FILE = "gpu_check.json"
GIB = 1024**3
NOT_RUN_NOTE = (
    "NOTE: CPU smoke mode (tiny model, 2 SFT + 1 GRPO step, no vLLM, fp32 on CPU). The GPU "
    "path (~0.5B model, vLLM colocate, bf16) was NOT run by this command; run "
    "training/gpu_check.sh on a machine with one GPU for its figures."
)


@dataclass(slots=True)
class CheckSettings:
    mode: str = "gpu"  # gpu | cpu-smoke
    size: str = "0.5b"  # training.tiny.SIZES key
    vocab_size: int = 8192
    tasks: int = 20
    sft_steps: int = 20
    sft_batch: int = 2  # 20 steps x 2 over 20 samples: two whole epochs
    grpo_steps: int = 5
    num_generations: int = 4
    grpo_batch: int = 8  # two groups per step
    completion_length: int = 512
    max_tool_calls: int = 2  # bounds the generation rounds of a step (the time budget)
    use_vllm: bool = True
    in_process: bool = False  # True: the runs in this process (CPU smoke), not one each
    seed: int = 0
    budget_s: int = BUDGET_S
    out: str | None = None
    runs: list[str] = field(default_factory=lambda: ["project", "plain"])

    @property
    def gpu(self) -> bool:
        return self.mode == "gpu"


def smoke_settings(base: CheckSettings | None = None) -> CheckSettings:
    """The CPU smoke profile: the tiny model, 2 SFT steps and 1 GRPO step, no vLLM."""
    return replace(
        base or CheckSettings(),
        mode="cpu-smoke",
        size="tiny",
        vocab_size=4096,
        tasks=3,
        sft_steps=2,
        sft_batch=1,
        grpo_steps=1,
        num_generations=2,
        grpo_batch=2,
        completion_length=16,
        max_tool_calls=1,
        use_vllm=False,
        in_process=True,
    )


@dataclass(slots=True)
class Phase:
    """One training run: ``kind`` (sft | grpo) under ``config`` (project | plain)."""

    kind: str
    config: str
    argv: list[str]  # the entry point's own command-line options
    fp32: bool = False  # the SFT worker turns bf16 off (training.sft has no option for it)

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.config}"

    def worker_argv(self, result_path: Path) -> list[str]:
        """The options of ``_worker`` (``worker``) for this run."""
        argv = [self.kind, "--result", str(result_path)] + (["--fp32"] if self.fp32 else [])
        return [*argv, "--", *self.argv]


def plan(cs: CheckSettings, model_dir: str, warehouse: str, out: str) -> list[Phase]:
    """The runs, in order: SFT then GRPO, each under every config of ``cs.runs``."""
    phases: list[Phase] = []
    for kind in ("sft", "grpo"):
        for config in cs.runs:
            project = config == "project"
            common = ["--warehouse", warehouse, "--model", model_dir, "--seed", str(cs.seed)]
            common += ["--out", str(Path(out) / f"{kind}-{config}")]
            ckpt = ["--gradient-checkpointing" if project else "--no-gradient-checkpointing"]
            if kind == "sft":
                argv = [*common, "--max-steps", str(cs.sft_steps)]
                argv += ["--batch-size", str(cs.sft_batch), *ckpt]
                phases.append(Phase(kind, config, argv, fp32=not project))
                continue
            argv = [*common, "--split", "", "--max-steps", str(cs.grpo_steps)]
            argv += ["--num-generations", str(cs.num_generations)]
            argv += ["--batch-size", str(cs.grpo_batch)]
            argv += ["--max-completion-length", str(cs.completion_length)]
            argv += ["--max-tool-calls", str(cs.max_tool_calls), *ckpt]
            if project and cs.gpu:
                argv += ["--bf16"]
                if cs.use_vllm:
                    argv += ["--use-vllm", "--vllm-mode", "colocate"]
            else:
                argv += ["--no-bf16"]
            phases.append(Phase(kind, config, argv))
    return phases


# -- the data and the model --------------------------------------------------------------------
def build_warehouse(root: Path, n_tasks: int, seed: int) -> dict[str, Any]:
    """Composed tasks, one judged oracle rollout each, in a fresh warehouse at ``root``; the
    rollouts' chat records (the tokenizer's corpus) too."""
    from library.compose import compose_tasks
    from library.judge import judge_rollouts
    from library.rollout import InProcessEnv, OraclePolicy, RolloutSettings, run_groups_sync
    from library.services import reference_service_classes
    from warehouse import Warehouse

    t0 = time.perf_counter()
    classes = reference_service_classes()
    tasks = compose_tasks(classes, n_tasks, seed=seed).tasks
    if not tasks:
        raise RuntimeError("composing produced no task over the reference services")
    # Gateway mode, as GRPO's environments: the four meta-tools, the plan called through
    # them without the discovery turns (short transcripts: the smoke mode's steps stay fast).
    settings = RolloutSettings(group_size=1, mode="gateway")
    groups = run_groups_sync(
        tasks,
        lambda task: OraclePolicy(task, discover=False),
        lambda: InProcessEnv(classes),
        settings,
    )
    rollouts = [r for g in groups for r in g]
    judged = judge_rollouts(tasks, rollouts)
    wh = Warehouse(root)
    wh.append("tasks", [t.to_row() for t in tasks])
    wh.append("rollouts", [r.to_row() for r in rollouts])
    wh.append("rollout_scores", [row for j in judged for row in j.score_rows()])
    completed = sum(sum(j.completed) for j in judged)
    records = [{"messages": r.messages, "tools": r.tools} for r in rollouts]
    return {
        "tasks": len(tasks),
        "rollouts": len(rollouts),
        "completed": completed,
        "seconds": round(time.perf_counter() - t0, 2),
        "records": records,
    }


def build_model_dir(
    cs: CheckSettings, records: list[dict[str, Any]], model_dir: Path
) -> dict[str, Any]:
    """The randomly initialised model and its tokenizer, saved (fp32) to ``model_dir``."""
    import transformers

    from training.data import gateway_tools
    from training.tiny import SIZES, build_tiny

    transformers.logging.disable_progress_bar()  # a log, not a terminal
    t0 = time.perf_counter()
    corpus = [*records, {"messages": [], "tools": gateway_tools()}]
    model, tokenizer = build_tiny(
        corpus, model_dir, vocab_size=cs.vocab_size, seed=cs.seed, size=cs.size
    )
    facts = {
        "size": cs.size,
        "shape": SIZES[cs.size],
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab": len(tokenizer),
        "dtype": str(next(model.parameters()).dtype).removeprefix("torch."),
        "path": str(model_dir),
        "seconds": round(time.perf_counter() - t0, 2),
    }
    del model
    return facts


# -- the runs ----------------------------------------------------------------------------------
def nvidia_smi(query: str, *formats: str) -> list[str]:
    """``nvidia-smi --query-gpu=QUERY``: one line per GPU; [] when it cannot run."""
    fmt = ",".join(["csv", "noheader", *formats])
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", f"--format={fmt}"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


class DeviceMemory:
    """The device's peak used memory while a run lasts, sampled every ``period`` seconds
    through NVML (``pynvml``, which vLLM installs) or ``nvidia-smi``; None without either."""

    def __init__(self, period: float = 0.25) -> None:
        self.period = period
        self.peak: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._read = self._reader()

    def _reader(self) -> Any:
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            return lambda: int(pynvml.nvmlDeviceGetMemoryInfo(handle).used)
        except Exception:  # no NVML: the command-line tool, or nothing
            pass
        if shutil.which("nvidia-smi") is None:
            return None

        def smi() -> int | None:
            out = nvidia_smi("memory.used", "nounits")
            return int(out[0]) * 1024**2 if out else None

        return smi

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                used = self._read()
            except Exception:
                used = None
            if used is not None:
                self.peak = used if self.peak is None else max(self.peak, used)
            self._stop.wait(self.period)

    def __enter__(self) -> DeviceMemory:
        if self._read is not None:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def run_phase(
    phase: Phase, result_path: Path, python: str, *, gpu: bool
) -> tuple[int, list[str], int | None]:
    """Run one phase's worker, relaying its output; (exit code, last lines, device peak)."""
    cmd = [python, "-m", "training.gpu_check", "_worker", *phase.worker_argv(result_path)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    tail: collections.deque[str] = collections.deque(maxlen=40)
    with DeviceMemory() if gpu else ExitStack() as sampler:
        proc = subprocess.Popen(
            cmd,
            cwd=PROJECT_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            errors="replace",
        )
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                line = line.rstrip("\n")
                tail.append(line)
                if line.strip():
                    print(f"  | {line}", flush=True)
            rc = proc.wait()
        except BaseException:  # interrupted or timed out: leave no trainer behind
            proc.kill()
            proc.wait()
            raise
    peak = sampler.peak if isinstance(sampler, DeviceMemory) else None
    return rc, list(tail), peak


def run_phase_inline(phase: Phase, result_path: Path) -> tuple[int, list[str], None]:
    """Run one phase's worker in this process (the CPU smoke mode: one import of the
    training stack instead of one per run)."""
    try:
        return worker(phase.worker_argv(result_path)), [], None
    except Exception as exc:  # reported like a failed worker process
        traceback.print_exc()
        return 1, [f"{type(exc).__name__}: {exc}"], None


def summarise(
    result: dict[str, Any], device_peak: int | None = None, wall_s: float | None = None
) -> dict[str, Any]:
    """A run's printed figures from its worker's result (``wall_s``: the whole run, start-up,
    model loading and vLLM's start included)."""
    steps = result["step_seconds"]
    later = steps[1:] or steps  # the first step warms up (allocations, kernels, caches)
    busy = sum(steps)
    gen = result.get("generated_tokens")
    torch_peak = result.get("peak_torch_reserved_gib")
    return {
        "kind": result["kind"],
        "config": result["config"],
        "steps": result["steps"],
        "step_s": round(statistics.median(later), 4) if later else None,
        "first_step_s": round(steps[0], 4) if steps else None,
        "tokens": result.get("tokens"),
        "tokens_per_s": round(result["tokens"] / busy, 1)
        if result.get("tokens") and busy
        else None,
        "generated_tokens_per_s": round(gen / busy, 1) if gen and busy else None,
        "peak_mem_gib": torch_peak if torch_peak is not None else result["peak_rss_gib"],
        "peak_mem_kind": "gpu" if torch_peak is not None else "cpu-rss",
        "device_peak_gib": round(device_peak / GIB, 2) if device_peak else None,
        "precision": result["precision"],
        "gradient_checkpointing": result["gradient_checkpointing"],
        "use_vllm": result["use_vllm"],
        "final_loss": result.get("final_loss"),
        "mean_reward": result.get("mean_reward"),
        "train_seconds": result.get("train_seconds"),
        "wall_s": None if wall_s is None else round(wall_s, 2),
    }


def ratios(rows: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """project over plain, per kind: tokens/s (speed-up), step time, peak memory."""

    def div(a: Any, b: Any) -> float | None:
        return round(a / b, 3) if a is not None and b else None

    out: dict[str, dict[str, float | None]] = {}
    for kind in ("sft", "grpo"):
        by = {r["config"]: r for r in rows if r["kind"] == kind}
        if "project" in by and "plain" in by:
            p, q = by["project"], by["plain"]
            out[kind] = {
                "tokens_per_s": div(p["tokens_per_s"], q["tokens_per_s"]),
                "step_s": div(p["step_s"], q["step_s"]),
                "peak_mem": div(p["peak_mem_gib"], q["peak_mem_gib"]),
            }
    return out


def _fmt(x: Any, spec: str = ",.1f") -> str:
    return "-" if x is None else format(x, spec)


def table(rows: list[dict[str, Any]]) -> list[str]:
    head = (
        f"{'run':<13}{'steps':>6}{'step s':>9}{'first s':>9}{'tokens/s':>11}{'gen tok/s':>11}"
        f"{'peak GiB':>10}{'device GiB':>12}{'run s':>8}  precision  ckpt  vllm"
    )
    lines = [head]
    for r in rows:
        mem = _fmt(r["peak_mem_gib"], ".2f") + ("r" if r["peak_mem_kind"] == "cpu-rss" else "")
        lines.append(
            f"{r['kind'] + ' ' + r['config']:<13}{r['steps']:>6}{_fmt(r['step_s'], '.3f'):>9}"
            f"{_fmt(r['first_step_s'], '.3f'):>9}{_fmt(r['tokens_per_s']):>11}"
            f"{_fmt(r['generated_tokens_per_s']):>11}{mem:>10}"
            f"{_fmt(r['device_peak_gib'], '.2f'):>12}{_fmt(r.get('wall_s'), '.1f'):>8}"
            f"  {r['precision']:<9}  {'on' if r['gradient_checkpointing'] else 'off':<4}"
            f"  {'on' if r['use_vllm'] else 'off'}"
        )
    return lines


# -- the driver --------------------------------------------------------------------------------
def _versions() -> dict[str, str | None]:
    import importlib.metadata as md

    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("torch", "transformers", "trl", "vllm"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


def preflight(cs: CheckSettings) -> tuple[int, str] | None:
    """(exit code, message) when the machine cannot run this mode, else None."""
    try:
        import torch
        import trl  # noqa: F401
    except ImportError as exc:
        return (
            3,
            f"the training stack is missing ({exc}); pip install -e '.[gpu]' ('.[train]' on CPU)",
        )
    if not cs.gpu:
        return None
    if not torch.cuda.is_available():
        return 2, (
            "no CUDA GPU is visible, so the GPU check cannot run here. "
            "`training/gpu_check.sh --cpu-smoke` runs the same driver on CPU (tiny model)."
        )
    if cs.use_vllm:
        import importlib.util

        if importlib.util.find_spec("vllm") is None:
            return 3, "vLLM is not installed in this environment: pip install -e '.[gpu]'"
    return None


def _device_name() -> str:
    """The GPUs as nvidia-smi names them (asking torch would open a CUDA context in the
    driver, which would then hold GPU memory through every run), else the CPU."""
    import torch

    if not torch.cuda.is_available():
        return f"cpu ({os.cpu_count()} cores)"
    names = "; ".join(nvidia_smi("name,memory.total")) or "cuda"
    return f"{names} ({torch.cuda.device_count()} visible)"


def check(cs: CheckSettings, python: str = sys.executable) -> int:
    t0 = time.perf_counter()
    failed = preflight(cs)
    if failed is not None:
        code, message = failed
        print(f"error: {message}", file=sys.stderr)
        return code
    versions = _versions()
    device = _device_name()
    print(f"== CompoWorld GPU check ({cs.mode}) ==")
    if not cs.gpu:
        print(NOT_RUN_NOTE)
    print(
        f"device: {device} | torch {versions['torch']} | transformers "
        f"{versions['transformers']} | trl {versions['trl']} | vllm "
        f"{versions['vllm'] or 'not installed'}"
    )
    sys.stdout.flush()
    keep = cs.out is not None
    root = Path(cs.out) if keep else Path(tempfile.mkdtemp(prefix="gpu-check-"))
    root.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    try:
        data = build_warehouse(root / "warehouse", cs.tasks, cs.seed)
        print(
            f"warehouse: {data['tasks']} composed tasks, {data['rollouts']} oracle rollouts "
            f"({data['completed']} completed: the SFT data); GRPO on every task "
            f"({data['seconds']} s)"
        )
        model = build_model_dir(cs, data.pop("records"), root / "model")
        shape = model["shape"]
        print(
            f"model: Qwen3, random init, size {model['size']}: {shape['num_hidden_layers']} "
            f"layers, hidden {shape['hidden_size']}, {model['parameters']:,} parameters, "
            f"vocab {model['vocab']:,}, saved {model['dtype']} ({model['seconds']} s)"
        )
        sys.stdout.flush()
        for phase in plan(cs, model["path"], str(root / "warehouse"), str(root / "runs")):
            print(f"-- {phase.name}: python -m training.{phase.kind} {shlex.join(phase.argv)}")
            sys.stdout.flush()
            result_path = root / "runs" / f"{phase.name}.result.json"
            result_path.parent.mkdir(parents=True, exist_ok=True)
            t_run = time.perf_counter()
            if cs.in_process:
                rc, tail, peak = run_phase_inline(phase, result_path)
            else:
                rc, tail, peak = run_phase(phase, result_path, python, gpu=cs.gpu)
            if rc != 0 or not result_path.is_file():
                failures.append(f"{phase.name} exited {rc}: {tail[-1] if tail else ''}")
                print(f"error: {phase.name} failed (exit {rc})", file=sys.stderr)
                continue
            result = json.loads(result_path.read_text())
            rows.append(summarise(result, peak, time.perf_counter() - t_run))
        total = round(time.perf_counter() - t0, 1)
        report = {
            "mode": cs.mode,
            "gpu_path_run": cs.gpu,
            "device": device,
            "versions": versions,
            "settings": asdict(cs),
            "warehouse": data,
            "model": model,
            "runs": rows,
            "ratios": ratios(rows),
            "failures": failures,
            "total_seconds": total,
            "budget_seconds": cs.budget_s,
        }
        print()
        for line in table(rows):
            print(line)
        for kind, r in report["ratios"].items():
            print(
                f"ratio {kind} project/plain: tokens/s x{_fmt(r['tokens_per_s'], '.2f')}, "
                f"step time x{_fmt(r['step_s'], '.2f')}, peak memory x{_fmt(r['peak_mem'], '.2f')}"
            )
        print(
            "(step s: median after the first step; tokens/s: tokens the trainer processed per "
            "second of step time; peak GiB: torch's peak reserved GPU memory in the run's "
            "process, 'r' = peak RSS on CPU; device GiB: the whole GPU's peak used memory; "
            "run s: the whole run, start-up and model loading (and vLLM's start) included)"
        )
        within = "within" if total <= cs.budget_s else "OVER"
        print(f"total {total} s ({within} the {cs.budget_s} s budget)")
        if not cs.gpu:
            print("GPU path: not run (CPU smoke mode).")
        (root / RESULT_FILE).write_text(json.dumps(report, indent=2, default=str) + "\n")
        print(JSON_PREFIX + json.dumps(report, default=str))
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


# -- the worker (one run, in its own process) --------------------------------------------------
def _measure_callback() -> Any:
    from transformers import TrainerCallback

    class Measure(TrainerCallback):
        """TRL's cumulative ``num_tokens`` and, for GRPO, each step's mean completion length."""

        def __init__(self) -> None:
            self.num_tokens: float | None = None
            self.completion_lengths: list[float] = []

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not logs:
                return
            if "num_tokens" in logs:
                self.num_tokens = logs["num_tokens"]
            if "completions/mean_length" in logs:
                self.completion_lengths.append(logs["completions/mean_length"])

    return Measure()


def _peaks() -> dict[str, float | None]:
    import torch

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    out: dict[str, float | None] = {
        "peak_rss_gib": round(rss / GIB, 3),
        "peak_torch_allocated_gib": None,
        "peak_torch_reserved_gib": None,
    }
    if torch.cuda.is_available():
        out["peak_torch_allocated_gib"] = round(torch.cuda.max_memory_allocated() / GIB, 3)
        out["peak_torch_reserved_gib"] = round(torch.cuda.max_memory_reserved() / GIB, 3)
    return out


def worker(argv: list[str]) -> int:
    """``_worker sft|grpo --result FILE [--fp32] -- <entry point options>``: one run through
    ``training.sft.train`` or ``training.grpo.prepare``/``finish``, its figures to FILE."""
    p = argparse.ArgumentParser(prog="python -m training.gpu_check _worker")
    p.add_argument("kind", choices=["sft", "grpo"])
    p.add_argument("--result", required=True)
    p.add_argument("--fp32", action="store_true", help="SFT: no bf16 even where the GPU has it")
    cut = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:cut])
    rest = argv[cut + 1 :]
    from training.sft import InputError, MissingDependencies, training_env_defaults

    training_env_defaults()
    try:
        return _work(a.kind, rest, Path(a.result), fp32=a.fp32)
    except InputError as exc:  # the entry points' exit codes (training.sft.run_cli)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MissingDependencies as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3


def _work(kind: str, rest: list[str], result_path: Path, *, fp32: bool) -> int:
    measures: list[Any] = []  # the callback, made once transformers is imported
    if kind == "sft":
        from unittest import mock

        from training import sft

        settings = sft.parse_args(rest)
        build = sft.build_trainer

        def build_measured(*args: Any, **kwargs: Any) -> Any:
            trainer, facts = build(*args, **kwargs)
            measures.append(_measure_callback())
            trainer.add_callback(measures[-1])
            return trainer, facts

        with ExitStack() as stack:
            stack.enter_context(mock.patch.object(sft, "build_trainer", build_measured))
            if fp32:
                device = sft._device()[0]
                stack.enter_context(mock.patch.object(sft, "_device", lambda: (device, False)))
            metrics = sft.train(settings)
        step_seconds = list(metrics["step_seconds"])
        checkpointing, use_vllm, generated = settings.checkpointing(), False, None
    else:
        from training import grpo

        settings = grpo.parse_args(rest)
        prep = grpo.prepare(settings)
        measures.append(_measure_callback())
        prep.trainer.add_callback(measures[-1])
        metrics = grpo.finish(prep)
        step_seconds = [s["step_s"] for s in metrics["per_step"]]
        checkpointing, use_vllm = settings.checkpointing(), settings.use_vllm
        per_step = settings.batch_size * settings.grad_accum * metrics["world_size"]
        generated = round(sum(measures[-1].completion_lengths) * per_step)
    result = {
        "kind": kind,
        "config": Path(settings.out).name.removeprefix(f"{kind}-"),
        "steps": metrics["steps"],
        "step_seconds": step_seconds,
        "train_seconds": metrics["train_seconds"],
        "tokens": measures[-1].num_tokens,
        "generated_tokens": generated,
        "parameters": metrics["parameters"],
        "device": metrics["device"],
        "precision": metrics["precision"],
        "gradient_checkpointing": checkpointing,
        "use_vllm": use_vllm,
        "final_loss": metrics.get("final_loss"),
        "loss_finite": metrics.get("loss_finite"),
        "mean_reward": metrics.get("mean_reward"),
        **_peaks(),
    }
    result_path.write_text(json.dumps(result, indent=2) + "\n")
    if not metrics.get("loss_finite", True):
        print(f"error: the training loss is not finite: {metrics['losses']}", file=sys.stderr)
        return 1
    return 0


# -- command line ------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> CheckSettings:
    p = argparse.ArgumentParser(
        prog="python -m training.gpu_check",
        description="SFT + GRPO steps of a ~0.5B random Qwen3 with vLLM colocate and bf16, "
        "against TRL's plain settings (one GPU, under 8 minutes).",
    )
    p.add_argument(
        "--cpu-smoke",
        action="store_true",
        default=os.environ.get(SMOKE_ENV_VAR, "") not in ("", "0"),
        help=f"tiny model, 2 SFT + 1 GRPO step, no vLLM, on CPU (or {SMOKE_ENV_VAR}=1)",
    )
    p.add_argument("--out", default=None, help="keep everything here (default: a temp dir)")
    p.add_argument("--tasks", type=int, default=None)
    p.add_argument("--sft-steps", type=int, default=None)
    p.add_argument("--grpo-steps", type=int, default=None)
    p.add_argument("--completion-length", type=int, default=None, help="GRPO max tokens")
    p.add_argument(
        "--only", choices=["project", "plain"], default=None, help="one config, no ratio"
    )
    p.add_argument(
        "--in-process",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run the four trainings in this process (default: only with --cpu-smoke)",
    )
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    cs = CheckSettings(out=a.out, seed=a.seed)
    if a.cpu_smoke:
        cs = smoke_settings(cs)
    overrides = {
        "tasks": a.tasks,
        "sft_steps": a.sft_steps,
        "grpo_steps": a.grpo_steps,
        "completion_length": a.completion_length,
    }
    cs = replace(cs, **{k: v for k, v in overrides.items() if v is not None})
    if a.only:
        cs.runs = [a.only]
    if a.in_process is not None:
        cs.in_process = a.in_process
    if min(cs.tasks, cs.sft_steps, cs.grpo_steps, cs.completion_length) < 1:
        p.error("--tasks, --sft-steps, --grpo-steps and --completion-length must be >= 1")
    return cs


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_worker"]:
        return worker(argv[1:])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))  # `timeout`: stop the run too
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    return check(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
