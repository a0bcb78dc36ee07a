"""Serving tasks over generated services: their code runs in sandbox workers, never in the
serving process, and the score is still our judge's, computed here."""

from __future__ import annotations

import sys

import pytest

from library.rollout import SandboxEnv, SandboxEnvPool
from tasks.library_view import built_services
from tasks.rollout import load_tasks
from tasks.serve import served
from tests.serve_fixtures import make_built_home
from warehouse import Warehouse


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    home = make_built_home(
        tmp_path_factory.mktemp("sandboxed"), ["openapi/crm.yaml", "openapi/helpdesk.yaml"]
    )
    return Warehouse(home / "warehouse")


def test_generated_services_are_served_from_sandbox_workers(warehouse: Warehouse) -> None:
    task = load_tasks(warehouse, limit=1)[0]
    what = served(warehouse, task_id=task.task_id)
    try:
        assert isinstance(what.envs.pool, SandboxEnvPool)
        episode = what()
        episode.reset()
        assert isinstance(episode.env, SandboxEnv)
        names = {t["name"] for t in episode.tools_mcp()}
        assert {s["tool"] for s in task.gold_plan} <= names
        for step in task.gold_plan:
            assert episode.call(step["tool"], step["arguments"])["success"]
        assert episode.score(task.gold_answer()).reward == 1.0
        episode.close()
        modules = {s.module for s in built_services(warehouse).values()}
        assert modules and not modules & set(sys.modules)  # never imported here
    finally:
        what.close()


def test_bare_generated_services_start_seeded(warehouse: Warehouse) -> None:
    what = served(warehouse, services=["crm", "helpdesk"], seed=1)
    try:
        states = what.task.initial_state
        assert set(states) == {"crm", "helpdesk"}
        assert states["crm"]["contacts"]  # records drawn from the shared pool
        assert not what.task.rubric
    finally:
        what.close()
