"""The factory: the main job behind ``compoworld run`` / ``make demo``.

Stages are added by later issues (ingest, build, graph, compose, rollout, judge, curate,
export); each is a thin Prefect task over a plain function in ``tasks/``.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.runtime import flow_run

from flows.settings import warehouse_root
from tasks.reference import describe_reference_world
from tasks.runs import recorded_run
from warehouse import Warehouse


@task(name="reference-world", retries=1, retry_delay_seconds=1)
def reference_world(seed: int, size: int) -> dict[str, Any]:
    return describe_reference_world(seed, size)


@flow(name="factory", log_prints=True)
def factory(seed: int = 0, seed_size: int = 20) -> dict[str, Any]:
    """Run every stage on the embedded defaults and record the run in ``runs``."""
    wh = Warehouse(warehouse_root())
    params = {"seed": seed, "seed_size": seed_size}
    with recorded_run(
        wh, "factory", params, run_id=str(flow_run.get_id() or "") or None
    ) as summary:
        summary["reference_world"] = reference_world(seed, seed_size)
        summary["warehouse"] = str(wh.root)
    return summary
