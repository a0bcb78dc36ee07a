"""One episode as an outside harness sees it: a task's World behind an ``Env`` (in-process for
trusted services, sandbox workers for generated ones), the agent's tools, and the score.

The score is our judge's: each rubric criterion checked in this process over the final states
the env reports and the final answer the harness gives, never inside a sandbox worker. It
also carries the Completion-Focused Rubric Reward of the episode as a group of one (1.0 on
full completion, the weighted share of criteria passed otherwise).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from library.compose.task import Task
from library.reward import cfrr, rubric_score
from library.rollout.env import Env, InProcessEnv, Mode, check_mode
from library.rubric import load_criteria
from library.runtime import Gateway, World

EpisodeFactory = Callable[[], "Episode"]


class NoRubric(ValueError):
    """Scoring an episode that serves bare services (no task, so nothing to judge)."""


@dataclass(frozen=True, slots=True)
class Score:
    task_id: str
    criteria: list[dict[str, Any]]  # {index, kind, description, passed}, rubric order
    rubric_score: float  # share of criteria passed
    completed: bool  # every criterion passed
    reward: float  # CFRR of a group of one

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "criteria": self.criteria,
            "rubric_score": self.rubric_score,
            "completed": self.completed,
            "reward": self.reward,
        }


def score_states(task: Task, final: dict[str, Any], answer: str = "") -> Score:
    """``task``'s rubric judged on ``final`` (exported states of its services)."""
    criteria = load_criteria(task.rubric)
    if not criteria:
        raise NoRubric(f"{task.task_id}: no rubric to judge (bare services are served)")
    passes = [c.check(task.initial_state, final, answer) for c in criteria]
    rows = [
        {"index": i, "kind": c.kind, "description": c.describe(), "passed": ok}
        for i, (c, ok) in enumerate(zip(criteria, passes, strict=True))
    ]
    group = cfrr([passes])
    return Score(task.task_id, rows, rubric_score(passes), group.completed[0], group.rewards[0])


def bare_task(services: list[str], seed: int, states: dict[str, Any]) -> Task:
    """A task-shaped episode over ``services`` with ``states`` and no rubric: what
    ``--services`` serves (an agent may explore; there is nothing to score)."""
    names = ",".join(services)
    return Task(
        task_id=f"services:{names}@{seed}",
        seed=seed,
        services=list(services),
        domain="services",
        capabilities=[],
        difficulty="",
        instruction=f"Use the tools of {names}.",
        template_instruction="",
        initial_state=states,
        gold_plan=[],
        rubric=[],
    )


def envelope_schema(output: dict[str, Any] | None) -> dict[str, Any]:
    """The MCP ``outputSchema`` of a tool whose structured result is the runtime's envelope:
    ``{"success": true, "data": <output>}`` or ``{"success": false, "error": {...}}``. The
    output's ``$defs`` move to the top, where its ``#/$defs/...`` references resolve."""
    data = dict(output or {})
    defs = data.pop("$defs", None)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "data": data,
            "error": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                "required": ["code", "message"],
            },
        },
        "required": ["success"],
    }
    if defs:
        schema["$defs"] = defs
    return schema


def mcp_tools(env: Env) -> list[dict[str, Any]]:
    """The agent's tools as MCP ``tools/list`` entries: input schema, envelope output schema
    and read-only hint where the env exposes its World (in-process); from the OpenAI
    schemas otherwise (a sandboxed World describes its tools in that format)."""
    surface: World | Gateway | None = None
    if isinstance(env, InProcessEnv):
        surface = env.gateway or env.world
    if surface is not None:
        entries = copy.deepcopy(surface.tool_schemas("mcp"))
    else:
        entries = [
            {
                "name": t["function"]["name"],
                "description": t["function"].get("description", ""),
                "inputSchema": t["function"].get("parameters") or {"type": "object"},
            }
            for t in env.tools()
        ]
    for entry in entries:
        output = entry.get("outputSchema")
        if isinstance(surface, Gateway) and entry["name"] == "call_tool":
            output = None  # it answers with the called tool's own envelope: any data
        entry["outputSchema"] = envelope_schema(output)
    return entries


@dataclass(slots=True)
class Episode:
    """A task (or bare services) served in ``mode`` over ``env``; ``reset()`` before use."""

    task: Task
    env: Env
    mode: Mode
    calls: int = 0
    _mcp: list[dict[str, Any]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        check_mode(self.mode)

    @property
    def blocking(self) -> bool:
        return self.env.blocking

    @property
    def instruction(self) -> str:
        return self.task.instruction

    def reset(self) -> None:
        self.env.reset(self.task, self.mode)
        self.calls = 0
        self._mcp = None

    def tools(self) -> list[dict[str, Any]]:
        """OpenAI function schemas (what a chat model is offered)."""
        return self.env.tools()

    def tools_mcp(self) -> list[dict[str, Any]]:
        if self._mcp is None:  # the same for the whole episode: computed once
            self._mcp = mcp_tools(self.env)
        return self._mcp

    def call(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        self.calls += 1
        return self.env.call(name, arguments)

    def score(self, answer: str = "") -> Score:
        return score_states(self.task, self.env.final_states(), answer)

    def state_hash(self) -> str:
        return self.env.state_hash()

    def close(self) -> None:
        self.env.close()
