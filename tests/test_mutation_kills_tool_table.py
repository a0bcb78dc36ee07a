"""What the tool planner decides for a help desk's tools, pinned as a table (library/compiler/
tools.py, the second-largest module the mutation bench samples, bench/mutation.py): each
tool's effective verb, resource, output shape, wrapper class, items key and answer keys; each
parameter's role (id, field, filter, range, query, paging, ignored), the field it maps to, its
bound, the collection it refers to, whether it is required and its default; a create's server
values, a close's status, stamp and target, an assign's assignee and the states that block it;
and the parameters that have no effect, noted."""

from __future__ import annotations

import orjson
import pytest

from library.compiler import plan_service
from library.compiler.model import ServicePlan, ToolPlan
from library.ingest import ingest_document
from tests.test_mutation_kills_emit_tools import _body, _ok, _path, _query

T = {"type": "string"}
MOMENT = {"type": "string", "format": "date-time"}
STATUS = {"type": "string", "enum": ["open", "pending", "closed"]}
TICKET = {
    "type": "object",
    "required": ["id", "title", "status", "priority", "created_at"],
    "properties": {
        "id": T,
        "title": T,
        "status": STATUS,
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
        "assignee_email": {"type": "string", "format": "email"},
        "tags": {"type": "array", "items": T},
        "customer_id": T,
        "amount": {"type": "number"},
        "closed_at": {"type": ["string", "null"], "format": "date-time"},
        "created_at": MOMENT,
        "description": T,
    },
}
CUSTOMER = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": T, "name": T, "email": {"type": "string", "format": "email"}},
}
PAGE = {
    "type": "object",
    "properties": {
        "tickets": {"type": "array", "items": TICKET},
        "total": {"type": "integer"},
        "next_cursor": {"type": ["string", "null"]},
    },
}
HELPDESK = {
    "openapi": "3.0.0",
    "info": {"title": "Helpdesk", "version": "1"},
    "paths": {
        "/customers": {
            "post": {
                "operationId": "createCustomer",
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["name"],
                        "properties": {"name": T, "email": {"type": "string", "format": "email"}},
                    }
                ),
                "responses": _ok(CUSTOMER),
            }
        },
        "/customers/{customer_id}": {
            "get": {
                "operationId": "getCustomer",
                "parameters": [_path("customer_id")],
                "responses": _ok(CUSTOMER),
            }
        },
        "/tickets": {
            "post": {
                "operationId": "createTicket",
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["title", "customer_id"],
                        "properties": {
                            "title": T,
                            "priority": {"type": "integer", "default": 3},
                            "customer_id": T,
                            "tags": {"type": "array", "items": T},
                            "assignee_email": {"type": "string", "format": "email"},
                            "description": T,
                            "notify": {"type": "boolean"},
                        },
                    }
                ),
                "responses": _ok(TICKET),
            },
            "get": {
                "operationId": "listTickets",
                "parameters": [
                    _query("status", STATUS),
                    _query("min_priority", {"type": "integer"}),
                    _query("created_after", MOMENT),
                    _query("q", T),
                    _query("limit", {"type": "integer", "maximum": 100}),
                    _query("cursor", T),
                    _query("tag", T),
                    _query("customer_id", T),
                    _query("amount_max", {"type": "number"}),
                    _query("color", T),
                    _query("tags", {"type": "array", "items": T}),
                    _query("priority", {"type": "boolean"}),  # not the record's priority
                    _query("offset", {"type": "integer"}),
                    _query("search", {"type": "integer"}),  # a query of no text
                ],
                "responses": _ok(PAGE),
            },
        },
        "/tickets/count": {
            "get": {
                "operationId": "countTickets",
                "parameters": [_query("status", STATUS)],
                "responses": _ok({"type": "object", "properties": {"count": {"type": "integer"}}}),
            }
        },
        "/tickets/{ticket_id}": {
            "get": {
                "operationId": "getTicket",
                "parameters": [_path("ticket_id")],
                "responses": _ok({"type": "object", "properties": {"data": TICKET}}),
            },
            "patch": {
                "operationId": "updateTicket",
                "parameters": [_path("ticket_id")],
                "requestBody": _body(
                    {
                        "type": "object",
                        "properties": {
                            "title": T,
                            "priority": {"type": "integer", "default": 3},  # absent: unchanged
                            "status": STATUS,
                        },
                    }
                ),
                "responses": _ok(TICKET),
            },
            "delete": {
                "operationId": "deleteTicket",
                "parameters": [_path("ticket_id")],
                "responses": _ok(
                    {"type": "object", "properties": {"id": T, "deleted": {"type": "boolean"}}}
                ),
            },
        },
        "/tickets/{ticket_id}/close": {
            "post": {
                "operationId": "closeTicket",
                "parameters": [_path("ticket_id")],
                "requestBody": _body({"type": "object", "properties": {"reason": T}}),
                "responses": _ok(TICKET),
            }
        },
        "/tickets/{ticket_id}/assign": {
            "post": {
                "operationId": "assignTicket",
                "parameters": [_path("ticket_id")],
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["assignee_email"],
                        "properties": {"assignee_email": {"type": "string", "format": "email"}},
                    }
                ),
                "responses": _ok(
                    {"type": "object", "properties": {"result": {"type": "string"}, "ticket_id": T}}
                ),
            }
        },
    },
}

