"""Seeded records agree with their state machines and the clock, on specs the rules were not
written for (a cabin rental, a grants portal) and on the bundled services alike: few of the
happenings one attends are under way when the world starts, one waiting for its guest lies
ahead, one guest holds one stay a night whatever its state, and a record's state is one its
parent's allows (nothing open under a parent closed or cancelled, no applicant before the
parent is posted)."""

from __future__ import annotations

import datetime as dt
import functools
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.corpus import bundled_specs
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from library.seed.pool import PARENT_ENDED, SeedPool, placed

SEEDS = (0, 5, 11)
SIZE = 40

_BOOKINGS = """
openapi: 3.0.3
info: {title: Lakeside Cabins, version: "1.0"}
paths:
  /guests:
    get:
      operationId: list_guests
      summary: List guests.
      responses:
        "200":
          description: Guests.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Guest"}}
  /bookings:
    get:
      operationId: list_bookings
      summary: List bookings.
      responses:
        "200":
          description: Bookings.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Booking"}}
  /bookings/{booking_id}:
    get:
      operationId: get_booking
      summary: Get a booking.
      parameters:
        - {name: booking_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The booking.
          content: {application/json: {schema: {$ref: "#/components/schemas/Booking"}}}
components:
  schemas:
    Guest:
      type: object
      required: [id, name, email]
      properties:
        id: {type: string}
        name: {type: string}
        email: {type: string, format: email}
    Booking:
      type: object
      required: [id, guest_id, guest_email, check_in, check_out, status]
      properties:
        id: {type: string}
        guest_id: {type: string, description: The guest staying.}
        guest_name: {type: string}
        guest_email: {type: string, format: email}
        check_in: {type: string, format: date}
        check_out: {type: string, format: date}
        status: {type: string, enum: [confirmed, checked_in, checked_out, cancelled]}
        created_at: {type: string, format: date-time}
        updated_at: {type: string, format: date-time}
"""

_GRANTS = """
openapi: 3.0.3
info: {title: Fundwell Grants, version: "1.0"}
paths:
  /calls:
    get:
      operationId: list_calls
      summary: List funding calls.
      responses:
        "200":
          description: Calls.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/FundingCall"}}
  /proposals:
    get:
      operationId: list_proposals
      summary: List proposals.
      responses:
        "200":
          description: Proposals.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Proposal"}}
components:
  schemas:
    FundingCall:
      type: object
      required: [id, title, status]
      properties:
        id: {type: string}
        title: {type: string}
        status: {type: string, enum: [draft, open, closed, cancelled]}
        created_at: {type: string, format: date-time}
    Proposal:
      type: object
      required: [id, call_id, applicant_email, status]
      properties:
        id: {type: string}
        call_id: {type: string, description: The funding call it answers.}
        applicant_email: {type: string, format: email}
        status:
          type: string
          enum: [submitted, under_review, shortlisted, awarded, rejected, withdrawn]
        created_at: {type: string, format: date-time}
"""

_WORKSHOPS = """
openapi: 3.0.3
info: {title: Ridgeway Workshops, version: "1.0"}
paths:
  /workshops:
    get:
      operationId: list_workshops
      summary: List workshops.
      responses:
        "200":
          description: Workshops.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Workshop"}}
  /enrollments:
    get:
      operationId: list_enrollments
      summary: List enrollments.
      responses:
        "200":
          description: Enrollments.
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Enrollment"}}
components:
  schemas:
    Workshop:
      type: object
      required: [id, title, starts_at, ends_at, venue_name]
      properties:
        id: {type: string}
        title: {type: string}
        venue_name: {type: string}
        starts_at: {type: string, format: date-time}
        ends_at: {type: string, format: date-time}
        created_at: {type: string, format: date-time}
    Enrollment:
      type: object
      required: [id, workshop_id, attendee_email, status]
      properties:
        id: {type: string}
        workshop_id: {type: string, description: The workshop enrolled in.}
        attendee_email: {type: string, format: email}
        status: {type: string, enum: [enrolled, attended, no_show, cancelled]}
        created_at: {type: string, format: date-time}
"""

