"""What the compiler plans and writes for records and answers of less common shapes (mutants of
library/compiler/records.py and emit_tools.py that survived the other tests,
bench/mutation.py, seed 10): a record that refers to its own kind (``$defs`` in the output)
holds nested models, not free dicts; a record known only from a create and its filters keeps
``created_at`` and ``updated_at`` under their own names; a stateless computation answers
under the key its output declares; and an acknowledgement too long for one line is laid out
one key a line, as valid Python; an action stamps a date field with the day, not the moment."""

from __future__ import annotations

import ast

from library.compiler import compile_service, load_service, plan_service
from library.compiler.emit_tools import _answer_call
from library.compiler.model import Kind
from tests.test_mutation_kills_compiler_rules import _specs
from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, _query

TEXT = {"type": "string"}
NODE_REF = {"$ref": "#/components/schemas/Node"}
NODE = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": TEXT,
        "name": TEXT,
        "parent": NODE_REF,
        "children": {"type": "array", "items": NODE_REF},
    },
}
TREE = {
    "openapi": "3.0.0",
    "info": {"title": "Tree", "version": "1"},
    "components": {"schemas": {"Node": NODE}},
    "paths": {
        "/nodes": {
            "get": {
                "operationId": "listNodes",
                "responses": _ok({"type": "array", "items": NODE_REF}),
            }
        },
        "/nodes/{id}": {
            "get": {
                "operationId": "getNode",
                "parameters": [_path("id")],
                "responses": _ok(NODE_REF),
            }
        },
    },
}
EVENTS = {
    "openapi": "3.0.0",
    "info": {"title": "Events", "version": "1"},
    "paths": {
        "/events": {
            "post": {
                "operationId": "createEvent",
                "requestBody": _body(
                    {"type": "object", "required": ["name"], "properties": {"name": TEXT}}
                ),
                "responses": {"201": {"description": "created"}},
            },
            "get": {
                "operationId": "listEvents",
                "parameters": [_query("kind", {"type": "string", "enum": ["talk", "demo"]})],
                "responses": {"200": {"description": "the events"}},
            },
        }
    },
}
NUMBER = {"type": "number"}
CALC = {
    "openapi": "3.0.0",
    "info": {"title": "Calc", "version": "1"},
    "paths": {
        "/add": {
            "post": {
                "operationId": "add",
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["a", "b"],
                        "properties": {"a": NUMBER, "b": NUMBER},
                    }
                ),
                "responses": _ok({"type": "object", "properties": {"sum": NUMBER}}),
            }
        }
    },
}

CASE = {
    "type": "object",
    "required": ["id", "title", "status"],
    "properties": {
        "id": TEXT,
        "title": TEXT,
        "status": {"type": "string", "enum": ["open", "closed"]},
        "closed_at": {"type": ["string", "null"], "format": "date"},
    },
}
CASES = {
    "openapi": "3.0.0",
    "info": {"title": "Cases", "version": "1"},
    "paths": {
        "/cases": {
            "post": {
                "operationId": "createCase",
                "requestBody": _body(
                    {"type": "object", "required": ["title"], "properties": {"title": TEXT}}
                ),
                "responses": _ok(CASE),
            }
        },
        "/cases/{id}/close": {
            "post": {
                "operationId": "closeCase",
                "parameters": [_path("id")],
                "responses": _ok(CASE),
            }
        },
    },
}


def test_an_action_stamps_a_date_field_with_the_day() -> None:
    client = Client(load_service(compile_service(_specs(CASES)).source))
    made = client.ok("createCase", title="Broken printer")
    closed = client.ok("closeCase", id=made["id"])
    day = client.world.now().date().isoformat()
    assert closed == made | {"status": "closed", "closed_at": day}


def test_a_record_of_its_own_kind_holds_nested_models_not_free_dicts() -> None:
    plan = plan_service(_specs(TREE))
    fields = plan.records["nodes"].fields
    parent, children = fields["parent"].type, fields["children"].type
    assert parent.kind is Kind.MODEL, parent
    assert children.kind is Kind.LIST and children.item is not None
    assert children.item.kind is Kind.MODEL, children.item
    models = {m.name: [f.name for f in m.fields] for m in plan.models}
    assert models[str(parent.model)] == ["id", "name", "parent", "children"]


def test_a_record_known_from_its_create_and_filters_keeps_its_stamps_by_name() -> None:
    plan = plan_service(_specs(EVENTS))
    record = plan.records["events"]
    assert not record.shaped
    stamps = {k: (f.name, f.attr, f.required, f.type.kind) for k, f in record.fields.items()}
    assert stamps["created_at"] == ("created_at", "created_at", True, Kind.DATETIME)
    assert stamps["updated_at"] == ("updated_at", "updated_at", True, Kind.DATETIME)
    assert stamps["name"][:3] == ("name", "name", True)
    assert stamps["kind"][:3] == ("kind", "kind", False)
    client = Client(load_service(compile_service(_specs(EVENTS)).source))
    made = client.ok("createEvent", name="Launch")
    assert made["created_at"] == made["updated_at"] and "CREATED_AT" not in made


def test_a_computation_answers_under_the_key_its_output_declares() -> None:
    client = Client(load_service(compile_service(_specs(CALC)).source))
    assert client.ok("add", a=1, b=2.5) == {"sum": 3.5}
    assert client.ok("add", a=-4, b=4) == {"sum": 0}


def test_a_long_acknowledgement_is_laid_out_one_key_a_line() -> None:
    short = _answer_call("record", {"id": "record.id", "ok": "True"})
    assert short == '_answer(record, {"id": record.id, "ok": True})'
    meta = {f"key_number_{i}": f"record.field_number_{i}" for i in range(4)}
    long = _answer_call("record", meta)
    assert long.splitlines() == [
        "_answer(",
        "    record,",
        "    {",
        '        "key_number_0": record.field_number_0,',
        '        "key_number_1": record.field_number_1,',
        '        "key_number_2": record.field_number_2,',
        '        "key_number_3": record.field_number_3,',
        "    },",
        ")",
    ]
    ast.parse(long, mode="eval")
