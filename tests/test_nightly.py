"""The nightly expansion: a new spec file in the drop folder adds its services and tasks that
involve them; a run with nothing new adds nothing and says so."""

from __future__ import annotations

import shutil
from pathlib import Path

from tasks.ingest import bundled_corpus
from warehouse import Warehouse


def counts(wh: Warehouse) -> dict[str, int]:
    return {t: wh.count(t) for t in ("specs", "services", "tasks", "rollouts", "exports")}


def test_nightly_expansion_grows_only_around_new_services(
    prefect_harness: None, home: Path
) -> None:
    from flows.nightly import nightly_expansion
    from flows.settings import warehouse_root

    drop = home / "drop"
    drop.mkdir(parents=True)
    assert "nothing_new" in nightly_expansion(drop=str(drop), tasks=4)  # empty folder

    for name in ("crm.yaml", "helpdesk.yaml"):
        shutil.copy(bundled_corpus() / "openapi" / name, drop / name)
    first = nightly_expansion(drop=str(drop), tasks=4)
    assert first["new_services"] == ["crm", "helpdesk"]
    assert first["compose"]["composed"] > 0

    wh = Warehouse(warehouse_root())
    before_tasks = {r["task_id"] for r in wh.query("select task_id from tasks").to_pylist()}
    shutil.copy(bundled_corpus() / "openapi" / "invoicing.yaml", drop / "invoicing.yaml")
    second = nightly_expansion(drop=str(drop), tasks=4)
    assert second["new_services"] == ["invoicing"]
    built = wh.query("select name, count(*) as n from services group by name").to_pylist()
    assert second["build"]["services_built"] == 1, (first["build"], second["build"], built)
    new_tasks = wh.query("select task_id, services from tasks").to_pylist()
    added = [t for t in new_tasks if t["task_id"] not in before_tasks]
    assert added and all("invoicing" in t["services"] for t in added)
    assert second["rollout"]["oracle"]["groups"] == len(added)  # only the new tasks rolled out

    settled = counts(wh)
    third = nightly_expansion(drop=str(drop), tasks=4)
    assert "already ingested" in third["nothing_new"]
    assert counts(wh) == settled