# States of a happening that say someone is there now; and those that end a record.
THERE = frozenset({"checked_in", "picked_up", "live", "in_progress", "boarding"})
WAITING = frozenset({"confirmed", "reserved", "booked", "scheduled", "ticketed"})
ENDED = frozenset(
    {"cancelled", "canceled", "rejected", "withdrawn", "done", "wont_do", "hired", "awarded",
     "completed", "closed", "declined"}
)  # fmt: skip


@functools.cache
def _class(name: str) -> type:
    """A service compiled from a spec the seeding rules were not written for, or bundled."""
    text = {"cabins": _BOOKINGS, "grants": _GRANTS, "workshops": _WORKSHOPS}.get(name)
    if text is None:
        return load_service(compile_service(bundled_specs([name])[name]).source)
    with tempfile.TemporaryDirectory() as folder:  # (the file's name names the service)
        path = Path(folder) / f"{name}.yaml"
        path.write_text(text)
        specs, _ = ingest_document(path)
    return load_service(compile_service(specs).source)


@functools.cache
def _seeded(name: str, seed: int, size: int = SIZE) -> tuple[dt.datetime, dict[str, Any]]:
    """(now, collection -> records) of service ``name`` seeded with ``seed``."""
    cls = _class(name)
    world = World([cls()], seed=seed)
    world.seed_states(seed_pool(seed), size)
    state = world.services[cls.name].state
    return world.now(), {c: getattr(state, c) for c in type(state).collection_types}


def _state(record: Any, attr: str = "status") -> str:
    value = getattr(record, attr, None)
    return str(getattr(value, "value", value) or "").lower()


def _at(value: Any, hour: int) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    return dt.datetime(value.year, value.month, value.day, hour, tzinfo=dt.UTC)


# (service, collection, start, end, who): stays, rentals, room bookings, meetings
HAPPENINGS = (
    ("cabins", "bookings", "check_in", "check_out", "guest_id"),
    ("hotels", "reservations", "check_in", "check_out", "guest_email"),
    ("car_rental", "rentals", "pickup_at", "dropoff_at", "driver_email"),
    ("workplace", "bookings", "start", "end", "booker_email"),
    ("meetings", "meetings", "starts_at", "", "host_email"),
    ("flights", "bookings", "", "", "booker_email"),
)


@pytest.mark.parametrize(("service", "collection", "start", "end", "who"), HAPPENINGS)
def test_few_happenings_are_under_way_when_the_world_starts(
    service: str, collection: str, start: str, end: str, who: str
) -> None:
    """A plain draw of open states checks in one stay in three ("confirmed" or "checked_in");
    at any hour of a working day only a few are under way, most lie ahead."""
    del start, end, who
    states = [_state(r) for seed in SEEDS for r in _seeded(service, seed)[1][collection].values()]
    there = sum(s in THERE for s in states)
    assert states and there / len(states) < 0.16, (there, len(states))
    assert there > 0  # ... but some are: check-outs and meetings that end have records to act on
    ahead = sum(s in WAITING for s in states)
    assert ahead / len(states) > 0.6, (ahead, len(states))  # most lie ahead, some behind


def test_a_stay_waiting_for_its_guest_lies_ahead() -> None:
    """Where "checked_in" says the guest is there and "checked_out" that they left, a stay
    "confirmed" has not begun: its check-in is after today (none confirmed last week)."""
    seen = 0
    for seed in SEEDS:
        now, state = _seeded("cabins", seed)
        for r in state["bookings"].values():
            if _state(r) == "confirmed":
                seen += 1
                assert r.check_in > now.date(), (r.check_in, now)
            if _state(r) == "checked_out":
                assert r.check_out <= now.date()
    assert seen


