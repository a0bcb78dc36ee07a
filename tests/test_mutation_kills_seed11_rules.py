"""Rules that the seed-11 mutation sample (bench/mutation.py) found unpinned: the planner's
server values (a create fills an unset status with its first open state, and no other
enum), a read's optional parameter that names a required field is not a key, a count
found by its ``/count`` path, a parameter's enum alias named after its owner when the plain
name is taken, a list of ids that honours its limit and offset; and the seed writer's small
tables: who is a person role, how many colleagues a ``cc`` list holds, ``modified_at`` is
the update moment; and names too long for one line (a unique check on a long field of a long
collection, an aliased parameter with a long name) still make a working tool."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service, plan_service
from library.compiler.emit_seed import _RecordWriter
from library.compiler.model import Kind, ServicePlan, TypeSpec
from library.ingest import ingest_document
from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, _query
from tests.test_mutation_kills_seed_refs import _collection
from tests.test_mutation_kills_seed_writer import _notes

TEXT = {"type": "string"}
NOTE = {
    "type": "object",
    "required": ["id", "title"],
    "properties": {
        "id": TEXT,
        "title": TEXT,
        "status": {"type": "string", "enum": ["draft", "published"]},
        "priority": {"type": "string", "enum": ["low", "high"]},
    },
}
TAG = {"type": "object", "required": ["id", "label"], "properties": {"id": TEXT, "label": TEXT}}
NEW_NOTE = {
    "type": "object",
    "required": ["title"],
    "properties": {"title": TEXT, "mode": {"type": "string", "enum": ["fast", "slow"]}},
}
STATUSES = {"type": "string", "enum": ["draft", "published", "any"]}
NOTES = {
    "openapi": "3.0.0",
    "info": {"title": "Notes", "version": "1"},
    "paths": {
        "/notes": {
            "post": {
                "operationId": "createNote",
                "requestBody": _body(NEW_NOTE),
                "responses": _ok(NOTE),
            },
            "get": {
                "operationId": "listNotes",
                "parameters": [_query("status", STATUSES)],
                "responses": _ok({"type": "array", "items": NOTE}),
            },
        },
        "/notes/count": {
            "get": {"operationId": "getNoteNumber", "responses": _ok({"type": "integer"})}
        },
        "/notes/{id}": {
            "get": {
                "operationId": "getNote",
                "parameters": [_path("id"), _query("title", TEXT)],
                "responses": _ok(NOTE),
            }
        },
        "/tags": {
            "post": {
                "operationId": "createTag",
                "requestBody": _body(
                    {"type": "object", "required": ["label"], "properties": {"label": TEXT}}
                ),
                "responses": _ok(TAG),
            },
            "get": {
                "operationId": "listTags",
                "parameters": [
                    _query("limit", {"type": "integer"}),
                    _query("offset", {"type": "integer"}),
                ],
                "responses": _ok({"type": "array", "items": TEXT}),
            },
        },
    },
}


def _plan() -> ServicePlan:
    specs, errors = ingest_document(orjson.dumps(NOTES), source_file="service.json")
    assert specs, errors
    return plan_service(specs)


def test_the_planners_choices_for_a_notes_service() -> None:
    plan = _plan()
    assert plan.skipped == {}
    tools = {t.name: t for t in plan.tools}
    # an unset status starts in its first open state; an unset priority stays unset
    assert tools["createNote"].server_values == {"status": '"draft"'}
    assert [(p.name, p.role.value) for p in tools["getNote"].params] == [
        ("id", "id"),
        ("title", "ignored"),  # optional: not a key, though every note has a title
    ]
    assert (tools["getNoteNumber"].verb, tools["getNoteNumber"].output.shape.value) == (
        "count",
        "count",
    )
    # values the record's status cannot hold: another thing, its alias named for its owner
    status = tools["listNotes"].params[0]
    assert (status.role.value, status.type.annotation) == ("ignored", "NoteStatus")
    assert (tools["listTags"].verb, tools["listTags"].output.shape.value) == ("list", "keys")


def test_a_list_of_ids_honours_its_limit_and_offset() -> None:
    specs, errors = ingest_document(orjson.dumps(NOTES), source_file="service.json")
    assert specs, errors
    client = Client(load_service(compile_service(specs).source))
    ids = [client.ok("createTag", label=f"t{i}")["id"] for i in range(3)]
    assert client.ok("listTags") == ids
    assert client.ok("listTags", limit=2) == ids[:2]
    assert client.ok("listTags", offset=1) == ids[1:]
    assert client.ok("listTags", offset=1, limit=1) == ids[1:2]
    client.ok("createNote", title="One")
    assert client.ok("getNoteNumber") == 1


def test_the_seed_writers_person_roles_copied_colleagues_and_update_moment() -> None:
    roles = ("sender", "from", "to", "recipient", "contact", "owner", "customer")
    assert all(_RecordWriter._person_role(r) for r in roles)
    assert not _RecordWriter._person_role("banana")
    group = _notes()._group("cc_emails")
    assert (group.staff, group.with_subject, group.low, group.high) == (True, False, 0, 2)
    writer = _notes()
    moment = TypeSpec(Kind.DATETIME, "DateTime")
    assert writer.value("modified_at", moment, True, False, 0, "") == "updated"
    assert writer.uses == {"updated"}


LONG_KEY = "external_partner_reference_identifier_code"
AGREEMENT = {
    "type": "object",
    "required": ["id", LONG_KEY],
    "properties": {"id": TEXT, LONG_KEY: {"type": "string", "description": "A unique reference."}},
}
PARTNERS = {
    "openapi": "3.0.0",
    "info": {"title": "Partners", "version": "1"},
    "paths": _collection(
        "organization_partnership_agreements", "OrganizationPartnershipAgreement", AGREEMENT
    ),
}
LONG_PARAM = "include-archived-and-deleted-records-from-every-workspace-in-results"
WIDE = {
    "openapi": "3.0.0",
    "info": {"title": "Notes", "version": "1"},
    "paths": {
        "/notes": {
            "post": NOTES["paths"]["/notes"]["post"],
            "get": {
                "operationId": "listNotes",
                "parameters": [_query(LONG_PARAM, {"type": "string", "enum": ["yes", "no"]})],
                "responses": _ok({"type": "array", "items": NOTE}),
            },
        }
    },
}


def _client(document: dict) -> tuple[Client, str]:
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    source = compile_service(specs).source
    return Client(load_service(source)), source


def test_a_unique_check_too_long_for_one_line_still_refuses_a_duplicate() -> None:
    client, source = _client(PARTNERS)
    assert "            for r in self.state.organization_partnership_agreements.values()" in source
    client.ok("createOrganizationPartnershipAgreement", **{LONG_KEY: "X1"})
    refused = client.refused("createOrganizationPartnershipAgreement", **{LONG_KEY: "x1"})
    assert refused == "conflict"


def test_an_aliased_parameter_too_long_for_one_line_is_split_as_ruff_does() -> None:
    client, source = _client(WIDE)
    attr = LONG_PARAM.replace("-", "_")
    assert (
        f"""        {attr}: Annotated[
            IncludeArchivedAndDeletedRecordsFromEveryWorkspaceInResults_ | None,
            Field(alias="{LONG_PARAM}"),
        ] = None,
"""
        in source
    )
    client.ok("createNote", title="A")
    assert [n["title"] for n in client.ok("listNotes", **{LONG_PARAM: "yes"})] == ["A"]
