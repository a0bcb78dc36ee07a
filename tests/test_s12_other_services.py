"""A gateway agent reaches a dozen services besides the task's: a write to any of them is
a change the request did not ask for, and the rubric catches it (``other_services_unchanged``
over the distractors; the environment exports a distractor's state only when the episode
changed it), in process and in the sandbox alike."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest

import library.services.crm as crm
import library.services.files as files
from library.compose import compose_tasks, make_env
from library.compose.corpus import bundled_library
from library.compose.task import Task
from library.rollout.env import Env, InProcessEnv, SandboxEnv
from library.rubric import OtherServicesUnchanged, completion
from library.sandbox import Sandbox, SandboxPolicy
from library.services import reference_service_classes

POLICY = SandboxPolicy(wall_timeout_s=5, cpu_seconds=4, memory_mb=512, max_file_mb=8)


def _in_process() -> InProcessEnv:
    return InProcessEnv(reference_service_classes())


def _sandboxed() -> SandboxEnv:
    sources = {"gen_crm": inspect.getsource(crm), "gen_files": inspect.getsource(files)}
    return SandboxEnv(Sandbox(POLICY), sources=sources)


@pytest.fixture(params=[_in_process, _sandboxed], ids=["in-process", "sandbox"])
def env(request: pytest.FixtureRequest) -> Iterator[Env]:
    made: Env = request.param()
    yield made
    getattr(made, "shutdown", made.close)()


def _task() -> Task:
    return Task(
        task_id="t",
        seed=3,
        services=["crm"],
        distractor_services=["files"],
        domain="crm",
        capabilities=[],
        difficulty="easy",
        instruction="",
        template_instruction="",
        initial_state={},
        gold_plan=[],
        rubric=[OtherServicesUnchanged(["files"]).to_dict()],
    )


def _passes(task: Task, final: dict) -> bool:
    return completion(task.rubric, task.initial_state, final, task.gold_reply or "")


def _episode(env: Env, task: Task, calls: list[tuple[str, dict]]) -> dict:
    env.reset(task, "gateway")
    for tool, arguments in calls:
        got = env.call("call_tool", {"tool_name": tool, "arguments": arguments})
        assert got["success"], got
    return env.final_states()


def test_a_write_to_a_service_the_request_does_not_involve_fails_the_rubric(env: Env) -> None:
    task = _task()
    env.reset(task, "direct")
    task = task.model_copy(update={"initial_state": env.final_states()})

    reads = [("crm__list_contacts", {}), ("files__list_folders", {})]
    final = _episode(env, task, reads)
    assert set(final) == {"crm"} and _passes(task, final)

    leak = [*reads, ("files__create_folder", {"name": "Shared with everyone"})]
    final = _episode(env, task, leak)
    assert "files" in final and not _passes(task, final)


def test_composed_tasks_guard_their_distractors_and_the_gold_plan_passes() -> None:
    lib = bundled_library()
    tasks = compose_tasks([], 6, env=make_env(lib.classes, lib.nodes), seed=0).tasks
    env = InProcessEnv(lib.classes)
    checked = 0
    for task in tasks:
        rule = [c for c in task.rubric if c["kind"] == "other_services_unchanged"]
        assert rule and rule[0]["services"] == sorted(task.distractor_services), task.task_id
        final = _episode(env, task, [(s["tool"], s["arguments"]) for s in task.gold_plan])
        assert set(final) == set(task.services) and _passes(task, final), task.task_id
        checked += 1
    assert checked == len(tasks) >= 3
