"""Property test of the compiler tier: for random record schemas (formats, patterns, bounds,
enums, nullable and nested fields, ids of any declared type, outputs in envelopes), every tool
the compiler emits passes its own conformance suite. A compiled tool that fails a check is a
compiler bug (such as emitting ``''`` for a ``date-time`` field); a tool it cannot express must
be skipped with a reason instead."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from library.ingest import ingest_document
from library.verify import build_service

NAMES = ("title", "note", "amount", "count", "due_at", "starts_on", "email", "homepage", "code",
         "status", "tags", "flag", "address", "ratio", "label", "owner", "priority")  # fmt: skip


def scalar() -> st.SearchStrategy[dict[str, Any]]:
    text = st.sampled_from(
        [
            {"type": "string"},
            {"type": "string", "format": "date-time"},
            {"type": "string", "format": "date"},
            {"type": "string", "format": "email"},
            {"type": "string", "format": "uri"},
            {"type": "string", "format": "uuid"},
            {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
            {"type": "string", "minLength": 12, "maxLength": 20},
            {"type": "string", "maxLength": 3},
            {"type": "string", "enum": ["draft", "open", "closed"]},
        ]
    )
    number = st.sampled_from(
        [
            {"type": "integer"},
            {"type": "integer", "minimum": 5, "maximum": 9},
            {"type": "number", "minimum": 0.5},
            {"type": "number", "exclusiveMinimum": 100},
            {"type": "integer", "enum": [1, 2, 3]},
        ]
    )
    other = st.sampled_from(
        [
            {"type": "boolean"},
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": {"type": "string", "format": "date-time"}, "minItems": 1},
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            {"type": "object", "additionalProperties": {"type": "string"}},
        ]
    )
    return st.one_of(text, number, other)


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    return {**node, "type": [kind, "null"]} if isinstance(kind, str) else node


IDS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "string", "format": "uuid"},
        {"type": "string", "pattern": "^wid_[a-f0-9]{8}$"},
    ]
)
ID_KEYS = st.sampled_from(["id", "widget_id", "widgetId"])
ENVELOPES = st.sampled_from(["bare", "data", "result"])
LISTS = st.sampled_from(["array", "data", "items_cursor"])


@st.composite
def fields(
    draw: st.DrawFn, names: tuple[str, ...] = NAMES, least: int = 1
) -> tuple[dict[str, Any], list[str]]:
    """Record properties of random types (some nullable), and which of them are required."""
    chosen = draw(st.lists(st.sampled_from(names), min_size=least, max_size=6, unique=True))
    props = {}
    for name in chosen:
        node = draw(scalar())
        props[name] = nullable(node) if draw(st.booleans()) else node
    return props, [n for n in chosen if draw(st.booleans())]


@st.composite
def record_schemas(draw: st.DrawFn) -> tuple[dict[str, Any], list[str], dict[str, Any], str]:
    props, required = draw(fields())
    return props, required, draw(IDS), draw(ID_KEYS)


def document(
    props: dict[str, Any], required: list[str], id_node: dict, id_key: str, envelope: str,
    listing: str,
) -> dict[str, Any]:  # fmt: skip
    record = {"type": "object", "properties": {id_key: id_node, **props}}
    record["required"] = [id_key, *required]

    def wrap(node: dict[str, Any]) -> dict[str, Any]:
        if envelope == "bare":
            return node
        return {"type": "object", "properties": {envelope: node}, "required": [envelope]}

    page: dict[str, Any] = {"type": "array", "items": record}
    if listing == "data":
        page = {"type": "object", "properties": {"data": page}, "required": ["data"]}
    elif listing == "items_cursor":
        page = {
            "type": "object",
            "properties": {"items": page, "next_cursor": {"type": ["string", "null"]}},
            "required": ["items"],
        }

    def ok(schema: dict[str, Any]) -> dict[str, Any]:
        return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}

    body = {"type": "object", "properties": props, "required": required}
    json_body = {"required": True, "content": {"application/json": {"schema": body}}}
    patch = {"content": {"application/json": {"schema": {"type": "object", "properties": props}}}}
    path_id = [{"name": "widget_id", "in": "path", "required": True, "schema": id_node}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Widgets", "version": "1"},
        "paths": {
            "/widgets": {
                "post": {"operationId": "create_widget", "requestBody": json_body,
                         "responses": ok(wrap(record))},
                "get": {"operationId": "list_widgets",
                        "parameters": [{"name": "limit", "in": "query",
                                        "schema": {"type": "integer", "maximum": 100}}],
                        "responses": ok(page)},
            },
            "/widgets/{widget_id}": {
                "get": {"operationId": "get_widget", "parameters": path_id,
                        "responses": ok(wrap(record))},
                "patch": {"operationId": "update_widget", "parameters": path_id,
                          "requestBody": patch, "responses": ok(wrap(record))},
                "delete": {"operationId": "delete_widget", "parameters": path_id,
                           "responses": {"204": {"description": "deleted"}}},
            },
        },
    }  # fmt: skip


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(record_schemas(), ENVELOPES, LISTS)
def test_every_compiled_tool_passes_its_own_checks(
    schema: tuple[dict[str, Any], list[str], dict[str, Any], str], envelope: str, listing: str
) -> None:
    props, required, id_node, id_key = schema
    doc = document(props, required, id_node, id_key, envelope, listing)
    specs, errors = ingest_document(json.dumps(doc).encode(), source_file="widgets.json")
    assert specs, errors
    build = build_service(specs)
    failed = {t: o.reason for t, o in build.outcomes.items() if o.outcome == "failed"}
    assert not failed, (failed, build.compiled.source if build.compiled else None)
    skipped = {t: o.reason for t, o in build.outcomes.items() if o.outcome == "skipped"}
    assert all(skipped.values())  # every tool not compiled says why
