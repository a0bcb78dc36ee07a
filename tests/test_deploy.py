"""`compoworld server` and `compoworld serve`, then prefect.yaml deploys against that real
local server, and a process worker takes the nightly-expansion deployment to Completed."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, seeded_prefect_home

PREFECT = [sys.executable, "-m", "prefect"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"no Prefect server at {url}")


def post(url: str, body: dict[str, Any] | None = None) -> Any:
    """A Prefect API call: ``body`` (default: no filter, every row) posted to ``url``."""
    data = json.dumps(body or {}).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.slow
def test_server_serve_deploy_and_a_worker_complete_the_nightly(
    tmp_path: Path, migrated_prefect_db: Path
) -> None:
    """One real server for the whole path a team takes: `compoworld server` (API and UI),
    `compoworld serve` registers every deployment with the nightly's cron, `prefect deploy
    --all` puts them on the work pools, and a process worker takes a triggered nightly to
    Completed."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    home = tmp_path / "home"
    seeded_prefect_home(tmp_path / "prefect", migrated_prefect_db)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"} | {
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "COMPOWORLD_HOME": str(home),
        "COMPOWORLD_PROJECT_DIR": str(ROOT),
    }
    cli = [sys.executable, "-m", "flows.cli"]
    started = []
    try:
        server = subprocess.Popen(
            [*cli, "server", "--port", str(port)],
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(server)
        wait_healthy(api)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert b"<html" in page.read().lower()  # the UI is served too
        env["PREFECT_API_URL"] = api

        serve = subprocess.Popen(
            [*cli, "serve"],
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started.append(serve)
        from flows.stages import STAGE_FLOWS

        expected = {"factory", "nightly-expansion", "train-sft"} | {f.name for f in STAGE_FLOWS}
        names: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and names != expected:
            assert serve.poll() is None, serve.stderr.read().decode()[-3000:]  # type: ignore[union-attr]
            names = {d["name"] for d in post(f"{api}/deployments/filter")}
            time.sleep(0.5)
        assert names == expected
        nightly = next(
            d for d in post(f"{api}/deployments/filter") if d["name"] == "nightly-expansion"
        )
        assert [s["schedule"]["cron"] for s in nightly["schedules"]] == ["0 2 * * *"]
        os.killpg(serve.pid, 9)
        serve.wait(timeout=30)

        def prefect(*args: str, timeout: float = 120) -> str:
            out = subprocess.run(
                [*PREFECT, *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            assert out.returncode == 0, out.stdout + out.stderr
            return out.stdout

        # The README's `prefect work-pool create NAME --type process`, as its API call (each
        # prefect command is a process that spends ~5 CPU-s importing prefect).
        for pool in ("compoworld-cpu", "compoworld-gpu"):
            post(f"{api}/work_pools/", {"name": pool, "type": "process"})
        deployed = prefect("--no-prompt", "deploy", "--all")
        assert "nightly-expansion" in deployed
        # Training alone goes to the GPU pool; every CPU stage to the CPU pool (the served
        # deployments of the same names included: deploy updates them).
        pools = {d["name"]: d["work_pool_name"] for d in post(f"{api}/deployments/filter")}
        assert pools.pop("train-sft") == pools.pop("train-rl") == "compoworld-gpu"
        assert set(pools.values()) == {"compoworld-cpu"}
        assert {"factory", "nightly-expansion", "build-services", "collect-rollouts"} <= set(pools)
        nightly = next(
            d for d in post(f"{api}/deployments/filter") if d["name"] == "nightly-expansion"
        )
        post(f"{api}/deployments/{nightly['id']}/create_flow_run")  # `prefect deployment run`
        prefect("worker", "start", "--pool", "compoworld-cpu", "--run-once", timeout=300)

        runs = post(f"{api}/flow_runs/filter")
        states = sorted(r["state_type"] for r in runs if r.get("deployment_id"))
        # The run we triggered completed; the rest are the cron's future 02:00 runs.
        assert states.count("COMPLETED") == 1, states
        assert set(states) <= {"COMPLETED", "SCHEDULED"}, states
        # The worker ran our flow: it recorded itself in this home's warehouse.
        from warehouse import Warehouse

        ran = (
            Warehouse(home / "warehouse")
            .query("select flow, status, summary from runs")
            .to_pylist()
        )
        assert [(r["flow"], r["status"]) for r in ran] == [("nightly-expansion", "completed")]
        assert "no spec files" in ran[0]["summary"]
    finally:
        for process in started:
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait(timeout=30)
