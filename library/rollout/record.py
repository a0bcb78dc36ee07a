"""``Rollout``: one agent episode, shaped like a row of the ``rollouts`` table."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

# ``infra_error``: the episode ended on a fault of the infrastructure, not of the agent (the
# model server rate-limited, failed, dropped the connection or refused the key, after the
# client's retries). The judge leaves such rollouts out of rewards and advantages, and
# curation out of exports: they say nothing about the agent.
Status = Literal["finished", "max_steps", "timeout", "error", "infra_error"]
INFRA_ERROR: Status = "infra_error"

# Columns the warehouse stores as JSON strings; from_row parses them back.
_JSON_COLUMNS = ("messages", "tools", "final_states")


def _digest(*parts: object) -> str:
    return hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=12).hexdigest()


def group_key(task_id: str, policy: str, mode: str, run: str = "") -> str:
    """The id of a group: the same task, policy, mode and run always give the same id, so
    rerunning a batch (with recorded model calls: the same rollouts) writes the same rows."""
    return _digest("group", task_id, policy, mode, run)


def rollout_key(task_id: str, group_id: str, sample: int) -> str:
    return _digest("rollout", task_id, group_id, sample)


class Rollout(BaseModel):
    """An episode: the OpenAI-format transcript, what was exposed, what happened.

    Counters: ``tool_calls`` is every call the model made; ``invalid_tool_calls`` those that
    never reached the environment (malformed, unknown tool, arguments not a JSON object);
    ``tool_errors`` the error envelopes the environment returned for the others. Per step
    (one policy turn and the calls it made): wall time, prompt and completion tokens
    (None where the policy has no tokens, as the oracle). ``final_states`` holds the task's
    services (what the judge reads); ``final_state_hash`` covers every mounted service.
    """

    model_config = ConfigDict(frozen=True)

    rollout_id: str
    task_id: str
    group_id: str
    sample: int
    policy: str
    mode: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    final_answer: str | None = None
    final_state_hash: str | None = None
    final_states: dict[str, Any] | None = None
    steps: int = 0
    tool_calls: int = 0
    invalid_tool_calls: int = 0
    tool_errors: int = 0
    step_latency_s: list[float] = Field(default_factory=list)
    step_prompt_tokens: list[int | None] = Field(default_factory=list)
    step_completion_tokens: list[int | None] = Field(default_factory=list)
    duration_s: float = 0.0
    status: Status
    error: str | None = None
    created_at: dt.datetime = Field(default_factory=lambda: dt.datetime.now(dt.UTC))

    @property
    def prompt_tokens(self) -> int | None:
        return _total(self.step_prompt_tokens)

    @property
    def completion_tokens(self) -> int | None:
        return _total(self.step_completion_tokens)

    def to_row(self) -> dict[str, Any]:
        """A ``rollouts`` row (JSON-shaped values stay Python objects; the warehouse stores
        them as JSON). Token totals sit beside the per-step lists, for easy SQL."""
        row = self.model_dump()
        row["prompt_tokens"] = self.prompt_tokens
        row["completion_tokens"] = self.completion_tokens
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Rollout:
        """Back from a ``rollouts`` row (JSON columns as strings or objects)."""
        data = {k: v for k, v in row.items() if k not in ("prompt_tokens", "completion_tokens")}
        for name in ("step_prompt_tokens", "step_completion_tokens"):
            if data.get(name) is None:
                data[name] = []
        for name in _JSON_COLUMNS:
            if isinstance(data.get(name), str | bytes):
                data[name] = orjson.loads(data[name])
        if data.get("step_latency_s") is None:
            data["step_latency_s"] = []
        return cls.model_validate(data)


def _total(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def chat_features(**extra: Any) -> Any:
    """The ``datasets`` features of a chat record (OpenAI messages with tool calls, the tool
    schemas as a JSON string), plus ``extra`` columns: one schema for exports and training."""
    from datasets import Features, List, Value

    call = {
        "id": Value("string"),
        "type": Value("string"),
        "function": {"name": Value("string"), "arguments": Value("string")},
    }
    message = {
        "role": Value("string"),
        "content": Value("string"),
        "tool_calls": List(call),
        "tool_call_id": Value("string"),
    }
    return Features({"messages": List(message), "tools": Value("string"), **extra})
