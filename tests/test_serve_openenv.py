"""The OpenEnv environment served by OpenEnv's own app over HTTP on loopback, driven by
OpenEnv's own client: composed tasks from the warehouse end to end (gold plan: reward 1.0;
a wrong answer and no work: less), and each client session gets its own World."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("openenv")  # cheap; openenv.core (and gradio) load where used

import uvicorn

from library.compose import Task
from library.serve.episode import score_states
from tasks.serve import episode_factories
from tests.serve_fixtures import free_port, initial_states, make_home
from warehouse import Warehouse


@contextmanager
def serve(app: Any) -> Iterator[str]:
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    try:
        while not web.started:
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        web.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Task]]]:
    from library.serve.openenv import openenv_app

    home, tasks = make_home(tmp_path_factory.mktemp("openenv"))
    factories, close = episode_factories(Warehouse(home / "warehouse"), tasks)
    try:
        with serve(openenv_app(factories)) as url:
            yield url, tasks
    finally:
        close()


def client(url: str) -> Any:
    """OpenEnv's own synchronous client (imported here: openenv.core takes ~9 s to load,
    which every test worker would otherwise pay at collection)."""
    from openenv.core import GenericEnvClient

    return GenericEnvClient(base_url=url).sync()


def test_openenv_client_solves_composed_tasks(served) -> None:
    url, tasks = served
    with client(url) as env:
        for task in tasks:
            first = env.reset(task_id=task.task_id)
            assert first.observation["instruction"] == task.instruction
            names = {t["function"]["name"] for t in first.observation["tools"]}
            assert {s["tool"] for s in task.gold_plan} <= names
            for step in task.gold_plan:
                result = env.step({"tool_name": step["tool"], "arguments": step["arguments"]})
                assert not result.done and result.observation["result"]["success"]
            end = env.step({"final_answer": task.gold_answer()})
            assert end.done and end.reward == 1.0
            assert end.observation["score"]["completed"]
            assert env.state()["task_id"] == task.task_id


def test_openenv_bad_input_wrong_answers_and_idle_episodes(served) -> None:
    url, tasks = served
    task = tasks[0]
    with client(url) as env:
        with pytest.raises(RuntimeError, match="unknown task 'no-such-task'"):
            env.reset(task_id="no-such-task")
        env.reset(task_id=task.task_id)  # the session goes on
        bad = env.step({"tool_name": task.gold_plan[0]["tool"], "arguments": {"nope": 1}})
        assert bad.observation["result"]["error"]["code"] == "invalid_argument"
        end = env.step({"final_answer": ""})
        expected = score_states(task, initial_states(task), "")
        assert end.done and end.observation["score"] == expected.to_dict()
        assert end.reward == expected.reward < 1.0


def test_openenv_sessions_have_their_own_worlds(served) -> None:
    url, tasks = served
    task = next(t for t in tasks if "crm" in t.services)  # calls CRM tools
    contact = {"name": "Only Mine", "email": "only.mine@example.com"}
    with (
        client(url) as a,
        client(url) as b,
    ):
        a.reset(task_id=task.task_id)
        b.reset(task_id=task.task_id)
        a.step({"tool_name": "crm__create_contact", "arguments": contact})
        seen_a = a.step({"tool_name": "crm__search_contacts", "arguments": {"query": "Only Mine"}})
        seen_b = b.step({"tool_name": "crm__search_contacts", "arguments": {"query": "Only Mine"}})
        assert len(seen_a.observation["result"]["data"]) == 1
        assert seen_b.observation["result"]["data"] == []
        assert a.state()["state_hash"] != b.state()["state_hash"]
