"""The rollout engine: G episodes per task as a group, many groups concurrently (asyncio).

An episode never raises. Malformed calls, unknown tools and bad arguments are answered with
error envelopes and counted; model errors (after the client's retries of transient ones:
rate limits, timeouts, unavailable servers), step and episode timeouts and environment
failures end the episode with a status and an error, and the batch goes on. Errors are
redacted (``library.redact``) before they are kept.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from library.compose.task import Task
from library.llm.client import LLMCallError
from library.llm.settings import settings_from_env
from library.redact import redact
from library.rollout.calls import ToolCall, dump_envelope, read_assistant
from library.rollout.env import Env, Mode
from library.rollout.policies import AssistantTurn, Policy, offered
from library.rollout.prompt import opening_messages
from library.rollout.record import INFRA_ERROR, Rollout, Status, group_key, rollout_key
from library.runtime import ErrorCode
from library.runtime.errors import fail

ENV_PREFIX = "COMPOWORLD_ROLLOUT_"
T = TypeVar("T")
PolicyLike = Policy | Callable[[Task], Policy]  # one policy, or one per task (the oracle)
EnvFactory = Callable[[], Env]


class RolloutSettings(BaseModel):
    """How episodes run. Every field has an env variable ``COMPOWORLD_ROLLOUT_<FIELD>``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Mode = "direct"
    group_size: int = Field(4, ge=1, description="G: rollouts per task in a group")
    max_steps: int = Field(30, ge=1, description="policy turns before status max_steps")
    step_timeout_s: float = Field(
        300.0, gt=0, description="one policy turn, the client's retries included"
    )
    episode_timeout_s: float = Field(1800.0, gt=0, description="the whole agent loop")
    concurrency: int = Field(16, ge=1, description="episodes running at once, all groups")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> RolloutSettings:
        base = settings_from_env(cls, ENV_PREFIX, env)
        return base.model_copy(update=overrides) if overrides else base


class StepTimeout(TimeoutError):
    pass


def _describe(exc: BaseException) -> str:
    return redact(f"{type(exc).__name__}: {exc}")[:2000]


def _status_of(exc: BaseException) -> Status:
    """Timeouts of ours are ``timeout``; model calls that failed on the infrastructure's
    fault (rate limits, server errors, timeouts and dropped connections after the client's
    retries; a refused key) are ``infra_error``; everything else is ``error``."""
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, LLMCallError) and exc.infrastructure:
        return INFRA_ERROR
    return "error"


class _Episode:
    """The mutable record of one running episode."""

    def __init__(
        self, task: Task, policy: Policy, env: Env, settings: RolloutSettings, sample: int
    ) -> None:
        self.task, self.policy, self.env = task, policy, env
        self.settings, self.sample = settings, sample
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self.final_answer: str | None = None
        self.counts = {"tool_calls": 0, "invalid_tool_calls": 0, "tool_errors": 0}
        self.latency: list[float] = []
        self.prompt_tokens: list[int | None] = []
        self.completion_tokens: list[int | None] = []

    async def env_call(self, fn: Callable[..., T], *args: Any) -> T:
        # Sandbox calls block on a pipe: a thread. In-process calls take microseconds.
        if self.env.blocking:
            return await asyncio.to_thread(fn, *args)
        return fn(*args)

    async def run(self) -> tuple[Status, str | None]:
        try:
            await self.env_call(self.env.reset, self.task, self.settings.mode)
            self.tools = await self.env_call(self.env.tools)
            self.messages = opening_messages(self.task, self.settings.mode)
            limit = self.settings.episode_timeout_s
            try:
                return await asyncio.wait_for(self.loop(), limit), None
            except StepTimeout:
                raise
            except TimeoutError:
                return "timeout", f"the episode took longer than {limit:g} s"
        except Exception as exc:
            return _status_of(exc), _describe(exc)

    async def loop(self) -> Status:
        names = offered(self.tools)
        for step in range(self.settings.max_steps):
            start = time.perf_counter()
            turn = await self.act(step)
            message, calls = read_assistant(turn.message, step, names)
            self.messages.append(message)
            for call in calls:
                self.messages.append(await self.execute(call))
            self.latency.append(time.perf_counter() - start)
            self.prompt_tokens.append(turn.prompt_tokens)
            self.completion_tokens.append(turn.completion_tokens)
            if not calls:
                self.final_answer = message.get("content") or ""
                return "finished"
        return "max_steps"

    async def act(self, step: int) -> AssistantTurn:
        limit = self.settings.step_timeout_s
        try:
            return await asyncio.wait_for(
                self.policy.act(list(self.messages), self.tools, sample=self.sample), limit
            )
        except TimeoutError:
            raise StepTimeout(f"step {step}: the policy took longer than {limit:g} s") from None

    async def execute(self, call: ToolCall) -> dict[str, Any]:
        self.counts["tool_calls"] += 1
        if call.problem is not None:
            self.counts["invalid_tool_calls"] += 1
            envelope = fail(*call.problem)
        else:
            envelope = await self.env_call(self.env.call, call.name, call.args)
            if not (isinstance(envelope, dict) and envelope.get("success")):
                self.counts["tool_errors"] += 1
        return {"role": "tool", "tool_call_id": call.id, "content": dump_envelope(envelope)}

    def answer_unanswered(self, reason: str) -> None:
        """An episode cut short mid-turn (timeout, environment failure) leaves calls without
        results; answer them, so the transcript stays valid OpenAI chat."""
        turns = [i for i, m in enumerate(self.messages) if m["role"] == "assistant"]
        if not turns:
            return
        answered = {m.get("tool_call_id") for m in self.messages[turns[-1] + 1 :]}
        for call in self.messages[turns[-1]].get("tool_calls") or []:
            if call["id"] not in answered:
                envelope = fail(ErrorCode.INTERNAL, f"not completed: {reason}")
                self.messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": dump_envelope(envelope)}
                )

    async def final(self) -> tuple[dict[str, Any] | None, str | None, str | None]:
        """(final states, state hash, error): what the judge reads, whatever the status."""
        try:
            states = await self.env_call(self.env.final_states)
            digest = await self.env_call(self.env.state_hash)
        except Exception as exc:
            return None, None, f"final state unavailable: {_describe(exc)}"
        return states, digest, None


