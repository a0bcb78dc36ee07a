"""The calendar service, exercised through ``World.call`` (the path agents use)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from library.runtime import World
from library.seed import seed_pool
from library.services.calendar import Calendar, CalendarState
from library.services.crm import Crm

from .service_calls import ServiceCalls

_calls = ServiceCalls("calendar")
ok, read, err = _calls.ok, _calls.read, _calls.err

SEED = 0
SIZE = 20
DAY = dt.datetime(2026, 4, 6, tzinfo=dt.UTC)  # a Monday after every seeded event
ALICE, BOB, CAROL = "alice@example.com", "bob@example.com", "carol@example.com"


def at(hour: int, minute: int = 0, day: dt.datetime = DAY) -> str:
    return day.replace(hour=hour, minute=minute).isoformat()


def make_world(seed: int = SEED, size: int = SIZE) -> World:
    world = World([Calendar()], seed=seed)
    world.seed_states(seed_pool(seed), size)
    return world


def state(world: World) -> CalendarState:
    return world.services["calendar"].state  # type: ignore[return-value]


def stamp(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


@pytest.fixture
def world() -> World:
    return make_world()


@pytest.fixture
def empty() -> World:
    """An unseeded calendar: only the events a test creates."""
    return World([Calendar()], seed=SEED)


@pytest.fixture
def event(world: World) -> dict:
    return ok(
        world,
        "create_event",
        title="Budget review",
        start=at(10),
        end=at(11),
        attendees=[ALICE],
        location="Room 7",
        description="Q2 budget",
    )


# -- schemas, seeding, serialisation -----------------------------------------------------------
def test_tool_schemas_are_fully_described() -> None:
    assert len(Calendar.tools) >= 8
    for td in Calendar.tools.values():
        assert td.description, td.name
        for prop, schema in td.input_schema["properties"].items():
            assert schema.get("description"), f"{td.name}.{prop} has no description"
    writes = {name for name, td in Calendar.tools.items() if td.write}
    assert writes == {
        "create_event",
        "update_event",
        "delete_event",
        "cancel_event",
        "add_attendee",
        "remove_attendee",
    }


def test_seeding_is_deterministic_per_seed() -> None:
    assert make_world(0).state_hash() == make_world(0).state_hash()
    assert make_world(0).state_hash() != make_world(1).state_hash()


def test_seeded_calendar_is_realistic(world: World) -> None:
    pool = seed_pool(SEED)
    st = state(world)
    assert st.owner == pool.people[0].email
    emails = {p.email for p in pool.people}
    events = list(st.events.values())
    assert len(events) == SIZE
    for event in events:
        assert event.end > event.start
        assert event.organizer in emails and set(event.attendees) <= emails
        assert st.owner in (event.organizer, *event.attendees)
        assert event.organizer not in event.attendees
        assert event.start.tzinfo is not None
    assert {e.status for e in events} == {"confirmed", "cancelled"}
    assert any(e.start < world.now() for e in events) and any(e.start > world.now() for e in events)


def test_seeded_attendees_are_crm_contacts() -> None:
    world = World([Crm(), Calendar()], seed=SEED)
    world.seed_states(seed_pool(SEED), SIZE)
    contacts = {c.email for c in world.services["crm"].state.contacts.values()}
    people = {a for e in state(world).events.values() for a in (e.organizer, *e.attendees)}
    shared = contacts & people
    assert shared
    address = sorted(shared)[0]
    assert read(world, "list_events", attendee=address)


def test_state_round_trips_through_json(world: World, event: dict) -> None:
    ok(world, "cancel_event", event_id=event["id"], reason="moved")
    st = state(world)
    again = CalendarState.model_validate_json(st.model_dump_json())
    assert again == st


def test_read_tools_leave_the_state_unchanged(world: World, event: dict) -> None:
    read(world, "get_event", event_id=event["id"])
    read(world, "list_events", attendee=ALICE)
    read(world, "search_events", query="review")
    read(
        world,
        "find_free_slot",
        attendees=[ALICE],
        duration_minutes=30,
        window_start=at(9),
        window_end=at(17),
    )


# -- create / get -------------------------------------------------------------------------------
def test_create_event_then_read_it_back(world: World, event: dict) -> None:
    owner = state(world).owner
    assert event["organizer"] == owner
    assert event["attendees"] == [ALICE]
    assert event["status"] == "confirmed"
    assert stamp(event["start"]) == DAY.replace(hour=10)
    assert read(world, "get_event", event_id=event["id"]) == event
    assert [e["id"] for e in read(world, "list_events", attendee=ALICE)] == [event["id"]]
    assert event["id"] in {e["id"] for e in read(world, "list_events", attendee=owner, limit=500)}
    assert [e["id"] for e in read(world, "search_events", query="budget review")] == [event["id"]]


def test_create_event_normalises_input(empty: World) -> None:
    made = ok(
        empty,
        "create_event",
        title="Sync",
        start="2026-04-06T10:00:00",  # no zone: read as UTC
        end="2026-04-06T12:30:00+02:00",
        attendees=[BOB, "BOB@example.com", CAROL],
        organizer=CAROL,
    )
    assert stamp(made["start"]) == DAY.replace(hour=10)
    assert made["attendees"] == [BOB]  # duplicates and the organizer dropped
    assert made["organizer"] == CAROL


def test_create_event_refusals(world: World) -> None:
    msg = err(world, "create_event", "invalid_argument", title="x", start=at(11), end=at(10))
    assert "end" in msg
    err(world, "create_event", "invalid_argument", title="x", start=at(10), end=at(10))
    far = (DAY + dt.timedelta(days=15)).isoformat()
    err(world, "create_event", "invalid_argument", title="x", start=at(10), end=far)
    err(world, "create_event", "invalid_argument", title=" ", start=at(10), end=at(11))
    err(
        world,
        "create_event",
        "invalid_argument",
        title="x",
        start=at(10),
        end=at(11),
        attendees=["nope"],
    )
    err(world, "create_event", "invalid_argument", title="x", start="tomorrow", end=at(11))


def test_get_event_not_found(world: World) -> None:
    assert "evt_nope" in err(world, "get_event", "not_found", event_id="evt_nope")


# -- list / search ------------------------------------------------------------------------------
def test_list_events_sorted_and_paginated(world: World) -> None:
    everything = read(world, "list_events", limit=500)
    assert len(everything) == SIZE
    starts = [stamp(e["start"]) for e in everything]
    assert starts == sorted(starts)
    assert read(world, "list_events", limit=4, offset=3) == everything[3:7]
    err(world, "list_events", "invalid_argument", limit=501)
    err(world, "list_events", "invalid_argument", status="tentative")


def test_list_events_filters(world: World) -> None:
    events = list(state(world).events.values())
    now = world.now()
    later = read(world, "list_events", start_after=now.isoformat(), limit=500)
    assert later and len(later) == sum(1 for e in events if e.start >= now)
    earlier = read(world, "list_events", start_before=now.isoformat(), limit=500)
    assert len(earlier) + len(later) == len(events)
    cancelled = read(world, "list_events", status="cancelled", limit=500)
    assert cancelled and all(e["status"] == "cancelled" for e in cancelled)
    assert len(cancelled) == sum(1 for e in events if e.status == "cancelled")
    organizer = next(e.organizer for e in events if e.organizer != state(world).owner)
    mine = read(world, "list_events", attendee=organizer.upper(), limit=500)
    assert mine and all(
        organizer in (e["organizer"], *e["attendees"]) for e in mine
    )  # organizing counts as taking part
    window = read(
        world,
        "list_events",
        start_after=(now - dt.timedelta(days=2)).isoformat(),
        start_before=(now + dt.timedelta(days=2)).isoformat(),
        limit=500,
    )
    assert all(abs(stamp(e["start"]) - now) <= dt.timedelta(days=2) for e in window)


def test_search_events(world: World, event: dict) -> None:
    assert event["id"] in {e["id"] for e in read(world, "search_events", query="ROOM 7")}
    assert event["id"] in {e["id"] for e in read(world, "search_events", query="q2 budget")}
    assert read(world, "search_events", query="no-such-meeting") == []
    seeded = next(iter(state(world).events.values()))
    hits = read(world, "search_events", query=seeded.title, limit=500)
    assert seeded.id in {e["id"] for e in hits}
    err(world, "search_events", "invalid_argument", query="")


# -- update / delete / cancel -------------------------------------------------------------------
def test_update_event(world: World, event: dict) -> None:
    world.advance(3600)
    moved = ok(world, "update_event", event_id=event["id"], start=at(14), end=at(15), title="QBR")
    assert moved["title"] == "QBR" and moved["location"] == "Room 7"
    assert stamp(moved["start"]) == DAY.replace(hour=14)
    assert stamp(moved["updated_at"]) == world.now() != stamp(event["created_at"])
    assert read(world, "get_event", event_id=event["id"]) == moved
    shorter = ok(world, "update_event", event_id=event["id"], end=at(14, 30))
    assert stamp(shorter["start"]) == DAY.replace(hour=14)


def test_update_event_refusals(world: World, event: dict) -> None:
    msg = err(world, "update_event", "invalid_argument", event_id=event["id"], start=at(12))
    assert "end" in msg  # the new start would fall after the kept end
    err(world, "update_event", "invalid_argument", event_id=event["id"], title="  ")
    err(world, "update_event", "not_found", event_id="evt_nope", title="x")
    ok(world, "cancel_event", event_id=event["id"])
    err(world, "update_event", "failed_precondition", event_id=event["id"], title="x")


def test_delete_event(world: World, event: dict) -> None:
    gone = ok(world, "delete_event", event_id=event["id"])
    assert gone["id"] == event["id"]
    err(world, "get_event", "not_found", event_id=event["id"])
    assert read(world, "list_events", attendee=ALICE) == []
    err(world, "delete_event", "not_found", event_id=event["id"])


def test_cancel_event(world: World, event: dict) -> None:
    cancelled = ok(world, "cancel_event", event_id=event["id"], reason="room unavailable")
    assert cancelled["status"] == "cancelled"
    assert cancelled["description"] == "Q2 budget\n\nCancelled: room unavailable"
    assert read(world, "get_event", event_id=event["id"])["status"] == "cancelled"
    assert event["id"] in {e["id"] for e in read(world, "list_events", status="cancelled")}
    msg = err(world, "cancel_event", "failed_precondition", event_id=event["id"])
    assert "cancelled" in msg
    err(world, "cancel_event", "not_found", event_id="evt_nope")


# -- attendees ----------------------------------------------------------------------------------
def test_add_and_remove_attendees(world: World, event: dict) -> None:
    added = ok(world, "add_attendee", event_id=event["id"], email=BOB)
    assert added["attendees"] == [ALICE, BOB]
    assert event["id"] in {e["id"] for e in read(world, "list_events", attendee=BOB)}
    assert "already" in err(world, "add_attendee", "conflict", event_id=event["id"], email=BOB)
    err(world, "add_attendee", "conflict", event_id=event["id"], email=ALICE.upper())
    err(world, "add_attendee", "conflict", event_id=event["id"], email=event["organizer"])
    err(world, "add_attendee", "invalid_argument", event_id=event["id"], email="bob")
    err(world, "add_attendee", "not_found", event_id="evt_nope", email=BOB)

    removed = ok(world, "remove_attendee", event_id=event["id"], email=ALICE)
    assert removed["attendees"] == [BOB]
    err(world, "remove_attendee", "not_found", event_id=event["id"], email=ALICE)
    err(
        world,
        "remove_attendee",
        "failed_precondition",
        event_id=event["id"],
        email=event["organizer"],
    )

    ok(world, "cancel_event", event_id=event["id"])
    err(world, "add_attendee", "failed_precondition", event_id=event["id"], email=CAROL)
    err(world, "remove_attendee", "failed_precondition", event_id=event["id"], email=BOB)


# -- free slots ---------------------------------------------------------------------------------
def busy(world: World, who: str, start: str, end: str, **extra: Any) -> dict:
    return ok(world, "create_event", title="Busy", start=start, end=end, attendees=[who], **extra)


def slot(world: World, people: list[str], minutes: int, lo: str, hi: str) -> tuple[int, int]:
    found = read(
        world,
        "find_free_slot",
        attendees=people,
        duration_minutes=minutes,
        window_start=lo,
        window_end=hi,
    )
    start, end = stamp(found["start"]), stamp(found["end"])
    assert end - start == dt.timedelta(minutes=minutes)
    return start.hour, start.minute


def test_find_free_slot(empty: World) -> None:
    busy(empty, ALICE, at(9), at(10))
    busy(empty, ALICE, at(10, 30), at(11))
    busy(empty, BOB, at(11), at(12), organizer=BOB)  # Bob organizes: busy too
    assert slot(empty, [ALICE], 30, at(9), at(17)) == (10, 0)
    assert slot(empty, [ALICE], 45, at(9), at(17)) == (11, 0)
    assert slot(empty, [ALICE, BOB], 30, at(9), at(17)) == (10, 0)
    assert slot(empty, [ALICE, BOB], 60, at(9), at(17)) == (12, 0)
    assert slot(empty, [CAROL], 60, at(9), at(17)) == (9, 0)
    assert slot(empty, [ALICE], 30, at(9, 15), at(17)) == (10, 0)  # window starts mid-event
    assert slot(empty, [ALICE], 60, at(16), at(17)) == (16, 0)  # exactly fills the window


def test_find_free_slot_ignores_cancelled_events(empty: World) -> None:
    blocker = busy(empty, ALICE, at(9), at(17))
    err(
        empty,
        "find_free_slot",
        "not_found",
        attendees=[ALICE],
        duration_minutes=30,
        window_start=at(9),
        window_end=at(17),
    )
    ok(empty, "cancel_event", event_id=blocker["id"])
    assert slot(empty, [ALICE], 30, at(9), at(17)) == (9, 0)


def test_find_free_slot_refusals(empty: World) -> None:
    busy(empty, ALICE, at(9), at(16, 30))
    msg = err(
        empty,
        "find_free_slot",
        "not_found",
        attendees=[ALICE],
        duration_minutes=60,
        window_start=at(9),
        window_end=at(17),
    )
    assert ALICE in msg
    base = {"attendees": [ALICE], "duration_minutes": 30, "window_start": at(9)}
    err(empty, "find_free_slot", "invalid_argument", **{**base, "window_end": at(8)})
    err(
        empty,
        "find_free_slot",
        "invalid_argument",
        **{**base, "attendees": [], "window_end": at(17)},
    )
    err(
        empty,
        "find_free_slot",
        "invalid_argument",
        **{**base, "duration_minutes": 0, "window_end": at(17)},
    )
    err(
        empty,
        "find_free_slot",
        "invalid_argument",
        **{**base, "duration_minutes": 600, "window_end": at(17)},
    )
