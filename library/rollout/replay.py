"""Replaying a rollout: its tool calls, re-executed from the task's initial state, must give
the same results and the same final state hash. Checks that a stored rollout is what its
environment did (determinism, no tampering) before it becomes training data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from library.compose.task import Task
from library.rollout.calls import dump_envelope, read_assistant
from library.rollout.env import Env
from library.rollout.policies import offered
from library.rollout.record import Rollout


@dataclass(frozen=True, slots=True)
class ReplayResult:
    calls: int  # calls re-executed (valid ones: invalid calls never reached the env)
    mismatched_results: int  # tool results that differ from the transcript's
    state_hash: str
    matches: bool  # same results and the same final state hash


def _recorded_results(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        m["tool_call_id"]: orjson.loads(m["content"])
        for m in messages
        if m.get("role") == "tool" and isinstance(m.get("content"), str)
    }


def replay_rollout(task: Task, rollout: Rollout, env: Env) -> ReplayResult:
    """Re-run ``rollout`` on ``env`` (blocking; reset here, closing is the caller's)."""
    env.reset(task, rollout.mode)  # type: ignore[arg-type]
    names = offered(rollout.tools)
    recorded = _recorded_results(rollout.messages)
    calls = mismatched = 0
    step = 0
    for message in rollout.messages:
        if message.get("role") != "assistant":
            continue
        _, tool_calls = read_assistant(message, step, names)
        step += 1
        for call in tool_calls:
            if not call.valid:
                continue
            calls += 1
            envelope = orjson.loads(dump_envelope(env.call(call.name, call.args)))
            mismatched += envelope != recorded.get(call.id)
    digest = env.state_hash()
    return ReplayResult(
        calls, mismatched, digest, not mismatched and digest == rollout.final_state_hash
    )
