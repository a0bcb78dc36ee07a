"""Supervised fine-tuning (TRL ``SFTTrainer``) on a chat export, from the command line.

    python -m training.sft --data exports/chat.jsonl --model tiny --out runs/sft-1 --max-steps 20

    python -m training.sft --warehouse .compoworld/warehouse --where "t.domain = 'finance'" ...

``--warehouse`` pulls completed, finished rollouts with SQL (``--where`` over ``r`` rollouts,
``s`` rollout_scores, ``t`` tasks; ``training.data``), streamed into ``datasets``; the
metrics record the selection's lineage (query, Parquet files, row digest).
``--data`` is the export stage's ``chat.jsonl``: one ``{"messages": [...], "tools": "<JSON>"}``
per line, OpenAI chat format with tool calls (``arguments`` and ``tools`` are JSON strings,
which TRL ``json.loads``). ``--model`` is a local model folder (``config.json`` + tokenizer)
or ``tiny``: a two-layer Qwen3 and a BPE tokenizer built here from the data (``training/tiny``).
Nothing is downloaded: ``HF_HUB_OFFLINE=1`` unless the caller set it.

Loss: ``--loss auto`` (default) trains on the assistant turns only when the chat template has
``{% generation %}`` markers or TRL ships a training variant of it (Qwen2.5/3, Llama 3, ...,
and the tiny model's Qwen3 template); otherwise on the whole conversation, said in the metrics.
Samples longer than ``--max-length`` tokens are dropped, not truncated: tool schemas come first,
so truncating would cut the very turns being learned.

Writes ``<out>/model`` (weights + tokenizer) and ``<out>/metrics.json``. Exit codes:
0 trained; 1 training failed or the loss is not finite; 2 bad input (data file missing, empty
or malformed; model folder missing); 3 torch/TRL missing (install the ``train`` extra).

This module never imports Prefect (it runs in the GPU environment); the ``train-sft`` flow
starts it as a subprocess and reads ``metrics.json`` back.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

METRICS_FILE = "metrics.json"
MODEL_DIR = "model"
TINY = "tiny"
INSTALL_HINT = "install the `train` extra: pip install -e '.[train]' (GPU workers: '.[gpu]')"


class InputError(Exception):
    """Bad data or model argument: exit code 2."""


class MissingDependencies(Exception):
    """torch / transformers / trl / accelerate cannot be imported: exit code 3."""


@dataclass(slots=True)
class SFTSettings:
    data: str | None = None  # a chat.jsonl export; or, with ``warehouse``, pulled by SQL
    model: str = TINY
    out: str = "sft-out"
    max_steps: int = 20
    lr: float | None = None  # None: 1e-3 for the tiny model, 2e-5 for a pretrained one
    seed: int = 0
    batch_size: int = 1
    grad_accum: int = 1
    max_length: int = 32768
    loss: str = "auto"  # auto | assistant | all
    gradient_checkpointing: bool | None = None  # None: on, except for the tiny model
    warehouse: str | None = None  # pull completed rollouts from this warehouse instead
    where: str | None = None  # SQL over r (rollouts), s (rollout_scores), t (tasks)

    def checkpointing(self) -> bool:
        if self.gradient_checkpointing is not None:
            return self.gradient_checkpointing
        return self.model != TINY  # recomputing a 2-layer model only costs time

    def learning_rate(self) -> float:
        if self.lr is not None:
            return self.lr
        return 1e-3 if self.model == TINY else 2e-5


# -- input checks (no torch needed) -------------------------------------------------------------
def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The chat records of a JSONL file, or ``InputError`` naming the file (and line)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"data file not found: {p}")
    records: list[dict[str, Any]] = []
    with p.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{p}:{lineno}: not valid JSON ({exc.msg})") from None
            if not isinstance(rec, dict) or not isinstance(rec.get("messages"), list):
                raise InputError(f"{p}:{lineno}: expected an object with a 'messages' list")
            if not any(
                isinstance(m, dict) and m.get("role") == "assistant" for m in rec["messages"]
            ):
                raise InputError(f"{p}:{lineno}: no assistant message to learn from")
            tools = rec.get("tools")
            if tools is not None and not isinstance(tools, str):
                rec["tools"] = json.dumps(tools)  # one Arrow type for the column
            records.append(rec)
    if not records:
        raise InputError(f"data file is empty (no chat records): {p}")
    return records


def check_model_arg(model: str) -> None:
    if model == TINY:
        return
    p = Path(model)
    if not (p / "config.json").is_file():
        raise InputError(
            f"model folder not found: {p} (give a local folder with config.json and a tokenizer, "
            f"or '{TINY}'; models are never downloaded)"
        )


def import_training_stack() -> dict[str, str]:
    """Versions of the training packages, or ``MissingDependencies`` with the install hint."""
    try:
        import accelerate
        import datasets
        import torch
        import transformers
        import trl
    except ImportError as exc:
        raise MissingDependencies(f"training needs torch and TRL ({exc}); {INSTALL_HINT}") from None
    return {
        "torch": torch.__version__,
        "trl": trl.__version__,
        "transformers": transformers.__version__,
        "accelerate": accelerate.__version__,
        "datasets": datasets.__version__,
        "python": platform.python_version(),
    }


# -- model, loss mode, trainer ------------------------------------------------------------------
def load_model(settings: SFTSettings, records: list[dict[str, Any]]) -> tuple[Any, Any]:
    """(model or model folder, tokenizer). The tiny model is built from the records."""
    if settings.model == TINY:
        from training.tiny import build_tiny

        return build_tiny(records, seed=settings.seed)
    from transformers import AutoTokenizer

    return settings.model, AutoTokenizer.from_pretrained(settings.model)


def choose_loss(tokenizer: Any, requested: str) -> tuple[bool, str]:
    """(assistant only?, why). TRL swaps in its training template itself when it has one."""
    if requested == "all":
        return False, "full conversations (--loss all)"
    from trl.chat_template_utils import get_training_chat_template, has_generation_markers

    template = tokenizer.chat_template
    if template is None:
        raise InputError("the model's tokenizer has no chat template")
    if has_generation_markers(template):
        return True, "assistant turns only (the chat template has {% generation %} markers)"
    try:
        get_training_chat_template(tokenizer)
    except ValueError:
        if requested == "assistant":
            raise InputError(
                "--loss assistant needs a chat template with {% generation %} markers or one "
                "TRL has a training variant of; this one is neither (use --loss all)"
            ) from None
        return False, (
            "full conversations: the chat template has no {% generation %} markers and TRL "
            "has no training variant of it"
        )
    return True, "assistant turns only (TRL's training variant of the chat template)"


def _device() -> tuple[str, bool]:
    """('cuda' | 'cpu', bf16?)."""
    import torch

    if torch.cuda.is_available():
        return "cuda", bool(torch.cuda.is_bf16_supported())
    return "cpu", False


def _log_callback(max_steps: int) -> Any:
    from transformers import TrainerCallback

    class LogLines(TrainerCallback):
        """One plain line per logged step (a process log, not a progress bar), and the wall
        time of every optimizer step in ``step_seconds``."""

        def __init__(self) -> None:
            self.step_seconds: list[float] = []
            self._t = 0.0

        def on_step_begin(self, args, state, control, **kwargs):
            self._t = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):
            self.step_seconds.append(round(time.perf_counter() - self._t, 4))

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not state.is_world_process_zero or not logs or "loss" not in logs:
                return
            extra = "".join(
                f" {k} {logs[k]:.4g}" for k in ("grad_norm", "learning_rate") if k in logs
            )
            print(f"[sft] step {state.global_step}/{max_steps} loss {logs['loss']:.4f}{extra}")
            sys.stdout.flush()

    return LogLines()


def _trainer(
    settings: SFTSettings,
    records: list[dict[str, Any]],
    model: Any,
    tokenizer: Any,
    assistant_only: bool,
    device: str,
    bf16: bool,
) -> Any:
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    config = SFTConfig(
        output_dir=str(Path(settings.out) / "trainer"),
        max_steps=settings.max_steps,
        per_device_train_batch_size=settings.batch_size,
        gradient_accumulation_steps=settings.grad_accum,
        learning_rate=settings.learning_rate(),
        lr_scheduler_type="constant_with_warmup" if settings.max_steps < 100 else "cosine",
        warmup_steps=min(10, settings.max_steps // 10),
        seed=settings.seed,
        max_length=None,  # long samples are dropped in build_trainer, not truncated
        gradient_checkpointing=settings.checkpointing(),
        assistant_only_loss=assistant_only,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        use_cpu=device == "cpu",
        bf16=bf16,
        dataloader_num_workers=0,
    )
    return SFTTrainer(
        model=model,
        args=config,
        train_dataset=records if isinstance(records, Dataset) else Dataset.from_list(records),
        processing_class=tokenizer,
    )


def build_trainer(
    settings: SFTSettings, records: list[dict[str, Any]], model: Any, tokenizer: Any
) -> tuple[Any, dict[str, Any]]:
    """An ``SFTTrainer`` on the records that fit ``max_length``, and facts for the metrics."""
    from transformers import PrinterCallback

    assistant_only, loss_note = choose_loss(tokenizer, settings.loss)
    device, bf16 = _device()
    with warnings.catch_warnings():  # TRL still reads a field transformers 5 renamed
        warnings.filterwarnings("ignore", message=r".*`gradient_checkpointing` is deprecated")
        trainer = _trainer(settings, records, model, tokenizer, assistant_only, device, bf16)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(_log_callback(settings.max_steps))
    tokenized = trainer.train_dataset
    fits = tokenized.filter(lambda ex: len(ex["input_ids"]) <= settings.max_length)
    lengths = [len(ids) for ids in tokenized["input_ids"]]
    if len(fits) == 0:
        raise InputError(
            f"{settings.data or settings.warehouse}: no record fits --max-length "
            f"{settings.max_length} tokens "
            f"(shortest is {min(lengths)})"
        )
    trainer.train_dataset = fits
    trained_tokens = sum(sum(1 for x in labels if x != -100) for labels in fits["labels"])
    facts = {
        "records": len(records),
        "samples": len(fits),
        "dropped_too_long": len(records) - len(fits),
        "tokens": sum(len(ids) for ids in fits["input_ids"]),
        "trained_tokens": trained_tokens,
        "max_sample_tokens": max(len(ids) for ids in fits["input_ids"]),
        "assistant_only_loss": assistant_only,
        "loss_mode": loss_note,
        "device": device,
        "precision": "bf16" if bf16 else "fp32",
    }
    return trainer, facts


# -- the run ------------------------------------------------------------------------------------
def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


def warehouse_records(settings: SFTSettings) -> tuple[Any, dict[str, Any]]:
    """Completed rollouts selected from the warehouse (``training.data``), streamed into a
    ``datasets.Dataset`` of chat records, and the selection's lineage."""
    from training.data import SelectionError, select_sft_trajectories
    from warehouse import Warehouse

    try:
        dataset, lineage = select_sft_trajectories(
            Warehouse(settings.warehouse),
            where=settings.where,
            cache_dir=Path(settings.out) / "datasets",
        )
    except SelectionError as exc:
        raise InputError(str(exc)) from None
    return dataset.remove_columns("rollout_id"), lineage.to_dict()


