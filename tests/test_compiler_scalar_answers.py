"""Writes that answer a bare value: a create's answer is the new record's id (Azure LUIS's
``"The ID (GUID) returned by an operation."``, an integer where ids are numbered), and an
update, delete or action answers the empty text (ShipEngine's ``maxLength: 0`` bodies)."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Shape
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

APP = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "name": {"type": "string"},
        "culture": {"type": "string"},
    },
}
ID_PARAM = [{"name": "appId", "in": "path", "required": True,
             "schema": {"type": "string", "format": "uuid"}}]  # fmt: skip
BODY = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"}, "culture": {"type": "string"}}}  # fmt: skip


NEW_ID = {
    "type": "string",
    "format": "uuid",
    "description": "The ID (GUID) returned by an operation.",
}


def _answer(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


def _body(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


APPS = {
    "openapi": "3.0.0",
    "info": {"title": "Apps", "version": "1"},
    "paths": {
        "/apps": {
            "post": {
                "operationId": "Apps_Add",
                "requestBody": _body(BODY),
                "responses": _answer(NEW_ID),
            },
        },
        "/apps/{appId}": {
            "get": {"operationId": "Apps_Get", "parameters": ID_PARAM, "responses": _answer(APP)},
            "put": {
                "operationId": "Apps_Update",
                "parameters": ID_PARAM,
                "requestBody": _body(BODY),
                "responses": _answer({"type": "string", "maxLength": 0, "minLength": 0}),
            },
        },
    },
}


def test_a_create_answers_the_new_id_and_an_update_nothing() -> None:
    specs, _ = ingest_document(orjson.dumps(APPS), source_file="apps.json")
    plan = plan_service(specs)
    shapes = {t.name: t.output.shape for t in plan.tools}
    assert (shapes["Apps_Add"], shapes["Apps_Update"]) == (Shape.ID, Shape.BLANK)
    build = build_service(specs)
    assert set(build.verified) == {"Apps_Add", "Apps_Get", "Apps_Update"}, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=2)
    new = world.call(qualified(cls.name, "Apps_Add"), {"name": "Billing"})["data"]
    assert isinstance(new, str) and new in world.services[cls.name].state.apps
    updated = world.call(qualified(cls.name, "Apps_Update"), {"appId": new, "name": "Bills"})
    assert updated["data"] == ""
    got = world.call(qualified(cls.name, "Apps_Get"), {"appId": new})["data"]
    assert (got["id"], got["name"]) == (new, "Bills")


def test_a_text_that_is_not_an_id_is_no_id() -> None:
    """A create answering a URL, or text described as something else, is not given an id."""
    for schema in (
        {"type": "string", "format": "uri"},
        {"type": "string", "description": "A message for the user."},
    ):
        doc = orjson.loads(orjson.dumps(APPS))
        doc["paths"]["/apps"]["post"]["responses"] = _answer(schema)
        specs, _ = ingest_document(orjson.dumps(doc), source_file="apps.json")
        plan = plan_service(specs)
        assert "Apps_Add" in plan.skipped, [t.output.shape for t in plan.tools]
