"""The nightly expansion: grow the library from a drop folder of spec files.

Only new or changed files are ingested (documents are keyed by content hash), only their
services are built (built services are skipped), the graph is rebuilt over the verified tools,
and only tasks touching a new service are composed, rolled out, curated and exported. A run
with nothing new ends after the ingest and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow
from prefect.runtime import flow_run

from flows.artifacts import publish
from flows.factory import (
    build_step,
    compose_task,
    export_task,
    graph_task,
    ingest_specs,
    rollout_step,
)
from flows.runners import task_runner
from flows.settings import home, warehouse_root
from tasks.expansion import changed_services, has_spec_files, service_versions
from tasks.runs import recorded_run
from warehouse import Warehouse


def drop_folder(path: str | None) -> Path:
    return Path(path) if path else home() / "drop"


@flow(name="nightly-expansion", log_prints=True, task_runner=task_runner())
def nightly_expansion(
    drop: str | None = None,
    tasks: int = 50,
    group_size: int = 2,
    seed: int = 0,
    workers: int = 2,
) -> dict[str, Any]:
    """Ingest new spec files from the drop folder and grow services, tasks and exports."""
    wh = Warehouse(warehouse_root())
    root = wh.location
    folder = drop_folder(drop)
    params = {"drop": str(folder), "tasks": tasks, "group_size": group_size, "seed": seed}
    run_id = str(flow_run.get_id() or "") or None
    with recorded_run(wh, "nightly-expansion", params, run_id=run_id) as summary:
        if not has_spec_files(folder):
            summary["nothing_new"] = f"no spec files in {folder}"
            print(f"nothing new: no spec files in {folder}")
            publish("nightly-expansion", summary, wh)
            return summary
        before = service_versions(wh)
        summary["ingest"] = ingest_specs([str(folder)], root)
        new = sorted(changed_services(before, service_versions(wh)))
        summary["new_services"] = new
        if not new:
            summary["nothing_new"] = "every spec file in the drop folder was already ingested"
            print(f"nothing new in {folder}: every spec file was already ingested")
            publish("nightly-expansion", summary, wh)
            return summary
        print(f"new or changed services: {', '.join(new)}")
        summary["build"] = build_step(root, seed, workers)
        summary["graph"] = graph_task(root, str(home() / "graph"))
        summary["compose"] = compose_task(root, tasks, seed, workers, new)
        summary["rollout"] = rollout_step(root, group_size, workers, True)
        summary["export"] = export_task(root, str(home() / "exports"))
        summary["warehouse"] = root
        publish("nightly-expansion", summary, wh)
    return summary