def train(settings: SFTSettings) -> dict[str, Any]:
    """Train, save ``<out>/model`` and ``<out>/metrics.json``; return the metrics."""
    t0 = time.perf_counter()
    started = dt.datetime.now(dt.UTC)
    check_model_arg(settings.model)
    lineage: dict[str, Any] | None = None
    if settings.warehouse:
        records, lineage = warehouse_records(settings)
        data_sha, data_path = lineage["digest"], lineage["warehouse"]
    else:
        if not settings.data:
            raise InputError("give --data (a chat.jsonl export) or --warehouse")
        records = load_records(settings.data)
        data_sha, data_path = file_sha256(settings.data), str(Path(settings.data).resolve())
    versions = import_training_stack()

    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()  # a log line per step instead
    torch.manual_seed(settings.seed)
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)

    model, tokenizer = load_model(settings, records)
    trainer, facts = build_trainer(settings, records, model, tokenizer)
    n_params = sum(p.numel() for p in trainer.model.parameters())
    say = print if trainer.is_world_process_zero() else (lambda *a, **k: None)
    say(
        f"[sft] {facts['samples']} samples ({facts['dropped_too_long']} over "
        f"{settings.max_length} tokens dropped), {facts['trained_tokens']}/{facts['tokens']} "
        f"tokens in the loss; model {settings.model} ({n_params:,} parameters) on "
        f"{facts['device']} ({facts['precision']}); {facts['loss_mode']}"
    )
    sys.stdout.flush()
    t_train = time.perf_counter()
    result = trainer.train()
    train_s = time.perf_counter() - t_train

    model_dir = out / MODEL_DIR
    trainer.save_model(str(model_dir))
    losses = [
        {k: entry[k] for k in ("step", "loss", "learning_rate", "grad_norm") if k in entry}
        for entry in trainer.state.log_history
        if "loss" in entry
    ]
    steps = trainer.state.global_step
    step_seconds = next(
        (
            cb.step_seconds
            for cb in trainer.callback_handler.callbacks
            if hasattr(cb, "step_seconds")
        ),
        [],
    )
    later = step_seconds[1:]  # the first step pays for warm-up (allocations, kernel choice)
    metrics: dict[str, Any] = {
        "status": "completed",
        "steps": steps,
        "losses": losses,
        "final_loss": losses[-1]["loss"] if losses else None,
        "train_loss": result.training_loss,
        "loss_finite": all(math.isfinite(x["loss"]) for x in losses) and bool(losses),
        "wall_seconds": round(time.perf_counter() - t0, 3),
        "train_seconds": round(train_s, 3),
        "steps_per_second": round(steps / train_s, 4) if train_s > 0 else None,
        "step_seconds": step_seconds,
        "steps_per_second_after_first": round(len(later) / sum(later), 4) if later else None,
        "gradient_checkpointing": settings.checkpointing(),
        "torch_version": versions["torch"],
        "trl_version": versions["trl"],
        "versions": versions,
        "data_path": data_path,
        "data_sha256": data_sha,
        "lineage": lineage,
        "model": settings.model,
        "model_dir": str(model_dir.resolve()),
        "parameters": n_params,
        "world_size": trainer.args.world_size,
        "settings": {**asdict(settings), "lr": settings.learning_rate()},
        "started_at": started.isoformat(),
        "finished_at": dt.datetime.now(dt.UTC).isoformat(),
        **facts,
    }
    if trainer.is_world_process_zero():  # save_model wrote the tokenizer too
        _write_json(out / METRICS_FILE, metrics)
    return metrics


