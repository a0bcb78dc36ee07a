"""Scale-out: the build and rollout stages fan batches out over a local Dask cluster (worker
processes sharing one warehouse) and end with exactly the rows the default thread runner
writes (the session's factory run); a failed batch is reported and the other batches still
land. The Dask run is also the stage flows' own test: each stage flow alone, in order,
against a temporary Prefect API, and reruns add nothing."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from flows.factory import BATCHING
from tasks.ingest import bundled_corpus, ingest_paths
from warehouse import Warehouse

from .conftest import (
    FACTORY_REFERENCE,
    REFERENCE_GROUP,
    REFERENCE_SPECS,
    REFERENCE_TASKS,
    FactoryRun,
)

SPECS = REFERENCE_SPECS


def stage_rows(wh: Warehouse) -> dict[str, list[tuple]]:
    """The identity of every row the build and rollout stages write (times left out)."""
    queries = {
        "services": "select service_id, name, tier, status from services",
        "service_tools": "select service_id, tool, status, tier from service_tools",
        "rollouts": "select rollout_id, group_id, steps, final_state_hash from rollouts",
        "rollout_scores": "select rollout_id, reward, completed from rollout_scores",
    }
    return {
        t: sorted(tuple(r.values()) for r in wh.query(q).to_pylist()) for t, q in queries.items()
    }


def run_stages(
    home: Path, location: str, runner: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Warehouse, set[str]]:
    """Ingest the reference run's two services, build them a batch each, compose its four
    tasks, roll them out in batches of two; the warehouse and the ``host:pid`` of every
    process that ran a batch."""
    from flows import stages
    from flows.runners import task_runner

    monkeypatch.setenv("COMPOWORLD_HOME", str(home))
    monkeypatch.setenv("COMPOWORLD_WAREHOUSE", location)
    wh = Warehouse(location)
    ingest_paths([str(bundled_corpus() / "openapi" / s) for s in SPECS], wh.location)
    build = stages.build_flow.with_options(task_runner=task_runner(runner))
    out = build(batch_size=1)["build"]  # a batch per service: 2 batches
    assert out["batching"]["batches"] == 2 and out["batching"]["failed_batches"] == []
    assert out["services_built"] == 2
    workers = set(out["batching"]["workers"])
    stages.graph_flow()
    composed = stages.compose_flow(n=REFERENCE_TASKS)["compose"]["composed"]
    assert composed == REFERENCE_TASKS == 4
    rollout = stages.rollout_flow.with_options(task_runner=task_runner(runner))
    out = rollout(group_size=REFERENCE_GROUP, batch_size=2)["rollout"]
    assert out["batching"]["batches"] == 2 and out["batching"]["failed_batches"] == []  # 4 in 2s
    assert out["oracle"]["rollouts"] == REFERENCE_TASKS * REFERENCE_GROUP
    return wh, workers | set(out["batching"]["workers"])


TABLES = ("specs", "services", "graph_edges", "tasks", "rollouts", "rollout_scores", "exports")


def rerun_adds_nothing(wh: Warehouse) -> None:
    """The export stage after ``run_stages``; then every stage flow again, alone and in
    order: each records its run and adds no row."""
    from flows import stages

    assert stages.export_flow()["export"]["exports"]["chat_jsonl"]["records"] > 0
    before = {t: wh.count(t) for t in TABLES}
    stages.ingest_flow(paths=[str(bundled_corpus() / "openapi" / s) for s in SPECS])
    stages.build_flow()
    stages.graph_flow()
    stages.compose_flow(n=REFERENCE_TASKS)
    stages.rollout_flow(group_size=REFERENCE_GROUP)
    stages.export_flow()
    assert {t: wh.count(t) for t in TABLES} == before
    flows = wh.query("select distinct flow from runs").column(0).to_pylist()
    assert set(flows) == {
        "ingest-specs",
        "build-services",
        "build-graph",
        "compose-tasks",
        "collect-rollouts",
        "curate-and-export",
    }


@pytest.mark.slow
@FACTORY_REFERENCE
def test_dask_workers_sharing_a_warehouse_url_write_what_threads_write(
    factory_reference: FactoryRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stage flows on Dask write the rows of the session's factory run, which ran the
    same stages on the default thread runner, every batch in this process."""
    pytest.importorskip("prefect_dask")
    here = f"{socket.gethostname()}:{os.getpid()}"
    threads = factory_reference.summary
    assert {here} == set(threads["build"][BATCHING]["workers"])
    assert {here} == set(threads["rollout"][BATCHING]["workers"])
    # The Dask workers share the warehouse by URL, as workers on other machines would.
    url = f"file://{tmp_path}/dask/warehouse"
    wh, dask_workers = run_stages(tmp_path / "dask", url, "dask:2", monkeypatch)
    assert wh.location == url
    assert here not in dask_workers and len(dask_workers) >= 1  # Dask: in worker processes
    dask = stage_rows(wh)
    assert dask == stage_rows(Warehouse(factory_reference.home / "warehouse"))
    # 4 tasks x G = 2 x two modes (the oracle rolls out direct and gateway).
    assert len(dask["services"]) == 2 and len(dask["rollouts"]) == 16
    rerun_adds_nothing(wh)


