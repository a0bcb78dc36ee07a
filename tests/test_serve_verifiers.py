"""verifiers' own evaluation (``run_eval``, what ``vf-eval`` runs) on ``load_environment()``
over the warehouse's ``rl`` split, with a scripted model behind an OpenAI-compatible server
on loopback (the only stand-in: it replays each task's gold plan, or does nothing): every
rollout is judged by our criteria, the gold replays to reward 1.0, the idle ones to the
do-nothing score."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("verifiers")


from library.compose import Task
from library.serve.episode import score_states
from tests.serve_fixtures import initial_states, make_home

Script = Callable[[Task, int], dict[str, Any]]  # (task, tool results so far) -> message


def gold(task: Task, done: int) -> dict[str, Any]:
    if done < len(task.gold_plan):
        step = task.gold_plan[done]
        call = {"name": step["tool"], "arguments": json.dumps(step["arguments"])}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"call_{done}", "type": "function", "function": call}],
        }
    return {"role": "assistant", "content": task.gold_answer()}


def idle(task: Task, done: int) -> dict[str, Any]:
    return {"role": "assistant", "content": "I cannot help with that."}


@contextmanager
def scripted_model(tasks: list[Task], script: Script) -> Iterator[str]:
    """An OpenAI-compatible chat completions server that answers by ``script``."""
    by_prompt = {t.instruction: t for t in tasks}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            messages = body["messages"]
            prompt = next(m["content"] for m in messages if m["role"] == "user")
            task = by_prompt[prompt if isinstance(prompt, str) else prompt[0]["text"]]
            message = script(task, sum(m["role"] == "tool" for m in messages))
            reply = {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "scripted"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Task]]:
    return make_home(tmp_path_factory.mktemp("verifiers"), n=2)


def evaluate(home: Path, tasks: list[Task], script: Script, out: Path) -> list[Any]:
    # Imported here, as in the tests below: verifiers.v1 takes ~8 s to load, which every
    # test worker would otherwise pay at collection.
    from verifiers.v1 import EvalClientConfig
    from verifiers.v1.cli.eval.runner import run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig

    from tasks.verifiers_env import env_config

    with scripted_model(tasks, script) as url:
        config = EvalConfig(
            env=env_config(split="rl", warehouse=str(home / "warehouse")),
            model="scripted",
            client=EvalClientConfig(base_url=url),
            rich=None,
            output_dir=out,
            max_concurrent=2,
            push=False,  # local only: no hosted run
        )
        return anyio.run(run_eval, config)


def test_load_environment_is_the_warehouse_split(home) -> None:
    from tasks.verifiers_env import load_environment

    path, tasks = home
    env = load_environment(split="rl", warehouse=str(path / "warehouse"))
    loaded = list(env.taskset)
    assert sorted(t.data.id for t in loaded) == sorted(t.task_id for t in tasks)
    assert list(load_environment(split="sft", warehouse=str(path / "warehouse")).taskset) == []


def test_verifiers_eval_runs_composed_tasks_end_to_end(home, tmp_path: Path) -> None:
    path, tasks = home
    episodes = evaluate(path, tasks, gold, tmp_path / "gold")
    assert len(episodes) == len(tasks)
    for episode in episodes:
        (trace,) = episode.traces
        assert not trace.errors, trace.errors
        assert trace.rewards["cfrr"].score == 1.0
        assert trace.metrics["rubric_score"] == 1.0

    episodes = evaluate(path, tasks, idle, tmp_path / "idle")
    by_id = {t.task_id: t for t in tasks}
    for episode in episodes:
        (trace,) = episode.traces
        task = by_id[trace.task.data.id]
        expected = score_states(task, initial_states(task), "I cannot help with that.")
        assert expected.reward < 1.0
        assert trace.rewards["cfrr"].score == pytest.approx(expected.reward)
        assert trace.metrics["rubric_score"] == pytest.approx(expected.rubric_score)
