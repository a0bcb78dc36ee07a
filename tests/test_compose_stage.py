"""The graph and compose stages over built services, in sandbox workers, into the warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.llm import LLMSettings
from library.rubric import evaluate
from tasks.build import BuildSettings, build_services
from tasks.compose import compose_stage, graph_stage
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.rollout import rollout_stage, task_from_row
from warehouse import Warehouse

SERVICES = ("openapi/crm.yaml", "openapi/helpdesk.yaml", "openapi/invoicing.yaml", "mcp/mail.json")


@pytest.mark.slow
def test_graph_and_compose_stages_write_verified_tasks_once(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    ingest_paths([str(bundled_corpus() / s) for s in SERVICES], wh.root)
    build_services(wh, BuildSettings(llm=LLMSettings(model=None)))

    graph = graph_stage(wh, tmp_path / "out")
    assert graph.stats["edges"] > 0 and graph.stats["cross_service_edges"] > 0
    assert graph.html_path is not None and "<svg" in graph.html_path.read_text()
    edges = wh.query("select * from graph_edges").to_pylist()
    assert len(edges) == graph.stats["edges"]
    assert all(e["source"].split("__")[0] == e["source_service"] for e in edges)
    assert graph_stage(wh).edges_written is False  # same verified tools: no new edge batch

    summary = compose_stage(wh, 10, seed=1, min_services=2)
    assert summary.composed == 10 and summary.written == 10
    rows = wh.query("select * from tasks").to_pylist()
    assert len(rows) == 10 and len({r["task_id"] for r in rows}) == 10
    for row in rows:
        assert len(row["services"]) >= 2 and row["split"] in ("sft", "rl", "eval")
        # Tasks round-trip from their rows, and doing nothing fails them (judged without code).
        task = task_from_row(row)
        assert not all(evaluate(task.rubric, task.initial_state, task.initial_state, ""))
    # A rerun adding nothing is the stage flows' test (test_scale_out.rerun_adds_nothing).

    # Oracle rollouts of some tasks; then a crash that lost the scores: the rerun redoes those
    # groups without duplicating the rollouts already written.
    first = rollout_stage(wh, limit=5)
    assert first.rollouts == 10 and first.to_dict()["completion_rate"] == 1.0
    for f in (wh.root / "rollout_scores").rglob("*.parquet"):
        f.unlink()
    again_rollouts = rollout_stage(wh, limit=5)
    assert again_rollouts.groups == 5
    assert wh.count("rollouts") == 10 and wh.count("rollout_scores") == 10
    assert rollout_stage(wh, limit=5).groups == 0  # now everything is done