def test_a_waiting_state_moves_out_of_now_by_its_record_s_other_states() -> None:
    """``placed``: a state no word of which places it in time lies ahead where its record has
    a state for once it is over (``ahead``), else only leaves now (``not_now``)."""
    now = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    holding = (now - dt.timedelta(days=1), now + dt.timedelta(days=2))
    behind = (now - dt.timedelta(days=9), now - dt.timedelta(days=6))
    rng = random.Random(0)
    assert placed(holding, "confirmed", rng, now, not_now=("confirmed",))[0] > now
    assert placed(behind, "confirmed", rng, now, not_now=("confirmed",)) == behind
    assert placed(behind, "confirmed", rng, now, ahead=("confirmed",))[0] > now
    assert placed(holding, "confirmed", rng, now) == holding  # as before, told nothing
    assert placed(behind, "CONFIRMED", rng, now, ahead=("CONFIRMED",))[0] > now  # any case
    today = (now + dt.timedelta(hours=6), now + dt.timedelta(days=2))  # checks in at three
    assert placed(today, "confirmed", rng, now, not_now=("confirmed",)) == today
    assert placed(today, "confirmed", rng, now, not_now=("confirmed",), dates=True) != today


@pytest.mark.parametrize(
    ("service", "collection", "start", "end", "who"),
    [h for h in HAPPENINGS if h[0] in ("cabins", "hotels", "car_rental")],
)
def test_one_guest_holds_one_stay_a_night_whatever_its_state(
    service: str, collection: str, start: str, end: str, who: str
) -> None:
    """Two stays of one guest (two rentals of one driver) do not overlap, "confirmed" beside
    "checked_in" no more than two "checked_in"; a cancelled one holds no one."""
    repeats = 0
    for seed in SEEDS:
        _, state = _seeded(service, seed, 160)  # more than the pool's 120 people: some return
        by: dict[str, list[tuple[dt.datetime, dt.datetime]]] = {}
        for r in state[collection].values():
            if _state(r) in {"cancelled", "canceled"}:
                continue
            span = (_at(getattr(r, start), 15), _at(getattr(r, end), 11))
            for a, b in by.get(getattr(r, who), []):
                assert not (span[0] < b and a < span[1]), (getattr(r, who), span, (a, b))
            repeats += bool(by.get(getattr(r, who)))
            by.setdefault(getattr(r, who), []).append(span)
    assert repeats  # the rule had guests to keep apart


def test_apart_moves_a_stay_clear_of_the_guest_s_others() -> None:
    pool = seed_pool(0)
    guest = pool.people[0]
    now = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    day = dt.timedelta(days=1)
    held: dict[str, list[Any]] = {}
    first = (now + 3 * day, now + 6 * day)
    assert SeedPool.apart(first, "confirmed", held, now, guest) == first
    moved = SeedPool.apart((now + 4 * day, now + 5 * day), "confirmed", held, now, guest)
    assert moved[0] >= first[1] and moved[1] - moved[0] == day  # after it, as long
    left = (now - 6 * day, now - 3 * day)
    assert SeedPool.apart(left, "checked_out", held, now, guest) == left
    past = SeedPool.apart((now - 5 * day, now - 4 * day), "checked_out", held, now, guest)
    assert past[1] <= left[0]  # a stay that lies behind moves further back
    live = SeedPool.apart((now - day, now + 5 * day), "checked_in", held, now, guest)
    assert live[0] == now - day and live[1] <= first[0] + day  # ends as the next begins
    off = (now + 4 * day, now + 5 * day)
    assert SeedPool.apart(off, "cancelled", held, now, guest) == off
    held = {}
    before = (now - 4 * day, now - day)
    assert SeedPool.apart(before, "checked_out", held, now, guest) == before
    live = SeedPool.apart((now - 2 * day, now + 2 * day), "checked_in", held, now, guest)
    assert live == (before[1], now + 2 * day)  # under way since their last one ended


# (service, child collection, its reference, its state, parent collection, parent's state)
FAMILIES = (
    ("grants", "proposals", "call_id", "status", "calls", "status"),
    ("recruiting", "applications", "job_id", "stage", "jobs", "status"),
    ("issue_tracker", "issues", "sprint_id", "status", "sprints", "state"),
    ("event_registration", "registrations", "event_id", "status", "events", "status"),
)


