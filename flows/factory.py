"""The factory: the main job behind ``compoworld run`` / ``make demo``.

Each stage is a thin Prefect task over a plain function in ``tasks/`` that works on batches
and skips what an earlier run already wrote, so a rerun resumes instead of redoing.
"""

# No `from __future__ import annotations`: the flow's parameter types must be objects, not
# names. A served run may load the flow by value (cloudpickle), which keeps only the globals
# its code uses, and pydantic could not resolve a parameter annotation given as a name.

import datetime as dt
import os
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

from prefect import Task, flow, task, unmapped
from prefect.context import FlowRunContext
from prefect.futures import PrefectFuture, as_completed
from prefect.runtime import flow_run
from prefect.task_runners import TaskRunner

from flows.artifacts import publish
from flows.parameters import (
    BatchSize,
    GroupSize,
    Mode,
    Model,
    Specs,
    TaskCount,
    Workers,
    policy_env,
    scoped_env,
)
from flows.parameters import TaskRunner as TaskRunnerParameter
from flows.progress import StageReporter, flow_name, in_flow_process, log_counts, progress_key
from flows.runners import task_runner as make_task_runner
from flows.settings import home, warehouse_root
from tasks.build import (
    BUILD_BATCH,
    BuildSettings,
    BuildSummary,
    ServiceResult,
    build_services,
    plan_build,
)
from tasks.compose import compose_stage, graph_stage
from tasks.curate import curate
from tasks.export import export_all
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.report import rollout_failures
from tasks.rollout import (
    ROLLOUT_BATCH,
    RolloutSummary,
    empty_summaries,
    plan_rollouts,
    rollout_batch,
)
from tasks.runs import recorded_run
from tasks.spec_sources import local_sources
from warehouse import Warehouse

# What the stages import lazily (the quality gate and the HF export), for a command to load
# while it waits for a temporary API server (flows/early_api.py).
LAZY_IMPORTS = ("great_expectations", "great_expectations.expectations", "datasets")

BATCHING = "batching"  # the key of a fanned-out stage's batch figures in its summary


@task(name="ingest-specs", retries=1, retry_delay_seconds=1)
def ingest_specs(paths: list[str], location: str) -> dict[str, Any]:
    report = StageReporter("ingest")
    report.info("ingesting spec documents from %s", ", ".join(paths))
    result = ingest_paths(local_sources(paths, home() / "fetched"), location)
    log_counts(report, "spec errors", result["errors"])
    report.finish(
        "ingest done: %d new documents (%d already in), %d services, %d tools, %d spec errors",
        result["documents"],
        result["already_ingested"],
        result["services"],
        result["tools"],
        sum(result["errors"].values()),
    )
    return result


@task(name="build-batch", retries=1, retry_delay_seconds=1)
def build_batch(
    location: str,
    services: list[str],
    seed: int,
    workers: int,
    progress_id: UUID | None = None,
    total: int = 0,
) -> tuple[str, BuildSummary]:
    """Build one batch of services; with ``progress_id``, count each finished service into
    the stage's progress artifact and log each rejected tool with its reason (sampled)."""
    settings = BuildSettings(seed=seed, workers=workers)
    report = StageReporter("build", total=total, unit="services", artifact_id=progress_id)
    report.info("building %d services: %s", len(services), ", ".join(services[:10]))

    def on_result(result: ServiceResult) -> None:
        for fate in result.fates:
            if fate.status == "rejected":  # the services_tools status (warehouse/schemas.py)
                report.rejected(f"{result.service}.{fate.tool}", fate.reason or "(no reason)")
        report.advance()

    summary = build_services(Warehouse(location), settings, services, on_result=on_result)
    report.close_rejections()
    return worker_id(), summary


