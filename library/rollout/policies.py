"""Policies: what answers each assistant turn of an episode.

``LiteLLMPolicy`` asks a model through ``LLMClient`` (any litellm provider, or a local vLLM
OpenAI server; model, api_base and temperature are its ``LLMSettings``; calls are recorded
and replayed by prompt hash, and transient errors retried with backoff, by the client).
``OraclePolicy`` replays a task's gold plan: it checks that a task is solvable through the
agent interface and makes demonstrations offline (a plan said first, tools discovered in
gateway mode, a closing summary); its rollouts carry the policy name ``oracle``.

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
from library.rollout.narrate import final_message, plan_message

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
Turn = list[Action]  # the calls of one assistant message


def direct_actions(task: Task) -> list[Action]:
    return [(step["tool"], dict(step["arguments"])) for step in task.gold_plan]


def direct_turns(task: Task) -> list[Turn]:
    return [[action] for action in direct_actions(task)]


def gateway_turns(task: Task, discover: bool) -> list[Turn]:
    """The gold plan through ``call_tool``, one call a turn; with ``discover``, first looked
    up the way an agent must in gateway mode: list_services; then list_tools of every
    service the request needs, in one turn; then describe_tool of every tool it will call,
    in one turn (parallel calls: three turns of discovery whatever the plan, so a plan that
    fits the step budget directly fits it through the gateway)."""
    calls = [
        [("call_tool", {"tool_name": tool, "arguments": arguments})]
        for tool, arguments in direct_actions(task)
    ]
    if not discover:
        return calls
    tools = list(dict.fromkeys(step["tool"] for step in task.gold_plan))
    services = list(dict.fromkeys(tool.split("__", 1)[0] for tool in tools))
    return [
        [("list_services", {})],
        [("list_tools", {"service": service}) for service in services],
        [("describe_tool", {"tool_name": tool}) for tool in tools],
        *calls,
    ]


def offered(tools: Sequence[dict[str, Any]]) -> set[str]:
    return {str(t.get("function", {}).get("name")) for t in tools}


class OraclePolicy:
    """The gold plan in order, one call a turn, as a careful agent would do it: the
    first turn says the plan (``narrate.plan_message``) beside its call; in gateway mode the
    tools are discovered first (``discover``, on by default; ``gateway_turns``); the last
    turn says what changed and, through ``task.gold_answer()``, the asked values
    (``narrate.final_message``). The mode is read from the tools offered (the meta-tools
    mean gateway mode). Tool-call ids are ``call_<turn>`` (``call_<turn>_<i>`` for the
    calls of a discovery turn)."""

    name = ORACLE

    def __init__(self, task: Task, *, discover: bool = True) -> None:
        self.task = task
        self.discover = discover
        self._direct = direct_turns(task)
        self._gateway = gateway_turns(task, discover)
        self._final: str | None = None
        self._plans: dict[bool, str] = {}

    def plan(self, gateway: bool) -> str:
        if gateway not in self._plans:
            self._plans[gateway] = plan_message(self.task, gateway=gateway and self.discover)
        return self._plans[gateway]

    def final(self) -> str:
        if self._final is None:  # one policy serves a whole group: say it once
            self._final = final_message(self.task)
        return self._final

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, sample: int
    ) -> AssistantTurn:
        start = time.perf_counter()
        gateway = any(t.get("function", {}).get("name") == "call_tool" for t in tools)
        turns = self._gateway if gateway else self._direct
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if turn >= len(turns):
            message: dict[str, Any] = {"role": "assistant", "content": self.final()}
        else:
            calls = [
                {
                    "id": f"call_{turn}" if len(turns[turn]) == 1 else f"call_{turn}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
                }
                for i, (name, arguments) in enumerate(turns[turn])
            ]
            content = self.plan(gateway) if turn == 0 else None
            message = {"role": "assistant", "content": content, "tool_calls": calls}
        return AssistantTurn(message, latency_s=time.perf_counter() - start)
