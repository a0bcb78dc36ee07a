"""What compiled tools take and where they look (mutants of library/compiler/records.py,
tools.py and types.py that survived the other tests, bench/mutation.py): a search whose
description names a field (``by `title` ``) looks in that field only, one that names none in
every text field of the record, its tags included; a number the spec bounds exclusively
(``exclusiveMaximum: 100``) refuses the bound itself and changes nothing; and a record the
spec only reads, updates and deletes at ``/v1/{stage_name}`` is named by that last path
segment, its tools compiled and verified."""

from __future__ import annotations

from library.seed import seed_pool
from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, verified_service

TEXT = {"type": "string"}
TAGS = {"type": "array", "items": TEXT}
ARTICLE = {
    "type": "object",
    "required": ["id", "title", "body", "tags"],
    "properties": {"id": TEXT, "title": TEXT, "body": TEXT, "tags": TAGS},
}
NEW_ARTICLE = {
    "type": "object",
    "required": ["title", "body"],
    "properties": {"title": TEXT, "body": TEXT, "tags": TAGS},
}
QUERY = [{"name": "q", "in": "query", "schema": TEXT}]


def _search(name: str, description: str) -> dict:
    return {
        "get": {
            "operationId": name,
            "description": description,
            "parameters": QUERY,
            "responses": _ok({"type": "array", "items": ARTICLE}),
        }
    }


WIKI = {
    "openapi": "3.0.0",
    "info": {"title": "Wiki", "version": "1"},
    "paths": {
        "/articles": {
            "post": {
                "operationId": "createArticle",
                "requestBody": _body(NEW_ARTICLE),
                "responses": _ok(ARTICLE),
            }
        },
        "/articles/search": _search("searchArticles", "Search articles by `title`."),
        "/articles/find": _search("findArticles", "Find articles."),
    },
}


def test_a_search_looks_in_the_fields_its_description_names_else_in_all_text() -> None:
    client = Client(verified_service(WIKI))
    client.ok(
        "createArticle", title="Quarterly plan", body="Budget for the offsite", tags=["finance"]
    )
    client.ok("createArticle", title="Offsite agenda", body="Travel and rooms", tags=["events"])

    def found(tool: str, q: str) -> list[str]:
        return [a["title"] for a in client.ok(tool, q=q)]

    assert found("searchArticles", "offsite") == ["Offsite agenda"]  # not the body's
    assert found("searchArticles", "budget") == found("searchArticles", "finance") == []
    assert found("findArticles", "offsite") == ["Quarterly plan", "Offsite agenda"]
    assert found("findArticles", "budget") == found("findArticles", "finance") == ["Quarterly plan"]


DISCOUNT = {
    "type": "object",
    "required": ["id", "code", "percent"],
    "properties": {
        "id": TEXT,
        "code": TEXT,
        "percent": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 100},
    },
}
SHOP = {
    "openapi": "3.1.0",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        "/discounts": {
            "post": {
                "operationId": "createDiscount",
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["code", "percent"],
                        "properties": DISCOUNT["properties"],
                    }
                ),
                "responses": _ok(DISCOUNT),
            }
        }
    },
}


def test_an_exclusive_bound_refuses_the_bound_itself() -> None:
    client = Client(verified_service(SHOP))
    assert client.refused("createDiscount", code="ALL", percent=100) == "invalid_argument"
    assert client.refused("createDiscount", code="NONE", percent=0) == "invalid_argument"
    assert client.ok("createDiscount", code="MOST", percent=99.5)["percent"] == 99.5


STAGE = {
    "type": "object",
    "required": ["stage_name", "description"],
    "properties": {"stage_name": TEXT, "description": TEXT},
}
STAGE_KEY = [_path("stage_name")]
DEPLOYS = {
    "openapi": "3.0.0",
    "info": {"title": "Deploys", "version": "1"},
    "paths": {
        "/v1/{stage_name}": {
            "get": {"operationId": "getStage", "parameters": STAGE_KEY, "responses": _ok(STAGE)},
            "put": {
                "operationId": "updateStage",
                "parameters": STAGE_KEY,
                "requestBody": _body({"type": "object", "properties": {"description": TEXT}}),
                "responses": _ok(STAGE),
            },
            "delete": {
                "operationId": "deleteStage",
                "parameters": STAGE_KEY,
                "responses": _ok(STAGE),
            },
        }
    },
}


def test_a_record_read_at_v1_by_its_name_is_named_by_the_last_path_segment() -> None:
    cls = verified_service(DEPLOYS)  # every tool compiled and verified
    client = Client(cls)
    client.world.seed_states(seed_pool(), size=3)
    first, second, third = client.state("stages")
    client.ok("updateStage", stage_name=first, description="Blue-green")
    assert client.ok("getStage", stage_name=first)["description"] == "Blue-green"
    client.ok("deleteStage", stage_name=second)
    assert set(client.state("stages")) == {first, third}
