"""The factory: the main job behind ``compoworld run`` / ``make demo``.

Each stage is a thin Prefect task over a plain function in ``tasks/``; later issues add build,
graph, compose, rollout, judge, curate and export.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.runtime import flow_run

from flows.settings import warehouse_root
from tasks.build import BuildSettings, build_services
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.reference import describe_reference_world
from tasks.runs import recorded_run
from warehouse import Warehouse


@task(name="ingest-specs", retries=1, retry_delay_seconds=1)
def ingest_specs(paths: list[str], root: str) -> dict[str, Any]:
    return ingest_paths(paths, root)


@task(name="build-services", retries=1, retry_delay_seconds=1)
def build_stage(root: str, seed: int, workers: int) -> dict[str, Any]:
    return build_services(Warehouse(root), BuildSettings(seed=seed, workers=workers)).to_dict()


@task(name="reference-world", retries=1, retry_delay_seconds=1)
def reference_world(seed: int, size: int) -> dict[str, Any]:
    return describe_reference_world(seed, size)


@flow(name="factory", log_prints=True)
def factory(
    spec_paths: list[str] | None = None, seed: int = 0, seed_size: int = 20, workers: int = 2
) -> dict[str, Any]:
    """Run every stage (on the bundled corpus by default) and record the run in ``runs``."""
    wh = Warehouse(warehouse_root())
    paths = spec_paths or [str(bundled_corpus())]
    params = {"spec_paths": paths, "seed": seed, "seed_size": seed_size, "workers": workers}
    run_id = str(flow_run.get_id() or "") or None
    with recorded_run(wh, "factory", params, run_id=run_id) as summary:
        summary["ingest"] = ingest_specs(paths, str(wh.root))
        summary["build"] = build_stage(str(wh.root), seed, workers)
        summary["reference_world"] = reference_world(seed, seed_size)
        summary["warehouse"] = str(wh.root)
    return summary
