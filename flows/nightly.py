"""The nightly expansion: grow the library from a drop folder of spec files.

Only new or changed files are ingested (documents are keyed by content hash), only their
services are built (built services are skipped), the graph is rebuilt over the verified tools,
and only tasks touching a new service are composed, rolled out, curated and exported. A run
with nothing new ends after the ingest and says so.
"""

# No `from __future__ import annotations`: the flow's parameter types must be objects, not
# names. A served run may load the flow by value (cloudpickle), which keeps only the globals
# its code uses, and pydantic could not resolve a parameter annotation given as a name.

from pathlib import Path
from typing import Annotated, Any

from prefect import flow
from prefect.runtime import flow_run
from prefect.task_runners import TaskRunner
from pydantic import Field

from flows.alerts import library_grew
from flows.artifacts import publish
from flows.factory import (
    build_step,
    chosen_runner,
    compose_step,
    export_task,
    graph_task,
    ingest_specs,
    rollout_step,
)
from flows.health import publish_library_health
from flows.parameters import GroupSize, Mode, Model, TaskCount, Workers, policy_env, scoped_env
from flows.parameters import TaskRunner as TaskRunnerParameter
from flows.progress import StageReporter
from flows.runners import task_runner as make_task_runner
from flows.settings import home, warehouse_root
from tasks.expansion import changed_services, has_spec_files, service_versions
from tasks.runs import recorded_run
from tasks.spec_sources import is_url, local_sources
from warehouse import Warehouse

FLOW = "nightly-expansion"

Drop = Annotated[
    str | None,
    Field(
        description="The drop folder of new spec files, or an http(s) URL of one spec "
        "document (empty: $COMPOWORLD_HOME/drop)."
    ),
]


def drop_folder(path: str | None) -> Path:
    """The folder to read: ``path``, the folder a URL's document was fetched to, or the
    default drop folder."""
    if path and is_url(path):
        folder = home() / "fetched" / "nightly"
        local_sources([path], folder)
        return folder
    return Path(path) if path else home() / "drop"


@flow(name=FLOW, log_prints=True, task_runner=make_task_runner())
def nightly_expansion(
    drop: Drop = None,
    tasks: TaskCount = 50,
    group_size: GroupSize = 2,
    seed: int = 0,
    workers: Workers = 2,
    mode: Mode = "direct",
    model: Model = None,
    task_runner: TaskRunnerParameter = None,
) -> dict[str, Any]:
    """Ingest new spec files from the drop folder and grow services, tasks and exports;
    then publish the ``library-health`` trend artifact."""
    wh = Warehouse(warehouse_root())
    report = StageReporter("nightly")
    folder = drop_folder(drop)
    params = {
        "drop": str(folder),
        "tasks": tasks,
        "group_size": group_size,
        "seed": seed,
        "mode": mode,
        "model": model,
        "task_runner": task_runner,
    }
    report.info("nightly expansion: looking for new spec files in %s", folder)
    run_id = str(flow_run.get_id() or "") or None
    with (
        recorded_run(wh, FLOW, params, run_id=run_id) as summary,
        scoped_env(policy_env(mode, model)),
        chosen_runner(task_runner) as runner,
    ):
        grow(summary, wh, folder, tasks, group_size, seed, workers, runner, report)
    # After the run's own row is in `runs`: the trend then includes this run.
    publish_library_health(wh)
    if "nothing_new" not in summary:
        library_grew(len(summary["new_services"]), summary["compose"].get("written", 0))
    return summary


def grow(
    summary: dict[str, Any],
    wh: Warehouse,
    folder: Path,
    tasks: int,
    group_size: int,
    seed: int,
    workers: int,
    runner: TaskRunner | None,
    report: StageReporter,
) -> None:
    """The nightly's stages, filling ``summary``; they stop after the ingest when nothing
    is new."""
    root = wh.location
    if not has_spec_files(folder):
        summary["nothing_new"] = f"no spec files in {folder}"
    else:
        before = service_versions(wh)
        summary["ingest"] = ingest_specs([str(folder)], root)
        new = sorted(changed_services(before, service_versions(wh)))
        summary["new_services"] = new
        if not new:
            summary["nothing_new"] = "every spec file in the drop folder was already ingested"
    if "nothing_new" in summary:
        report.warning("nothing new: %s", summary["nothing_new"])
        publish(FLOW, summary, wh)
        return
    report.info("new or changed services: %s", ", ".join(new))
    summary["build"] = build_step(root, seed, workers, runner=runner)
    summary["graph"] = graph_task(root, str(home() / "graph"))
    summary["compose"] = compose_step(root, tasks, seed, workers, new)
    summary["rollout"] = rollout_step(root, group_size, workers, True, runner=runner)
    summary["export"] = export_task(root, str(home() / "exports"))
    summary["warehouse"] = root
    publish(FLOW, summary, wh)
    report.info("nightly expansion done: %d new services", len(new))
