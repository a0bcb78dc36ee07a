"""GRPO (TRL ``GRPOTrainer``) on CompoWorld tasks, rewarded by the Completion-Focused Rubric
Reward, from the command line.

    python -m training.grpo --warehouse .compoworld/warehouse --model tiny --out runs/rl-1 \\
        --max-steps 20 [--where "t.domain = 'finance'"] [--reference-policy oracle --band 0.1,0.9]

Data: RL tasks selected from the warehouse with SQL (``training.data``: the ``rl`` split by
default, ``--where`` over ``t`` = tasks), streamed into a ``datasets.Dataset``; with
``--reference-policy`` only tasks whose pass rate under that policy (its judged rollouts in
the warehouse) lies in ``--band`` are kept. ``metrics.json`` records the query, the exact
Parquet files read and a digest of the rows (lineage), and the band's per-task pass rates.

Rollouts: TRL's ``environment_factory``: one ``WorldEnvironment`` per rollout, reset to the
task's initial state, exposing the gateway's four meta-tools; multi-turn tool calling up to
``--max-tool-calls`` turns. Reward: each finished group of ``--num-generations`` rollouts is
judged against its task's rubric here, in the trainer (``library.judge``), and gets CFRR
(``library.reward``), the same code as the judge stage. Per step the log has the reward,
the completion rate and the pass rate of each criterion kind, and the environment's share of
the step (resets, tool calls, judging). Every judged rollout goes to ``rollouts.jsonl``.

Options: ``--lora`` (peft), ``--use-vllm`` (``--vllm-mode colocate|server``), bf16 (on by
default where the GPU supports it), ``--gradient-checkpointing``; several GPUs through
``accelerate launch -m training.grpo ...``.

Writes ``<out>/model`` and ``<out>/metrics.json``. Exit codes: 0 trained; 1 training failed;
2 bad input (empty selection, malformed task, services missing, bad options); 3 torch/TRL
missing. Never imports Prefect: the ``train-rl`` flow runs it as a subprocess.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from training.sft import (
    METRICS_FILE,
    MODEL_DIR,
    TINY,
    InputError,
    MissingDependencies,
    _device,
    _write_json,
    check_model_arg,
    import_training_stack,
    run_cli,
    training_env_defaults,
)

ROLLOUTS_FILE = "rollouts.jsonl"


@dataclass(slots=True)
class GRPOSettings:
    warehouse: str
    model: str = TINY
    out: str = "grpo-out"
    where: str | None = None
    split: str = "rl"
    limit: int | None = None
    reference_policy: str | None = None
    band: tuple[float, float] = (0.05, 0.95)
    max_steps: int = 20
    num_generations: int = 4  # G: rollouts per task in a group
    batch_size: int = 4  # rollouts per device per step (whole groups)
    grad_accum: int = 1
    max_completion_length: int | None = None  # None: 256 for tiny, 4096 otherwise
    max_tool_calls: int = 16  # tool-calling turns per rollout
    temperature: float = 1.0
    lr: float | None = None  # None: 1e-4 for tiny, 1e-6 otherwise (5e-5 with LoRA)
    beta: float = 0.0  # KL weight (0: no reference model, TRL's default)
    seed: int = 0
    lora: bool = False
    lora_r: int = 16
    lora_alpha: int = 32
    use_vllm: bool = False
    vllm_mode: str = "colocate"
    vllm_server_url: str | None = None
    bf16: bool | None = None  # None: where the GPU supports it
    gradient_checkpointing: bool | None = None  # None: on, except for the tiny model
    eps: float | None = None  # CFRR parameters (None: library.reward's defaults)
    alpha: float | None = None
    trusted_services: bool = True  # reference services may run in-process
    extra: dict[str, Any] = field(default_factory=dict)

    def completion_length(self) -> int:
        if self.max_completion_length is not None:
            return self.max_completion_length
        return 256 if self.model == TINY else 4096

    def learning_rate(self) -> float:
        if self.lr is not None:
            return self.lr
        if self.model == TINY:
            return 1e-4
        return 5e-5 if self.lora else 1e-6

    def checkpointing(self) -> bool:
        if self.gradient_checkpointing is not None:
            return self.gradient_checkpointing
        return self.model != TINY

    def check(self) -> None:
        if self.num_generations < 2:
            raise InputError("--num-generations must be at least 2 (GRPO compares a group)")
        if self.batch_size % self.num_generations:
            raise InputError(
                f"--batch-size {self.batch_size} must be a multiple of --num-generations "
                f"{self.num_generations}: the reward is computed within whole groups"
            )
        if self.max_steps < 1:
            raise InputError("--max-steps must be at least 1")
        if self.vllm_mode not in ("colocate", "server"):
            raise InputError("--vllm-mode is colocate or server")


@dataclass(slots=True)
class Prepared:
    """A trainer ready to train, and what the run records about it."""

    settings: GRPOSettings
    trainer: Any
    tokenizer: Any
    lineage: Any
    clock: Any
    backend: str
    close: Any
    versions: dict[str, str]
    tasks: int
    started: dt.datetime
    t0: float


def _step_callback(clock: Any, max_steps: int) -> Any:
    from transformers import TrainerCallback

    class StepLog(TrainerCallback):
        """Per optimizer step: its wall time and the environment's seconds (resets, tool
        calls, judging) from the clock; a plain log line per logged step."""

        def __init__(self) -> None:
            self.steps: list[dict[str, Any]] = []
            self._t = 0.0

        def on_step_begin(self, args, state, control, **kwargs):
            clock.take()  # what happened between steps is not the step's
            self._t = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            wall = time.perf_counter() - self._t
            env = clock.take()
            share = env["env_s"] / wall if wall > 0 else None
            self.steps.append(
                {"step": state.global_step, "step_s": round(wall, 4), **env, "env_share": share}
            )

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not state.is_world_process_zero or not logs or "reward" not in logs:
                return
            if self.steps and self.steps[-1]["step"] == state.global_step:
                self.steps[-1]["log"] = dict(logs)
            done = logs.get("cfrr/completion_rate")
            print(
                f"[grpo] step {state.global_step}/{max_steps} reward {logs['reward']:.4f} "
                f"completion {done if done is None else round(done, 4)} "
                f"tool calls/rollout {logs.get('tools/call_frequency', 0):.2f}"
            )
            sys.stdout.flush()

    return StepLog()


def _rank() -> int:
    return int(os.environ.get("RANK", "0") or 0)


def load_policy_model(settings: GRPOSettings, dataset: Any) -> tuple[Any, Any]:
    """(model or model folder, tokenizer). The tiny model's tokenizer is trained on what it
    will read: the selected tasks' opening messages and the gateway's tool schemas."""
    from training.data import gateway_tools

    if settings.model == TINY:
        from training.tiny import build_tiny

        tools = json.dumps(gateway_tools())
        records = ({"messages": row["prompt"], "tools": tools} for row in dataset)
        return build_tiny(records, seed=settings.seed)
    from transformers import AutoTokenizer

    return settings.model, AutoTokenizer.from_pretrained(settings.model)


def prepare(settings: GRPOSettings) -> Prepared:
    """Select the tasks, build the environments, the reward and the trainer."""
    t0 = time.perf_counter()
    started = dt.datetime.now(dt.UTC)
    settings.check()
    check_model_arg(settings.model)
    if not Path(settings.warehouse).exists() and "://" not in settings.warehouse:
        raise InputError(f"warehouse not found: {settings.warehouse}")
    from library.reward import ALPHA, EPS
    from library.services import reference_service_classes
    from training.data import Band, SelectionError, built_code, select_rl_tasks
    from training.environment import (
        EnvClock,
        MissingServices,
        RubricReward,
        TaskBook,
        backend_factory,
    )
    from warehouse import Warehouse

    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    wh = Warehouse(settings.warehouse)
    band = None
    if settings.reference_policy:
        band = Band(settings.reference_policy, *settings.band)
    try:
        dataset, lineage = select_rl_tasks(
            wh,
            where=settings.where,
            split=settings.split or None,
            limit=settings.limit,
            band=band,
            cache_dir=out / "datasets",
        )
        book = TaskBook()
        needed: set[str] = set()
        distractors: set[str] = set()
        for row in dataset.select_columns(["task_id", "task"]):
            task = book.get(row["task_id"], row["task"])
            needed.update(task.services)
            distractors.update(task.distractor_services)
    except SelectionError as exc:
        raise InputError(str(exc)) from None
    except ImportError as exc:  # datasets
        raise MissingDependencies(f"training needs datasets ({exc})") from None
    trusted = reference_service_classes() if settings.trusted_services else []
    names = sorted(needed | distractors)
    try:
        backend, where_runs, close = backend_factory(
            sorted(needed), trusted, built_code(wh, names), sorted(distractors - needed)
        )
    except MissingServices as exc:
        raise InputError(str(exc)) from None
    # The data and the services are checked first: a bad input fails before torch loads.
    versions = import_training_stack()

    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    torch.manual_seed(settings.seed)

    clock = EnvClock()
    rollouts_path = out / (ROLLOUTS_FILE if _rank() == 0 else f"rollouts.rank{_rank()}.jsonl")
    rollouts_path.unlink(missing_ok=True)
    sink = rollouts_path.open("a", encoding="utf-8")

    def keep(record: dict[str, Any]) -> None:
        sink.write(json.dumps(record, default=str) + "\n")
        sink.flush()

    def close_all() -> None:
        sink.close()
        close()

    reward = RubricReward(
        settings.num_generations,
        clock,
        run=out.name,
        eps=EPS if settings.eps is None else settings.eps,
        alpha=ALPHA if settings.alpha is None else settings.alpha,
        keep=keep,
    )
    model, tokenizer = load_policy_model(settings, dataset)
    trainer = _trainer(settings, model, tokenizer, dataset, reward, backend, book, clock)
    trainer.add_callback(_step_callback(clock, settings.max_steps))
    return Prepared(
        settings,
        trainer,
        tokenizer,
        lineage,
        clock,
        where_runs,
        close_all,
        versions,
        len(dataset),
        started,
        t0,
    )


def _config(settings: GRPOSettings, device: str, bf16: bool, vllm: dict[str, Any]) -> Any:
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(Path(settings.out) / "trainer"),
        max_steps=settings.max_steps,
        per_device_train_batch_size=settings.batch_size,
        gradient_accumulation_steps=settings.grad_accum,
        num_generations=settings.num_generations,
        max_completion_length=settings.completion_length(),
        max_tool_calling_iterations=settings.max_tool_calls,
        temperature=settings.temperature,
        learning_rate=settings.learning_rate(),
        beta=settings.beta,
        seed=settings.seed,
        gradient_checkpointing=settings.checkpointing(),
        bf16=bf16,
        use_cpu=device == "cpu",
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
        **vllm,
        **settings.extra,
    )


def _trainer(
    settings: GRPOSettings,
    model: Any,
    tokenizer: Any,
    dataset: Any,
    reward: Any,
    backend: Any,
    book: Any,
    clock: Any,
) -> Any:
    from transformers import PrinterCallback
    from trl import GRPOTrainer

    from training.environment import WorldEnvironment

    device, bf16_ok = _device()
    bf16 = bf16_ok if settings.bf16 is None else settings.bf16
    if bf16 and device == "cpu":
        raise InputError("--bf16 needs a GPU that supports it")
    vllm: dict[str, Any] = {}
    if settings.use_vllm:
        vllm = {"use_vllm": True, "vllm_mode": settings.vllm_mode}
        if settings.vllm_server_url:
            vllm["vllm_server_base_url"] = settings.vllm_server_url
    with warnings.catch_warnings():  # TRL still passes a field transformers 5 renamed
        warnings.filterwarnings("ignore", message=r".*gradient_checkpointing` is deprecated")
        config = _config(settings, device, bf16, vllm)
    peft_config = None
    if settings.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=settings.lora_r,
            lora_alpha=settings.lora_alpha,
            target_modules="all-linear",
            task_type="CAUSAL_LM",
        )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*gradient_checkpointing` is deprecated")
        warnings.filterwarnings("ignore", message=r".*'environment_factory', which is an exp")
        trainer = GRPOTrainer(
            model=model,
            reward_funcs=[reward],
            args=config,
            train_dataset=dataset,
            processing_class=tokenizer,
            peft_config=peft_config,
            environment_factory=lambda: WorldEnvironment(backend, book, clock),
        )
    trainer.remove_callback(PrinterCallback)
    return trainer


def finish(prep: Prepared) -> dict[str, Any]:
    """Train, save ``<out>/model`` and ``<out>/metrics.json``; return the metrics."""
    settings, trainer = prep.settings, prep.trainer
    out = Path(settings.out)
    n_params = sum(p.numel() for p in trainer.model.parameters())
    say = print if trainer.is_world_process_zero() else (lambda *a, **k: None)
    say(
        f"[grpo] {prep.tasks} tasks ({prep.lineage.rows} rows from "
        f"{sum(len(v) for v in prep.lineage.files.values())} Parquet files), "
        f"groups of {settings.num_generations}, model {settings.model} "
        f"({n_params:,} parameters); services: {prep.backend}"
    )
    sys.stdout.flush()
    t_train = time.perf_counter()
    try:
        result = trainer.train()
    finally:
        # TRL keeps its environment instances; give their worlds (and workers) back.
        for env in getattr(trainer, "_environment_pool", {}).get(None, []):
            env._close()
        prep.close()
    train_s = time.perf_counter() - t_train
    model_dir = out / MODEL_DIR
    if settings.lora:
        # The adapter alone, and the model with it merged in: what a later stage (an
        # evaluation, the next training run) loads with from_pretrained.
        trainer.save_model(str(out / "adapter"))
        if trainer.is_world_process_zero():
            trainer.model.merge_and_unload().save_pretrained(str(model_dir))
            prep.tokenizer.save_pretrained(str(model_dir))
    else:
        trainer.save_model(str(model_dir))
    step_log = next(cb for cb in trainer.callback_handler.callbacks if hasattr(cb, "steps"))
    steps = []
    for entry in step_log.steps:
        log = entry.pop("log", {})
        kinds = {
            k.removeprefix("cfrr/pass_rate/"): v
            for k, v in log.items()
            if k.startswith("cfrr/pass_rate/")
        }
        steps.append(
            {
                **entry,
                "reward": log.get("reward"),
                "reward_std": log.get("reward_std"),
                "cfrr_mean": log.get("rewards/cfrr/mean"),
                "completion_rate": log.get("cfrr/completion_rate"),
                "pass_rate_by_kind": kinds,
                "loss": log.get("loss"),
                "tool_calls_per_rollout": log.get("tools/call_frequency"),
                "tool_failure_rate": log.get("tools/failure_frequency"),
            }
        )
    env_total = sum(s["env_s"] for s in steps)
    step_total = sum(s["step_s"] for s in steps)
    losses = [s["loss"] for s in steps if s["loss"] is not None]
    device, _ = _device()
    metrics: dict[str, Any] = {
        "status": "completed",
        "kind": "grpo",
        "steps": trainer.state.global_step,
        "per_step": steps,
        "losses": [{"step": s["step"], "loss": s["loss"]} for s in steps if s["loss"] is not None],
        "final_loss": losses[-1] if losses else None,
        "train_loss": result.training_loss,
        "loss_finite": all(math.isfinite(x) for x in losses),
        "mean_reward": _mean([s["reward"] for s in steps]),
        "completion_rate": _mean([s["completion_rate"] for s in steps]),
        "env_seconds": round(env_total, 4),
        "env_share": round(env_total / step_total, 6) if step_total else None,
        "wall_seconds": round(time.perf_counter() - prep.t0, 3),
        "train_seconds": round(train_s, 3),
        "samples": prep.tasks,
        "lineage": prep.lineage.to_dict(),
        "data_sha256": prep.lineage.digest,
        "data_path": prep.lineage.warehouse,
        "services": prep.backend,
        "rollouts_path": str((out / ROLLOUTS_FILE).resolve()),
        "model": settings.model,
        "model_dir": str(model_dir.resolve()),
        "parameters": n_params,
        "device": device,
        "precision": "bf16" if trainer.args.bf16 else "fp32",
        "world_size": trainer.args.world_size,
        "versions": prep.versions,
        "torch_version": prep.versions["torch"],
        "trl_version": prep.versions["trl"],
        "settings": {**asdict(settings), "lr": settings.learning_rate()},
        "started_at": prep.started.isoformat(),
        "finished_at": dt.datetime.now(dt.UTC).isoformat(),
    }
    if trainer.is_world_process_zero():
        _write_json(out / METRICS_FILE, metrics)
    return metrics


def _mean(values: list[Any]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def train(settings: GRPOSettings) -> dict[str, Any]:
    return finish(prepare(settings))


def _band(text: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("--band is LOW,HIGH (e.g. 0.1,0.9)") from None
    return low, high


def parse_args(argv: list[str] | None = None) -> GRPOSettings:
    p = argparse.ArgumentParser(
        prog="python -m training.grpo",
        description="GRPO with TRL on CompoWorld tasks, rewarded by the rubric (CFRR).",
    )
    p.add_argument("--warehouse", required=True, help="the warehouse folder or URL")
    p.add_argument("--model", default=TINY, help=f"local model folder, or '{TINY}'")
    p.add_argument("--out", required=True, help="output folder (model/, metrics.json)")
    p.add_argument("--where", default=None, help="SQL over t (tasks): t.domain = 'finance'")
    p.add_argument("--split", default="rl", help="task split ('' for every split)")
    p.add_argument("--limit", type=int, default=None, help="at most this many tasks")
    p.add_argument("--reference-policy", default=None, help="keep tasks in its pass-rate band")
    p.add_argument("--band", type=_band, default=(0.05, 0.95), help="LOW,HIGH pass rates")
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--num-generations", type=int, default=4, help="G: rollouts per group")
    p.add_argument("--batch-size", type=int, default=4, help="rollouts per device per step")
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--max-completion-length", type=int, default=None)
    p.add_argument("--max-tool-calls", type=int, default=16, help="tool-calling turns")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--beta", type=float, default=0.0, help="KL weight")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lora", action="store_true", help="train LoRA adapters (peft)")
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM")
    p.add_argument("--vllm-mode", choices=["colocate", "server"], default="colocate")
    p.add_argument("--vllm-server-url", default=None)
    p.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=None)
    a = p.parse_args(argv)
    return GRPOSettings(
        warehouse=a.warehouse,
        model=a.model,
        out=a.out,
        where=a.where,
        split=a.split,
        limit=a.limit,
        reference_policy=a.reference_policy,
        band=a.band,
        max_steps=a.max_steps,
        num_generations=a.num_generations,
        batch_size=a.batch_size,
        grad_accum=a.grad_accum,
        max_completion_length=a.max_completion_length,
        max_tool_calls=a.max_tool_calls,
        temperature=a.temperature,
        lr=a.lr,
        beta=a.beta,
        seed=a.seed,
        lora=a.lora,
        lora_r=a.lora_r,
        use_vllm=a.use_vllm,
        vllm_mode=a.vllm_mode,
        vllm_server_url=a.vllm_server_url,
        bf16=a.bf16,
        gradient_checkpointing=a.gradient_checkpointing,
    )


def main(argv: list[str] | None = None) -> int:
    training_env_defaults()
    return run_cli(
        train,
        parse_args(argv),
        lambda m: (
            f"[grpo] done: {m['steps']} steps in {m['train_seconds']:.1f} s, mean reward "
            f"{m['mean_reward']}, completion {m['completion_rate']}, environment "
            f"{100 * (m['env_share'] or 0):.2f}% of the step time; model -> {m['model_dir']}"
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
