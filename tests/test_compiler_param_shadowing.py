"""A parameter named like a type the body builds (Twilio's ``Network`` of a ``Network``
record, AWS's ``EventDestination``) is renamed in the signature (its wire name kept as the
alias): before, ``Network(..., Network_=Network)`` called the parameter's text and every call
failed with ``internal`` (TypeError: 'str' object is not callable; 6 tools of openapi-more)."""

from __future__ import annotations

import orjson

from library.compiler import plan_service
from library.ingest import ingest_document
from library.verify import build_service

NETWORK = {
    "type": "object",
    "required": ["sid", "Network"],
    "properties": {"sid": {"type": "string"}, "Network": {"type": "string"}},
}
SID = {"name": "sid", "in": "path", "required": True, "schema": {"type": "string"}}
BODY = {
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["Network"],
                "properties": {"Network": {"type": "string"}},
            }
        }
    }
}


def _answer(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


NETWORKS = {
    "openapi": "3.0.0",
    "info": {"title": "Networks", "version": "1"},
    "paths": {
        "/networks": {
            "post": {"operationId": "CreateNetwork", "requestBody": BODY,
                     "responses": _answer(NETWORK)},
            "get": {"operationId": "ListNetworks",
                    "responses": _answer({"type": "array", "items": NETWORK})},
        },
        "/networks/{sid}": {"get": {"operationId": "FetchNetwork", "parameters": [SID],
                                    "responses": _answer(NETWORK)}},
    },
}  # fmt: skip


def _specs() -> list:
    specs, _ = ingest_document(orjson.dumps(NETWORKS), source_file="networks.json")
    return specs


def test_a_parameter_does_not_take_a_type_name() -> None:
    plan = plan_service(_specs())
    (create,) = [t for t in plan.tools if t.name == "CreateNetwork"]
    (param,) = [p for p in create.params if p.name == "Network"]
    record = plan.records[create.resource]
    assert record.cls == "Network" and param.attr != "Network"


def test_the_create_verifies() -> None:
    built = build_service(_specs())
    assert "CreateNetwork" in built.verified, built.outcomes["CreateNetwork"]
