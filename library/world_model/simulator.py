"""``WorldModelTool``: a tool no service implements, answered by a model and checked before
any of the answer is believed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from library.llm import LLMCallError, LLMClient, settings_from_env
from library.runtime import ErrorCode, State
from library.runtime.errors import fail, ok
from library.toolspec import ToolSpec
from library.world_model.answer import Answer, InvalidAnswer, SchemaCheck, parse_answer
from library.world_model.cache import AnswerCache, MemoryAnswerCache, cache_key
from library.world_model.prompt import build_messages, retry_message
from library.world_model.state import StateView, as_view

ENV_PREFIX = "COMPOWORLD_WORLD_MODEL_"


class WorldModelSettings(BaseModel):
    """Env variables ``COMPOWORLD_WORLD_MODEL_<FIELD>``; the model itself is ``LLMSettings``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_attempts: int = Field(3, ge=1, description="model answers tried per call")
    max_records: int = Field(50, ge=1, description="records shown per collection")
    max_state_chars: int = Field(20_000, ge=1000, description="cap on the state shown")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorldModelSettings:
        return settings_from_env(cls, ENV_PREFIX, env)


@dataclass(frozen=True, slots=True)
class Simulation:
    """One simulated call: the envelope, and the new state when a write call succeeded (a
    ``State`` when called with one, the JSON document when called with a ``DocumentState``)."""

    envelope: dict[str, Any]
    state: Any = None
    attempts: int = 0
    cached: bool = False
    call_ids: list[str] = field(default_factory=list)
    rejections: list[str] = field(default_factory=list)


class WorldModelTool:
    """Simulates one tool. ``call`` never changes the state it is given (a ``State``, or any
    ``StateView`` such as a sandboxed service's JSON document): a write call's new state comes
    back in ``Simulation.state`` for the caller to install.

    ``ModelNotConfigured`` propagates (a setup error); model call failures and answers that
    stay invalid after ``max_attempts`` become an ``internal`` error envelope.
    """

    def __init__(
        self,
        spec: ToolSpec,
        client: LLMClient,
        *,
        settings: WorldModelSettings | None = None,
        cache: AnswerCache | None = None,
    ) -> None:
        self.spec = spec
        self.client = client
        self.settings = settings if settings is not None else WorldModelSettings.from_env()
        self.cache: AnswerCache = cache if cache is not None else MemoryAnswerCache()
        self.writes = spec.access == "write"
        self._inputs = SchemaCheck(spec.input_schema, "arguments")
        self._outputs = SchemaCheck(spec.output_schema, "result")

    def call(
        self,
        state: State | StateView,
        arguments: dict[str, Any],
        *,
        now: dt.datetime | None = None,
    ) -> Simulation:
        view = as_view(state)
        problems = self._inputs.errors(arguments)
        if problems:
            return Simulation(fail(ErrorCode.INVALID_ARGUMENT, "; ".join(problems)))
        key = cache_key(self.spec.id, view, arguments)
        cached = self.cache.get(key)
        if cached is not None:
            # The same answer on the same state passes the same checks: no need to doubt it.
            return self._outcome(cached, view, attempts=0, cached=True)
        s = self.settings
        messages = build_messages(self.spec, view, arguments, now, s.max_records, s.max_state_chars)
        purpose = f"world_model/{self.spec.service}/{self.spec.name}"
        call_ids: list[str] = []
        rejections: list[str] = []
        for attempt in range(1, s.max_attempts + 1):
            try:
                reply = self.client.complete(messages, purpose=purpose)
            except LLMCallError as exc:
                return Simulation(
                    fail(ErrorCode.INTERNAL, f"world model for {self.spec.name} failed: {exc}"),
                    attempts=attempt,
                    call_ids=call_ids,
                    rejections=rejections,
                )
            call_ids.append(reply.record.call_id)
            try:
                answer, new_state = self._check(reply.content, view)
            except InvalidAnswer as exc:
                rejections.append(str(exc))
                messages = [*messages, {"role": "assistant", "content": reply.content}]
                messages.append(retry_message(str(exc)))
                continue
            self.cache.put(key, answer)
            return self._outcome(answer, view, attempt, False, new_state, call_ids, rejections)
        return Simulation(
            fail(
                ErrorCode.INTERNAL,
                f"world model gave no valid answer for {self.spec.name} after "
                f"{s.max_attempts} attempts; last: {rejections[-1]}",
            ),
            attempts=s.max_attempts,
            call_ids=call_ids,
            rejections=rejections,
        )

    def _check(self, reply: str, state: StateView) -> tuple[Answer, StateView | None]:
        answer = parse_answer(reply)
        if answer.error is not None:
            return answer, None
        problems = self._outputs.errors(answer.result)
        if problems:
            raise InvalidAnswer("; ".join(problems))
        if not answer.state_patch:
            return answer, None
        if not self.writes:
            raise InvalidAnswer(f"{self.spec.name} is read-only: its state_patch must be []")
        return answer, state.patched(answer.state_patch)

    def _outcome(
        self,
        answer: Answer,
        state: StateView,
        attempts: int,
        cached: bool,
        new_state: StateView | None = None,
        call_ids: list[str] | None = None,
        rejections: list[str] | None = None,
    ) -> Simulation:
        if answer.error is not None:
            envelope = fail(answer.error.code, answer.error.message)
        else:
            envelope = ok(answer.result)
            if new_state is None and answer.state_patch:
                new_state = state.patched(answer.state_patch)
        return Simulation(
            envelope,
            new_state.value if new_state is not None else None,
            attempts=attempts,
            cached=cached,
            call_ids=call_ids or [],
            rejections=rejections or [],
        )
