"""The type mapper's table (library/compiler/types.py, where seed 9's five sampled mutants all
survived, bench/mutation.py): what Python type a record field gets from its JSON Schema node
and its name. A declared format decides (``email``, ``uri``, ``date``, ``date-time``; a
``uuid`` or a ``pattern`` keeps plain text); a name decides where no format does
(``contact_email``, ``website``, ``created_at``, ``price``, ``phone``, ``country``,
``currency``, ``owner_id`` a reference to owners); a ``null`` among the types makes the field
nullable; enums of text or of numbers become aliases; two types, or none, are ``Any``; a free
object is a dict; ``X | null`` is X; and ``allOf`` parts are merged into one model."""

from __future__ import annotations

from library.compiler import plan_service
from library.compiler.model import Kind
from tests.test_mutation_kills_compiler_rules import NOTE, NOTES, _ok, _specs

TEXT = {"type": "string"}
NODES = {
    "email": {"type": "string", "format": "email"},
    "contact_email": TEXT,
    "homepage": {"type": "string", "format": "uri"},
    "website": TEXT,
    "due_on": {"type": "string", "format": "date"},
    "created_at": TEXT,
    "seen_at": {"type": "string", "format": "date-time"},
    "price": {"type": "number"},
    "amount": {"type": "number", "minimum": 0},
    "count": {"type": "integer"},
    "ratio": {"type": ["number", "null"]},
    "flag": {"type": "boolean"},
    "nick": {"type": "string", "nullable": True},
    "kind": {"type": "string", "enum": ["a", "b"]},
    "level": {"type": "integer", "enum": [1, 2, 3]},
    "mixed": {"type": ["string", "integer"]},
    "tags": {"type": "array", "items": TEXT},
    "owner_id": TEXT,
    "phone": TEXT,
    "country": TEXT,
    "currency": TEXT,
    "token": {"type": "string", "format": "uuid"},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "anything": {},
    "blob": {"type": "object"},
    "either": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
    "combo": {
        "allOf": [
            {"type": "object", "properties": {"x": TEXT}},
            {"properties": {"y": {"type": "integer"}}},
        ]
    },
}
# name -> (kind, annotation, nullable, semantic)
EXPECTED = {
    "email": (Kind.STR, "Email", False, "email"),
    "contact_email": (Kind.STR, "Email", False, "email"),
    "homepage": (Kind.STR, "Url", False, "url"),
    "website": (Kind.STR, "Url", False, "url"),
    "due_on": (Kind.DATE, "Date", False, "date"),
    "created_at": (Kind.DATETIME, "DateTime", False, "datetime"),
    "seen_at": (Kind.DATETIME, "DateTime", False, "datetime"),
    "price": (Kind.FLOAT, "Money", False, "money"),
    "amount": (Kind.FLOAT, "Money", False, "money"),
    "count": (Kind.INT, "int", False, None),
    "ratio": (Kind.FLOAT, "float", True, None),
    "flag": (Kind.BOOL, "bool", False, None),
    "nick": (Kind.STR, "str", True, None),
    "kind": (Kind.ENUM, "Kind", False, None),
    "level": (Kind.ENUM, "Level", False, None),
    "mixed": (Kind.ANY, "Any", False, None),
    "tags": (Kind.LIST, "list[str]", False, None),
    "owner_id": (Kind.STR, 'Ref["owners"]', False, "id"),
    "phone": (Kind.STR, "Phone", False, "phone"),
    "country": (Kind.STR, "Country", False, "country"),
    "currency": (Kind.STR, "Currency", False, "currency"),
    "token": (Kind.STR, "str", False, None),
    "code": (Kind.STR, "str", False, None),
    "anything": (Kind.ANY, "Any", False, None),
    "blob": (Kind.DICT, "dict[str, Any]", False, None),
    "either": (Kind.DATETIME, "DateTime", False, "datetime"),
    "combo": (Kind.MODEL, "Combo", False, None),
}


def test_each_field_gets_the_type_its_node_and_name_say() -> None:
    note = {**NOTE, "properties": {**NOTE["properties"], **NODES}}
    listing = {"operationId": "listNotes", "responses": _ok({"type": "array", "items": note})}
    plan = plan_service(_specs({**NOTES, "paths": {"/notes": {"get": listing}}}))
    fields = plan.records["notes"].fields
    got = {
        name: (t.kind, t.annotation, t.nullable, t.semantic)
        for name in NODES
        for t in [fields[name].type]
    }
    assert got == EXPECTED
    assert {m.name: [(f.name, f.type.annotation) for f in m.fields] for m in plan.models} == {
        "Combo": [("x", "str"), ("y", "int")]
    }
    assert fields["kind"].type.enum == ("a", "b") and fields["level"].type.enum == (1, 2, 3)
    assert fields["tags"].type.item is not None and fields["tags"].type.item.kind is Kind.STR
