"""One row per model call, and the store they are recorded in and replayed from.

The store is a protocol so ``library`` stays free of the warehouse: ``tasks/`` implements it
over the ``llm_calls`` table; tests and single runs use ``MemoryCallStore``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import uuid
from typing import Any, Protocol, runtime_checkable

import orjson
from pydantic import BaseModel, ConfigDict, Field

_JSON_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def canonical_json(value: Any) -> bytes:
    return orjson.dumps(value, option=_JSON_OPTS)


def prompt_hash(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    temperature: float,
    salt: str = "",
) -> str:
    """What identifies a prompt for replay. ``salt`` separates prompts that are meant to get
    different answers (the i-th of G samples); it is left out when empty so the key is
    exactly (model, messages, tools, temperature)."""
    key: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "tools": tools or [],
        "temperature": temperature,
    }
    if salt:
        key["salt"] = salt
    return hashlib.blake2b(canonical_json(key), digest_size=16).hexdigest()


class CallRecord(BaseModel):
    """A model call as the ``llm_calls`` table holds it. JSON payloads are strings so the
    table keeps one stable column type whatever the messages contain."""

    model_config = ConfigDict(frozen=True)

    call_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    purpose: str
    prompt_hash: str
    model: str
    temperature: float
    attempt: int = Field(1, description="1 for the first try, 2 for the first retry, ...")
    request_messages: str = Field(description="the messages sent, JSON")
    request_tools: str | None = Field(None, description="the tools offered, JSON")
    response_message: str | None = Field(None, description="the assistant message, JSON")
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float
    cost_usd: float | None = None
    error: str | None = Field(None, description="exception type and message of a failed call")
    created_at: dt.datetime = Field(default_factory=lambda: dt.datetime.now(dt.UTC))

    @property
    def ok(self) -> bool:
        return self.error is None and self.response_message is not None

    def message(self) -> dict[str, Any]:
        if self.response_message is None:
            raise ValueError(f"call {self.call_id} has no response ({self.error})")
        return orjson.loads(self.response_message)

    def to_row(self) -> dict[str, Any]:
        return self.model_dump()


@runtime_checkable
class CallStore(Protocol):
    """Where calls are recorded. ``lookup`` returns the latest *successful* record with that
    prompt hash (failed calls are recorded for accounting, never replayed)."""

    def lookup(self, prompt_hash: str) -> CallRecord | None: ...

    def record(self, record: CallRecord) -> None: ...


class MemoryCallStore:
    """An in-process ``CallStore``; thread-safe because async and threaded callers share it."""

    def __init__(self, records: list[CallRecord] | None = None) -> None:
        self.records: list[CallRecord] = []
        self._ok: dict[str, CallRecord] = {}
        self._lock = threading.Lock()
        for rec in records or []:
            self.record(rec)

    def lookup(self, prompt_hash: str) -> CallRecord | None:
        return self._ok.get(prompt_hash)

    def record(self, record: CallRecord) -> None:
        with self._lock:
            self.records.append(record)
            if record.ok:
                self._ok[record.prompt_hash] = record

    def __len__(self) -> int:
        return len(self.records)
