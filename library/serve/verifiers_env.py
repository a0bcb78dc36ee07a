"""verifiers (0.4, the ``verifiers.v1`` stack) over our episodes.

A verifiers environment is a taskset (the tasks and their reward functions) played by a
harness (the program that runs the model). Ours: each task carries one composed task, its
tools are its services' tools, and its reward functions are our criteria; the harness is an
in-process tool loop (no program to install) that talks to the model through verifiers'
interception endpoint, runs each tool call on the rollout's own episode, and ends on a reply
without tool calls (the final answer). It leaves the final states and the answer on the
trace; the task's rewards judge them in the eval process, as our judge stage does, never
inside a sandbox worker. The warehouse side (which tasks, where services run) is in
``tasks/verifiers_env.py``, the plugin module verifiers loads by id.
"""

from __future__ import annotations

import json
from typing import Any

import verifiers.v1 as vf
from openai import AsyncOpenAI
from verifiers.v1.runtimes import ProgramResult

from library.compose.task import Task
from library.serve.episode import Episode, score_states

TRACE_KEY = "compoworld"  # trace.info[TRACE_KEY]: final states, answer, state hash
MAX_TURNS = 64


class CompoWorldData(vf.TaskData):
    task: dict[str, Any]  # our Task (``Task.model_dump(mode="json")``)
    mode: str = "direct"


class CompoWorldTask(vf.Task[CompoWorldData]):
    """Rewards: ``cfrr`` (the Completion-Focused Rubric Reward of the rollout alone: 1.0 on
    full completion) as the reward; each criterion pass/fail and the rubric score as metrics."""

    def judged(self, trace: Any) -> dict[str, Any]:
        task = Task.model_validate(self.data.task)
        ended = trace.info.get(TRACE_KEY)
        if not ended:  # the harness never finished: nothing it did can be checked
            return {"criteria": [{"passed": False}] * len(task.rubric), "reward": 0.0}
        return score_states(task, ended["final_states"], ended["answer"]).to_dict()

    @vf.reward
    async def cfrr(self, trace: Any) -> float:
        return float(self.judged(trace)["reward"])

    @vf.metric
    async def criteria(self, trace: Any) -> dict[str, float]:
        rows = self.judged(trace)["criteria"]
        out = {f"criterion_{i}": float(r["passed"]) for i, r in enumerate(rows)}
        out["rubric_score"] = sum(out.values()) / len(out) if out else 0.0
        return out


def task_data(task: Task, mode: str = "direct") -> CompoWorldData:
    return CompoWorldData(
        id=task.task_id,
        name=task.task_id,
        prompt=task.instruction,
        task=task.model_dump(mode="json"),
        mode=mode,
    )


async def tool_loop(
    episode: Episode, base_url: str, api_key: str, model: str, prompt: str
) -> tuple[str, int]:
    """Chat with the model through ``base_url`` until it answers without tool calls; every
    tool call runs on ``episode``. (final answer, tool calls made)."""
    client = AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    tools = episode.tools()
    calls = 0
    try:
        for _ in range(MAX_TURNS):
            reply = await client.chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]
                tools=tools,  # type: ignore[arg-type]
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                return message.content or "", calls
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                fn = call.function  # type: ignore[union-attr]
                envelope = episode.call(fn.name, fn.arguments)
                calls += 1
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(envelope)}
                )
        return "", calls
    finally:
        await client.close()


class EpisodeHarness(vf.Harness[vf.HarnessConfig]):
    """The in-process tool loop; ``episode(data)`` (a subclass's) makes the rollout's
    episode from its task data, where the subclass knows services run."""

    SUPPORTS_MCP = False
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    def episode(self, data: CompoWorldData) -> Episode:
        raise NotImplementedError

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        tool_interception_url: str | None = None,
    ) -> ProgramResult:
        episode = self.episode(data)
        try:
            episode.reset()
            answer, calls = await tool_loop(episode, endpoint, secret, ctx.model, data.prompt_text)
            trace.info[TRACE_KEY] = {
                "final_states": episode.env.final_states(),
                "answer": answer,
                "state_hash": episode.state_hash(),
                "tool_calls": calls,
            }
        finally:
            episode.close()
        return ProgramResult(exit_code=0, stdout=answer, stderr="")
