"""The ``evaluate`` flow: policies compared on held-out tasks (``tasks.evaluate``), recorded
in ``evaluations`` and ``runs``, with the comparison as a Prefect markdown artifact and a
table artifact, and the picture saved beside the run (``$COMPOWORLD_HOME/evaluations/<id>``).

``tiny`` among the policies is the tiny model of ``training/tiny.py``, built here once (its
tokenizer trained on the tasks' opening messages and gold calls; nothing downloaded) and
rolled out in process: a CPU smoke run of the local-transformers path.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.runtime import flow_run

from flows.settings import home, warehouse_root
from tasks.evaluate import EvaluationReport, evaluate, markdown, parse_policy, tiny_records
from tasks.runs import recorded_run
from warehouse import Warehouse

FLOW = "evaluate"
TINY = "tiny"
# The tiny model's tokenizer has few merges for tool schemas: a direct-mode prompt runs to
# ~32k tokens, and prefill at that length takes tens of seconds a turn on CPU. A random model
# answers as well from the newest 2k (real checkpoints keep their whole context).
TINY_MAX_PROMPT_TOKENS = 2048


def tiny_model(wh: Warehouse, splits: Sequence[str], mode: str, folder: Path) -> Path:
    """The tiny model's folder, built on first use."""
    if not (folder / "config.json").is_file():
        from training.tiny import build_tiny

        folder.mkdir(parents=True, exist_ok=True)
        build_tiny(tiny_records(wh, splits, mode), folder)
    return folder


def resolve_policies(
    wh: Warehouse, policies: Sequence[str], splits: Sequence[str], mode: str
) -> list[str]:
    """Policy specs with ``tiny`` made a ``local:`` folder; bad specs refused here."""
    out = []
    for spec in policies:
        if spec.strip() == TINY:
            folder = tiny_model(wh, splits, mode, home() / "models" / "tiny-eval")
            spec = f"local:{folder}"
        out.append(str(parse_policy(spec)))
    return out


def policy_table(report: EvaluationReport) -> list[dict[str, Any]]:
    rows = []
    for r in report.results:
        o = r.overall()
        rows.append(
            {
                "policy": r.policy,
                "rollouts": r.rollouts,
                "pass1": o.pass1.value,
                "pass1_ci": [o.pass1.lo, o.pass1.hi],
                f"pass{report.k}": o.passk.value,
                f"pass{report.k}_ci": [o.passk.lo, o.passk.hi],
                "mean_reward": o.mean_reward.value,
                "mean_reward_ci": [o.mean_reward.lo, o.mean_reward.hi],
            }
        )
    return rows


@task(name="evaluate-policies")  # no retries: a rerun of the same run replays its calls anyway
def evaluate_task(
    root: str,
    policies: list[str],
    splits: list[str],
    k: int,
    limit: int | None,
    mode: str,
    run: str,
    max_steps: int | None,
    max_new_tokens: int,
    max_prompt_tokens: int | None,
) -> EvaluationReport:
    return evaluate(
        Warehouse(root),
        policies,
        splits=splits,
        k=k,
        limit=limit,
        mode=mode,
        run=run,
        max_steps=max_steps,
        max_new_tokens=max_new_tokens,
        max_prompt_tokens=max_prompt_tokens,
        out_dir=home() / "evaluations",
    )


@flow(name=FLOW, log_prints=True)
def evaluate_flow(
    policies: list[str],
    splits: list[str] | None = None,
    k: int = 4,
    limit: int | None = None,
    mode: str = "direct",
    run: str = "eval",
    max_steps: int | None = None,
    max_new_tokens: int = 256,
    max_prompt_tokens: int | None = None,
) -> dict[str, Any]:
    """Roll each policy out ``k`` times per task of ``splits`` (default: eval) and compare
    them: pass^1, pass^k, mean reward, by domain, capability and difficulty, with intervals.
    ``max_prompt_tokens`` keeps a local model's newest tokens (default: its context, or
    ``TINY_MAX_PROMPT_TOKENS`` when ``tiny`` is evaluated)."""
    wh = Warehouse(warehouse_root())
    splits = list(splits or ["eval"])
    run_id = str(flow_run.get_id() or "") or uuid.uuid4().hex
    params = {"policies": policies, "splits": splits, "k": k, "limit": limit, "mode": mode}
    with recorded_run(wh, FLOW, {**params, "run": run}, run_id=run_id) as summary:
        specs = resolve_policies(wh, policies, splits, mode)
        if max_prompt_tokens is None and any(p.strip() == TINY for p in policies):
            max_prompt_tokens = TINY_MAX_PROMPT_TOKENS
        report = evaluate_task(
            wh.location,
            specs,
            splits,
            k,
            limit,
            mode,
            run,
            max_steps,
            max_new_tokens,
            max_prompt_tokens,
        )
        summary["evaluate"] = report.to_dict()
        summary["warehouse"] = wh.location
        create_markdown_artifact(key=f"{FLOW}-summary", markdown=markdown(report))
        create_table_artifact(
            key=f"{FLOW}-policies",
            table=policy_table(report),
            description=f"Policies side by side ({report.eval_id})",
        )
    summary["report"] = report
    return summary
