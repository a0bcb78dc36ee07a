"""A factory run triggered from the Prefect UI, watched in the UI, in headless Chromium.

One test (a real server, a served deployment, a real factory run, a real browser), checking
what a person running the factory from the UI relies on:

- the run is triggered by clicking Run -> Quick run on the deployment's page;
- while it runs, stage log lines reach the server and the stages' progress artifacts move
  (seen by polling the API during the run), then end at 100%;
- the run page shows the stages' log lines, and its Artifacts tab the summary and progress
  at 100%; the screenshot in docs/ is regenerated from it with
  COMPOWORLD_UPDATE_SCREENSHOT=1 (else it goes to the test's temporary folder);
- the deployment refuses parameters outside their schema, naming the parameter;
- a nightly-expansion run that fails triggers the alert automation, and the "grew nothing"
  automation fires when no growth event came within its (here short) window;
- the CLI's nightly prints its log lines once (Prefect's rich console handler), no copy.

Chromium is Debian's (/usr/bin/chromium), driven by playwright; without it the test skips.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, command_env, seeded_prefect_home
from .test_deploy import free_port, wait_healthy

CHROMIUM = Path("/usr/bin/chromium")
# Regenerated only on request, so that a test run leaves the checkout as it found it.
SCREENSHOT = ROOT / "docs" / "prefect-ui-factory-run.png"
UPDATE_SCREENSHOT = os.environ.get("COMPOWORLD_UPDATE_SCREENSHOT") == "1"
STAGES = ("ingest", "build", "graph", "compose", "rollout", "export")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# The factory deployment a person would trigger, served with test-sized defaults.
SERVE = """
import sys
from flows.factory import factory
from tasks.ingest import bundled_corpus