WHOLE = {k: k for k in TICKET["properties"]}  # a view showing every key
TOOLS = {
    "createCustomer": ("create", "customers", True, "record", None, None, {}),
    "getCustomer": ("read", "customers", False, "record", None, None, {}),
    "createTicket": ("create", "tickets", True, "view", None, None, WHOLE),
    "listTickets": (
        "list",
        "tickets",
        False,
        "page",
        "TicketCursorPage",
        "tickets",
        {"total": "total", "next_cursor": "next_cursor"},
    ),
    "countTickets": ("count", "tickets", False, "count", None, None, {"count": "total"}),
    "getTicket": ("read", "tickets", False, "envelope", "TicketEnvelope", "data", {}),
    "updateTicket": ("update", "tickets", True, "view", None, None, WHOLE),
    "deleteTicket": (
        "delete",
        "tickets",
        True,
        "deletion",
        "Deletion",
        None,
        {"id": "id", "deleted": "true"},
    ),
    "closeTicket": ("action", "tickets", True, "view", None, None, WHOLE),
    "assignTicket": ("action", "tickets", True, "answer", None, None, {"ticket_id": "data.id"}),
}
PARAMS = {
    "createCustomer": [
        ("name", "field", "name", "eq", None, True, None, "PersonName"),
        ("email", "field", "email", "eq", None, False, None, "Email"),
    ],
    "getCustomer": [("customer_id", "id", None, "eq", "customers", True, None, 'Ref["customers"]')],
    "createTicket": [
        ("title", "field", "title", "eq", None, True, None, "str"),
        ("priority", "field", "priority", "eq", None, False, 3, "int"),
        ("customer_id", "field", "customer_id", "eq", "customers", True, None, 'Ref["customers"]'),
        ("tags", "field", "tags", "eq", None, False, None, "list[str]"),
        ("assignee_email", "field", "assignee_email", "eq", None, False, None, "Email"),
        ("description", "field", "description", "eq", None, False, None, "str"),
        ("notify", "field", "notify", "eq", None, False, None, "bool"),
    ],
    "listTickets": [
        ("status", "filter", "status", "eq", None, False, None, "Status"),
        ("min_priority", "range", "priority", "ge", None, False, None, "int"),
        ("created_after", "range", "created_at", "ge", None, False, None, "DateTime"),
        ("q", "query", None, "eq", None, False, None, "str"),
        ("limit", "limit", None, "eq", None, False, 50, "int"),
        ("cursor", "cursor", None, "eq", None, False, None, "str"),
        ("tag", "ignored", None, "eq", None, False, None, "str"),
        ("customer_id", "filter", "customer_id", "eq", None, False, None, 'Ref["customers"]'),
        ("amount_max", "range", "amount", "le", None, False, None, "float"),
        ("color", "ignored", None, "eq", None, False, None, "str"),
        ("tags", "filter", "tags", "eq", None, False, None, "list[str]"),
        ("priority", "ignored", None, "eq", None, False, None, "bool"),
        ("offset", "offset", None, "eq", None, False, 0, "int"),
        ("search", "ignored", None, "eq", None, False, None, "int"),
    ],
    "countTickets": [("status", "filter", "status", "eq", None, False, None, "Status")],
    "getTicket": [("ticket_id", "id", None, "eq", "tickets", True, None, 'Ref["tickets"]')],
    "updateTicket": [
        ("ticket_id", "id", None, "eq", "tickets", True, None, 'Ref["tickets"]'),
        ("title", "field", "title", "eq", None, False, None, "str"),
        ("priority", "field", "priority", "eq", None, False, None, "int"),
        ("status", "field", "status", "eq", None, False, None, "Status"),
    ],
    "deleteTicket": [("ticket_id", "id", None, "eq", "tickets", True, None, 'Ref["tickets"]')],
    "closeTicket": [
        ("ticket_id", "id", None, "eq", "tickets", True, None, 'Ref["tickets"]'),
        ("reason", "ignored", None, "eq", None, False, None, "str"),
    ],
    "assignTicket": [
        ("ticket_id", "id", None, "eq", "tickets", True, None, 'Ref["tickets"]'),
        ("assignee_email", "field", "assignee_email", "eq", None, True, None, "Email"),
    ],
}


