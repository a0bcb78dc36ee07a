"""What a tool is told is not always what its record holds: four compiler defects of real
specs (``../shared/specs``), each fixed by a rule read from the spec's structure, names and
descriptions, never from one service:

- a display option ("whether to include the dnssec fields in the Zone objects") is no
  filter, and a filter's declared default does not hide records from a list called without it;
- an update's object of the record's own fields (``updates: {title, priority}``) is a change
  set: its members are written to the record, the object is stored nowhere;
- a body member renamed beside a query parameter (``body_rrsets`` beside ``?rrsets``) writes
  the field of its own name.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Role
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.conftest import SHARED_SPECS

POWERDNS = SHARED_SPECS / "openapi" / "powerdns.local.json"
TICKETS = SHARED_SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"

real = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="../shared/specs is not present")


@functools.cache
def _specs(path: Path) -> list[Any]:
    return ingest_document(path)[0]


@functools.cache
def _cls(path: Path) -> Any:
    return load_service(compile_service(_specs(path)).source)


def _service(path: Path, seed: int = 0) -> Any:
    cls = _cls(path)
    world = World([cls()], seed=seed)
    world.seed_states(seed_pool(), size=8)
    return world.services[cls.name]


def _call(service: Any, tool: str, **args: Any) -> Any:
    """A call as an agent makes it (arguments validated into their types): its data."""
    answer = service.world.call(f"{service.name}__{tool}", args)
    assert answer.get("success"), answer
    return answer["data"]


def _fields(cls: Any, record: str) -> set[str]:
    """The wire names of a generated record class's fields."""
    model = vars(sys.modules[cls.__module__])[record]
    return {f.alias or name for name, f in model.model_fields.items()}


def _tool(path: Path, name: str) -> Any:
    return next(t for t in plan_service(_specs(path)).tools if t.name == name)


def _param(tool: Any, name: str) -> Any:
    return next(p for p in tool.params if p.name == name)


# -- 1. a display option is no filter ------------------------------------------------------------
@real
def test_a_display_option_lists_every_record() -> None:
    """``listZones(server_id, dnssec?)``: "whether to include the dnssec and edited_serial
    fields in the Zone objects" (default true) filtered on ``dnssec == True``, so a zone not
    DNSSEC-signed was in no listing."""
    assert _param(_tool(POWERDNS, "listZones"), "dnssec").role is Role.IGNORED
    service = _service(POWERDNS)
    zones = service.state.zones
    assert len(zones) >= 2
    for i, zone in enumerate(list(zones.values())):  # both kinds, whatever the seed drew
        zones[zone.id] = zone.model_copy(update={"dnssec": bool(i % 2)})
    for server_id in {z.server_id for z in zones.values()}:
        stored = sorted(z.id for z in zones.values() if z.server_id == server_id)
        for args in ({}, {"dnssec": True}, {"dnssec": False}):
            listed = service.listZones(server_id=server_id, **args)
            assert sorted(z.id for z in listed) == stored, args


ISSUES = [
    {"name": "create_issue", "description": "Create an issue.",
     "parameters": {"type": "object", "required": ["title"], "properties": {
         "title": {"type": "string", "description": "Title of the issue."},
         "state": {"type": "string", "enum": ["open", "closed"], "description": "State."}}},
     "response": {"type": "object", "properties": {
         "id": {"type": "string"}, "title": {"type": "string"},
         "state": {"type": "string", "enum": ["open", "closed"]}}}},
    {"name": "list_issues", "description": "List issues.",
     "parameters": {"type": "object", "properties": {
         "state": {"type": "string", "enum": ["open", "closed"], "default": "open",
                   "description": "Only issues in this state."}}},
     "response": {"type": "array", "items": {"type": "object", "properties": {
         "id": {"type": "string"}, "title": {"type": "string"},
         "state": {"type": "string", "enum": ["open", "closed"]}}}}},
]  # fmt: skip


def test_a_filters_default_does_not_hide_records() -> None:
    """A list called without its filter answers every record; the filter narrows only when
    given (``state="open"`` declared the default once hid every closed issue)."""
    doc = b"\n".join(orjson.dumps(t) for t in ISSUES)
    specs, _ = ingest_document(doc, source_file="issues.jsonl")
    service = load_service(compile_service(specs).source)()
    World([service], seed=0)
    opened = service.create_issue(title="Crash on start", state="open")
    closed = service.create_issue(title="Typo in docs", state="closed")
    assert {i.id for i in service.list_issues()} == {opened.id, closed.id}
    assert [i.id for i in service.list_issues(state="closed")] == [closed.id]


# -- 2. a change set is written to the record ----------------------------------------------------
@real
def test_an_updates_object_is_written_to_the_ticket() -> None:
    """``edit_ticket(ticket_id, updates: {title, description, status, priority})`` stored
    ``updates`` as a field of the ticket and changed none of its fields."""
    cls = _cls(TICKETS)
    assert "updates" not in _fields(cls, "Ticket")
    service = _service(TICKETS)
    ticket = next(iter(service.state.tickets.values()))
    _call(service, "edit_ticket", ticket_id=ticket.id, updates={"priority": 5, "title": "Fire"})
    after = service.state.tickets[ticket.id]
    assert (after.priority, after.title) == (5, "Fire")
    assert after.description == ticket.description  # a member left out is left unchanged


@real
def test_a_renamed_body_member_writes_its_own_field() -> None:
    """``createZone(server_id, rrsets: bool (query), body_rrsets: [RRSet])``: the body's
    ``rrsets`` (renamed beside the query's display option) is the zone's ``rrsets``, never a
    field ``body_rrsets``."""
    assert "body_rrsets" not in _fields(_cls(POWERDNS), "Zone")
    service = _service(POWERDNS)
    server_id = next(iter(service.state.servers))
    rrset = {"name": "www.example.org.", "type": "A", "ttl": 300, "changetype": "REPLACE",
             "records": [{"content": "192.0.2.7"}]}  # fmt: skip
    made = _call(
        service,
        "createZone",
        server_id=server_id,
        name="example.org.",
        kind="Native",
        rrsets=False,
        body_rrsets=[rrset],
    )
    zone = service.state.zones[made["id"]]
    assert [(r.name, r.ttl) for r in zone.rrsets] == [("www.example.org.", 300)]
