"""A type given as a list (``["integer", "null"]``, JSON Schema's nullable) where output
inference reads how other tools refer to a record by number: read as its one named type,
never a crash that loses every output inferred for the document (a fuzzed tau2 spec found
it: ``TypeError: unhashable type: 'list'``)."""

from __future__ import annotations

import orjson

from library.ingest import ingest_document
from library.toolspec import ErrorKind


def _tool(name: str, params: dict[str, dict]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name.replace('_', ' ').capitalize()}.",
            "parameters": {"type": "object", "properties": params, "required": list(params)},
        },
    }


def test_a_nullable_number_type_is_read_not_a_crash() -> None:
    doc = [
        _tool("search_contacts", {"company_id": {"type": ["integer", "null"]}}),
        _tool("create_company", {"name": {"type": "string"}}),
        _tool("list_companies", {"city": {"type": "string"}}),
    ]
    specs, errors = ingest_document(orjson.dumps(doc), source_file="contacts.json")
    assert specs
    assert not [e for e in errors if e.kind == ErrorKind.INTERNAL], errors
