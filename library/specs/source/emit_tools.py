"""Emit the flat tool formats: MCP ``tools/list``, OpenAI functions, Docker MCP lists, BFCL."""

from __future__ import annotations

import json
from typing import Any

from .fields import boolean, integer, s
from .model import Field, Service, camel
from .ops import Op, expand, record_fields
from .schema import Dialect, field_schema, object_schema

_HINTS = {
    "date": "Format: YYYY-MM-DD.",
    "date-time": "ISO 8601 timestamp, e.g. 2025-07-15T14:30:00Z.",
    "uri": "Absolute URL.",
}


def tool_name(svc: Service, op: Op) -> str:
    return camel(op.name) if svc.op_style == "camel" else op.name


def _params(op: Op) -> list[Field]:
    params = op.params
    names = [p.name for p in params]
    if len(names) != len(set(names)):
        raise ValueError(f"{op.name}: duplicate parameter names {names}")
    return params


def _input(op: Op, d: Dialect) -> dict[str, Any]:
    params = _params(op)
    schema = object_schema(params, d)
    if d == "json":
        schema["required"] = [p.name for p in params if p.required]
    return schema


def _page_fields(svc: Service) -> list[Field]:
    if svc.paging == "cursor":
        return [
            s(
                "next_cursor",
                "Cursor for the next page; null on the last page.",
                null=True,
                req=True,
            ),
            boolean("has_more", "Whether more results follow this page.", req=True),
        ]
    return [
        integer("total", "Total number of matching records.", req=True),
        integer("limit", "Page size that was applied.", req=True),
        integer("offset", "Offset that was applied.", req=True),
    ]


def output_schema(svc: Service, op: Op, d: Dialect) -> dict[str, Any]:
    """What a tool returns, inline (the flat formats have no component section)."""
    res = op.resource
    if op.response == "custom":
        return object_schema(list(op.result), d, desc=f"Result of {op.name}.")
    if op.response == "deleted":
        return object_schema(
            [
                s("id", "Identifier of the deleted record.", req=True),
                boolean("deleted", "Always true.", req=True),
            ],
            d,
            desc="Confirmation that the record was deleted.",
        )
    record = object_schema(record_fields(res), d, desc=res.desc)
    if op.response == "record":
        return record
    page = _page_fields(svc)
    out = object_schema(page, d, desc=f"A page of {res.nouns}.")
    out["properties"] = {
        "data": {"type": "array", "description": f"The {res.nouns} on this page.", "items": record},
        **out["properties"],
    }
    out["required"] = ["data", *out.get("required", [])]
    return out


def mcp(svc: Service) -> dict[str, Any]:
    tools = []
    for op in expand(svc):
        inp = _input(op, "json")
        inp["additionalProperties"] = False
        tools.append(
            {
                "name": tool_name(svc, op),
                "title": op.summary,
                "description": op.description,
                "inputSchema": inp,
                "outputSchema": output_schema(svc, op, "json"),
                "annotations": {
                    "readOnlyHint": op.read_only,
                    "destructiveHint": op.destructive,
                    "idempotentHint": op.idempotent,
                    "openWorldHint": False,
                },
            }
        )
    return {"tools": tools}


def functions(svc: Service) -> list[dict[str, Any]]:
    out = []
    for op in expand(svc):
        entry: dict[str, Any] = {
            "type": "function",
            "function": {
                "name": tool_name(svc, op),
                "description": op.description,
                "parameters": _input(op, "json"),
            },
        }
        if svc.tool_types:
            entry["x-tool-type"] = "read" if op.read_only else "write"
        out.append(entry)
    return out


def _flat_desc(f: Field) -> str:
    parts = [f.desc]
    if f.fmt in _HINTS:
        parts.append(_HINTS[f.fmt])
    if f.enum:
        parts.append("One of: " + ", ".join(f.enum) + ".")
    if f.default is not None:
        parts.append(
            f"Defaults to {json.dumps(f.default)}."
            if not isinstance(f.default, str)
            else f"Defaults to {f.default}."
        )
    return " ".join(parts)


def docker(svc: Service) -> list[dict[str, Any]]:
    out = []
    for op in expand(svc):
        entry: dict[str, Any] = {"name": tool_name(svc, op), "description": op.description}
        args = []
        for f in _params(op):
            arg: dict[str, Any] = {"name": f.name, "type": f.type, "desc": _flat_desc(f)}
            if not f.required:
                arg["optional"] = True
            args.append(arg)
        if args:
            entry["arguments"] = args
        out.append(entry)
    return out


def bfcl(svc: Service) -> list[dict[str, Any]]:
    out = []
    for op in expand(svc):
        params = _params(op)
        schema: dict[str, Any] = {"type": "dict", "properties": {}, "required": []}
        for f in params:
            prop = field_schema(f, "bfcl")
            prop["description"] = _flat_desc(f) if f.fmt in _HINTS else prop["description"]
            schema["properties"][f.name] = prop
        schema["required"] = [f.name for f in params if f.required]
        out.append(
            {
                "name": tool_name(svc, op),
                "description": (
                    f"This tool belongs to the {svc.title} system. "
                    f"Tool description: {op.description}"
                ),
                "parameters": schema,
                "response": output_schema(svc, op, "bfcl"),
            }
        )
    return out
