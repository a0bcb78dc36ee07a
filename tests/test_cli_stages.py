"""``compoworld ingest``, ``build``, ``graph`` and ``compose`` as a person runs them, one after
another: each a fresh process on one $COMPOWORLD_HOME, its printed result read back and held
against what the warehouse then holds (``compoworld sql``, also a fresh process). A stage run
out of order says what to run first and exits non-zero; a rerun adds nothing twice."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tasks.ingest import bundled_corpus

from .conftest import command_env

SPECS = ("crm.yaml", "helpdesk.yaml")


def compoworld(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = command_env(session_api=False, COMPOWORLD_HOME=str(home), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "flows.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def printed(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return " ".join((out.stdout + out.stderr).split())  # rich wraps long lines


def sql(home: Path, query: str) -> list[dict[str, Any]]:
    out = compoworld(home, "sql", query, "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def row_value(text: str, label: str) -> int:
    """The integer a summary table prints beside ``label``."""
    match = re.search(rf"{re.escape(label)} [│|] ([\d,]+) ", text)
    assert match, (label, text[-1500:])
    return int(match.group(1).replace(",", ""))


def test_the_stage_commands_in_order_print_what_the_warehouse_then_holds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in SPECS:
        shutil.copy(bundled_corpus() / "openapi" / name, folder / name)

    # Out of order: each stage names the one to run first, and fails.
    for stage, first in (("compose", "compoworld build"), ("build", "compoworld ingest")):
        early = compoworld(home, stage, *(("--n", "2") if stage == "compose" else ()))
        assert early.returncode != 0, early.stdout
        assert first in early.stdout + early.stderr, early.stdout + early.stderr

    ingested = printed(compoworld(home, "ingest", str(folder), "--workers", "1"))
    assert "2 new, 0 already ingested" in ingested, ingested
    tools = row_value(ingested, "tools")
    held = sql(home, "select count(*) as n, count(distinct doc_hash) as docs from specs")
    assert held == [{"n": tools, "docs": len(SPECS)}], held

    built = printed(compoworld(home, "build", "--workers", "1"))
    match = re.search(r"(\d+) services built, 0 already built; (\d+)/(\d+) tools verified", built)
    assert match, built
    services, verified, total = map(int, match.groups())
    assert services == len(SPECS) and total == tools and 0 < verified <= total
    rows = sql(home, "select status, count(*) as n from service_tools group by status")
    assert {r["status"]: r["n"] for r in rows}.get("verified") == verified, rows

    graphed = printed(compoworld(home, "graph"))
    edges, cross = row_value(graphed, "edges"), row_value(graphed, "cross service edges")
    assert 0 < cross < edges
    assert sql(home, "select count(*) as n from graph_edges")[0]["n"] == edges

    composed = printed(compoworld(home, "compose", "--n", "3", "--workers", "1"))
    assert row_value(composed, "composed") == row_value(composed, "written") == 3, composed
    tasks = sql(home, "select task_id, instruction from tasks")
    assert len(tasks) == 3 and all(t["instruction"] for t in tasks)

    # Reruns add nothing twice: the same documents, services and walks are known.
    again = printed(compoworld(home, "ingest", str(folder), "--workers", "1"))
    assert "0 new, 2 already ingested" in again, again
    rebuilt = printed(compoworld(home, "build", "--workers", "1"))
    assert "0 services built, 2 already built" in rebuilt, rebuilt
    recomposed = printed(compoworld(home, "compose", "--n", "3", "--workers", "1"))
    assert row_value(recomposed, "written") == 0, recomposed
    assert len(sql(home, "select task_id from tasks")) == 3
