"""The tool planner's table (library/compiler/tools.py, 14% of the mutants and 64% killed on
seed 9, bench/mutation.py): what each parameter of a help desk's tools does. A path's parent
id scopes a read, update and delete (and filters a list, and is stored by a create, naming
the projects); the record's own id names it; a list filters by equality on fields it names
(``status``, ``tags``), searches by ``q``, bounds by ``created_after``/``min_amount`` (at
least), pages by ``limit`` (default within the declared maximum, 25), ``offset`` (0), ``page``
(1) and ``per_page`` (a limit, 50); a create and an update store the fields they name; what
names no field (``sort``, ``expand``, a delete's ``reason``, an action's ``comment``) is
accepted and ignored."""

from __future__ import annotations

import orjson

from library.compiler import plan_service
from library.compiler.model import MISSING
from library.ingest import ingest_document
from tests.test_mutation_kills_emit_tools import _body, _ok, _path, _query

TEXT = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
MOMENT = {"type": "string", "format": "date-time"}
STATUS = {"type": "string", "enum": ["open", "pending", "closed"]}
TICKET = {
    "type": "object",
    "required": ["id", "subject", "status", "project_id", "created_at"],
    "properties": {
        "id": TEXT,
        "subject": TEXT,
        "status": STATUS,
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
        "project_id": TEXT,
        "tags": {"type": "array", "items": TEXT},
        "amount": NUMBER,
        "created_at": MOMENT,
        "assignee": TEXT,
    },
}
PROJECT = {
    "type": "object",
    "required": ["id", "name", "key"],
    "properties": {"id": TEXT, "name": TEXT, "key": TEXT},
}
DESK = {
    "openapi": "3.0.0",
    "info": {"title": "Desk", "version": "1"},
    "paths": {
        "/projects": {
            "post": {
                "operationId": "createProject",
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["name", "key"],
                        "properties": {"name": TEXT, "key": TEXT},
                    }
                ),
                "responses": _ok(PROJECT),
            }
        },
        "/projects/{project_id}/tickets": {
            "get": {
                "operationId": "listTickets",
                "parameters": [
                    _path("project_id"),
                    _query("status", STATUS),
                    _query("tags", TEXT),
                    _query("q", TEXT),
                    _query("created_after", MOMENT),
                    _query("min_amount", NUMBER),
                    _query("limit", {"type": "integer", "maximum": 25}),
                    _query("offset", INTEGER),
                    _query("sort", TEXT),
                ],
                "responses": _ok({"type": "array", "items": TICKET}),
            },
            "post": {
                "operationId": "createTicket",
                "parameters": [_path("project_id")],
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["subject"],
                        "properties": {
                            "subject": TEXT,
                            "priority": {"type": "integer", "minimum": 1, "maximum": 5},
                            "tags": {"type": "array", "items": TEXT},
                            "assignee": TEXT,
                            "notify": {"type": "boolean"},
                        },
                    }
                ),
                "responses": _ok(TICKET),
            },
        },
        "/projects/{project_id}/tickets/{ticket_id}": {
            "get": {
                "operationId": "getTicket",
                "parameters": [_path("project_id"), _path("ticket_id"), _query("expand", TEXT)],
                "responses": _ok(TICKET),
            },
            "patch": {
                "operationId": "updateTicket",
                "parameters": [_path("project_id"), _path("ticket_id")],
                "requestBody": _body(
                    {
                        "type": "object",
                        "properties": {"subject": TEXT, "priority": INTEGER, "status": STATUS},
                    }
                ),
                "responses": _ok(TICKET),
            },
            "delete": {
                "operationId": "deleteTicket",
                "parameters": [_path("project_id"), _path("ticket_id"), _query("reason", TEXT)],
                "responses": _ok(
                    {"type": "object", "properties": {"deleted": {"type": "boolean"}}}
                ),
            },
        },
        "/tickets/search": {
            "get": {
                "operationId": "searchTickets",
                "parameters": [
                    _query("query", TEXT),
                    _query("page", INTEGER),
                    _query("per_page", INTEGER),
                ],
                "responses": _ok({"type": "array", "items": TICKET}),
            }
        },
        "/tickets/{ticket_id}/close": {
            "post": {
                "operationId": "closeTicket",
                "parameters": [_path("ticket_id")],
                "requestBody": _body({"type": "object", "properties": {"comment": TEXT}}),
                "responses": _ok(TICKET),
            }
        },
    },
}

# tool -> [(parameter, role, target field, default, op, collection it names)]
ROLES = {
    "createProject": [
        ("name", "field", "name", None, "eq", None),
        ("key", "field", "key", None, "eq", None),
    ],
    "listTickets": [
        ("project_id", "filter", "project_id", None, "eq", "projects"),
        ("status", "filter", "status", None, "eq", None),
        ("tags", "filter", "tags", None, "eq", None),
        ("q", "query", None, None, "eq", None),
        ("created_after", "range", "created_at", None, "ge", None),
        ("min_amount", "range", "amount", None, "ge", None),
        ("limit", "limit", None, 25, "eq", None),
        ("offset", "offset", None, 0, "eq", None),
        ("sort", "ignored", None, None, "eq", None),
    ],
    "createTicket": [
        ("project_id", "field", "project_id", None, "eq", "projects"),
        ("subject", "field", "subject", None, "eq", None),
        ("priority", "field", "priority", None, "eq", None),
        ("tags", "field", "tags", None, "eq", None),
        ("assignee", "field", "assignee", None, "eq", None),
        ("notify", "field", "notify", None, "eq", None),
    ],
    "getTicket": [
        ("project_id", "scope", "project_id", None, "eq", "projects"),
        ("ticket_id", "id", None, None, "eq", "tickets"),
        ("expand", "ignored", None, None, "eq", None),
    ],
    "updateTicket": [
        ("project_id", "scope", "project_id", None, "eq", "projects"),
        ("ticket_id", "id", None, None, "eq", "tickets"),
        ("subject", "field", "subject", None, "eq", None),
        ("priority", "field", "priority", None, "eq", None),
        ("status", "field", "status", None, "eq", None),
    ],
    "deleteTicket": [
        ("project_id", "scope", "project_id", None, "eq", "projects"),
        ("ticket_id", "id", None, None, "eq", "tickets"),
        ("reason", "ignored", None, None, "eq", None),
    ],
    "searchTickets": [
        ("query", "query", None, None, "eq", None),
        ("page", "page", None, 1, "eq", None),
        ("per_page", "limit", None, 50, "eq", None),
    ],
    "closeTicket": [
        ("ticket_id", "id", None, None, "eq", "tickets"),
        ("comment", "ignored", None, None, "eq", None),
    ],
}


def test_each_parameter_gets_the_role_its_verb_name_and_record_say() -> None:
    specs, errors = ingest_document(orjson.dumps(DESK), source_file="service.json")
    assert specs, errors
    plan = plan_service(specs)
    assert plan.skipped == {}
    got = {
        t.name: [
            (
                p.name,
                p.role.value,
                p.target,
                None if p.default is MISSING else p.default,
                p.op,
                p.ref_collection,
            )
            for p in t.params
        ]
        for t in plan.tools
    }
    assert got == ROLES
