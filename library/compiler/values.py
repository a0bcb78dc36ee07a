"""Values the server fills in on create: fields a record must have that no parameter supplies.

Each is a Python expression over the create body's locals (``record_id``, ``now``) and
``self``: timestamps are the World clock, statuses start in their first state, numbers count up
with the state's id counter, so every value is deterministic under replay.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from library.compiler.model import FieldPlan, Kind, RecordPlan, TypeSpec
from library.compiler.naming import words
from library.compiler.patterns import drawable
from library.compiler.types import usable_pattern
from library.ingest.naming import singular
from library.runtime.semantic import REF_MAX_LENGTH

INITIAL_STATES = (
    "draft", "new", "pending", "open", "active", "created", "requested", "scheduled",
    "planned", "todo", "queued", "submitted", "confirmed", "booked", "in_stock",
)  # fmt: skip
_COUNTED = re.compile(r"(^|_)(number|no|code|key|ref|reference|confirmation|locator|slug)$")
_EXAMPLE_NUMBER = re.compile(r"^(?P<head>.*?)(?P<digits>\d{2,})$")
_TITLES = frozenset({"name", "title", "subject", "summary", "topic", "label", "headline"})


def json_literal(value: Any) -> str | None:
    """Python source for a JSON scalar default, or None for anything else."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int | float | str):
        return json.dumps(value) if isinstance(value, str) else repr(value)
    return None


def default_source(field: FieldPlan) -> str | None:
    """The spec's default for a field, as source, when it fits the field's type."""
    node = field.type.schema
    if "default" not in node:
        return None
    value = node["default"]
    if field.type.kind is Kind.ENUM and value not in field.type.enum:
        return None
    if field.type.kind in (Kind.DATE, Kind.DATETIME, Kind.MODEL, Kind.LIST, Kind.DICT):
        return None
    return json_literal(value)


def initial_state(field: FieldPlan) -> str | None:
    values = field.type.enum
    if not values:
        return None
    for state in INITIAL_STATES:
        if state in values:
            return json.dumps(state)
    first = values[0]
    return json.dumps(first) if isinstance(first, str) else repr(first)


def example_of(node: dict[str, Any]) -> Any:
    for example in node.get("examples") or ():
        return example
    return node.get("example")


def server_value(field: FieldPlan, record: RecordPlan, service: str) -> str | None:
    """Source for a value the server assigns, or None when the compiler cannot invent one
    (a reference to another record, a nested object with required parts)."""
    spec = field.type
    if spec.nullable:
        return "None"
    default = default_source(field)
    if default is not None:
        return default
    if spec.kind is Kind.DATETIME:
        return "now"
    if spec.kind is Kind.DATE:
        return "now.date()"
    if spec.kind is Kind.ENUM:
        return initial_state(field)
    if spec.kind is Kind.BOOL:
        return "False"
    if spec.kind in (Kind.INT, Kind.FLOAT):
        low = spec.schema.get("minimum")
        zero = "0" if spec.kind is Kind.INT else "0.0"
        return repr(low) if isinstance(low, int | float) and low > 0 else zero
    if spec.kind is Kind.LIST:
        return "[]"
    if spec.kind is Kind.DICT:
        return "{}"
    if spec.kind is Kind.ANY:
        return "None"
    if spec.kind is Kind.STR:
        return _server_text(field, record, service)
    return None


def patterned_text(spec: TypeSpec, seed: str, ids: bool = False) -> str | None:
    """``pattern_text(<seed>, PATTERN, ...)`` for a text field with a usable pattern; with
    ``ids``, also for a reference (no longer than a ``Ref`` takes)."""
    as_text = ids or spec.semantic != "id"
    if spec.kind is Kind.STR and as_text and spec.schema.get("format") == "uuid":
        return f"uuid_text({seed})"
    args = pattern_args(spec, seed, ids)
    return f"pattern_text({', '.join(args)})" if args is not None else None


