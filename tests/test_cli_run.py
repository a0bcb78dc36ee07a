"""The ``compoworld`` commands that run flows, as a person runs them: a subprocess with no
Prefect server configured, so the temporary API boots in the background while the stages
load, and the flow waits for it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tasks.ingest import bundled_corpus
from warehouse import Warehouse

from .conftest import command_env, seeded_prefect_home


def compoworld(
    tmp: Path, *args: str, session_api: bool = False, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    env = command_env(
        session_api=session_api,
        COMPOWORLD_HOME=str(tmp / "home"),
        PREFECT_HOME=str(tmp / "prefect" / "nested"),  # missing parents: the CLI makes them
        COLUMNS="200",
    )
    cmd = [sys.executable, "-m", "flows.cli", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def test_bad_task_runner_is_refused_before_anything_starts(tmp_path: Path) -> None:
    out = compoworld(tmp_path, "run", "--task-runner", "spark")
    assert out.returncode == 2
    assert "unknown kind 'spark'" in out.stderr
    assert not (tmp_path / "home" / "warehouse").exists()  # nothing ran
    # PREFECT_HOME's missing parents are made first: a temporary server needs the folder.
    assert (tmp_path / "prefect" / "nested").is_dir()


@pytest.mark.slow
def test_nightly_command_grows_only_around_new_services(
    prefect_harness: None, tmp_path: Path, migrated_prefect_db: Path
) -> None:
    """The nightly as cron runs it, three nights: two new spec files (with no server
    configured: the command boots its temporary API); a third file (only its service is
    built, and only tasks that involve it are composed and rolled out); nothing new (nothing
    added, and it says so). The last two nights use a configured server (the session's)."""
    seeded_prefect_home(tmp_path / "prefect" / "nested", migrated_prefect_db)
    drop = tmp_path / "drop"
    drop.mkdir()
    for name in ("crm.yaml", "helpdesk.yaml"):
        shutil.copy(bundled_corpus() / "openapi" / name, drop / name)
    out = compoworld(
        tmp_path, "nightly", "--drop", str(drop), "--tasks", "2", "--task-runner", "threads:2"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    # The run's log lines go to stderr (Prefect's rich console handler), once each.
    assert out.stderr.count("new or changed services: crm, helpdesk") == 1, out.stderr[-3000:]
    assert "CompoWorld factory run" in out.stdout  # the closing summary table
    wh = Warehouse(tmp_path / "home" / "warehouse")
    assert sorted(wh.query("select name from services").column(0).to_pylist()) == [
        "crm",
        "helpdesk",
    ]
    assert wh.count("tasks") == 2
    runs = wh.query("select flow, status from runs").to_pylist()
    assert runs == [{"flow": "nightly-expansion", "status": "completed"}]
    before = set(wh.query("select task_id from tasks").column(0).to_pylist())
    rollouts_before = wh.count("rollouts")

    # (a call log beside the tickets and contacts: follow-ups run through all three)
    shutil.copy(bundled_corpus() / "openapi" / "voice.json", drop / "voice.json")
    grown = compoworld(tmp_path, "nightly", "--drop", str(drop), "--tasks", "2", session_api=True)
    assert grown.returncode == 0, grown.stderr[-3000:]
    assert grown.stderr.count("new or changed services: voice") == 1, grown.stderr[-3000:]
    built = wh.query("select name, count(*) as n from services group by name order by name")
    assert built.to_pylist() == [
        {"name": n, "n": 1} for n in ("crm", "helpdesk", "voice")
    ]  # crm and helpdesk were not built again
    tasks = wh.query("select task_id, services from tasks").to_pylist()
    added = {t["task_id"] for t in tasks if t["task_id"] not in before}
    assert added and all("voice" in t["services"] for t in tasks if t["task_id"] in added)
    rolled = wh.query("select task_id from rollouts").column(0).to_pylist()
    assert set(rolled) == before | added
    # The new night rolled out only its new tasks: the old ones have just their first rollouts.
    assert sum(t in before for t in rolled) == rollouts_before

    settled = {t: wh.count(t) for t in ("specs", "services", "tasks", "rollouts", "exports")}
    again = compoworld(tmp_path, "nightly", "--drop", str(drop), session_api=True)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stderr.count("nothing new: every spec file") == 1, again.stderr[-3000:]
    assert {t: wh.count(t) for t in settled} == settled


def test_the_temporary_api_dies_with_a_killed_run(
    tmp_path: Path, migrated_prefect_db: Path
) -> None:
    code = (
        "import os, signal\n"
        "from flows.early_api import start_in_background, wait_until_up\n"
        "api = start_in_background()\n"
        "wait_until_up(api)\n"
        "import prefect\n"  # imported after the server: its settings take the server's URL
        "from prefect.settings import PREFECT_API_URL\n"
        "assert PREFECT_API_URL.value() == api.url, (PREFECT_API_URL.value(), api.url)\n"
        "import json, urllib.error, urllib.request\n"
        "def allowed(origin, method):\n"  # the CORS answer to a page at `origin`
        "    headers = {'Origin': origin, 'Access-Control-Request-Method': 'GET'}\n"
        "    r = urllib.request.Request(api.url + '/health', method=method, headers=headers)\n"
        "    try:\n"
        "        with urllib.request.urlopen(r, timeout=10) as answer:\n"
        "            return answer.headers.get('access-control-allow-origin')\n"
        "    except urllib.error.HTTPError as refused:\n"
        "        return refused.headers.get('access-control-allow-origin')\n"
        "own = api.url.removesuffix('/api').replace('127.0.0.1', 'localhost')\n"
        "origins = ('https://evil.example', own)\n"
        "answers = [allowed(o, m) for o in origins for m in ('GET', 'OPTIONS')]\n"
        "print(json.dumps({'own': own, 'answers': answers}))\n"
        "print(api.process.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    env = command_env(session_api=False, PREFECT_HOME=str(tmp_path / "prefect"))
    seeded_prefect_home(tmp_path / "prefect", migrated_prefect_db)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180
    )
    assert out.returncode == -9, out.stderr[-3000:]
    cors, pid = out.stdout.strip().splitlines()
    # A page elsewhere gets no CORS grant (Prefect's default answers `*`); its own UI's does.
    own, answers = json.loads(cors)["own"], json.loads(cors)["answers"]
    assert answers == [None, None, own, own], cors
    server = int(pid)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and Path(f"/proc/{server}").exists():
        time.sleep(0.2)
    assert not Path(f"/proc/{server}").exists(), "the server outlived the run that started it"
