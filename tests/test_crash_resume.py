"""SIGKILL the factory in the middle of a stage, run it again: the warehouse ends with exactly
the rows of an uninterrupted run (nothing lost, nothing duplicated)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tasks.ingest import bundled_corpus
from warehouse import Warehouse

from .conftest import ROOT

SPECS = [
    str(bundled_corpus() / "openapi" / f) for f in ("crm.yaml", "helpdesk.yaml", "invoicing.yaml")
]
RUN = (
    "import sys; from flows.factory import factory; "
    f"factory(spec_paths={SPECS!r}, tasks=8, group_size=2)"
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
    from prefect.settings import PREFECT_API_URL

    (home / "prefect").mkdir(parents=True, exist_ok=True)  # Prefect won't make missing parents
    env = os.environ | {"COMPOWORLD_HOME": str(home), "PREFECT_HOME": str(home / "prefect")}
    # The session's temporary API: three runs need not each start a server of their own.
    env["PREFECT_API_URL"] = str(PREFECT_API_URL.value())
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


def test_sigkill_mid_stage_then_rerun_equals_an_uninterrupted_run(
    prefect_harness: None, tmp_path: Path
) -> None:
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    assert start(clean).wait(timeout=300) == 0

    proc = start(crashed)
    services = crashed / "warehouse" / "services"
    deadline = time.monotonic() + 240
    while not any(services.rglob("*.parquet")):  # the build stage has written its first service
        assert proc.poll() is None, "the factory ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    partial = Warehouse(crashed / "warehouse").count("services")
    assert start(crashed).wait(timeout=300) == 0

    expected, got = rows(clean), rows(crashed)
    assert partial < len(expected["services"]) or got["tasks"]  # it really was cut short
    for table in KEYS:
        assert got[table] == expected[table], table  # same rows, none twice
    assert expected["rollouts"] and expected["tasks"]
