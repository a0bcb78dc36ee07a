"""The factory: the main job behind ``compoworld run`` / ``make demo``.

Each stage is a thin Prefect task over a plain function in ``tasks/`` that works on batches
and skips what an earlier run already wrote, so a rerun resumes instead of redoing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.runtime import flow_run

from flows.artifacts import publish
from flows.settings import home, warehouse_root
from tasks.build import BuildSettings, build_services
from tasks.compose import compose_stage, graph_stage
from tasks.curate import curate
from tasks.export import export_all
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.rollout import rollout_all
from tasks.runs import recorded_run
from warehouse import Warehouse


@task(name="ingest-specs", retries=1, retry_delay_seconds=1)
def ingest_specs(paths: list[str], root: str) -> dict[str, Any]:
    return ingest_paths(paths, root)


@task(name="build-services", retries=1, retry_delay_seconds=1)
def build_stage(root: str, seed: int, workers: int) -> dict[str, Any]:
    return build_services(Warehouse(root), BuildSettings(seed=seed, workers=workers)).to_dict()


@task(name="build-graph", retries=1, retry_delay_seconds=1)
def graph_task(root: str, out_dir: str) -> dict[str, Any]:
    result = graph_stage(Warehouse(root), Path(out_dir))
    return {"graph_id": result.graph_id, "picture": str(result.html_path), **result.stats}


@task(name="compose-tasks", retries=1, retry_delay_seconds=1)
def compose_task(
    root: str, n: int, seed: int, workers: int, require_any: list[str] | None = None
) -> dict[str, Any]:
    require = set(require_any) if require_any else None
    return compose_stage(
        Warehouse(root), n, seed=seed, workers=workers, require_any=require
    ).to_dict()


@task(name="rollout-and-judge", retries=1, retry_delay_seconds=1)
def rollout_task(root: str, group_size: int, workers: int, use_model: bool) -> dict[str, Any]:
    return rollout_all(Warehouse(root), group_size, workers, use_model)


@task(name="curate-and-export", retries=1, retry_delay_seconds=1)
def export_task(root: str, out_dir: str) -> dict[str, Any]:
    wh = Warehouse(root)
    curation = curate(wh)
    records = export_all(wh, out_dir, curation.kept, curation=curation)
    return {
        "curation": curation.summary(),
        "exports": {r.kind: {"path": r.path, "records": r.records, "new": r.new} for r in records},
    }


@flow(name="factory", log_prints=True)
def factory(
    spec_paths: list[str] | None = None,
    tasks: int = 200,
    group_size: int = 2,
    seed: int = 0,
    workers: int = 2,
    use_model: bool = True,
) -> dict[str, Any]:
    """Run every stage (on the bundled corpus by default) and record the run in ``runs``."""
    wh = Warehouse(warehouse_root())
    root = str(wh.root)
    paths = spec_paths or [str(bundled_corpus())]
    params = {
        "spec_paths": paths,
        "tasks": tasks,
        "group_size": group_size,
        "seed": seed,
        "workers": workers,
        "use_model": use_model,
    }
    run_id = str(flow_run.get_id() or "") or None
    with recorded_run(wh, "factory", params, run_id=run_id) as summary:
        summary["ingest"] = ingest_specs(paths, root)
        summary["build"] = build_stage(root, seed, workers)
        summary["graph"] = graph_task(root, str(home() / "graph"))
        summary["compose"] = compose_task(root, tasks, seed, workers)
        summary["rollout"] = rollout_task(root, group_size, workers, use_model)
        summary["export"] = export_task(root, str(home() / "exports"))
        summary["warehouse"] = root
        publish("factory", summary, wh)
    return summary
