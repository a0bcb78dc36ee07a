"""The factory: the main job behind ``compoworld run`` / ``make demo``.

Each stage is a thin Prefect task over a plain function in ``tasks/`` that works on batches
and skips what an earlier run already wrote, so a rerun resumes instead of redoing.
"""

from __future__ import annotations

import os
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task, unmapped
from prefect.futures import PrefectFuture
from prefect.runtime import flow_run

from flows.artifacts import publish
from flows.runners import task_runner
from flows.settings import home, warehouse_root
from tasks.build import BUILD_BATCH, BuildSettings, BuildSummary, build_services, plan_build
from tasks.compose import compose_stage, graph_stage
from tasks.curate import curate
from tasks.export import export_all
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.rollout import (
    ROLLOUT_BATCH,
    RolloutSummary,
    empty_summaries,
    plan_rollouts,
    rollout_batch,
)
from tasks.runs import recorded_run
from warehouse import Warehouse

# What the stages import lazily (the quality gate and the HF export), for a command to load
# while it waits for a temporary API server (flows/early_api.py).
LAZY_IMPORTS = ("great_expectations", "great_expectations.expectations", "datasets")

BATCHING = "batching"  # the key of a fanned-out stage's batch figures in its summary


@task(name="ingest-specs", retries=1, retry_delay_seconds=1)
def ingest_specs(paths: list[str], location: str) -> dict[str, Any]:
    return ingest_paths(paths, location)


@task(name="build-batch", retries=1, retry_delay_seconds=1)
def build_batch(
    location: str, services: list[str], seed: int, workers: int
) -> tuple[str, BuildSummary]:
    settings = BuildSettings(seed=seed, workers=workers)
    return worker_id(), build_services(Warehouse(location), settings, services)


def worker_id() -> str:
    """Which machine and process ran a batch (``host:pid``), for the stage's summary."""
    return f"{socket.gethostname()}:{os.getpid()}"


def build_step(
    location: str, seed: int, workers: int, batch_size: int = BUILD_BATCH
) -> dict[str, Any]:
    """Build what is not built yet: batches of services mapped over the flow's task runner."""
    t0 = time.perf_counter()
    batches, already = plan_build(Warehouse(location), seed, batch_size)
    summary = BuildSummary(services_skipped=already)
    futures = build_batch.map(unmapped(location), batches, unmapped(seed), unmapped(workers))
    batching = _gather(futures, batches, summary.add)
    summary.wall_s = time.perf_counter() - t0
    return summary.to_dict() | {BATCHING: batching}


@task(name="build-graph", retries=1, retry_delay_seconds=1)
def graph_task(location: str, out_dir: str) -> dict[str, Any]:
    result = graph_stage(Warehouse(location), Path(out_dir))
    return {"graph_id": result.graph_id, "picture": str(result.html_path), **result.stats}


@task(name="compose-tasks", retries=1, retry_delay_seconds=1)
def compose_task(
    location: str, n: int, seed: int, workers: int, require_any: list[str] | None = None
) -> dict[str, Any]:
    require = set(require_any) if require_any else None
    return compose_stage(
        Warehouse(location), n, seed=seed, workers=workers, require_any=require
    ).to_dict()


@task(name="rollout-batch", retries=1, retry_delay_seconds=1)
def rollout_batch_task(
    location: str, task_ids: list[str], group_size: int, workers: int, use_model: bool
) -> tuple[str, dict[str, RolloutSummary]]:
    return worker_id(), rollout_batch(Warehouse(location), group_size, workers, use_model, task_ids)


def rollout_step(
    location: str,
    group_size: int,
    workers: int,
    use_model: bool,
    batch_size: int = ROLLOUT_BATCH,
) -> dict[str, Any]:
    """Roll out and judge the tasks without groups: batches mapped over the task runner."""
    t0 = time.perf_counter()
    batches, already = plan_rollouts(Warehouse(location), group_size, use_model, batch_size)
    merged = empty_summaries(group_size, use_model)
    for summary in merged.values():
        summary.skipped_groups = already  # tasks outside every batch are done for all

    def fold(part: dict[str, RolloutSummary]) -> None:
        for key, summary in part.items():
            merged[key].add(summary)

    futures = rollout_batch_task.map(
        unmapped(location), batches, unmapped(group_size), unmapped(workers), unmapped(use_model)
    )
    batching = _gather(futures, batches, fold)
    out: dict[str, Any] = {}
    for key, summary in merged.items():
        summary.wall_s = time.perf_counter() - t0
        out[key] = summary.to_dict()
    return out | {BATCHING: batching}


def _gather(
    futures: Iterable[PrefectFuture[Any]], batches: list[list[str]], fold: Callable[[Any], None]
) -> dict[str, Any]:
    """Fold each batch's result; a batch that failed even after its retry is reported (its
    items stay undone, so the next run picks them up) and the other batches still count."""
    failed, workers = [], Counter[str]()
    for future, batch in zip(futures, batches, strict=True):
        try:
            worker, result = future.result()
        except Exception as exc:
            log = get_run_logger()
            log.error("batch of %d failed: %s: %s", len(batch), type(exc).__name__, exc)
            failed.append({"items": batch, "error": f"{type(exc).__name__}: {exc}"[:2000]})
            continue
        workers[worker] += 1
        fold(result)
    return {"batches": len(batches), "workers": dict(workers), "failed_batches": failed}


@task(name="curate-and-export", retries=1, retry_delay_seconds=1)
def export_task(root: str, out_dir: str, tools: str = "all") -> dict[str, Any]:
    """``tools``: the exports' tools policy, ``all`` or ``called+N`` (tasks/export.py)."""
    wh = Warehouse(root)
    curation = curate(wh)
    records = export_all(wh, out_dir, curation.kept, curation=curation, tools=tools)
    return {
        "tools_policy": tools,
        "curation": curation.summary(),
        "exports": {r.kind: {"path": r.path, "records": r.records, "new": r.new} for r in records},
    }


@flow(name="factory", log_prints=True, task_runner=task_runner())
def factory(
    spec_paths: list[str] | None = None,
    tasks: int = 200,
    group_size: int = 2,
    seed: int = 0,
    workers: int = 2,
    use_model: bool = True,
    build_batch_size: int = BUILD_BATCH,
    rollout_batch_size: int = ROLLOUT_BATCH,
) -> dict[str, Any]:
    """Run every stage (on the bundled corpus by default) and record the run in ``runs``.

    ``workers`` is the number of sandboxed processes per batch; how many batches run at
    once, and where, is the task runner's business (``COMPOWORLD_TASK_RUNNER``).
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
    }
    run_id = str(flow_run.get_id() or "") or None
    with recorded_run(wh, "factory", params, run_id=run_id) as summary:
        summary["ingest"] = ingest_specs(paths, root)
        summary["build"] = build_step(root, seed, workers, build_batch_size)
        summary["graph"] = graph_task(root, str(home() / "graph"))
        summary["compose"] = compose_task(root, tasks, seed, workers)
        summary["rollout"] = rollout_step(root, group_size, workers, use_model, rollout_batch_size)
        summary["export"] = export_task(root, str(home() / "exports"))
        summary["warehouse"] = root
        publish("factory", summary, wh)
    return summary