def pattern_args(spec: TypeSpec, seed: str, ids: bool = False) -> list[str] | None:
    """The arguments of ``pattern_text`` (and ``pattern_or``) for a text field with a
    usable, drawable pattern: the seed, the pattern, its length bounds; else None."""
    pattern = spec.schema.get("pattern")
    as_text = ids or spec.semantic != "id"
    if spec.kind is not Kind.STR or not as_text or not isinstance(pattern, str):
        return None
    if spec.schema.get("format") == "uuid" or not usable_pattern(pattern):
        return None
    low, high = spec.schema.get("minLength"), spec.schema.get("maxLength")
    if ids:  # a ``Ref`` takes 1 to REF_MAX_LENGTH characters
        high = min(high, REF_MAX_LENGTH) if isinstance(high, int) else REF_MAX_LENGTH
        low = max(low, 1) if isinstance(low, int) else 1
    bounds = (low if isinstance(low, int) else 0, high if isinstance(high, int) else None)
    if not drawable(pattern, *bounds):
        return None
    args = [seed, json.dumps(pattern)]
    if isinstance(high, int) or isinstance(low, int):
        args.append(str(low if isinstance(low, int) else 0))
    if isinstance(high, int):
        args.append(str(high))
    return args


def fallback_text(spec: TypeSpec) -> str:
    """A literal that satisfies a text field's format and length when nothing better is known
    (never ``''`` for a date-time, nor a string shorter than ``minLength``)."""
    fmt = spec.schema.get("format")
    if fmt == "date-time":
        return '"2026-01-01T00:00:00Z"'
    if fmt == "date":
        return '"2026-01-01"'
    if fmt == "email":
        return '"someone@example.com"'
    low = spec.schema.get("minLength")
    high = spec.schema.get("maxLength")
    text = "n/a"
    if isinstance(low, int) and len(text) < low:
        text = text + "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    return json.dumps(text)


def _server_text(field: FieldPlan, record: RecordPlan, service: str) -> str | None:
    semantic = field.type.semantic
    if semantic == "id":
        return None
    patterned = patterned_text(field.type, "record_id")
    if patterned is not None:
        return patterned
    if semantic == "url":
        return f'f"https://{service}.example.com/{record.resource}/{{record_id}}"'
    if semantic == "email":
        return json.dumps(f"noreply@{service.replace('_', '-')}.example.com")
    if semantic == "currency":
        return '"USD"'
    example = example_of(field.type.schema)
    if _COUNTED.search(field.name):
        head = f"{record.id_prefix.upper()}-"
        if isinstance(example, str):
            match = _EXAMPLE_NUMBER.match(example)
            if match:
                head = match.group("head")
        return f'f"{head}{{10000 + self.state.seq}}"'
    if isinstance(example, str) and semantic is None:
        return json.dumps(example)
    if semantic in ("person_name", "company", "address", "country", "phone"):
        return None
    if field.name.lower() in _TITLES and not field.unique:  # what an app shows, unnamed
        return json.dumps(f"Untitled {words(singular(record.resource))}")
    return "record_id"


_OK_WORDS = ("status", "state", "success", "ok", "result", "message", "acknowledged")


def answer_constant(name: str, node: dict[str, Any]) -> str | None:
    """Source of a fixed value for a key of an acknowledgement (``{"status": 200}``,
    ``{"result": "ok"}``, ``{"queued": true}``): the spec's default, else a neutral value for a
    status-like key or a flag; None for content the compiler would have to make up (another
    record's id, an amount, a code), so such answers are not faked."""
    kind = node.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    okish = any(w in name.lower() for w in _OK_WORDS)
    default = node.get("default")
    if default is not None and _scalar_fits(default, kind, node):
        return json_literal(default)
    if kind == "boolean":
        return "True" if okish else "False"
    if not okish:
        return None
    enum = [v for v in node.get("enum") or () if v is not None]
    if enum:
        return json_literal(enum[0]) if _scalar_fits(enum[0], kind, node) else None
    if kind in ("integer", "number"):
        low, high = node.get("minimum"), node.get("maximum")
        value = 200
        if (isinstance(low, int | float) and value < low) or (
            isinstance(high, int | float) and value > high
        ):
            return None
        return repr(value if kind == "integer" else float(value))
    low = node.get("minLength")
    if kind == "string" and not node.get("format") and not node.get("pattern"):
        return None if isinstance(low, int) and low > 2 else json.dumps("ok")
    return None


def _scalar_fits(value: Any, kind: Any, node: dict[str, Any]) -> bool:
    fits = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }.get(kind, False)
    enum = node.get("enum")
    return fits and (not enum or value in enum)


def of_format(text: str, fmt: str) -> bool:
    """Whether a text is a ``date`` or a ``date-time`` as JSON Schema means them (an example
    the spec gives may be the other one)."""
    try:
        if fmt == "date":
            return len(text) == 10 and dt.date.fromisoformat(text) is not None
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return "T" in text.upper() and moment is not None
