"""Reading a model's assistant message: clean OpenAI format out, tool calls classified.

Models emit malformed calls (no function name, arguments that are not JSON or not an
object, names of tools that were not offered, missing or repeated ids). Each call is kept
in the transcript as the model wrote it, in valid OpenAI shape (ids filled in, arguments a
string), and carries the problem, if any, that the engine answers with an error envelope
instead of calling the environment.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import orjson

from library.runtime import ErrorCode


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # as the model sent it
    args: dict[str, Any] | None  # parsed; None when the call is invalid
    problem: tuple[ErrorCode, str] | None = None

    @property
    def valid(self) -> bool:
        return self.problem is None

    def to_message(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


def dump_envelope(envelope: Any) -> str:
    """A tool message's content: the envelope as JSON (odd values as strings, never a crash)."""
    return orjson.dumps(envelope, option=orjson.OPT_NON_STR_KEYS, default=str).decode()


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else orjson.dumps(value).decode()


def _parse_arguments(text: str) -> tuple[dict[str, Any] | None, tuple[ErrorCode, str] | None]:
    if not text.strip():  # some servers send "" for a call without arguments
        return {}, None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return None, (ErrorCode.INVALID_ARGUMENT, f"arguments are not valid JSON: {exc}")
    if not isinstance(value, dict):
        kind = type(value).__name__
        return None, (ErrorCode.INVALID_ARGUMENT, f"arguments must be a JSON object, not {kind}")
    return value, None


def read_call(raw: Any, default_id: str, offered: Collection[str]) -> ToolCall:
    """One raw tool call -> a ``ToolCall`` (never raises)."""
    item = raw if isinstance(raw, dict) else {}
    fn = item.get("function")
    fn = fn if isinstance(fn, dict) else {}
    call_id = item.get("id")
    call_id = call_id if isinstance(call_id, str) and call_id else default_id
    name = fn.get("name") if isinstance(fn.get("name"), str) else ""
    arguments = _text(fn.get("arguments"))
    args, problem = _parse_arguments(arguments)
    # The most basic problem is the one reported: no name, then an unknown tool, then JSON.
    if not name:
        problem = (ErrorCode.INVALID_ARGUMENT, "malformed tool call: no function name")
    elif name not in offered:
        problem = (ErrorCode.NOT_FOUND, unknown_tool(name, offered))
    return ToolCall(call_id, name, arguments, None if problem else args, problem)


def unknown_tool(name: str, offered: Collection[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(offered), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown tool {name!r}: it is not among the tools offered{hint}"


def read_assistant(
    message: Any, step: int, offered: Collection[str]
) -> tuple[dict[str, Any], list[ToolCall]]:
    """(the message in clean OpenAI form, its tool calls). Ids are made unique within the
    message (``call_<step>_<i>`` where missing or repeated) so every result can answer its
    call; ``reasoning_content`` is kept when a reasoning model sent one."""
    raw = message if isinstance(message, dict) else {"content": _text(message)}
    content = raw.get("content")
    clean: dict[str, Any] = {
        "role": "assistant",
        "content": content if isinstance(content, str) or content is None else _text(content),
    }
    if isinstance(raw.get("reasoning_content"), str):
        clean["reasoning_content"] = raw["reasoning_content"]
    raw_calls = raw.get("tool_calls")
    calls: list[ToolCall] = []
    seen: set[str] = set()
    for i, item in enumerate(raw_calls if isinstance(raw_calls, list) else []):
        call = read_call(item, f"call_{step}_{i}", offered)
        if call.id in seen:
            call = ToolCall(f"call_{step}_{i}", call.name, call.arguments, call.args, call.problem)
        seen.add(call.id)
        calls.append(call)
    if calls:
        clean["tool_calls"] = [c.to_message() for c in calls]
    return clean, calls