@pytest.mark.parametrize(("service", "child", "ref", "attr", "parent", "pattr"), FAMILIES)
def test_a_record_s_state_is_one_its_parent_s_allows(
    service: str, child: str, ref: str, attr: str, parent: str, pattr: str
) -> None:
    """Under a parent closed or cancelled nothing hangs open (an issue of a closed sprint is
    done or dropped, an application to a closed job decided); a parent drafted before it
    opens to outsiders (a job not yet posted, a call for proposals) has no applicants."""
    ended_parents = 0
    for seed in SEEDS:
        _, state = _seeded(service, seed)
        parents = state[parent]
        opens = {"open", "published", "on_sale"} & {_state(p, pattr) for p in parents.values()}
        for r in state[child].values():
            above = parents.get(getattr(r, ref))
            if above is None:
                continue
            if _state(above, pattr) in PARENT_ENDED:
                ended_parents += 1
                assert _state(r, attr) in ENDED, (_state(above, pattr), _state(r, attr))
            if opens:
                assert _state(above, pattr) != "draft"
    assert ended_parents  # the rule had records to hold to


def test_under_a_closed_call_a_proposal_was_decided_either_way() -> None:
    """What ends a record well (awarded, hired) is as possible under a closed parent as what
    ends it badly (rejected, withdrawn)."""
    under: set[str] = set()
    for seed in SEEDS:
        _, state = _seeded("grants", seed)
        for r in state["proposals"].values():
            if _state(state["calls"][r.call_id]) == "closed":
                under.add(_state(r))
    assert "awarded" in under and under & {"rejected", "withdrawn"}, under


@pytest.mark.parametrize(
    ("service", "child", "ref", "parent"),
    [
        ("workshops", "enrollments", "workshop_id", "workshops"),
        ("event_registration", "registrations", "event_id", "events"),
    ],
)
def test_no_one_attended_what_lies_ahead(service: str, child: str, ref: str, parent: str) -> None:
    """A registration checked in, an enrollment attended or a no-show, is of an event that
    began: under one that lies ahead the record still waits (enrolled, confirmed)."""
    ahead = 0
    for seed in SEEDS:
        now, state = _seeded(service, seed)
        for r in state[child].values():
            if state[parent][getattr(r, ref)].starts_at > now:
                ahead += 1
                assert _state(r) not in {"checked_in", "attended", "no_show"}, _state(r)
    assert ahead


def test_what_hangs_on_a_record_whose_business_ended_took_place_before() -> None:
    """An interview of an application hired or rejected lies behind: no candidate turned
    down is interviewed next week."""
    ended = 0
    for seed in SEEDS:
        now, state = _seeded("recruiting", seed)
        for r in state["interviews"].values():
            application = state["applications"][r.application_id]
            if application.created_at.date() >= (now - dt.timedelta(days=1)).date():
                continue  # (made since yesterday: no day for anything to have taken place)
            if _state(application, "stage") in {"hired", "rejected"}:
                ended += 1
                assert r.starts_at < now - dt.timedelta(hours=12), (r.starts_at, now)
    assert ended


def test_behind_once_ended_keeps_what_its_parent_allows() -> None:
    now = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    made = now - dt.timedelta(days=9)
    ahead = now + dt.timedelta(days=3)
    rng = random.Random(1)
    for _ in range(20):
        at = SeedPool.behind_once_ended(ahead, "rejected", ("hired", "rejected"), rng, now, made)
        assert made < at < now and at.minute in (0, 30) and at.second == 0
    assert SeedPool.behind_once_ended(ahead, "screen", ("rejected",), rng, now, made) == ahead
    late = now - dt.timedelta(days=2)  # one day left: yesterday, in working hours
    for _ in range(20):
        at = SeedPool.behind_once_ended(ahead, "rejected", ("rejected",), rng, now, late)
        assert at.date() == (now - dt.timedelta(days=1)).date() and 9 <= at.hour <= 16
    just = now - dt.timedelta(days=1)  # made too late for anything to have taken place
    assert SeedPool.behind_once_ended(ahead, "rejected", ("rejected",), rng, now, just) == ahead


def test_a_record_made_between_close_times_is_made_between_them() -> None:
    """An interview booked nine hours after its application was made: its record was made
    in between (not days later, after the interview it schedules)."""
    pool = seed_pool(0)
    now = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    applied = now - dt.timedelta(days=6, hours=1)
    starts = applied + dt.timedelta(hours=9)
    rng = random.Random(3)
    for _ in range(50):
        assert applied < pool.created(rng, now, starts, after=applied) < starts