specs = [str(bundled_corpus() / "openapi" / f) for f in ("crm.yaml", "helpdesk.yaml")]
factory.serve(
    name="factory-ui",
    parameters={"spec_paths": specs, "tasks": 4, "group_size": 1, "use_model": False},
    limit=1,
)
"""
# A nightly expansion that fails: its warehouse lies under a regular file.
FAILING_NIGHTLY = """
from flows.nightly import nightly_expansion
nightly_expansion(tasks=1)
"""


def api_call(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        headers={"Content-Type": "application/json"},
        method="POST" if data else "GET",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def api_error(url: str, body: Any) -> tuple[int, str]:
    try:
        api_call(url, body)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    return 200, ""


def wait_for(what: str, check: Any, timeout: float, every: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(every)
    raise TimeoutError(f"waited {timeout:.0f} s for {what}")


def automation_fired(api: str, automation_id: str) -> bool:
    events = api_call(
        f"{api}/events/filter",
        {
            "filter": {
                "event": {"name": ["prefect.automation.triggered"]},
                "resource": {"id": [f"prefect.automation.{automation_id}"]},
            },
            "limit": 10,
        },
    )
    return bool(events["events"])


@pytest.mark.slow
def test_factory_run_from_the_ui_shows_logs_progress_and_summary(
    tmp_path: Path, migrated_prefect_db: Path
) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"no {CHROMIUM}: install Debian's chromium (.ci/run does) to run this test")
    from playwright.sync_api import sync_playwright

    port = free_port()
    ui, api = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/api"
    seeded_prefect_home(tmp_path / "prefect", migrated_prefect_db)
    env = command_env(
        session_api=False,
        PREFECT_HOME=str(tmp_path / "prefect"),
        COMPOWORLD_HOME=str(tmp_path / "home"),
        PREFECT_LOGGING_LEVEL="WARNING",  # the project's quiet default: our lines still go
    )
    cli = [sys.executable, "-m", "flows.cli"]
    started: list[subprocess.Popen[bytes]] = []

    def start(args: list[str], extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env | (extra or {}),
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started.append(process)
        return process

    try:
        start([*cli, "server", "--port", str(port)])
        wait_healthy(api)
        client_env = {"PREFECT_API_URL": api}
        # One oracle pass (not both modes): what the page shows is the same, sooner.
        start([sys.executable, "-c", SERVE], client_env | {"COMPOWORLD_ORACLE_BOTH_MODES": "0"})
        # The alerts, with a 20-second "grew nothing" window (two nights in production).
        made = subprocess.run(
            [*cli, "alerts", "--quiet-hours", str(20 / 3600)],
            cwd=ROOT,
            env=env | client_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        automations = {a["name"]: a["id"] for a in api_call(f"{api}/automations/filter", {})}
        assert {"nightly-expansion failed", "nightly-expansion grew nothing"} <= set(automations)

        deployment = wait_for(
            "the served deployment",
            lambda: next(
                (d for d in api_call(f"{api}/deployments/filter", {}) if d["name"] == "factory-ui"),
                None,
            ),
            timeout=120,
        )
        # Parameters outside their schema are refused by the server, naming the parameter.
        runs_url = f"{api}/deployments/{deployment['id']}/create_flow_run"
        for bad, name in (({"tasks": 0}, "tasks"), ({"mode": "sideways"}, "mode")):
            code, text = api_error(runs_url, {"parameters": bad})
            assert code in (409, 422) and name in text, (code, text)

        # A nightly that fails (its warehouse cannot be created), meanwhile.
        blocker = tmp_path / "not-a-folder"
        blocker.write_text("")
        nightly = start(
            [sys.executable, "-c", FAILING_NIGHTLY],
            client_env | {"COMPOWORLD_WAREHOUSE": str(blocker / "warehouse")},
        )
        # And the CLI's nightly on an empty drop folder: its log lines print once, in rich.
        (tmp_path / "drop").mkdir()
        cli_nightly = subprocess.Popen(
            [*cli, "nightly", "--drop", str(tmp_path / "drop")],
            cwd=ROOT,
            env=env | client_env | {"COLUMNS": "200"},
            start_new_session=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append(cli_nightly)  # type: ignore[arg-type]

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{ui}/deployments/deployment/{deployment['id']}")

            def triggered_run() -> Any:
                return next(
                    iter(
                        api_call(
                            f"{api}/flow_runs/filter",
                            {"flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}},
                        )
                    ),
                    None,
                )

            # The page renders in stages on 2 busy cores: a click that lands before the menu
            # is wired creates nothing (seen in 2 of 3 full-suite runs), so a user would click
            # again; so does the test, after reloading, up to three times.
            run = None
            for attempt in range(3):
                if attempt:
                    page.reload()
                page.wait_for_load_state("load")
                page.get_by_role("button", name="Run", exact=True).click()
                page.get_by_text("Quick run", exact=True).click()
                with contextlib.suppress(TimeoutError):
                    run = wait_for("the triggered run", triggered_run, timeout=40)
                    break
            assert run is not None, "three Quick runs from the UI created no flow run"
            seen = watch_run(api, run["id"])
            assert seen["state"] == "COMPLETED", seen
            # While it ran, each stage logged and a stage's progress moved through a value
            # between 0 and 100. Which stage is left open: a fast build on a quiet machine can
            # go from 0 to 100 between two polls (CI saw build [0, 100], compose [0, 25, 75,
            # 100]); without moving progress every stage shows only [0, 100].
            # (The export's lines may land just after the run ends: the log worker batches.)
            running = {f"compoworld.{stage}" for stage in STAGES if stage != "export"}
            assert running <= seen["logged_while_running"], seen
            assert any(
                0 < p < 100
                for stage in ("build", "compose", "rollout")
                for p in seen["progress"].get(f"factory-{stage}-progress", [])
            ), seen

            artifacts = api_call(
                f"{api}/artifacts/filter",
                {"artifacts": {"flow_run_id": {"any_": [run["id"]]}}},
            )
            progress = {a["key"]: a["data"] for a in artifacts if a["type"] == "progress"}
            for stage in ("build", "compose", "rollout"):
                assert progress[f"factory-{stage}-progress"] == 100, progress
            logs = api_call(
                f"{api}/logs/filter", {"logs": {"flow_run_id": {"any_": [run["id"]]}}, "limit": 200}
            )
            names = {log["name"] for log in logs}
            assert {f"compoworld.{stage}" for stage in STAGES} <= names, names

            # The run page: its log lines, then its artifacts (the screenshot in docs/ is
            # the run page with its logs).
            page.goto(f"{ui}/runs/flow-run/{run['id']}")
            page.get_by_text("export done:", exact=False).first.wait_for(timeout=60_000)
            text = page.inner_text("body")
            for stage in STAGES:
                assert f"{stage} done" in text, stage
            shot = SCREENSHOT if UPDATE_SCREENSHOT else tmp_path / SCREENSHOT.name
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 0
            page.get_by_text("Artifacts", exact=True).first.click()
            # The summary and the flow's progress artifacts, then the compose task's one.
            page.get_by_text("factory-summary").first.wait_for(timeout=30_000)
            page.get_by_text("factory-compose-progress").first.wait_for(timeout=30_000)
            text = page.inner_text("body")
            for stage in ("build", "compose", "rollout"):
                assert f"factory-{stage}-progress" in text, text
                assert f"{stage}: 100%, done" in text, text
            browser.close()

        output, _ = cli_nightly.communicate(timeout=120)
        assert cli_nightly.returncode == 0, output
        said = [line for line in output.splitlines() if "nothing new:" in line]
        assert len(said) == 1 and "compoworld.nightly" in said[0], output
        # The nightly published the trend (with the factory's run too if that ended first).
        health = api_call(
            f"{api}/artifacts/filter",
            {"artifacts": {"key": {"any_": ["library-health", "library-health-chart"]}}},
        )
        table = next(a for a in health if a["key"] == "library-health")
        rows = json.loads(table["data"]) if isinstance(table["data"], str) else table["data"]
        assert rows[-1]["flow"] == "nightly-expansion" and "tools_verified" in rows[-1], rows
        assert any(a["key"] == "library-health-chart" for a in health)
        # The failed nightly triggered its alert; no growth event came, so did the other.
        assert nightly.wait(timeout=120) != 0
        wait_for(
            "the failed-nightly alert",
            lambda: automation_fired(api, automations["nightly-expansion failed"]),
            timeout=60,
        )
        wait_for(
            "the grew-nothing alert",
            lambda: automation_fired(api, automations["nightly-expansion grew nothing"]),
            timeout=60,
        )
    finally:
        for process in started:
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait(timeout=30)


def watch_run(api: str, run_id: str, timeout: float = 300) -> dict[str, Any]:
    """Poll a flow run until it ends: its final state, the stage loggers whose lines had
    arrived while it was still running, and the values each progress artifact took."""
    seen: dict[str, Any] = {"logged_while_running": set(), "progress": {}}
    deadline = time.monotonic() + timeout
    polls = 0
    while time.monotonic() < deadline:
        polls += 1
        flow_run = api_call(f"{api}/flow_runs/{run_id}")
        state = flow_run["state_type"]
        for artifact in api_call(
            f"{api}/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [run_id]}}}
        ):
            if artifact["type"] == "progress":
                values = seen["progress"].setdefault(artifact["key"], [])
                if not values or values[-1] != artifact["data"]:
                    values.append(artifact["data"])
        if state == "RUNNING" and polls % 4 == 0:
            logs = api_call(
                f"{api}/logs/filter", {"logs": {"flow_run_id": {"any_": [run_id]}}, "limit": 200}
            )
            seen["logged_while_running"] |= {log["name"] for log in logs}
        if state in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
            seen["state"] = state
            if state != "COMPLETED":  # what went wrong, for the assertion's message
                seen["message"] = flow_run["state"]["message"]
                logs = api_call(f"{api}/logs/filter", {"logs": {"flow_run_id": {"any_": [run_id]}}})
                seen["errors"] = [log["message"] for log in logs if log["level"] >= 40][-3:]
            return seen
        time.sleep(0.25)
    raise TimeoutError(f"flow run {run_id} still running after {timeout:.0f} s")
