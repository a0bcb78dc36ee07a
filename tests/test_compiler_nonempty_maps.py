"""A map parameter that must hold entries (AWS's ``Tags``: ``minProperties: 1``,
``additionalProperties: {type: string}``) is sampled with that many entries: before, the
conformance suite sent ``{}``, which the schema refuses, and the create that stored it then
answered ``Tags: {}``, failing its own output schema (10 tools of openapi-more)."""

from __future__ import annotations

import datetime as dt
import random

import orjson

from library.ingest import ingest_document
from library.verify import build_service
from library.verify.sampling import Sampler

TAGS = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": 50,
    "additionalProperties": {"type": "string", "maxLength": 256},
}
DOMAIN = {
    "type": "object",
    "required": ["DomainName"],
    "properties": {"DomainName": {"type": "string"}, "Tags": TAGS},
}
BODY = {
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["DomainName"],
                "properties": {"DomainName": {"type": "string"}, "Tags": TAGS},
            }
        }
    }
}


def _answer(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


DOMAINS = {
    "openapi": "3.0.0",
    "info": {"title": "Domains", "version": "1"},
    "paths": {
        "/domains": {"post": {"operationId": "CreateDomain", "requestBody": BODY,
                              "responses": _answer(DOMAIN)}},
        "/domains/{DomainName}": {"get": {"operationId": "GetDomain", "parameters": [
            {"name": "DomainName", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": _answer(DOMAIN)}},
    },
}  # fmt: skip


def test_a_map_that_must_hold_entries_is_sampled_with_them() -> None:
    sampler = Sampler(random.Random(0), dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    value = sampler.value({**TAGS, "minProperties": 2}, name="Tags", path="Tags")
    assert isinstance(value, dict) and len(value) == 2
    assert all(isinstance(v, str) for v in value.values())
    assert sampler.value({"type": "object", "additionalProperties": True}, name="x") == {}


def test_a_create_storing_tags_verifies() -> None:
    specs, _ = ingest_document(orjson.dumps(DOMAINS), source_file="domains.json")
    built = build_service(specs)
    assert "CreateDomain" in built.verified, built.outcomes["CreateDomain"]
