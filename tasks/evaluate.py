"""The evaluation stage: policies rolled out K times on every held-out task, judged, and
compared (``evaluations``: pass^1, pass^k, mean reward, by slice, with intervals), plus a
picture beside the run.

Policies are named by specs:

- ``oracle``: the gold plan (pass^1 is 1.0 on verified tasks: a check of the harness);
- ``scripted[:P]``: solves a share P (default 0.5) of its episodes, the rest half done
  (``library.rollout.scripted``);
- ``litellm:<model>``: any litellm model (``COMPOWORLD_LLM_*`` for the rest of its settings;
  calls recorded in ``llm_calls`` and replayed on a rerun of the same ``run``);
- ``local:<folder>``: a transformers checkpoint that generates in this process (CPU works).

The rollouts go to ``rollouts`` / ``criterion_results`` / ``rollout_scores`` as the rollout
stage writes them (group ids carry the policy, mode and ``run``; eval-split tasks never reach
training: curation keeps the ``sft`` split only).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from library.compose import Task
from library.evaluation import CONFIDENCE, SliceMetrics, TaskInfo, Trial, summarize
from library.judge import judge_rollouts
from library.llm import LLMClient, LLMSettings
from library.rollout import (
    OraclePolicy,
    RolloutSettings,
    opening_messages,
    run_groups_sync,
)
from library.rollout.policies import LiteLLMPolicy
from library.rollout.scripted import ScriptedPolicy
from tasks.library_view import built_services, env_pool
from tasks.llm_store import WarehouseCallStore
from tasks.rollout import load_tasks, write_judged
from warehouse import Warehouse


class EvaluationError(ValueError):
    """Bad input to an evaluation: said before anything runs."""


@dataclass(frozen=True, slots=True)
class PolicySpec:
    kind: str  # oracle | scripted | litellm | local
    arg: str | None = None

    def __str__(self) -> str:
        return self.kind if self.arg is None else f"{self.kind}:{self.arg}"


def parse_policy(spec: str) -> PolicySpec:
    """``oracle``, ``scripted[:P]``, ``litellm:<model>`` or ``local:<folder>``."""
    kind, _, arg = spec.strip().partition(":")
    if kind == "oracle" and not arg:
        return PolicySpec("oracle")
    if kind == "scripted":
        try:
            rate = float(arg) if arg else 0.5
        except ValueError:
            rate = -1.0
        if not 0.0 <= rate <= 1.0:
            raise EvaluationError(f"scripted:{arg}: the success rate must be in [0, 1]")
        return PolicySpec("scripted", f"{rate:g}")
    if kind in ("litellm", "local") and arg:
        return PolicySpec(kind, arg)
    raise EvaluationError(
        f"unknown policy {spec!r}: use oracle, scripted[:P], litellm:<model>, local:<folder>"
        " (the eval command also takes tiny)"
    )


def make_policy(
    spec: PolicySpec,
    wh: Warehouse,
    run: str,
    *,
    max_new_tokens: int = 256,
    max_prompt_tokens: int | None = None,
) -> Any:
    """A policy, or a per-task policy factory (the oracle and scripted ones)."""
    if spec.kind == "oracle":
        return OraclePolicy
    if spec.kind == "scripted":
        return partial(ScriptedPolicy, success_rate=float(spec.arg or 0.5))
    if spec.kind == "litellm":
        settings = LLMSettings.from_env().model_copy(update={"model": spec.arg})
        return LiteLLMPolicy(LLMClient(settings, WarehouseCallStore(wh)), run=run)
    from library.rollout.local_policy import TransformersPolicy

    try:
        return TransformersPolicy(
            spec.arg or "", max_new_tokens=max_new_tokens, max_prompt_tokens=max_prompt_tokens
        )
    except FileNotFoundError as exc:
        raise EvaluationError(str(exc)) from None


@dataclass(slots=True)
class PolicyResult:
    policy: str
    rollouts: int
    statuses: dict[str, int]
    metrics: list[SliceMetrics]
    group_ids: list[str]

    def overall(self) -> SliceMetrics:
        return self.metrics[0]


@dataclass(slots=True)
class EvaluationReport:
    eval_id: str
    splits: list[str]
    k: int
    mode: str
    run: str
    tasks: int
    results: list[PolicyResult] = field(default_factory=list)
    plot: str | None = None
    plot_note: str | None = None  # why there is no plot

    def rows(self) -> list[dict[str, Any]]:
        """``evaluations`` rows."""
        now = dt.datetime.now(dt.UTC)
        out = []
        for result in self.results:
            for m in result.metrics:
                out.append(
                    {
                        **m.to_row(),
                        "eval_id": self.eval_id,
                        "mode": self.mode,
                        "splits": self.splits,
                        "k": self.k,
                        "confidence": CONFIDENCE,
                        "run": self.run,
                        "group_ids": result.group_ids if m.slice_kind == "all" else None,
                        "plot": self.plot,
                        "created_at": now,
                    }
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "eval_id": self.eval_id,
            "splits": self.splits,
            "k": self.k,
            "mode": self.mode,
            "tasks": self.tasks,
            "plot": self.plot,
            "policies": {
                r.policy: {
                    "rollouts": r.rollouts,
                    "statuses": r.statuses,
                    "pass1": r.overall().pass1.value,
                    "passk": r.overall().passk.value,
                    "mean_reward": r.overall().mean_reward.value,
                }
                for r in self.results
            },
        }


def tiny_records(wh: Warehouse, splits: Sequence[str], mode: str) -> list[dict[str, Any]]:
    """What the tiny model's tokenizer learns its merges from: the tasks' prompts and gold
    calls, rendered as chat records."""
    records = []
    for t in load_tasks(wh, list(splits)):
        calls = [
            {
                "type": "function",
                "function": {"name": s["tool"], "arguments": orjson.dumps(s["arguments"]).decode()},
            }
            for s in t.gold_plan
        ]
        messages = [*opening_messages(t, mode), {"role": "assistant", "tool_calls": calls}]
        records.append({"messages": messages, "tools": []})
    return records


def task_info(task: Task) -> TaskInfo:
    return TaskInfo(task.domain, tuple(task.capabilities), task.difficulty)


def select_tasks(
    wh: Warehouse, splits: Sequence[str], limit: int | None = None
) -> tuple[list[Task], dict[str, Any]]:
    """The tasks to evaluate on and the built services (by name); an ``EvaluationError``
    when there are none, or when a task needs a service that is not built."""
    tasks = load_tasks(wh, list(splits), limit)
    if not tasks:
        raise EvaluationError(
            f"no tasks in split(s) {', '.join(splits)}: compose some first (compoworld compose)"
        )
    services = built_services(wh)
    missing = sorted(
        {n for t in tasks for n in (*t.services, *t.distractor_services)} - set(services)
    )
    if missing:
        raise EvaluationError(f"the tasks need services that are not built: {missing}")
    return tasks, services


def evaluate(
    wh: Warehouse,
    policies: Sequence[str | PolicySpec],
    *,
    splits: Sequence[str] = ("eval",),
    k: int = 4,
    limit: int | None = None,
    mode: str = "direct",
    run: str = "eval",
    concurrency: int = 2,
    max_steps: int | None = None,
    max_new_tokens: int = 256,
    max_prompt_tokens: int | None = None,
    out_dir: Path | None = None,
) -> EvaluationReport:
    """Roll each policy out ``k`` times on every task of ``splits`` (at most ``limit``),
    judge, store ``evaluations`` rows and, with ``out_dir``, draw the comparison there."""
    specs = [p if isinstance(p, PolicySpec) else parse_policy(p) for p in policies]
    if not specs:
        raise EvaluationError("name at least one policy")
    if len({str(s) for s in specs}) != len(specs):
        raise EvaluationError(f"a policy is named twice: {', '.join(map(str, specs))}")
    if k < 1:
        raise EvaluationError(f"--k must be >= 1, not {k}")
    tasks, services = select_tasks(wh, splits, limit)
    overrides: dict[str, Any] = {"mode": mode, "group_size": k, "concurrency": concurrency}
    if max_steps is not None:
        overrides["max_steps"] = max_steps
    settings = RolloutSettings.from_env(**overrides)
    agents = [
        make_policy(s, wh, run, max_new_tokens=max_new_tokens, max_prompt_tokens=max_prompt_tokens)
        for s in specs
    ]
    task_ids = sorted(t.task_id for t in tasks)
    eval_id = (
        "eval-"
        + hashlib.blake2b(
            f"{dt.datetime.now(dt.UTC).isoformat()}|{os.getpid()}|{specs}|{k}|{task_ids}".encode(),
            digest_size=8,
        ).hexdigest()
    )
    report = EvaluationReport(eval_id, list(splits), k, settings.mode, run, len(tasks))
    infos = {t.task_id: task_info(t) for t in tasks}
    by_id = {t.task_id: t for t in tasks}
    used = {n for t in tasks for n in (*t.services, *t.distractor_services)}
    built = [s for s in services.values() if s.name in used]
    envs = env_pool(wh, built)
    try:
        for agent in agents:
            groups = run_groups_sync(tasks, agent, envs, settings, run=run)
            rollouts = [r for g in groups for r in g]
            judged = judge_rollouts(by_id, rollouts)
            write_judged(wh, rollouts, judged)
            samples = {r.rollout_id: r.sample for r in rollouts}
            trials = [
                Trial(row["task_id"], samples[row["rollout_id"]], row["completed"], row["reward"])
                for j in judged
                for row in j.score_rows()
            ]
            name = rollouts[0].policy
            statuses: dict[str, int] = {}
            for r in rollouts:
                statuses[r.status] = statuses.get(r.status, 0) + 1
            report.results.append(
                PolicyResult(
                    policy=name,
                    rollouts=len(rollouts),
                    statuses=statuses,
                    metrics=summarize(name, trials, infos, k),
                    group_ids=sorted({r.group_id for r in rollouts}),
                )
            )
    finally:
        envs.close()
    if out_dir is not None:
        report.plot, report.plot_note = plot_report(report, Path(out_dir) / eval_id)
    wh.append("evaluations", report.rows(), batch_id=eval_id)
    return report


def plot_report(report: EvaluationReport, folder: Path) -> tuple[str | None, str | None]:
    """The policies side by side: overall pass^1, pass^k and mean reward with their
    intervals, and pass^1 by difficulty. ``(path, None)``, or ``(None, why)`` without
    matplotlib (the ``control`` extra installs it)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display on a worker
        import matplotlib.pyplot as plt
    except ImportError:
        return None, "matplotlib is not installed (pip install -e '.[control]')"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "evaluation.png"
    metrics = [("pass1", "pass^1"), ("passk", f"pass^{report.k}"), ("mean_reward", "reward")]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / max(1, len(report.results))
    for i, result in enumerate(report.results):
        overall = result.overall()
        xs, ys, errs = [], [], [[], []]
        for j, (attr, _) in enumerate(metrics):
            est = getattr(overall, attr)
            xs.append(j + i * width)
            value = est.value if est.value is not None else 0.0
            ys.append(value)
            errs[0].append(value - (est.lo if est.lo is not None else value))
            errs[1].append((est.hi if est.hi is not None else value) - value)
        left.bar(xs, ys, width, yerr=errs, capsize=3, label=result.policy)
        diffs = [m for m in result.metrics if m.slice_kind == "difficulty"]
        right.bar(
            [d + i * width for d in range(len(diffs))],
            [m.pass1.value or 0.0 for m in diffs],
            width,
            label=result.policy,
        )
        right.set_xticks([d + 0.4 - width / 2 for d in range(len(diffs))], [m.slice for m in diffs])
    left.set_xticks([j + 0.4 - width / 2 for j in range(len(metrics))], [m[1] for m in metrics])
    left.set_ylim(0, 1.05)
    right.set_ylim(0, 1.05)
    left.set_title(f"{report.tasks} tasks x {report.k} trials ({', '.join(report.splits)})")
    right.set_title("pass^1 by difficulty")
    left.legend(fontsize=8)
    fig.suptitle(f"CompoWorld evaluation {report.eval_id} ({report.mode} mode)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path), None


def markdown(report: EvaluationReport) -> str:
    """The comparison as markdown (the evaluate flow's Prefect artifact)."""

    def cell(est: Any) -> str:
        if est.value is None:
            return "n/a"
        return f"{est.value:.3f} [{est.lo:.3f}, {est.hi:.3f}]"

    lines = [
        f"# Evaluation {report.eval_id}",
        "",
        f"{report.tasks} tasks of {', '.join(report.splits)}, {report.k} trials each, "
        f"{report.mode} mode; intervals: {CONFIDENCE:.0%} bootstrap over tasks.",
        "",
        f"| policy | rollouts | pass^1 | pass^{report.k} | mean reward |",
        "|---|---|---|---|---|",
    ]
    for r in report.results:
        o = r.overall()
        lines.append(
            f"| {r.policy} | {r.rollouts} | {cell(o.pass1)} | {cell(o.passk)} "
            f"| {cell(o.mean_reward)} |"
        )
    lines += ["", "pass^1 by slice:", ""]
    names = [r.policy for r in report.results]
    lines += ["| slice | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    keys = [(m.slice_kind, m.slice) for m in report.results[0].metrics] if report.results else []
    for key in keys:
        values = []
        for r in report.results:
            m = next((m for m in r.metrics if (m.slice_kind, m.slice) == key), None)
            values.append("n/a" if m is None or m.pass1.value is None else f"{m.pass1.value:.3f}")
        lines.append(f"| {key[0]}: {key[1]} | " + " | ".join(values) + " |")
    if report.plot:
        lines += ["", f"Plot: `{report.plot}`"]
    return "\n".join(lines)
