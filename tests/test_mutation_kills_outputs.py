"""What a compiled tool answers and advertises for outputs that are not a plain record
(mutants of library/compiler/tools.py and values.py that survived the other tests,
bench/mutation.py): a record under one key (``{"data": {...}}``) is answered under that key,
and the key is required in the tool's output schema as the spec says, as are a fixed key
and the required counts beside a page's records (``{"status": "ok", "items": [...],
"total": 1}``), and no other; a list whose items show
part of each record without its id (a bare array of views) answers those keys only; and a
status the caller does not give starts at the first state the spec lists when none of them
reads as an initial one (``green``, not ``amber``); a create that answers the new record's
integer id answers a number, the one its read takes; and a service description too long for
one line of the emitted code is advertised whole, as one text."""

from __future__ import annotations

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from tests.test_mutation_kills_emit_seed import SALES
from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, verified_service

TEXT = {"type": "string"}
COLOUR = {"type": "string", "enum": ["green", "amber", "red"]}
SIGNAL = {
    "type": "object",
    "required": ["id", "name", "colour"],
    "properties": {"id": TEXT, "name": TEXT, "colour": COLOUR},
}
SUMMARY = {
    "type": "object",
    "required": ["name", "colour"],
    "properties": {"name": TEXT, "colour": COLOUR},
}
NEW_SIGNAL = {"type": "object", "required": ["name"], "properties": {"name": TEXT}}
SIGNALS = {
    "openapi": "3.0.0",
    "info": {"title": "Signals", "version": "1"},
    "paths": {
        "/signals": {
            "post": {
                "operationId": "createSignal",
                "requestBody": _body(NEW_SIGNAL),
                "responses": _ok(
                    {"type": "object", "required": ["data"], "properties": {"data": SIGNAL}}
                ),
            },
            "get": {
                "operationId": "listSignals",
                "responses": _ok({"type": "array", "items": SUMMARY}),
            },
        },
        "/signal-pages": {
            "get": {
                "operationId": "pageSignals",
                "responses": _ok(
                    {
                        "type": "object",
                        "required": ["status", "items", "total"],
                        "properties": {
                            "status": {"type": "string", "enum": ["ok"]},
                            "total": {"type": "integer"},
                            "has_more": {"type": "boolean"},
                            "items": {"type": "array", "items": SIGNAL},
                        },
                    }
                ),
            }
        },
        "/signals/{id}": {
            "get": {
                "operationId": "getSignal",
                "parameters": [_path("id")],
                "responses": _ok(SIGNAL),
            }
        },
    },
}


# Built for each test, not once per module (see test_mutation_kills_emit_tools).
@pytest.fixture
def compiled() -> type:
    return verified_service(SIGNALS)


def test_a_record_under_one_key_is_answered_and_advertised_under_it(compiled: type) -> None:
    made = Client(compiled).ok("createSignal", name="North gate")
    assert set(made) == {"data"}
    assert made["data"]["name"] == "North gate"
    schema = compiled.tools["createSignal"].output_schema
    assert "data" in schema.get("required", []), schema


def test_a_pages_fixed_key_is_answered_and_advertised_as_required(compiled: type) -> None:
    client = Client(compiled)
    made = client.ok("createSignal", name="North gate")["data"]
    page = client.ok("pageSignals")
    assert page["status"] == "ok" and page["items"] == [made] and page["total"] == 1
    schema = compiled.tools["pageSignals"].output_schema
    assert {"status", "items", "total"} <= set(schema.get("required", [])), schema
    assert "has_more" not in schema.get("required", []), schema


def test_a_bare_list_of_idless_views_answers_the_keys_it_shows(compiled: type) -> None:
    client = Client(compiled)
    client.ok("createSignal", name="North gate")
    client.ok("createSignal", name="South gate")
    listed = client.ok("listSignals")
    assert sorted(listed, key=lambda r: r["name"]) == [
        {"name": "North gate", "colour": "green"},
        {"name": "South gate", "colour": "green"},
    ]


def test_a_status_not_given_starts_at_the_first_state_listed(compiled: type) -> None:
    made = Client(compiled).ok("createSignal", name="North gate")["data"]
    assert made["colour"] == "green"


INTEGER_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
BOARD = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "integer"}, "name": TEXT},
}
BOARDS = {
    "openapi": "3.0.0",
    "info": {"title": "Boards", "version": "1"},
    "paths": {
        "/boards": {
            "post": {
                "operationId": "createBoard",
                "requestBody": _body(NEW_SIGNAL),
                "responses": _ok({"type": "integer", "description": "The new board's id."}),
            },
            "get": {
                "operationId": "listBoards",
                "responses": _ok({"type": "array", "items": BOARD}),
            },
        },
        "/boards/{id}": {
            "get": {"operationId": "getBoard", "parameters": [INTEGER_ID], "responses": _ok(BOARD)}
        },
    },
}


def test_a_create_answering_an_integer_id_answers_a_number() -> None:
    client = Client(verified_service(BOARDS))
    new_id = client.ok("createBoard", name="Roadmap")
    assert new_id == 1 and isinstance(new_id, int)
    assert client.ok("getBoard", id=new_id) == {"id": 1, "name": "Roadmap"}


def test_a_long_service_description_is_advertised_whole() -> None:
    specs, errors = ingest_document(orjson.dumps(SALES), source_file="sales.json")
    assert specs, errors
    cls = load_service(compile_service(specs).source)
    assert cls.description == (
        "Sales: contacts, deals, products, shipments, leads, spaces, expense reports, "
        "reviews, emails, events."
    )