def test_a_failed_batch_is_reported_and_the_others_land(
    prefect_harness: None, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows import stages
    from flows.settings import warehouse_root
    from tasks import build

    wh = Warehouse(warehouse_root())
    ingest_paths([str(bundled_corpus() / "openapi" / s) for s in SPECS[:2]], wh.location)
    real = build.build_services

    def fails_for_crm(
        wh: Warehouse, settings: object, services: list[str], **options: object
    ) -> object:
        if "crm" in services:
            raise RuntimeError("worker lost")
        return real(wh, settings, services, **options)  # options: the progress callback

    monkeypatch.setattr("flows.factory.build_services", fails_for_crm)
    out = stages.build_flow(batch_size=1)["build"]
    assert [f["items"] for f in out["batching"]["failed_batches"]] == [["crm"]]
    assert "worker lost" in out["batching"]["failed_batches"][0]["error"]
    assert wh.query("select name from services").column(0).to_pylist() == ["helpdesk"]

    monkeypatch.setattr("flows.factory.build_services", real)
    again = stages.build_flow(batch_size=1)["build"]  # the rerun builds only what failed
    assert again["services_built"] == 1 and again["services_already_built"] == 1
    assert sorted(wh.query("select name from services").column(0).to_pylist()) == [
        "crm",
        "helpdesk",
    ]


def test_runner_setting_errors_are_clear() -> None:
    from flows.runners import RunnerSpec, TaskRunnerSettingError, runner_spec

    assert runner_spec("dask:tcp://10.0.0.5:8786") == RunnerSpec(
        "dask", address="tcp://10.0.0.5:8786"
    )
    assert runner_spec("ray:4") == RunnerSpec("ray", workers=4)
    assert runner_spec("threads") == RunnerSpec("threads")
    for bad, why in (
        ("spark", "unknown kind"),
        ("threads:x", "takes a count"),
        ("dask:0", "at least 1"),
    ):
        with pytest.raises(TaskRunnerSettingError, match=why):
            runner_spec(bad)


def test_ray_cluster_builds_in_its_workers(
    prefect_harness: None, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("prefect_ray")
    from flows import stages
    from flows.runners import task_runner
    from flows.settings import warehouse_root

    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    wh = Warehouse(warehouse_root())
    ingest_paths([str(bundled_corpus() / "openapi" / s) for s in SPECS[:2]], wh.location)
    build = stages.build_flow.with_options(task_runner=task_runner("ray:2"))
    out = build(batch_size=1)["build"]
    assert out["services_built"] == 2 and out["batching"]["failed_batches"] == []
    assert f"{socket.gethostname()}:{os.getpid()}" not in out["batching"]["workers"]
    assert sorted(wh.query("select name from services").column(0).to_pylist()) == [
        "crm",
        "helpdesk",
    ]
