"""``LLMClient``: every model call of the factory goes through here, and through litellm.

A call is first looked up in the ``CallStore`` by its prompt hash; a hit is replayed without
touching the model, so a rerun with the same inputs needs no model. A miss calls
``litellm.completion`` (or ``acompletion``), retrying transient errors with exponential
backoff, and records every attempt, failed ones included.

Transient: rate limits (429), server errors (5xx), timeouts, dropped or refused connections,
and replies without a choice. Not retried: the request's own faults (400, content policy,
context window) and configuration faults (401, 403, 404). An ``LLMCallError`` says which
(``infrastructure``): every fault but the request's own is the infrastructure's, not the
caller's. Every error text is passed through ``library.redact`` before it is recorded or
raised, and the raised error does not chain the provider's exception (its text may hold the
key), so no credential reaches the warehouse, a log or a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from library.llm.records import CallRecord, CallStore, MemoryCallStore, prompt_hash
from library.llm.settings import ENV_PREFIX, LLMSettings
from library.redact import redact

# The only assistant-message keys kept: the rest (provider_specific_fields, ...) is noise that
# would make recordings differ between providers.
_MESSAGE_KEYS = ("role", "content", "tool_calls", "reasoning_content")


class LLMError(Exception):
    """Base of the errors a model-backed stage may see."""


class ModelNotConfigured(LLMError):
    """A stage needs a model answer, no model is configured and nothing can be replayed."""


class LLMCallError(LLMError):
    """The model call failed (after retries, for transient errors). ``kind`` is the
    provider error's class name (``RateLimitError``, ``Timeout``, ...), ``status_code`` its
    HTTP status where it had one; ``infrastructure`` is False only for the request's own
    faults (bad request, content policy, context window)."""

    def __init__(
        self,
        message: str,
        attempts: int,
        *,
        kind: str = "",
        status_code: int | None = None,
        infrastructure: bool = False,
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.kind = kind
        self.status_code = status_code
        self.infrastructure = infrastructure


class EmptyResponse(Exception):
    """The server answered without a choice: no message to return (a transient fault)."""


@functools.cache
def _litellm() -> Any:
    # litellm takes ~2.5 s to import and, without this variable, fetches its cost map from
    # the internet at import time; so it is imported on first use, offline.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _transient_errors() -> tuple[type[BaseException], ...]:
    lt = _litellm()
    return (
        lt.RateLimitError,
        lt.ServiceUnavailableError,
        lt.Timeout,
        lt.APIConnectionError,
        EmptyResponse,
    )


def _status_code(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def is_transient(exc: BaseException) -> bool:
    """Worth another attempt: a rate limit, a server error (any 5xx, whatever class litellm
    maps it to), a timeout, a dropped connection, a reply without a choice."""
    code = _status_code(exc)
    return isinstance(exc, _transient_errors()) or code in (408, 429) or (code or 0) >= 500


def _request_fault(exc: BaseException) -> bool:
    """The request's own fault (its content, its length): not the infrastructure's."""
    lt = _litellm()  # content policy and context window errors are bad requests too
    return isinstance(exc, lt.BadRequestError | lt.UnprocessableEntityError)


def _plain(value: Any) -> Any:
    """JSON-ready copy of messages or tools (pydantic messages from an earlier reply too)."""

    def default(obj: Any) -> Any:
        if isinstance(obj, BaseModel):
            return obj.model_dump(exclude_none=True)
        raise TypeError(f"not JSON serializable: {type(obj).__name__}")

    return orjson.loads(orjson.dumps(value, default=default))


class LLMResponse(BaseModel):
    """The assistant message of one call, replayed or fresh, with its record."""

    model_config = ConfigDict(frozen=True)

    message: dict[str, Any]
    replayed: bool
    record: CallRecord

    @property
    def content(self) -> str:
        return self.message.get("content") or ""

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        # Branch on tool_calls, not finish_reason: some servers (and litellm's mocks) report
        # "stop" for tool calls.
        return list(self.message.get("tool_calls") or [])

    @property
    def finish_reason(self) -> str | None:
        return self.record.finish_reason


@dataclass(frozen=True, slots=True)
class _Request:
    purpose: str
    prompt_hash: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    kwargs: dict[str, Any]


class LLMClient:
    """Calls one configured model through litellm, recording into and replaying from a store."""

    def __init__(
        self,
        settings: LLMSettings | None = None,
        store: CallStore | None = None,
        *,
        env_prefix: str = ENV_PREFIX,
    ) -> None:
        self.settings = settings if settings is not None else LLMSettings.from_env()
        self.store: CallStore = store if store is not None else MemoryCallStore()
        self.env_prefix = env_prefix  # only for naming the variables in error messages
        self.model_calls = 0  # attempts that reached litellm
        self.replays = 0

    # -- public -------------------------------------------------------------------------
    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        purpose: str = "",
        salt: str = "",
    ) -> LLMResponse:
        req = self._prepare(messages, tools, purpose, salt)
        replayed = self._replay(req)
        if replayed is not None:
            return replayed
        completion = _litellm().completion
        attempt = 0
        while True:
            attempt += 1
            start = time.perf_counter()
            try:
                raw = completion(**req.kwargs)
                if not getattr(raw, "choices", None):
                    raise EmptyResponse("the server's reply has no choices")
            except Exception as exc:
                time.sleep(self._failed(req, attempt, start, exc))
                continue
            return self._succeeded(req, attempt, start, raw)

    async def acomplete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        purpose: str = "",
        salt: str = "",
    ) -> LLMResponse:
        req = self._prepare(messages, tools, purpose, salt)
        replayed = self._replay(req)
        if replayed is not None:
            return replayed
        acompletion = _litellm().acompletion
        attempt = 0
        while True:
            attempt += 1
            start = time.perf_counter()
            try:
                raw = await acompletion(**req.kwargs)
                if not getattr(raw, "choices", None):
                    raise EmptyResponse("the server's reply has no choices")
            except Exception as exc:
                await asyncio.sleep(self._failed(req, attempt, start, exc))
                continue
            return self._succeeded(req, attempt, start, raw)

    def not_configured_message(self, purpose: str) -> str:
        p = self.env_prefix
        return (
            f"{purpose or 'this stage'} needs a model, but none is configured and no recorded "
            f"call can be replayed. Set {p}MODEL to a litellm model name (e.g. "
            f"hosted_vllm/<served-name> or openai/gpt-4o-mini) and {p}API_BASE to its "
            f"OpenAI-compatible URL (e.g. http://127.0.0.1:8000/v1); if the endpoint needs a "
            f"key, set {p}API_KEY_ENV to the name of the variable that holds it."
        )

    # -- steps --------------------------------------------------------------------------
    def _prepare(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        purpose: str,
        salt: str,
    ) -> _Request:
        s = self.settings
        if not s.model:
            # The prompt hash includes the model, so nothing can be replayed without one.
            raise ModelNotConfigured(self.not_configured_message(purpose))
        msgs = _plain(messages)
        tls = _plain(tools) if tools else None
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": msgs,
            "temperature": s.temperature,
            "timeout": s.timeout_s,
            # Retries are ours (to record and back off each attempt); keep litellm's and the
            # OpenAI SDK's own retry layers off so one attempt is one request.
            "num_retries": 0,
            "max_retries": 0,
        }
        optional = {
            "tools": tls,
            "api_base": s.api_base,
            "api_key": s.api_key(),
            "max_tokens": s.max_tokens,
            # Self-hosted models have no price in litellm's map; these make cost_usd known.
            "input_cost_per_token": s.input_cost_per_token,
            "output_cost_per_token": s.output_cost_per_token,
        }
        kwargs.update({k: v for k, v in optional.items() if v is not None})
        return _Request(
            purpose=purpose,
            prompt_hash=prompt_hash(s.model, msgs, tls, s.temperature, salt),
            messages=msgs,
            tools=tls,
            kwargs=kwargs,
        )

    def _replay(self, req: _Request) -> LLMResponse | None:
        rec = self.store.lookup(req.prompt_hash)
        if rec is not None and rec.ok:
            self.replays += 1
            return LLMResponse(message=rec.message(), replayed=True, record=rec)
        if self.settings.replay_only:
            raise ModelNotConfigured(
                f"{req.purpose or 'this stage'}: {self.env_prefix}REPLAY_ONLY is set and no "
                f"recorded call matches prompt {req.prompt_hash} (model "
                f"{self.settings.model!r}); unset it, with {self.env_prefix}MODEL and "
                f"{self.env_prefix}API_BASE pointing at a model, to make the call."
            )
        return None

    def _record(self, req: _Request, attempt: int, start: float, **fields: Any) -> CallRecord:
        rec = CallRecord(
            purpose=req.purpose,
            prompt_hash=req.prompt_hash,
            model=str(self.settings.model),
            temperature=self.settings.temperature,
            attempt=attempt,
            request_messages=orjson.dumps(req.messages).decode(),
            request_tools=orjson.dumps(req.tools).decode() if req.tools else None,
            latency_s=round(time.perf_counter() - start, 6),
            **fields,
        )
        self.store.record(rec)
        return rec

    def _failed(self, req: _Request, attempt: int, start: float, exc: Exception) -> float:
        """Record a failed attempt; return the delay before the next one, or raise."""
        self.model_calls += 1
        s = self.settings
        error = redact(f"{type(exc).__name__}: {exc}", [s.api_key()])[:4000]
        self._record(req, attempt, start, error=error)
        if not is_transient(exc) or attempt > s.max_retries:
            what = "failed" if attempt == 1 else f"failed after {attempt} attempts"
            # Not chained: the provider's exception text is the unredacted one.
            raise LLMCallError(
                f"{req.purpose or 'model call'} {what}: {error}",
                attempt,
                kind=type(exc).__name__,
                status_code=_status_code(exc),
                infrastructure=not _request_fault(exc),
            ) from None
        return min(s.backoff_s * 2 ** (attempt - 1), s.backoff_max_s)

    def _succeeded(self, req: _Request, attempt: int, start: float, raw: Any) -> LLMResponse:
        self.model_calls += 1
        choice = raw.choices[0]
        dumped = choice.message.model_dump(exclude_none=True)
        message = {k: dumped[k] for k in _MESSAGE_KEYS if k in dumped}
        message.setdefault("role", "assistant")
        usage = getattr(raw, "usage", None)
        rec = self._record(
            req,
            attempt,
            start,
            response_message=orjson.dumps(_plain(message)).decode(),
            finish_reason=choice.finish_reason,
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            cost_usd=(getattr(raw, "_hidden_params", None) or {}).get("response_cost"),
        )
        return LLMResponse(message=rec.message(), replayed=False, record=rec)
