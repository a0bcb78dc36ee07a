"""Policies: what answers each assistant turn of an episode.

``LiteLLMPolicy`` asks a model through ``LLMClient`` (any litellm provider, or a local vLLM
OpenAI server; model, api_base and temperature are its ``LLMSettings``; calls are recorded
and replayed by prompt hash, and transient errors retried with backoff, by the client).
``OraclePolicy`` replays a task's gold plan: it checks that a task is solvable through the
agent interface and makes demonstrations offline; its rollouts carry the policy name
``oracle``.

Policies are stateless across turns (the transcript is the state), so one policy object
serves every sample of a group concurrently.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import orjson

from library.compose.task import Task
from library.llm import LLMClient, LLMSettings

ORACLE = "oracle"


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    message: dict[str, Any]  # an OpenAI assistant message (content and/or tool_calls)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0


@runtime_checkable
class Policy(Protocol):
    name: str  # the ``policy`` column: oracle | litellm:<model>

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, sample: int
    ) -> AssistantTurn: ...


class LiteLLMPolicy:
    """``run`` tells batches apart that must get fresh samples: calls are replayed by prompt
    and sample, so rerunning with the same ``run`` reproduces the recorded rollouts."""

    def __init__(self, client: LLMClient, *, purpose: str = "rollout", run: str = "") -> None:
        self.client = client
        self.purpose = purpose
        self.run = run
        self.name = f"litellm:{client.settings.model}"

    @classmethod
    def from_settings(cls, settings: LLMSettings, **kwargs: Any) -> LiteLLMPolicy:
        return cls(LLMClient(settings), **kwargs)

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, sample: int
    ) -> AssistantTurn:
        start = time.perf_counter()
        # The salt gives the i-th sample of a group its own recording: G samples of one
        # prompt are G answers, not one answer replayed G times.
        response = await self.client.acomplete(
            messages, tools, purpose=self.purpose, salt=f"{self.run}:sample:{sample}"
        )
        record = response.record
        return AssistantTurn(
            message=response.message,
            prompt_tokens=record.prompt_tokens,
            completion_tokens=record.completion_tokens,
            latency_s=time.perf_counter() - start,
        )


Action = tuple[str, dict[str, Any]]


def direct_actions(task: Task) -> list[Action]:
    return [(step["tool"], dict(step["arguments"])) for step in task.gold_plan]


def gateway_actions(task: Task, discover: bool) -> list[Action]:
    """The gold plan through ``call_tool``; with ``discover``, first looked up the way an
    agent must in gateway mode (list_services, then list_tools and describe_tool before a
    service's or tool's first use), which makes better demonstrations."""
    out: list[Action] = [("list_services", {})] if discover else []
    listed: set[str] = set()
    described: set[str] = set()
    for tool, arguments in direct_actions(task):
        service = tool.split("__", 1)[0]
        if discover and service not in listed:
            listed.add(service)
            out.append(("list_tools", {"service": service}))
        if discover and tool not in described:
            described.add(tool)
            out.append(("describe_tool", {"tool_name": tool}))
        out.append(("call_tool", {"tool_name": tool, "arguments": arguments}))
    return out


def offered(tools: Sequence[dict[str, Any]]) -> set[str]:
    return {str(t.get("function", {}).get("name")) for t in tools}


class OraclePolicy:
    """One tool call per turn, the gold plan in order, then ``task.gold_answer()``. The mode
    is read from the tools offered (the meta-tools mean gateway mode). Tool-call ids are
    ``call_<turn>``."""

    name = ORACLE

    def __init__(self, task: Task, *, discover: bool = False) -> None:
        self.task = task
        self.discover = discover
        self._direct = direct_actions(task)
        self._gateway = gateway_actions(task, discover)

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, sample: int
    ) -> AssistantTurn:
        start = time.perf_counter()
        gateway = any(t.get("function", {}).get("name") == "call_tool" for t in tools)
        actions = self._gateway if gateway else self._direct
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if turn >= len(actions):
            message: dict[str, Any] = {"role": "assistant", "content": self.task.gold_answer()}
        else:
            name, arguments = actions[turn]
            call = {
                "id": f"call_{turn}",
                "type": "function",
                "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return AssistantTurn(message, latency_s=time.perf_counter() - start)
