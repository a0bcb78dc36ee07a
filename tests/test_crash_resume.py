"""SIGKILL the factory in the middle of a stage, run it again: the warehouse ends with exactly
the rows of an uninterrupted run (nothing lost, nothing duplicated)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tasks.ingest import bundled_corpus
from warehouse import Warehouse

from .conftest import (
    FACTORY_REFERENCE,
    REFERENCE_GROUP,
    REFERENCE_SPECS,
    REFERENCE_TASKS,
    ROOT,
    FactoryRun,
    command_env,
)

# The reference run's services and tasks: enough for every stage to store batches.
SPECS = [str(bundled_corpus() / "openapi" / f) for f in REFERENCE_SPECS]
RUN = (
    "import sys; from flows.factory import factory; "
    f"factory(spec_paths={SPECS!r}, tasks={REFERENCE_TASKS}, group_size={REFERENCE_GROUP})"
)
# What identifies a row in each table (timestamps and run ids differ between runs).
KEYS = {
    "specs": "tool_id",
    "spec_errors": "doc_hash || pointer",
    "services": "service_id",
    "service_tools": "service_id || tool",
    "service_checks": "service_id || tool || \"check\" || coalesce(detail, '')",
    "graph_edges": "graph_id || source || target",
    "tasks": "task_id",
    "rollouts": "rollout_id",
    "criterion_results": "rollout_id || criterion",
    "rollout_scores": "rollout_id",
}


def start(home: Path) -> subprocess.Popen:
    (home / "prefect").mkdir(parents=True, exist_ok=True)  # Prefect won't make missing parents
    # The session's temporary API: four runs need not each start a server of their own.
    env = command_env(
        session_api=True, COMPOWORLD_HOME=str(home), PREFECT_HOME=str(home / "prefect")
    )
    return subprocess.Popen(
        [sys.executable, "-c", RUN],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def rows(home: Path) -> dict[str, list[str]]:
    wh = Warehouse(home / "warehouse")
    return {
        t: sorted(wh.query(f"select {k} as key from {t}").column("key").to_pylist())
        for t, k in KEYS.items()
    }


def kill_at_first_batch(proc: subprocess.Popen, home: Path, table: str) -> dict[str, list[str]]:
    """SIGKILL the run as soon as ``table``'s first batch is stored; what it had stored."""
    folder = home / "warehouse" / table
    deadline = time.monotonic() + 300
    while not any(folder.rglob("*.parquet")):
        assert proc.poll() is None, f"the factory ended before {table} was written"
        assert time.monotonic() < deadline, f"no {table} batch within 300 s"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return rows(home)


def assert_cut_short(partial: dict[str, list[str]], expected: dict[str, list[str]]) -> None:
    """What a killed run had stored is a strict subset of an uninterrupted run's rows."""
    for table in KEYS:
        assert len(set(partial[table])) == len(partial[table]), f"{table}: a row twice"
        assert set(partial[table]) <= set(expected[table]), f"{table}: a row of its own"
    assert partial != expected, "the run was not cut short"


@pytest.mark.slow
@FACTORY_REFERENCE
def test_sigkill_mid_stage_then_rerun_equals_an_uninterrupted_run(
    factory_reference: FactoryRun, tmp_path: Path
) -> None:
    """Killed twice in one home: once the build has stored its first service, then its rerun
    once the compose stage has stored its first tasks; the third run completes. The
    session's uninterrupted run of the same factory (conftest.factory_reference) serves both
    comparisons."""
    assert factory_reference.completed
    expected = rows(factory_reference.home)
    assert expected["rollouts"] and expected["tasks"]
    home = tmp_path / "killed"
    in_build = kill_at_first_batch(start(home), home, "services")
    assert in_build["services"] and not in_build["tasks"]
    in_compose = kill_at_first_batch(start(home), home, "tasks")
    assert in_compose["tasks"] and not in_compose["rollouts"]
    # What the build had stored before the first kill is still there after the second.
    assert set(in_build["services"]) <= set(in_compose["services"])
    rerun = start(home)
    assert_cut_short(in_build, expected)
    assert_cut_short(in_compose, expected)
    assert rerun.wait(timeout=300) == 0
    got = rows(home)
    for table in KEYS:
        assert got[table] == expected[table], table  # same rows, none twice
