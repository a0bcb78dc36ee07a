"""Which parameter names the record a compiled tool acts on (mutants of
library/compiler/records.py that survived the other tests, bench/mutation.py): the path
segment after the record's collection does, whatever it is called (``/tickets/{tid}``): a read
by it answers that ticket, an action by it changes that ticket only, and both verify; and a
new record's id reads as its kind's (``tic_...`` for a ticket, ``ip_...`` for an insurance
policy) when the spec shows no example id; a record that also shows a ``uuid`` before its
``id`` is still keyed by its ``id`` (its list and its read both verify)."""

from __future__ import annotations

import pytest

from library.runtime import World
from library.seed import seed_pool
from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, verified_service

TEXT = {"type": "string"}
TICKET = {
    "type": "object",
    "required": ["id", "title", "status"],
    "properties": {
        "id": TEXT,
        "title": TEXT,
        "status": {"type": "string", "enum": ["open", "closed"]},
    },
}
POLICY = {
    "type": "object",
    "required": ["id", "holder"],
    "properties": {"id": TEXT, "holder": TEXT},
}
TID = {"name": "tid", "in": "path", "required": True, "schema": TEXT}
DESK = {
    "openapi": "3.0.0",
    "info": {"title": "Desk", "version": "1"},
    "paths": {
        "/tickets": {
            "post": {
                "operationId": "createTicket",
                "requestBody": _body(
                    {"type": "object", "required": ["title"], "properties": {"title": TEXT}}
                ),
                "responses": _ok(TICKET),
            },
            "get": {
                "operationId": "listTickets",
                "responses": _ok({"type": "array", "items": TICKET}),
            },
        },
        "/insurance_policies": {
            "post": {
                "operationId": "createInsurancePolicy",
                "requestBody": _body(
                    {"type": "object", "required": ["holder"], "properties": {"holder": TEXT}}
                ),
                "responses": _ok(POLICY),
            }
        },
        "/tickets/{tid}": {
            "get": {"operationId": "getTicket", "parameters": [TID], "responses": _ok(TICKET)}
        },
        "/tickets/{tid}/close": {
            "post": {"operationId": "closeTicket", "parameters": [TID], "responses": _ok(TICKET)}
        },
    },
}


# Built for each test, not once per module (see test_mutation_kills_emit_tools);
# verified_service checks that every tool verifies.
@pytest.fixture
def client() -> Client:
    return Client(verified_service(DESK))


def test_a_record_is_named_by_the_path_segment_after_its_collection(client: Client) -> None:
    first = client.ok("createTicket", title="Printer jam")
    second = client.ok("createTicket", title="VPN down")
    assert client.ok("getTicket", tid=second["id"]) == second
    closed = client.ok("closeTicket", tid=first["id"])
    assert (closed["id"], closed["status"]) == (first["id"], "closed")
    assert client.ok("getTicket", tid=second["id"])["status"] == "open"


def test_a_new_records_id_reads_as_its_kinds(client: Client) -> None:
    assert client.ok("createTicket", title="Printer jam")["id"].startswith("tic_")
    assert client.ok("createInsurancePolicy", holder="Ana Ruiz")["id"].startswith("ip_")


DEVICE = {
    "type": "object",
    "required": ["uuid", "id", "name"],
    "properties": {"uuid": {"type": "string", "format": "uuid"}, "id": TEXT, "name": TEXT},
}
DEVICES = {
    "openapi": "3.0.0",
    "info": {"title": "Devices", "version": "1"},
    "paths": {
        "/devices": {
            "get": {
                "operationId": "listDevices",
                "responses": _ok({"type": "array", "items": DEVICE}),
            }
        },
        "/devices/{id}": {
            "get": {
                "operationId": "getDevice",
                "parameters": [_path("id")],
                "responses": _ok(DEVICE),
            }
        },
    },
}


def test_a_record_showing_a_uuid_beside_its_id_is_keyed_by_its_id() -> None:
    cls = verified_service(DEVICES)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    client = Client(cls)
    client.world = world
    listed = client.ok("listDevices")
    assert len(listed) == 3
    assert client.ok("getDevice", id=listed[1]["id"]) == listed[1]