def worker_id() -> str:
    """Which machine and process ran a batch (``host:pid``), for the stage's summary."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _map(
    fn: Task[..., Any], runner: TaskRunner | None, **parameters: Any
) -> list[PrefectFuture[Any]]:
    """``fn`` mapped over the batches on ``runner`` (one the run's parameters chose), else on
    the flow's own task runner."""
    if runner is None:
        return list(fn.map(**parameters))
    return list(runner.map(fn, parameters))


def _flow_runner(runner: TaskRunner | None) -> TaskRunner | None:
    context = FlowRunContext.get()
    return runner or (context.task_runner if context is not None else None)


def build_step(
    location: str,
    seed: int,
    workers: int,
    batch_size: int = BUILD_BATCH,
    runner: TaskRunner | None = None,
) -> dict[str, Any]:
    """Build what is not built yet: batches of services mapped over the flow's task runner
    (or ``runner``)."""
    t0 = time.perf_counter()
    report = StageReporter("build")
    batches, already = plan_build(Warehouse(location), seed, batch_size)
    total = sum(len(b) for b in batches)
    report.info(
        "build: %d services to build in %d batches (%d already built)",
        total,
        len(batches),
        already,
    )
    progress_id = report.start_progress(total, "services", key=progress_key(flow_name(), "build"))
    per_item = in_flow_process(_flow_runner(runner))
    summary = BuildSummary(services_skipped=already)
    futures = _map(
        build_batch,
        runner,
        location=unmapped(location),
        services=batches,
        seed=unmapped(seed),
        workers=unmapped(workers),
        progress_id=unmapped(progress_id if per_item else None),
        total=unmapped(total),
    )
    batching = _gather(futures, batches, summary.add, report, per_item)
    summary.wall_s = time.perf_counter() - t0
    out = summary.to_dict()
    report.finish(
        "build done: %d services built (%d already), %d/%d tools verified, %d rejected, "
        "%d sandbox failures, %.1f s",
        out["services_built"],
        out["services_already_built"],
        out["tools_verified"],
        out["tools"],
        out["rejected"],
        out["sandbox_failures"],
        summary.wall_s,
    )
    return out | {BATCHING: batching}


@task(name="build-graph", retries=1, retry_delay_seconds=1)
def graph_task(location: str, out_dir: str) -> dict[str, Any]:
    report = StageReporter("graph")
    report.info("building the dependency graph of the verified tools")
    result = graph_stage(Warehouse(location), Path(out_dir))
    stats = {"graph_id": result.graph_id, "picture": str(result.html_path), **result.stats}
    report.finish(
        "graph done: %s tools, %s edges (%s cross-service); picture %s",
        stats.get("tools"),
        stats.get("edges"),
        stats.get("cross_service_edges"),
        stats["picture"],
    )
    return stats


@task(name="compose-tasks", retries=1, retry_delay_seconds=1)
def compose_task(
    location: str,
    n: int,
    seed: int,
    workers: int,
    require_any: list[str] | None = None,
    progress_id: UUID | None = None,
) -> dict[str, Any]:
    """Compose ``n`` tasks; each step moves the progress artifact ``progress_id`` (made by
    the flow, so the run page lists it) or one of the task's own."""
    require = set(require_any) if require_any else None
    report = StageReporter("compose", unit="steps", artifact_id=progress_id)
    report.info(
        "composing %d tasks over %d workers%s",
        n,
        workers,
        f" touching any of {', '.join(sorted(require))}" if require else "",
    )
    key = progress_key(flow_name(), "compose")  # here: the callback's threads carry no run

    def on_progress(done: int, total: int, note: str) -> None:
        if report.artifact_id is None:
            report.start_progress(total, "steps", key=key)
        report.total = total  # the stage knows its step count only once it has planned
        report.info("compose: %s", note)
        report.reached(done)

    summary = compose_stage(
        Warehouse(location),
        n,
        seed=seed,
        workers=workers,
        require_any=require,
        on_progress=on_progress,
    ).to_dict()
    log_counts(report, "tasks rejected", summary["rejections"])
    report.finish(
        "compose done: %d verified tasks (%d new) of %d asked, acceptance %.0f%%, %.1f s",
        summary["composed"],
        summary["written"],
        n,
        100 * summary["acceptance"],
        summary["wall_s"],
    )
    return summary


def compose_step(
    location: str, n: int, seed: int, workers: int, require_any: list[str] | None = None
) -> dict[str, Any]:
    """The compose task, with its progress artifact made here, in the flow."""
    report = StageReporter("compose")
    progress_id = report.start_progress(0, "steps", key=progress_key(flow_name(), "compose"))
    return compose_task(location, n, seed, workers, require_any, progress_id)


@task(name="rollout-batch", retries=1, retry_delay_seconds=1)
def rollout_batch_task(
    location: str, task_ids: list[str], group_size: int, workers: int, use_model: bool
) -> tuple[str, dict[str, RolloutSummary]]:
    report = StageReporter("rollout")
    report.info("rolling out %d tasks, groups of %d", len(task_ids), group_size)
    return worker_id(), rollout_batch(Warehouse(location), group_size, workers, use_model, task_ids)


def rollout_step(
    location: str,
    group_size: int,
    workers: int,
    use_model: bool,
    batch_size: int = ROLLOUT_BATCH,
    runner: TaskRunner | None = None,
) -> dict[str, Any]:
    """Roll out and judge the tasks without groups: batches mapped over the task runner
    (or ``runner``)."""
    t0 = time.perf_counter()
    since = dt.datetime.now(dt.UTC)
    report = StageReporter("rollout")
    batches, already = plan_rollouts(Warehouse(location), group_size, use_model, batch_size)
    merged = empty_summaries(group_size, use_model)
    total = sum(len(b) for b in batches)
    report.info(
        "rollout: %d tasks in %d batches, policies %s (%d tasks already done)",
        total,
        len(batches),
        ", ".join(f"{s.policy}/{s.mode}" for s in merged.values()),
        already,
    )
    report.start_progress(total, "tasks", key=progress_key(flow_name(), "rollout"))
    for summary in merged.values():
        summary.skipped_groups = already  # tasks outside every batch are done for all

    def fold(part: dict[str, RolloutSummary]) -> None:
        for key, summary in part.items():
            merged[key].add(summary)

    futures = _map(
        rollout_batch_task,
        runner,
        location=unmapped(location),
        task_ids=batches,
        group_size=unmapped(group_size),
        workers=unmapped(workers),
        use_model=unmapped(use_model),
    )
    batching = _gather(futures, batches, fold, report, per_item=False)
    for failure in rollout_failures(Warehouse(location), since):
        report.rejected(
            f"rollout of {failure['task_id']} ({failure['policy']}/{failure['mode']})",
            f"{failure['status']}: {failure['error'] or 'no error recorded'}",
        )
    out: dict[str, Any] = {}
    for key, summary in merged.items():
        summary.wall_s = time.perf_counter() - t0
        out[key] = summary.to_dict()
        report.info(
            "rollout %s: %d rollouts in %d groups, statuses %s, completion %.0f%%, "
            "mean reward %.3f",
            key,
            summary.rollouts,
            summary.groups,
            dict(summary.statuses),
            100 * out[key]["completion_rate"],
            summary.mean_reward,
        )
    report.finish("rollout done: %d tasks in %.1f s", total, time.perf_counter() - t0)
    return out | {BATCHING: batching}


def _gather(
    futures: list[PrefectFuture[Any]],
    batches: list[list[str]],
    fold: Callable[[Any], None],
    report: StageReporter,
    per_item: bool,
) -> dict[str, Any]:
    """Fold each batch's result as it ends (moving the stage's progress, unless its batches
    count their own items); a batch that failed even after its retry is reported (its items
    stay undone, so the next run picks them up) and the other batches still count."""
    failed, workers = [], Counter[str]()
    batch_of = {id(f): b for f, b in zip(futures, batches, strict=True)}
    for done, future in enumerate(as_completed(futures), start=1):
        batch = batch_of[id(future)]
        try:
            worker, result = future.result()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
            report.error("batch %d/%d (%d items) failed: %s", done, len(batches), len(batch), error)
            failed.append({"items": batch, "error": error})
            report.advance(0 if per_item else len(batch))
            continue
        workers[worker] += 1
        fold(result)
        report.info("batch %d/%d done (%d items, on %s)", done, len(batches), len(batch), worker)
        if not per_item:
            report.advance(len(batch))
    return {"batches": len(batches), "workers": dict(workers), "failed_batches": failed}


@task(name="curate-and-export", retries=1, retry_delay_seconds=1)
def export_task(root: str, out_dir: str, tools: str = "all") -> dict[str, Any]:
    """``tools``: the exports' tools policy, ``all`` or ``called+N`` (tasks/export.py)."""
    report = StageReporter("export")
    report.info("curating the judged rollouts, then writing the exports (tools: %s)", tools)
    wh = Warehouse(root)
    curation = curate(wh)
    kept = curation.summary()
    log_counts(report, "rollouts dropped by curation", kept["dropped"])
    records = export_all(wh, out_dir, curation.kept, curation=curation, tools=tools)
    for r in records:
        report.info("export %s: %d records (%d new) -> %s", r.kind, r.records, r.new, r.path)
    report.finish("export done: kept %d of %d rollouts", kept["kept"], kept["considered"])
    return {
        "tools_policy": tools,
        "curation": kept,
        "exports": {r.kind: {"path": r.path, "records": r.records, "new": r.new} for r in records},
    }


@contextmanager
def chosen_runner(text: str | None) -> Iterator[TaskRunner | None]:
    """The task runner a run's parameter names, started for the block (None: the flow's)."""
    if not text:
        yield None
        return
    with make_task_runner(text) as runner:
        yield runner


@flow(name="factory", log_prints=True, task_runner=make_task_runner())
def factory(
    spec_paths: Specs = None,
    tasks: TaskCount = 200,
    group_size: GroupSize = 2,
    seed: int = 0,
    workers: Workers = 2,
    use_model: bool = True,
    build_batch_size: BatchSize = BUILD_BATCH,
    rollout_batch_size: BatchSize = ROLLOUT_BATCH,
    mode: Mode = "direct",
    model: Model = None,
    task_runner: TaskRunnerParameter = None,
) -> dict[str, Any]:
    """Run every stage (on the bundled corpus by default) and record the run in ``runs``.

    ``workers`` is the number of sandboxed processes per batch; how many batches run at
    once, and where, is the task runner's business (``task_runner``, else
    ``COMPOWORLD_TASK_RUNNER``). ``mode`` and ``model`` choose the rollout policies.
    """
    wh = Warehouse(warehouse_root())
    root = wh.location
    paths = spec_paths or [str(bundled_corpus())]
    params = {
        "spec_paths": paths,
        "tasks": tasks,
        "group_size": group_size,
        "seed": seed,
        "workers": workers,
        "use_model": use_model,
        "build_batch_size": build_batch_size,
        "rollout_batch_size": rollout_batch_size,
        "mode": mode,
        "model": model,
        "task_runner": task_runner,
    }
    report = StageReporter("factory")
    report.info(
        "factory: %d tasks, groups of %d, mode %s, model %s, on %s; warehouse %s",
        tasks,
        group_size,
        mode,
        model or os.environ.get("COMPOWORLD_LLM_MODEL") or "(none: oracle only)",
        task_runner or "the flow's task runner",
        root,
    )
    run_id = str(flow_run.get_id() or "") or None
    with (
        recorded_run(wh, "factory", params, run_id=run_id) as summary,
        scoped_env(policy_env(mode, model)),
        chosen_runner(task_runner) as runner,
    ):
        summary["ingest"] = ingest_specs(paths, root)
        summary["build"] = build_step(root, seed, workers, build_batch_size, runner)
        summary["graph"] = graph_task(root, str(home() / "graph"))
        summary["compose"] = compose_step(root, tasks, seed, workers)
        summary["rollout"] = rollout_step(
            root, group_size, workers, use_model, rollout_batch_size, runner
        )
        summary["export"] = export_task(root, str(home() / "exports"))
        summary["warehouse"] = root
        publish("factory", summary, wh)
    report.info("factory done; its summary is the factory-summary artifact")
    return summary
