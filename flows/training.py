"""The training flows, on a GPU work pool when deployed: ``train-sft`` (SFT on the newest
chat export) and ``train-rl`` (GRPO with the rubric reward on RL tasks selected from the
warehouse).

The flows run in the control environment; training runs in the training environment as a
subprocess (``python -m training.sft`` / ``training.grpo``, interpreter from ``python`` or
``$COMPOWORLD_TRAIN_PYTHON``), so this module never imports torch or TRL. Deploy them to a
``compoworld-gpu`` process pool whose worker runs on the GPU machine.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.runtime import flow_run

from flows.progress import StageReporter, progress_key
from flows.settings import home, warehouse_root
from tasks.runs import recorded_run
from tasks.training import (
    GRPORequest,
    SFTRequest,
    latest_chat_export,
    rl_markdown,
    rl_stage,
    sft_stage,
    train_python,
    training_markdown,
)
from warehouse import Warehouse

FLOW = "train-sft"
RL_FLOW = "train-rl"


# What the training scripts print after each logged step (training/sft.py, training/grpo.py).
STEP_LINE = re.compile(r"^\[(?:sft|grpo)\] step (\d+)/(\d+)")


def training_log(flow: str, max_steps: int) -> tuple[StageReporter, Callable[[str], None]]:
    """The training stage's reporter and a log callback for the training subprocess's lines:
    each line to the run's log, the step lines into the ``<flow>-training-progress``
    artifact."""
    report = StageReporter("training")
    report.start_progress(max_steps, "steps", key=progress_key(flow, "training"))

    def log(line: str) -> None:
        report.info("%s", line)
        if step := STEP_LINE.match(line):
            report.reached(int(step.group(1)))

    return report, log


@task(name="train-sft")  # no retries: a failed training run is worth reading, not repeating
def sft_task(root: str, request: SFTRequest, run_id: str, export_id: str | None) -> dict[str, Any]:
    report, log = training_log(FLOW, request.max_steps)
    result = sft_stage(Warehouse(root), request, run_id, export_id=export_id, log=log)
    report.finish("training done: %s steps", request.max_steps)
    return result


@flow(name=FLOW, log_prints=True)
def train_sft(
    export_path: str | None = None,
    model: str = "tiny",
    max_steps: int = 20,
    python: str | None = None,
    batch_size: int = 1,
    lr: float | None = None,
    seed: int = 0,
    max_length: int = 32768,
    out_dir: str | None = None,
    processes: int = 1,
    where: str | None = None,
) -> dict[str, Any]:
    """SFT on a chat export (default: the newest one recorded in ``exports``) with TRL, in
    the training environment; records the run in ``training_runs`` and ``runs``.
    ``where`` set: on the completed rollouts that SQL selects from the warehouse instead
    (over ``r`` rollouts, ``s`` rollout_scores, ``t`` tasks; ``"true"`` for all of them),
    with the selection's lineage recorded. ``processes`` > 1 trains on that many GPUs
    (``accelerate launch``)."""
    wh = Warehouse(warehouse_root())
    run_id = str(flow_run.get_id() or "") or uuid.uuid4().hex
    export_id = None
    if where is not None:
        export_path = wh.location
    elif export_path is None:
        export_path, export_id = latest_chat_export(wh, home())
    request = SFTRequest(
        data=export_path if where is not None else str(Path(export_path).resolve()),
        out_dir=str(Path(out_dir).resolve() if out_dir else home() / "training" / run_id),
        model=model if model == "tiny" else str(Path(model).resolve()),  # cwd may differ
        max_steps=max_steps,
        python=train_python(python),
        lr=lr,
        seed=seed,
        batch_size=batch_size,
        max_length=max_length,
        processes=processes,
        warehouse=wh.location if where is not None else None,
        where=where,
    )
    params = {"export_path": request.data, **asdict(request)}
    with recorded_run(wh, FLOW, params, run_id=run_id) as summary:
        summary["train"] = sft_task(wh.location, request, run_id, export_id)
        summary["warehouse"] = wh.location
        create_markdown_artifact(
            key=f"{FLOW}-summary", markdown=training_markdown(summary["train"])
        )
    return summary


@task(name="train-rl")  # no retries, as for SFT
def rl_task(root: str, request: GRPORequest, run_id: str) -> dict[str, Any]:
    report, log = training_log(RL_FLOW, request.max_steps)
    result = rl_stage(Warehouse(root), request, run_id, log=log)
    report.finish("training done: %s steps", request.max_steps)
    return result


@flow(name=RL_FLOW, log_prints=True)
def train_rl(
    model: str = "tiny",
    max_steps: int = 20,
    where: str | None = None,
    split: str = "rl",
    limit: int | None = None,
    reference_policy: str | None = None,
    band_low: float = 0.05,
    band_high: float = 0.95,
    num_generations: int = 4,
    batch_size: int = 4,
    max_completion_length: int | None = None,
    max_tool_calls: int = 16,
    lr: float | None = None,
    seed: int = 0,
    lora: bool = False,
    use_vllm: bool = False,
    vllm_mode: str = "colocate",
    python: str | None = None,
    out_dir: str | None = None,
    processes: int = 1,
) -> dict[str, Any]:
    """GRPO (TRL) on RL tasks selected from the warehouse with SQL (``where`` over ``t``, the
    tasks; with ``reference_policy``, only tasks whose pass rate under it lies in
    [``band_low``, ``band_high``]), rewarded by the Completion-Focused Rubric Reward within
    each group of ``num_generations`` rollouts; records the run and its data's lineage in
    ``training_runs`` and ``runs``."""
    wh = Warehouse(warehouse_root())
    run_id = str(flow_run.get_id() or "") or uuid.uuid4().hex
    request = GRPORequest(
        warehouse=wh.location,
        out_dir=str(Path(out_dir).resolve() if out_dir else home() / "training" / run_id),
        model=model if model == "tiny" else str(Path(model).resolve()),  # cwd may differ
        max_steps=max_steps,
        where=where,
        split=split,
        limit=limit,
        reference_policy=reference_policy,
        band=(band_low, band_high),
        num_generations=num_generations,
        batch_size=batch_size,
        max_completion_length=max_completion_length,
        max_tool_calls=max_tool_calls,
        lr=lr,
        seed=seed,
        lora=lora,
        use_vllm=use_vllm,
        vllm_mode=vllm_mode,
        python=train_python(python),
        processes=processes,
    )
    with recorded_run(wh, RL_FLOW, asdict(request), run_id=run_id) as summary:
        summary["train"] = rl_task(wh.location, request, run_id)
        summary["warehouse"] = wh.location
        create_markdown_artifact(key=f"{RL_FLOW}-summary", markdown=rl_markdown(summary["train"]))
        steps = summary["train"].get("per_step") or []
        if steps:
            create_table_artifact(key=f"{RL_FLOW}-steps", table=steps)
    return summary


LOOP_FLOW = "loop"


@flow(name=LOOP_FLOW, log_prints=True)
def training_loop(
    model: str = "tiny",
    sft_steps: int = 20,
    rl_steps: int = 20,
    sft_where: str = "true",
    rl_where: str | None = None,
    rl_split: str = "rl",
    num_generations: int = 4,
    batch_size: int = 4,
    max_completion_length: int | None = None,
    eval_splits: list[str] | None = None,
    k: int = 2,
    eval_limit: int | None = None,
    mode: str = "gateway",
    eval_max_steps: int | None = None,
    eval_max_new_tokens: int = 256,
    python: str | None = None,
) -> dict[str, Any]:
    """The loop the factory exists for: SFT on the warehouse's completed rollouts
    (``sft_where``), GRPO from the SFT model on RL tasks (``rl_where``), then the backbone,
    the SFT model and the RL model evaluated side by side on the same held-out tasks (one
    evaluation, so every policy sees the same tasks and the same ``k``); reports each
    model's pass^1, pass^k and mean reward and their deltas against the backbone."""
    from flows.evaluate import evaluate_flow  # the evaluation flow's own module

    wh = Warehouse(warehouse_root())
    run_id = str(flow_run.get_id() or "") or uuid.uuid4().hex
    params = {"model": model, "sft_steps": sft_steps, "rl_steps": rl_steps, "k": k}
    with recorded_run(wh, LOOP_FLOW, params, run_id=run_id) as summary:
        sft = train_sft(model=model, max_steps=sft_steps, where=sft_where, python=python)
        sft_dir = sft["train"]["model_dir"]
        rl = train_rl(
            model=sft_dir,
            max_steps=rl_steps,
            where=rl_where,
            split=rl_split,
            num_generations=num_generations,
            batch_size=batch_size,
            max_completion_length=max_completion_length,
            python=python,
        )
        rl_dir = rl["train"]["model_dir"]
        backbone = "tiny" if model == "tiny" else f"local:{Path(model).resolve()}"
        # A local policy is named after its folder, and both runs save to `<out>/model`:
        # links with distinct names keep the two models apart in `evaluations` and their
        # rollouts in different groups.
        links = home() / "models"
        links.mkdir(parents=True, exist_ok=True)
        named = {}
        for stage, folder in (("sft", sft_dir), ("rl", rl_dir)):
            link = links / f"loop-{run_id[:8]}-{stage}"
            link.unlink(missing_ok=True)
            link.symlink_to(folder, target_is_directory=True)
            named[stage] = f"local:{link}"
        stages = {"backbone": backbone, **named}
        evaluated = evaluate_flow(
            policies=list(stages.values()),
            splits=eval_splits,
            k=k,
            limit=eval_limit,
            mode=mode,
            run=f"loop-{run_id}",
            max_steps=eval_max_steps,
            max_new_tokens=eval_max_new_tokens,
        )
        report = evaluated["report"]
        # The report keeps the policies in the order given: backbone, SFT, RL.
        scores = {
            stage: {
                "policy": result.policy,
                "pass1": result.overall().pass1.value,
                "passk": result.overall().passk.value,
                "mean_reward": result.overall().mean_reward.value,
            }
            for stage, result in zip(stages, report.results, strict=True)
        }
        base = scores["backbone"]
        for stage in ("sft", "rl"):
            scores[stage]["delta"] = {
                key: None
                if base[key] is None or scores[stage][key] is None
                else scores[stage][key] - base[key]
                for key in ("pass1", "passk", "mean_reward")
            }
        summary.update(
            sft=sft["train"]["run_id"],
            rl=rl["train"]["run_id"],
            eval_id=report.eval_id,
            k=k,
            scores=scores,
            warehouse=wh.location,
        )
        create_table_artifact(
            key=f"{LOOP_FLOW}-deltas",
            table=[
                {
                    "stage": s,
                    **{k2: v for k2, v in row.items() if k2 != "delta"},
                    **{f"delta_{k2}": v for k2, v in (row.get("delta") or {}).items()},
                }
                for s, row in scores.items()
            ],
            description="Backbone, SFT and RL models on the same held-out tasks",
        )
    return summary
