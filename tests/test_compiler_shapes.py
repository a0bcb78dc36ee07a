"""Property test of the output shapes real APIs answer with: for random record schemas, a
list of partial views, a record inside an array, a count (an object or a bare integer), a
lookup table read by its parameters, a singleton read and updated without an id, and a write
acknowledged without the record. The compiler must express each of them (no skip), and every
tool it emits must pass its own conformance suite."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from library.ingest import ingest_document
from library.verify import build_service

from .test_compiler_properties import fields

NAMES = ("title", "note", "amount", "count", "due_at", "email", "homepage", "code", "status",
         "tags", "flag", "ratio", "label", "priority")  # fmt: skip
EXPECTED = {
    "create_gadget", "list_gadgets", "get_gadget", "count_gadgets", "get_rate", "get_account",
    "update_account", "archive_gadget",
}  # fmt: skip


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _body(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def document(
    props: dict[str, Any], required: list[str], shown: list[str], rate: dict[str, Any],
    bare_count: bool,
) -> dict[str, Any]:  # fmt: skip
    record = {"type": "object", "properties": {"id": {"type": "string"}, **props}}
    record["required"] = ["id", *required]
    view = {
        "type": "object",
        "properties": {"id": {"type": "string"}, **{k: props[k] for k in shown}},
        "required": ["id", *[k for k in required if k in shown]],
    }
    count = {"type": "integer"} if bare_count else {
        "type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"],
    }  # fmt: skip
    account = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "plan": {"type": "string"},
                       "seats": {"type": "integer", "minimum": 1}},
        "required": ["id", "plan", "seats"],
    }  # fmt: skip
    path_id = [{"name": "gadget_id", "in": "path", "required": True, "schema": {"type": "string"}}]
    country = [{"name": "country", "in": "query", "required": True, "schema": {"type": "string"}}]
    ack = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Gadgets", "version": "1"},
        "paths": {
            "/gadgets": {
                "post": {"operationId": "create_gadget", "requestBody": _body(props, required),
                         "responses": _ok(record)},
                "get": {"operationId": "list_gadgets",
                        "responses": _ok({"type": "object", "properties": {
                            "items": {"type": "array", "items": view}}, "required": ["items"]})},
            },
            "/gadgets/{gadget_id}": {
                "get": {"operationId": "get_gadget", "parameters": path_id,
                        "responses": _ok({"type": "array", "items": record})},
            },
            "/gadgets/{gadget_id}/archive": {
                "post": {"operationId": "archive_gadget", "parameters": path_id,
                         "responses": _ok(ack)},
            },
            "/gadgets/count": {
                "get": {"operationId": "count_gadgets", "responses": _ok(count)},
            },
            "/rate": {"get": {"operationId": "get_rate", "parameters": country,
                              "responses": _ok(rate)}},
            "/account": {
                "get": {"operationId": "get_account", "responses": _ok(account)},
                "put": {"operationId": "update_account",
                        "requestBody": _body({"plan": {"type": "string"}}, ["plan"]),
                        "responses": _ok(account)},
            },
        },
    }  # fmt: skip


@settings(
    max_examples=25,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a build is slow
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fields(NAMES, 2), fields(NAMES, 2), st.booleans(), st.data())
def test_every_output_shape_compiles_and_passes_its_checks(
    gadget: tuple[dict[str, Any], list[str]],
    rate: tuple[dict[str, Any], list[str]],
    bare_count: bool,
    data: st.DataObject,
) -> None:
    props, required = gadget
    shown = data.draw(st.lists(st.sampled_from(sorted(props)), min_size=1, unique=True))
    rate_props, rate_required = rate
    rate_node = {"type": "object", "properties": rate_props, "required": rate_required}
    doc = document(props, required, shown, rate_node, bare_count)
    specs, errors = ingest_document(json.dumps(doc).encode(), source_file="gadgets.json")
    assert specs, errors
    build = build_service(specs)
    source = build.compiled.source if build.compiled else None
    outcomes = {t: (o.outcome, o.reason) for t, o in build.outcomes.items()}
    skipped = {t: why for t, (outcome, why) in outcomes.items() if outcome == "skipped"}
    assert not set(skipped) & EXPECTED, (skipped, source)
    failed = {t: why for t, (outcome, why) in outcomes.items() if outcome == "failed"}
    assert not failed, (failed, source)