@pytest.fixture
def plan() -> ServicePlan:
    specs, errors = ingest_document(orjson.dumps(HELPDESK), source_file="helpdesk.json")
    assert specs, errors
    return plan_service(specs)


def _tools(plan: ServicePlan) -> dict[str, ToolPlan]:
    assert plan.skipped == {}
    return {t.name: t for t in plan.tools}


def test_each_tools_verb_resource_and_output(plan: ServicePlan) -> None:
    got = {
        name: (
            t.verb,
            t.resource,
            t.write,
            t.output.shape.value,
            t.output.cls,
            t.output.items,
            t.output.meta,
        )
        for name, t in _tools(plan).items()
    }
    assert got == TOOLS


def test_each_parameters_role_target_bound_reference_and_default(plan: ServicePlan) -> None:
    got = {
        name: [
            (
                p.name,
                p.role.value,
                p.target,
                p.op,
                p.ref_collection,
                p.required,
                None if repr(p.default) == "MISSING" else p.default,
                p.type.annotation,
            )
            for p in t.params
        ]
        for name, t in _tools(plan).items()
    }
    assert got == PARAMS


def test_what_writes_fill_in_and_what_actions_do(plan: ServicePlan) -> None:
    tools = _tools(plan)
    assert tools["createTicket"].server_values == {"status": '"pending"', "created_at": "now"}
    assert tools["createCustomer"].server_values == {}
    close = tools["closeTicket"].action
    assert close is not None
    assert (close.word, close.status_field, close.target, close.stamp_field) == (
        "close",
        "status",
        "closed",
        "closed_at",
    )
    assert (close.assignee, close.blocked, close.reopens, close.history) == (None, (), False, False)
    assign = tools["assignTicket"].action
    assert assign is not None
    assert (assign.word, assign.status_field, assign.target, assign.stamp_field) == (
        "assign",
        None,
        None,
        None,
    )
    assert (assign.assignee, assign.blocked) == (("assignee_email", "assignee_email"), ("closed",))
    assert tools["listTickets"].notes == ["tag", "color", "priority", "search"]
    assert tools["closeTicket"].notes == ["reason"]
    assert all(not t.notes for n, t in tools.items() if n not in ("listTickets", "closeTicket"))
    assert all(
        t.action is None for n, t in tools.items() if n not in ("closeTicket", "assignTicket")
    )
