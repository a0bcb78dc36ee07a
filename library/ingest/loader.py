"""Bytes to data: JSON, JSON Lines or YAML, chosen by content, never by file extension."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
import yaml

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster


class LoadError(Exception):
    """The content is not JSON, JSON Lines or YAML; the message names the first problem."""


@dataclass(slots=True)
class Loaded:
    value: Any
    syntax: str  # "json" | "jsonl" | "yaml"
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # JSON Lines: (index, error)


def load(data: bytes) -> Loaded:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data.lstrip()[:1]
    if not head:
        raise LoadError("the file is empty")
    if head in (b"{", b"["):
        try:
            return Loaded(orjson.loads(data), "json")
        except orjson.JSONDecodeError as exc:
            json_error = exc
        lines = _json_lines(data)
        if lines is not None:
            return lines
        try:  # JSON with comments or trailing commas still parses as YAML surprisingly often
            return Loaded(yaml.load(data, Loader=_YAML_LOADER), "yaml")
        except Exception:
            raise LoadError(f"invalid JSON: {json_error}") from None
    try:
        return Loaded(yaml.load(data, Loader=_YAML_LOADER), "yaml")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise LoadError(f"invalid YAML{where}: {exc.problem or exc}") from None
    except Exception as exc:  # yaml.YAMLError, RecursionError on absurd nesting, ...
        raise LoadError(f"invalid YAML: {type(exc).__name__}: {str(exc)[:300]}") from None


def _json_lines(data: bytes) -> Loaded | None:
    """JSON Lines when at least the first non-empty line is a JSON object of its own."""
    values: list[Any] = []
    bad: list[tuple[int, str]] = []
    for line_no, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            values.append(orjson.loads(raw))
        except orjson.JSONDecodeError as exc:
            if not values:
                return None
            bad.append((len(values), f"line {line_no} is not JSON: {exc}"))
            values.append(None)
    if len(values) < 2 or not isinstance(values[0], dict):
        return None
    return Loaded(values, "jsonl", bad)