def parse_args(argv: list[str] | None = None) -> SFTSettings:
    p = argparse.ArgumentParser(
        prog="python -m training.sft",
        description="SFT with TRL on a CompoWorld chat export (chat.jsonl).",
    )
    p.add_argument("--data", default=None, help="chat.jsonl: {messages, tools} per line")
    p.add_argument("--warehouse", default=None, help="pull completed rollouts from it by SQL")
    p.add_argument("--where", default=None, help="SQL over r, s, t: t.domain = 'finance'")
    p.add_argument("--model", default=TINY, help=f"local model folder, or '{TINY}'")
    p.add_argument("--out", required=True, help="output folder (model/ and metrics.json)")
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=None, help="default 1e-3 (tiny) / 2e-5")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=1, help="per device")
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--max-length", type=int, default=32768, help="longer samples are dropped")
    p.add_argument("--loss", choices=["auto", "assistant", "all"], default="auto")
    p.add_argument(
        "--gradient-checkpointing",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="recompute activations to save memory (default: on, off for the tiny model)",
    )
    a = p.parse_args(argv)
    return SFTSettings(
        data=a.data,
        warehouse=a.warehouse,
        where=a.where,
        model=a.model,
        out=a.out,
        max_steps=a.max_steps,
        lr=a.lr,
        seed=a.seed,
        batch_size=a.batch_size,
        grad_accum=a.grad_accum,
        max_length=a.max_length,
        loss=a.loss,
        gradient_checkpointing=a.gradient_checkpointing,
    )


def training_env_defaults() -> None:
    """Environment every training entry point sets unless the caller did."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded at run time
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")  # a log, not a terminal


def run_cli(
    train_fn: Callable[[Any], dict[str, Any]], settings: Any, done: Callable[[dict], str]
) -> int:
    """Train and map the outcome to the exit codes of the module docstring."""
    try:
        metrics = train_fn(settings)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MissingDependencies as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if not metrics["loss_finite"]:
        print(f"error: the training loss is not finite: {metrics['losses']}", file=sys.stderr)
        return 1
    print(done(metrics))
    return 0


def main(argv: list[str] | None = None) -> int:
    training_env_defaults()
    return run_cli(
        train,
        parse_args(argv),
        lambda m: (
            f"[sft] done: {m['steps']} steps in {m['train_seconds']:.1f} s "
            f"({m['steps_per_second_after_first']} steps/s after the first), "
            f"final loss {m['final_loss']:.4f}; model -> {m['model_dir']}"
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
