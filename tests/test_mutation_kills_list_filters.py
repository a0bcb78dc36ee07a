"""A list filter on a list field (mutants of library/compiler/tools.py that survived the other
tests, bench/mutation.py): ``tags=[...]`` on tickets that carry ``tags`` lists the tickets
holding every tag given (a one-value ``tag=x`` tests membership: test_conformance_filters),
not every ticket; no ticket holds both of two tags no ticket shares."""

from __future__ import annotations

import pytest

from tests.test_mutation_kills_emit_tools import Client, _body, _ok, verified_service

TEXT = {"type": "string"}
TAGS = {"type": "array", "items": TEXT}
TICKET = {
    "type": "object",
    "required": ["id", "title", "tags"],
    "properties": {"id": TEXT, "title": TEXT, "tags": TAGS},
}
NEW_TICKET = {"type": "object", "required": ["title"], "properties": {"title": TEXT, "tags": TAGS}}
DESK = {
    "openapi": "3.0.0",
    "info": {"title": "Desk", "version": "1"},
    "paths": {
        "/tickets": {
            "post": {
                "operationId": "createTicket",
                "requestBody": _body(NEW_TICKET),
                "responses": _ok(TICKET),
            },
            "get": {
                "operationId": "listTickets",
                "parameters": [{"name": "tags", "in": "query", "schema": TAGS}],
                "responses": _ok({"type": "array", "items": TICKET}),
            },
        }
    },
}


# Built for each test, not once per module (see test_mutation_kills_emit_tools).
@pytest.fixture
def client() -> Client:
    return Client(verified_service(DESK))


def test_a_list_of_tags_lists_the_records_holding_every_one(client: Client) -> None:
    client.ok("createTicket", title="A", tags=["billing", "vip"])
    client.ok("createTicket", title="B", tags=["hardware"])
    client.ok("createTicket", title="C", tags=["billing"])

    def titles(tags: list[str]) -> list[str]:
        return [t["title"] for t in client.ok("listTickets", tags=tags)]

    assert titles(["billing"]) == ["A", "C"]
    assert titles(["billing", "vip"]) == ["A"]
    assert titles(["vip", "hardware"]) == []
    assert titles([]) == ["A", "B", "C"]
