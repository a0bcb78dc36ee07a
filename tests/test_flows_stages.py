"""Each stage flow runs alone, in order, against a temporary Prefect API; reruns add nothing."""

from __future__ import annotations

from pathlib import Path

from tasks.ingest import bundled_corpus
from warehouse import Warehouse

TABLES = ("specs", "services", "graph_edges", "tasks", "rollouts", "rollout_scores", "exports")


def test_stage_flows_one_by_one(prefect_harness: None, home: Path) -> None:
    from flows import stages
    from flows.settings import warehouse_root

    specs = [str(bundled_corpus() / "openapi" / f) for f in ("crm.yaml", "helpdesk.yaml")]
    assert stages.ingest_flow(paths=specs)["ingest"]["tools"] > 0
    assert stages.build_flow()["build"]["services_built"] == 2
    assert stages.graph_flow()["graph"]["edges"] > 0
    assert stages.compose_flow(n=6)["compose"]["composed"] == 6
    assert stages.rollout_flow(group_size=2)["rollout"]["oracle"]["rollouts"] == 12
    assert stages.export_flow()["export"]["exports"]["chat_jsonl"]["records"] > 0

    wh = Warehouse(warehouse_root())
    before = {t: wh.count(t) for t in TABLES}
    stages.ingest_flow(paths=specs)
    stages.build_flow()
    stages.compose_flow(n=6)
    stages.rollout_flow(group_size=2)
    stages.export_flow()
    assert {t: wh.count(t) for t in TABLES} == before
    flows = wh.query("select flow, count(*) as n from runs group by flow").to_pylist()
    assert {f["flow"] for f in flows} == {
        "ingest-specs",
        "build-services",
        "build-graph",
        "compose-tasks",
        "collect-rollouts",
        "curate-and-export",
    }
