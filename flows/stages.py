"""One Prefect flow per stage, each usable alone with its parameters (and deployed from
prefect.yaml). They run the same tasks as the factory, which chains them in one flow."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prefect import flow
from prefect.runtime import flow_run

from flows.artifacts import publish
from flows.factory import (
    BUILD_BATCH,
    ROLLOUT_BATCH,
    build_step,
    compose_task,
    export_task,
    graph_task,
    ingest_specs,
    rollout_step,
)
from flows.runners import task_runner
from flows.settings import home, warehouse_root
from tasks.ingest import bundled_corpus
from tasks.runs import recorded_run
from warehouse import Warehouse


def _stage(
    name: str, key: str, params: dict[str, Any], run: Callable[[str], Any]
) -> dict[str, Any]:
    wh = Warehouse(warehouse_root())
    with recorded_run(wh, name, params, run_id=str(flow_run.get_id() or "") or None) as summary:
        summary[key] = run(wh.location)
        summary["warehouse"] = wh.location
        publish(name, summary, wh)
    return summary


@flow(name="ingest-specs", log_prints=True)
def ingest_flow(paths: list[str] | None = None) -> dict[str, Any]:
    """Ingest spec files, folders or globs (default: the bundled corpus)."""
    paths = paths or [str(bundled_corpus())]
    return _stage(
        "ingest-specs", "ingest", {"paths": paths}, lambda root: ingest_specs(paths, root)
    )


@flow(name="build-services", log_prints=True, task_runner=task_runner())
def build_flow(seed: int = 0, workers: int = 2, batch_size: int = BUILD_BATCH) -> dict[str, Any]:
    """Generate and verify services for every ingested spec not built yet."""
    params = {"seed": seed, "workers": workers, "batch_size": batch_size}
    return _stage(
        "build-services",
        "build",
        params,
        lambda root: build_step(root, seed, workers, batch_size),
    )


@flow(name="build-graph", log_prints=True)
def graph_flow() -> dict[str, Any]:
    """The dependency graph of the verified tools, and its picture."""
    out = str(home() / "graph")
    return _stage("build-graph", "graph", {}, lambda root: graph_task(root, out))


@flow(name="compose-tasks", log_prints=True)
def compose_flow(n: int = 200, seed: int = 0, workers: int = 2) -> dict[str, Any]:
    """Compose verified cross-service tasks over the built library."""
    params = {"n": n, "seed": seed, "workers": workers}
    return _stage(
        "compose-tasks", "compose", params, lambda root: compose_task(root, n, seed, workers)
    )


@flow(name="collect-rollouts", log_prints=True, task_runner=task_runner())
def rollout_flow(
    group_size: int = 2, workers: int = 2, use_model: bool = True, batch_size: int = ROLLOUT_BATCH
) -> dict[str, Any]:
    """Roll out (oracle; a model too when configured) and judge every task without a group."""
    params = {
        "group_size": group_size,
        "workers": workers,
        "use_model": use_model,
        "batch_size": batch_size,
    }
    return _stage(
        "collect-rollouts",
        "rollout",
        params,
        lambda root: rollout_step(root, group_size, workers, use_model, batch_size),
    )


@flow(name="curate-and-export", log_prints=True)
def export_flow(tools: str = "all") -> dict[str, Any]:
    """Curate the judged rollouts, run the quality gate, write the exports. ``tools``: keep
    every tool offered (``all``) or the called ones plus N others (``called+N``)."""
    out = str(home() / "exports")
    params = {"tools": tools}
    return _stage("curate-and-export", "export", params, lambda root: export_task(root, out, tools))


# Every stage flow, in pipeline order (served and deployed one per stage).
STAGE_FLOWS = (ingest_flow, build_flow, graph_flow, compose_flow, rollout_flow, export_flow)
