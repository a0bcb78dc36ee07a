"""Rules of the compiler's planner, type mapper and source writer (mutants of
library/compiler/plan.py, tools.py, types.py, values.py, source.py and
library/verify/build.py that survived the other tests, bench/mutation.py): spec prose never
opens a docstring section; ``X | null`` is the branch ``X`` with its own type; an
acknowledgement's fixed value is a default of the key's own scalar type; a semantic type is
kept only where it accepts the spec's default; a tool of another service is skipped with
that reason; a list's default page size stays within the spec's maximum; a delete ignores
its optional parameters (it deletes the record named, whatever they say); and a build
reports how long its verification took."""

from __future__ import annotations

import orjson

from library.compiler import plan_service
from library.compiler.model import Kind
from library.compiler.source import _no_sections
from library.compiler.types import accepts_samples, single_branch
from library.compiler.values import answer_constant
from library.ingest import ingest_document
from library.verify import build_service
from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, _query

TEXT = {"type": "string"}


def test_spec_prose_never_opens_a_docstring_section() -> None:
    text = "Lists notes.\nArgs:\n  Notes:\nReturns: the notes\nArg:\nExamples:"
    assert _no_sections(text).splitlines() == [
        "Lists notes.",
        "Args -",
        "  Notes -",
        "Returns: the notes",  # prose after the colon: no section header
        "Arg:",
        "Examples -",
    ]


def test_x_or_null_is_the_branch_x_with_its_own_type() -> None:
    node = {
        "type": ["string", "null"],
        "description": "A short code.",
        "anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}],
    }
    assert single_branch(node) == {"type": "string", "maxLength": 5, "description": "A short code."}
    both = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    assert single_branch(both) == both  # two real branches: left as they are


def test_an_acknowledgements_fixed_value_is_a_default_of_its_own_scalar_type() -> None:
    assert answer_constant("status", {"type": "string", "default": "ok"}) == '"ok"'
    assert answer_constant("queued", {"type": "boolean", "default": True}) == "True"
    assert answer_constant("status", {"type": "integer", "default": 202}) == "202"
    assert answer_constant("result", {"type": "object", "default": {"a": 1}}) is None
    assert answer_constant("status", {"default": "ok"}) is None  # no type stated
    assert answer_constant("status", {"type": "string", "enum": ["ok"], "default": "bad"}) == (
        '"ok"'
    )


def test_a_semantic_type_is_kept_only_where_it_accepts_the_specs_default() -> None:
    assert accepts_samples("url", {})
    assert accepts_samples("url", {"default": "https://example.com"})
    assert not accepts_samples("url", {"default": "n/a"})
    assert not accepts_samples("url", {"example": "git@host:repo"})
    assert not accepts_samples("url", {"examples": ["https://a.io", "none"]})


NOTE = {
    "type": "object",
    "required": ["id", "title", "status"],
    "properties": {
        "id": TEXT,
        "title": TEXT,
        "status": {"type": "string", "enum": ["open", "done"]},
    },
}
NOTES = {
    "openapi": "3.0.0",
    "info": {"title": "Notes", "version": "1"},
    "paths": {
        "/notes": {
            "post": {
                "operationId": "createNote",
                "requestBody": _body(
                    {"type": "object", "required": ["title"], "properties": {"title": TEXT}}
                ),
                "responses": _ok(NOTE),
            },
            "get": {
                "operationId": "listNotes",
                "parameters": [_query("limit", {"type": "integer", "minimum": 1, "maximum": 20})],
                "responses": _ok({"type": "array", "items": NOTE}),
            },
        },
        "/notes/{id}": {
            "get": {"operationId": "getNote", "parameters": [_path("id")], "responses": _ok(NOTE)},
            "delete": {
                "operationId": "deleteNote",
                "parameters": [_path("id"), _query("status", TEXT), _query("reason", TEXT)],
                "responses": _ok(
                    {"type": "object", "properties": {"deleted": {"type": "boolean"}}}
                ),
            },
        },
    },
}


def _specs(document: dict) -> list:
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    return specs


def test_a_tool_of_another_service_is_skipped_with_that_reason() -> None:
    specs = _specs(NOTES)
    stray = specs[-1].model_copy(update={"service": "crm", "name": "crm_thing"})
    plan = plan_service([*specs, stray])
    assert plan.skipped["crm_thing"] == f"belongs to service 'crm', not {specs[0].service!r}"


def test_a_list_pages_within_its_maximum_and_a_delete_ignores_its_optional_parameters() -> None:
    specs = _specs(NOTES)
    build = build_service(specs)
    assert set(build.verified) == {s.name for s in specs}, build.outcomes
    assert isinstance(build.verify_s, float) and build.verify_s > 0, build.verify_s
    assert isinstance(build.compile_s, float) and build.compile_s > 0, build.compile_s
    from library.compiler import compile_service, load_service

    client = Client(load_service(compile_service(specs).source))
    made = [client.ok("createNote", title=f"Note {k}") for k in range(23)]
    assert len(client.ok("listNotes")) == 20  # the spec's maximum, not 50
    assert made[0]["status"] == "open"
    client.ok("deleteNote", id=made[0]["id"], status="done", reason="duplicate")
    assert client.refused("getNote", id=made[0]["id"]) == "not_found"
    assert len(client.ok("listNotes", limit=20)) == 20  # 22 left


def test_a_declared_date_format_beats_a_name_that_reads_as_a_moment() -> None:
    stamped = {
        **NOTE,
        "properties": {
            **NOTE["properties"],
            "closed_at": {"type": "string", "format": "date"},
            "updated_at": {"type": "string", "format": "date"},
            "created_at": {"type": "string", "format": "date-time"},
        },
    }
    listing = {"operationId": "listNotes", "responses": _ok({"type": "array", "items": stamped})}
    document = {**NOTES, "paths": {"/notes": {"get": listing}}}
    fields = plan_service(_specs(document)).records["notes"].fields
    kinds = {name: fields[name].type.kind for name in ("closed_at", "updated_at", "created_at")}
    assert kinds == {"closed_at": Kind.DATE, "updated_at": Kind.DATE, "created_at": Kind.DATETIME}
