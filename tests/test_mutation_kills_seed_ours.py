"""What a compiled service seeds for records by what they show (mutants of
library/compiler/emit_seed.py that survived the other tests, bench/mutation.py): a record
that names no person or company outside (a project with a title) is our own, in our time
zone and currency, where a lead that names its company is in that company's; a stamp the
spec requires (``solved_at``) is on every record whatever its status, an optional one only on
records whose status has reached it; and a record held at a venue is an event, lasting hours
to days, not a meeting's minutes."""

from __future__ import annotations

import datetime as dt

import orjson

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_refs import _collection

TEXT = {"type": "string"}
MOMENT = {"type": "string", "format": "date-time"}
SIZE = 8


def _seeded(path: str, noun: str, record: dict, size: int = SIZE) -> list[dict]:
    """The records a compiled one-collection service seeds."""
    return _seeded_world(path, noun, record, size)[1]


def _seeded_world(path: str, noun: str, record: dict, size: int = SIZE) -> tuple[World, list]:
    document = {
        "openapi": "3.0.0",
        "info": {"title": noun, "version": "1"},
        "paths": _collection(path, noun, record),
    }
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=size)
    state = world.services[cls.name].state.model_dump(mode="json", by_alias=True)
    records = list(state[path].values())
    assert len(records) == size
    return world, records


def test_a_record_naming_no_one_outside_is_in_our_time_zone_and_currency() -> None:
    org = seed_pool().org
    assert org is not None
    record = _record(["title", "timezone", "currency"], title=TEXT, timezone=TEXT, currency=TEXT)
    for project in _seeded("projects", "Project", record):
        assert (project["timezone"], project["currency"]) == (org.timezone, org.currency), project


def test_a_record_naming_its_company_is_in_that_companys_time_zone_and_currency() -> None:
    pool = seed_pool()
    record = _record(
        ["company_name", "timezone", "currency"],
        company_name=TEXT,
        timezone=TEXT,
        currency=TEXT,
    )
    for lead in _seeded("leads", "Lead", record):
        company = pool.company(lead["company_name"])
        assert (lead["timezone"], lead["currency"]) == (company.timezone, company.currency), lead


TICKET_STATUS = {"type": "string", "enum": ["open", "pending", "solved", "closed"]}


def test_a_required_stamp_is_on_every_record_whatever_its_status() -> None:
    # The optional ``closed_at`` makes the status one the stamps depend on.
    record = _record(
        ["subject", "status", "solved_at"],
        subject=TEXT,
        status=TICKET_STATUS,
        solved_at=MOMENT,
        closed_at=MOMENT,
    )
    tickets = _seeded("tickets", "Ticket", record)
    assert {t["status"] for t in tickets} - {"solved", "closed"}, "no open ticket: no test"
    assert all(t["solved_at"] for t in tickets), tickets
    for ticket in tickets:
        assert bool(ticket.get("closed_at")) == (ticket["status"] == "closed"), ticket


def test_an_optional_stamp_is_only_on_records_whose_status_reached_it() -> None:
    record = _record(["subject", "status"], subject=TEXT, status=TICKET_STATUS, solved_at=MOMENT)
    tickets = _seeded("tickets", "Ticket", record)
    assert {t["status"] for t in tickets} >= {"solved", "open"}, tickets
    for ticket in tickets:  # a closed ticket was solved on the way
        assert bool(ticket.get("solved_at")) == (ticket["status"] in ("solved", "closed")), ticket


def test_a_record_held_at_a_venue_is_an_event_of_hours_to_days() -> None:
    record = _record(
        ["title", "venue", "starts_at", "ends_at"],
        title=TEXT,
        venue=TEXT,
        starts_at=MOMENT,
        ends_at=MOMENT,
    )
    spans = [
        dt.datetime.fromisoformat(gig["ends_at"]) - dt.datetime.fromisoformat(gig["starts_at"])
        for gig in _seeded("gigs", "Gig", record)
    ]
    hour = dt.timedelta(hours=1)
    assert all(span >= 2 * hour and span % hour == dt.timedelta(0) for span in spans), spans
    assert max(spans) > 4 * hour, spans  # longer than any meeting


def test_a_status_is_mostly_an_open_one_though_most_listed_are_final() -> None:
    status = {"type": "string", "enum": ["open", "closed", "canceled", "archived", "expired"]}
    record = _record(["subject", "status"], subject=TEXT, status=status)
    states = [t["status"] for t in _seeded("tickets", "Ticket", record, size=30)]
    assert states.count("open") > len(states) / 2, states  # one state in five, drawn evenly
    assert set(states) - {"open"}, states  # yet the final ones are seeded too
