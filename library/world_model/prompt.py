"""What the world model is shown: the tool, the slice of state it acts on, the arguments."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson

from library.runtime import ErrorCode, State
from library.toolspec import ToolSpec
from library.world_model.state import StateView, as_view

SYSTEM = f"""\
You simulate one tool of a software service. Given the tool's specification, the service's \
current state and the call's arguments, answer with exactly one JSON object and nothing else:
{{"result": <the tool's output, matching its output schema>, "state_patch": [<RFC 6902 \
operations on the state document>]}}
or, when the call must fail (unknown id, duplicate, forbidden, invalid value):
{{"error": {{"code": "<one of {", ".join(c.value for c in ErrorCode)}>", "message": "<why>"}}}}
Rules:
- A read-only tool changes nothing: its state_patch is [].
- Patch paths are JSON pointers into the state document as shown, e.g. \
/collection/<record id>/<field>; add a record with {{"op": "add", "path": \
"/collection/<new id>", "value": {{...every required field, "id": "<new id>"}}}}.
- Every record must keep to its schema; a record's key equals its "id"; new ids follow the \
style of existing ones and are not already used.
- Timestamps the call creates are the current time given below.
- Be consistent with the state: never invent records that the state says do not exist."""


def _json(value: Any, indent: bool = False) -> str:
    # State and schemas go compact: they are the bulk of the prompt and of its token cost.
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(value, option=option).decode()


def _untitled(schema: Any) -> Any:
    """A schema without pydantic's auto titles ("Created At"): noise for the model."""
    if isinstance(schema, dict):
        return {
            k: _untitled(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_untitled(v) for v in schema]
    return schema


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def relevant_collections(spec: ToolSpec, names: list[str]) -> list[str]:
    """The collections a tool plausibly touches: its resource and those its ids refer to;
    all of them when inference found none that exists."""
    wanted = {spec.resource, *spec.id_refs.values()}
    hits = [n for n in names if n in wanted]
    return hits or names


def state_slice(
    spec: ToolSpec,
    state: State | StateView,
    arguments: dict[str, Any],
    max_records: int,
    max_chars: int,
) -> tuple[dict[str, Any], list[str]]:
    """The state document cut to the relevant collections and capped in size, plus notes on
    what was left out. Records whose id appears in the arguments are kept first."""
    view = as_view(state)
    names = view.collection_names()
    shown = relevant_collections(spec, names)
    mentioned = _strings(arguments)
    scalars = view.scalars()
    limit = max_records
    while True:
        doc: dict[str, Any] = dict(scalars)
        notes: list[str] = []
        for name in shown:
            ids = view.record_ids(name)
            order = [k for k in ids if k in mentioned] + [k for k in ids if k not in mentioned]
            kept = order[:limit]
            doc[name] = view.records(name, kept)
            if len(kept) < len(ids):
                notes.append(f"{name}: showing {len(kept)} of {len(ids)} records")
        if limit <= 1 or len(_json(doc)) <= max_chars:
            break
        limit //= 2
    hidden = [n for n in names if n not in shown]
    if hidden:
        notes.append(f"collections not shown: {', '.join(hidden)}")
    return doc, notes


def build_messages(
    spec: ToolSpec,
    state: State | StateView,
    arguments: dict[str, Any],
    now: dt.datetime | None,
    max_records: int,
    max_chars: int,
) -> list[dict[str, str]]:
    view = as_view(state)
    doc, notes = state_slice(spec, view, arguments, max_records, max_chars)
    tool = {
        "service": spec.service,
        "name": spec.name,
        "description": spec.description,
        "access": spec.access,
        "input_schema": spec.input_schema,
        "output_schema": spec.output_schema,
    }
    schemas = {}
    for name in doc:
        schema = view.record_schema(name) if name in view.collection_names() else None
        if schema is not None:
            schemas[name] = _untitled(schema)
    parts = [
        f"## Tool\n{_json(tool, indent=True)}",
        f"## Service state\n{_json(doc)}",
    ]
    if notes:
        parts.append("Notes: " + "; ".join(notes))
    parts += [
        f"## Record schemas\n{_json(schemas)}",
        f"## Current time\n{now.isoformat() if now else 'unknown'}",
        f"## Call arguments\n{_json(arguments)}",
        "Answer with the JSON object only.",
    ]
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def retry_message(reason: str) -> dict[str, str]:
    return {
        "role": "user",
        "content": f"That answer was rejected: {reason}\nAnswer again with one corrected JSON "
        "object only.",
    }
