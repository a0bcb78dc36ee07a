"""Schema normalization, ``$ref`` resolution and the naming helpers inference stands on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from library.ingest import ingest_document
from library.ingest.issues import Issues
from library.ingest.naming import pluralize, resource_name, service_name, tokens, tool_name
from library.ingest.schema import MAX_DEPTH, SchemaNormalizer
from library.ingest.verbs import name_verb_resource, path_shape
from library.toolspec import ErrorKind, Verb

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"


def normalize(node: Any, root: Any = None) -> tuple[dict[str, Any], Issues]:
    issues = Issues("t.json", "h")
    norm = SchemaNormalizer(root if root is not None else node, issues)
    return norm.normalize(node, ""), issues


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"type": "dict", "properties": {}}, {"type": "object", "properties": {}}),
        ({"type": "float"}, {"type": "number"}),
        ({"type": "String"}, {"type": "string"}),
        ({"type": "any", "description": "x"}, {"description": "x"}),
        ({"type": "tuple", "items": [{"type": "int"}, {"type": "str"}]},
         {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}),
        ({"type": ["null", "integer"]}, {"type": ["null", "integer"]}),
        ({"type": "string", "nullable": True}, {"type": ["string", "null"]}),
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True},
         {"type": "integer", "exclusiveMinimum": 1}),
        ({"type": "string", "example": "a@b.co"}, {"type": "string", "examples": ["a@b.co"]}),
        ({"type": "file"}, {"type": "string", "format": "binary"}),
        ({"enum": [1, 2**80, float("nan")], "x-vendor": 1}, {"enum": [1, str(2**80), None]}),
        ({"properties": {"a": {"type": "string", "required": True}}},
         {"properties": {"a": {"type": "string"}}, "required": ["a"], "type": "object"}),
        (True, {}),
        ({"type": "bogus"}, {}),
    ],
)  # fmt: skip
def test_dialects_normalize_to_json_schema(raw: Any, expected: dict[str, Any]) -> None:
    assert normalize(raw)[0] == expected


def test_recursive_and_mutually_recursive_refs_become_defs() -> None:
    root = {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/B"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/A"}, "self": {"$ref": "#/B"}}},
    }
    out, issues = normalize({"$ref": "#/A"}, root)
    assert issues.items == []
    assert out["properties"]["b"]["properties"]["a"] == {"$ref": "#/$defs/A"}
    assert out["properties"]["b"]["properties"]["self"] == {"$ref": "#/$defs/B"}
    assert set(out["$defs"]) == {"A", "B"}
    assert out["$defs"]["B"]["properties"]["self"] == {"$ref": "#/$defs/B"}
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(out)
    validator = jsonschema.Draft202012Validator(out)
    assert validator.is_valid({"b": {"a": {"b": {}}, "self": {"self": {}}}})


def test_broken_and_external_refs_are_warnings_with_a_fix() -> None:
    root = {
        "p": {
            "type": "object",
            "properties": {"x": {"$ref": "#/nope"}, "y": {"$ref": "other.yaml#/Y"}},
        }
    }
    out, issues = normalize(root["p"], root)
    assert out["properties"] == {"x": {}, "y": {}}
    kinds = [(e.kind, e.severity) for e in issues.items]
    assert kinds == [(ErrorKind.BAD_REF, "warning")] * 2
    assert "does not exist" in issues.items[0].message and "bundle" in issues.items[1].message
    assert issues.items[0].pointer == "/properties/x/$ref"


def _body_op(name: str, schema: str) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{schema}"}
    return {
        "post": {
            "operationId": name,
            "requestBody": {"content": {"application/json": {"schema": ref}}},
            "responses": {"200": {"description": "ok"}},
        }
    }


def test_a_ref_that_only_refers_to_itself_is_reported_and_the_rest_ingests() -> None:
    """``A: {$ref: A}`` (or ``B -> C -> B``) names no schema at all; kept, it became
    ``{"$defs": {"A": {"$ref": "#/$defs/A"}}}`` without a word."""
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Loops", "version": "1"},
        "paths": {
            "/a": _body_op("makeA", "A"),
            "/b": _body_op("makeB", "B"),
            "/t": _body_op("makeTree", "Tree"),
        },
        "components": {
            "schemas": {
                "A": {"$ref": "#/components/schemas/A"},
                "B": {"$ref": "#/components/schemas/C"},
                "C": {"$ref": "#/components/schemas/B"},
                "Tree": {
                    "type": "object",
                    "properties": {
                        "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}
                    },
                },
            }
        },
    }
    tools, errors = ingest_document(json.dumps(doc).encode(), source_file="specs/loops.json")
    by_name = {t.name: t for t in tools}
    assert sorted(by_name) == ["makeA", "makeB", "makeTree"]
    for name in ("makeA", "makeB"):  # any value accepted, no looping $defs left behind
        assert "$defs" not in by_name[name].input_schema, name
    # Recursion through a real schema is not a loop: the tree keeps its reference.
    assert by_name["makeTree"].input_schema["$defs"]["Tree"]["properties"]["kids"]["items"] == {
        "$ref": "#/$defs/Tree"
    }
    reported = [(e.source_file, e.pointer, e.kind, e.severity, e.tool) for e in errors]
    assert reported == [
        ("specs/loops.json", "/components/schemas/A/$ref", ErrorKind.BAD_REF, "warning", "makeA"),
        ("specs/loops.json", "/components/schemas/C/$ref", ErrorKind.BAD_REF, "warning", "makeB"),
    ]
    assert "refers to itself" in errors[0].message
    assert "#/components/schemas/B -> #/components/schemas/C -> #/components/schemas/B" in (
        errors[1].message
    )


def test_deep_nesting_is_cut_with_a_warning() -> None:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH + 20):
        node = {"type": "object", "properties": {"a": node}}
    out, issues = normalize(node)
    assert [e.kind for e in issues.items] == [ErrorKind.TRUNCATED]
    assert out["type"] == "object"


def test_allof_that_cannot_merge_is_kept() -> None:
    out, _ = normalize({"allOf": [{"type": "string"}, {"minLength": 2}]})
    assert out == {"allOf": [{"type": "string"}, {"minLength": 2}]}


def test_shared_specs_normalize_to_valid_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    if not SPECS.is_dir():
        pytest.skip("../shared/specs is not present")
    checked = 0
    for path in sorted(SPECS.rglob("*.json")):
        for spec in ingest_document(path)[0]:
            for schema in (spec.input_schema, spec.output_schema):
                if schema is not None:
                    jsonschema.Draft202012Validator.check_schema(schema)
                    checked += 1
    assert checked > 1000


def test_naming_helpers() -> None:
    assert tokens("getContactByID") == ("get", "contact", "by", "id")
    assert tokens("due-date") == ("due", "date")
    assert pluralize("restore_point") == "restore_points"
    assert [pluralize(w) for w in ("person", "address", "company", "status", "box", "key")] == [
        "people", "addresses", "companies", "status", "boxes", "keys",
    ]  # fmt: skip
    assert resource_name("restorePoints") == "restore_points"
    assert tool_name("get contact/{id}") == "get_contact_id"
    assert service_name("1password.local__connect") == "1password_local_connect"


@pytest.mark.parametrize(
    ("path", "collection", "item", "action"),
    [
        ("/contacts", "contacts", False, None),
        ("/api/v2/contacts/{contact_id}", "contacts", True, None),
        ("/tickets/{id}/assign", "tickets", True, "assign"),
        ("/contacts/search", "contacts", False, "search"),
        ("/v1/{name}:verify", None, True, "verify"),
        ("/getMonitors", "monitors", False, "get"),  # RPC style: verb and noun in one
        ("/api/newAlertContact", "alert_contacts", False, "new"),
        ("/tickets/{id}/assignUser", "tickets", True, "assign"),  # an action on the ticket
    ],
)
def test_path_shapes(path: str, collection: str | None, item: bool, action: str | None) -> None:
    shape = path_shape(path)
    assert (shape.collection, shape.item, shape.action) == (collection, item, action)


@pytest.mark.parametrize(
    ("name", "service", "ids", "verb", "resource"),
    [
        ("get_order_details", "shop", ["orders"], Verb.READ, "orders"),
        ("list_all_product_types", "shop", [], Verb.LIST, "product_types"),
        ("get_users", "shop", [], Verb.LIST, "users"),
        ("find_user_id_by_email", "shop", [], Verb.SEARCH, "users"),
        ("update_reservation_baggages", "air", ["reservations"], Verb.UPDATE, "reservations"),
        ("git_status", "git", [], Verb.READ, None),
        ("archival_memory_add", "memory", [], Verb.CREATE, "archival_memory"),
        ("sendMessage", "gmail", [], Verb.ACTION, "messages"),
        ("frobnicate", "x", [], None, None),
    ],
)
def test_name_verbs(
    name: str, service: str, ids: list[str], verb: Verb | None, resource: str | None
) -> None:
    assert name_verb_resource(name, service, ids)[:2] == (verb, resource)


def test_rpc_style_operations_named_by_a_bare_verb_take_the_path_s_noun() -> None:
    """UptimeRobot's API: ``POST /getMonitors`` (operationId ``all``), ``POST /newMonitor``
    (``create``), ``POST /editMonitor``, ``POST /deleteMonitor``: one resource, its verbs."""
    ops = {
        "/getMonitors": "all", "/newMonitor": "create", "/editMonitor": "update",
        "/deleteMonitor": "delete",
    }  # fmt: skip
    body = {"type": "object", "properties": {"id": {"type": "integer"}}}
    document = {
        "openapi": "3.0.0",
        "info": {"title": "Uptime", "version": "1"},
        "paths": {
            path: {
                "post": {
                    "operationId": op,
                    "requestBody": {"content": {"application/json": {"schema": body}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
            for path, op in ops.items()
        },
    }
    specs, _ = ingest_document(json.dumps(document).encode(), source_file="uptime.json")
    got = {s.name: (s.resource, s.verb) for s in specs}
    assert got == {
        "all": ("monitors", Verb.LIST),
        "create": ("monitors", Verb.CREATE),
        "update": ("monitors", Verb.UPDATE),
        "delete": ("monitors", Verb.DELETE),
    }


def test_an_operation_named_by_its_http_method_takes_its_verb_from_the_path() -> None:
    """``Conversions_Post`` on ``/conversions/{conversionId}`` ("Update conversion specified
    by id") names the method it is sent with, not a create: a POST to one record updates it."""
    item = [{"name": "conversionId", "in": "path", "required": True, "schema": {"type": "integer"}}]
    body = {"type": "object", "properties": {"name": {"type": "string"}}}
    document = {
        "openapi": "3.0.0",
        "info": {"title": "Clicks", "version": "1"},
        "paths": {
            "/conversions/{conversionId}": {
                "post": {
                    "operationId": "Conversions_Post",
                    "parameters": item,
                    "requestBody": {"content": {"application/json": {"schema": body}}},
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/conversions": {
                "post": {
                    "operationId": "Conversions_Add",
                    "requestBody": {"content": {"application/json": {"schema": body}}},
                    "responses": {"200": {"description": "ok"}},
                }
            },
        },
    }
    specs, _ = ingest_document(json.dumps(document).encode(), source_file="clicks.json")
    got = {s.name: (s.resource, s.verb) for s in specs}
    assert got == {
        "Conversions_Post": ("conversions", Verb.UPDATE),
        "Conversions_Add": ("conversions", Verb.CREATE),
    }