async def run_episode(
    task: Task,
    policy: Policy,
    env: Env,
    settings: RolloutSettings,
    sample: int = 0,
    *,
    group_id: str | None = None,
) -> Rollout:
    """One episode on ``env`` (reset here; closing it is the caller's). Never raises,
    except when cancelled."""
    start = time.perf_counter()
    gid = group_id or group_key(task.task_id, policy.name, settings.mode)
    episode = _Episode(task, policy, env, settings, sample)
    status, error = await episode.run()
    if error:
        episode.answer_unanswered(error)
    states, digest, state_error = await episode.final()
    errors = [e for e in (error, state_error) if e]
    return Rollout(
        rollout_id=rollout_key(task.task_id, gid, sample),
        task_id=task.task_id,
        group_id=gid,
        sample=sample,
        policy=policy.name,
        mode=settings.mode,
        messages=episode.messages,
        tools=episode.tools,
        final_answer=episode.final_answer,
        final_state_hash=digest,
        final_states=states,
        steps=len(episode.latency),
        step_latency_s=[round(x, 6) for x in episode.latency],
        step_prompt_tokens=episode.prompt_tokens,
        step_completion_tokens=episode.completion_tokens,
        duration_s=round(time.perf_counter() - start, 6),
        status=status,
        error="; ".join(errors) or None,
        **episode.counts,
    )


def _policy_for(policy: PolicyLike, task: Task) -> Policy:
    # A policy class is a factory too (OraclePolicy(task)), though it has ``act``.
    if isinstance(policy, type) or not isinstance(policy, Policy):
        return policy(task)
    return policy


async def _closed(env: Env) -> None:
    try:
        if env.blocking:
            await asyncio.to_thread(env.close)
        else:
            env.close()
    except Exception:  # an env that fails to close must not lose the rollout
        pass


async def run_group(
    task: Task,
    policy: PolicyLike,
    env_factory: EnvFactory,
    settings: RolloutSettings,
    *,
    run: str = "",
    semaphore: asyncio.Semaphore | None = None,
) -> list[Rollout]:
    """G = ``settings.group_size`` episodes of one task, each in a fresh env from
    ``env_factory``, at most ``settings.concurrency`` at once (or as ``semaphore`` allows)."""
    agent = _policy_for(policy, task)
    gid = group_key(task.task_id, agent.name, settings.mode, run)
    gate = semaphore or asyncio.Semaphore(settings.concurrency)

    async def one(sample: int) -> Rollout:
        async with gate:
            env = env_factory()
            try:
                return await run_episode(task, agent, env, settings, sample, group_id=gid)
            finally:
                await _closed(env)

    return list(await asyncio.gather(*(one(i) for i in range(settings.group_size))))


async def run_groups(
    tasks: Iterable[Task],
    policy: PolicyLike,
    env_factory: EnvFactory,
    settings: RolloutSettings,
    *,
    run: str = "",
) -> list[list[Rollout]]:
    """A group per task, in task order; ``settings.concurrency`` bounds the episodes running
    at once across all groups."""
    gate = asyncio.Semaphore(settings.concurrency)
    groups = [
        run_group(task, policy, env_factory, settings, run=run, semaphore=gate) for task in tasks
    ]
    return list(await asyncio.gather(*groups))


def run_groups_sync(
    tasks: Sequence[Task],
    policy: PolicyLike,
    env_factory: EnvFactory,
    settings: RolloutSettings,
    *,
    run: str = "",
) -> list[list[Rollout]]:
    """``run_groups`` from synchronous code (a pipeline task); starts its own event loop."""
    return asyncio.run(run_groups(tasks, policy, env_factory, settings, run=run))
