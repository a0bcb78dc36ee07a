"""Composed writes respect their records' states and the clock: a happening under way or
over keeps its host, its room and its start (a checked-in booking is not handed over, a live
meeting not given another host, a stay under way not cancelled); a record on hold keeps its
substance until it resumes (a paused subscription's seats are not changed); nothing moves on
under a parent that halts it (no interview for a job on hold, closed or not yet posted); a
bill that is overdue went out already and is not sent again; one guest holds one stay at a
time."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest

from library.compose import ComposeConfig, ComposeEnv, make_env
from library.compose.catalog import ACTION, CREATE, UPDATE
from library.compose.coherence import (
    double_booked,
    halts_work_under,
    kept_once_begun,
    may_write,
    over,
    under_way,
    waits_for_resume,
    work_over,
)
from library.compose.corpus import bundled_library
from library.compose.walk import Walker
from tests.compose_walks import finished_walks, forced, initial_world

NOW = "2026-07-18T09:00:00+00:00"


# -- the rules, one record at a time -------------------------------------------------------
def test_a_happening_under_way_keeps_its_host_and_is_not_called_off() -> None:
    booking = {
        "status": "checked_in",
        "starts_at": "2026-07-18T08:30:00Z",
        "ends_at": "2026-07-18T09:45:00Z",
        "organizer_email": "ann@example.com",
        "notes": "",
    }
    assert under_way(booking, "booking", NOW)
    change = {"organizer_email": "bob@example.com"}
    assert kept_once_begun(booking, "booking", NOW, "update_booking", change)
    assert kept_once_begun(booking, "booking", NOW, "cancel_booking", {})
    # its notes, its end and its state stay open (a stay cut short, a booking checked out)
    assert not kept_once_begun(
        booking,
        "booking",
        NOW,
        "update_booking",
        {"notes": "Projector broken", "ends_at": "2026-07-18T10:00:00Z", "status": "completed"},
    )


def test_a_live_meeting_and_a_stay_checked_in_are_under_way_by_their_state() -> None:
    meeting = {"status": "live", "starts_at": "2026-07-18T08:45:00Z", "host_email": "a@x.com"}
    assert kept_once_begun(meeting, "meeting", NOW, "update_meeting", {"host_email": "b@x.com"})
    stay = {"status": "checked_in", "check_in": "2026-07-13", "check_out": "2026-07-21", "rooms": 2}
    assert kept_once_begun(stay, "reservation", NOW, "update_reservation", {"rooms": 1})
    # a stay ahead is still open to change
    ahead = dict(stay, status="confirmed", check_in="2026-08-01", check_out="2026-08-04")
    assert not kept_once_begun(ahead, "reservation", NOW, "update_reservation", {"rooms": 1})


def test_a_happening_over_is_not_edited() -> None:
    event = {
        "status": "confirmed",
        "starts_at": "2026-07-11T09:45:00Z",
        "ends_at": "2026-07-11T10:15:00Z",
        "location": "Room 1",
    }
    assert over(event, "event", NOW)
    assert kept_once_begun(event, "event", NOW, "update_event", {"location": "Berlin HQ"})
    # nor extended: its end was
    assert kept_once_begun(event, "event", NOW, "update_event", {"ends_at": "2026-07-11T11:00Z"})


def test_only_happenings_are_placed_by_the_clock() -> None:
    """An asset "checked in" or a product "live" is no happening: it stays open to edits."""
    assert not under_way({"status": "checked_in", "assignee_email": "a@x.com"}, "asset", NOW)
    assert not under_way({"status": "live", "name": "Widget"}, "product", NOW)
    ticket = {"status": "in_progress", "assignee_email": "a@x.com"}
    assert not kept_once_begun(ticket, "ticket", NOW, "update_ticket", {"priority": "high"})


def test_a_paused_record_keeps_its_substance_until_it_resumes() -> None:
    sub = {"status": "paused", "seats": 3, "owner_email": "a@x.com"}
    assert waits_for_resume(sub, "update_subscription", {"seats": 5}, set())
    assert waits_for_resume(sub, "renew_subscription", {}, set())
    assert not waits_for_resume(sub, "resume_subscription", {}, set())
    assert not waits_for_resume(sub, "cancel_subscription", {}, set())
    # handed to someone else, noted on, or moved out of waiting: fine
    assert not waits_for_resume(sub, "update_subscription", {"owner_email": "b@x"}, {"owner_email"})
    assert not waits_for_resume(sub, "update_subscription", {"seats": 5, "status": "active"}, set())
    assert not waits_for_resume(dict(sub, status="active"), "update_subscription", {"seats": 5}, ())


def test_a_parent_on_hold_closed_or_not_yet_open_halts_the_work_under_it() -> None:
    job_stages = {"status": ("draft", "open", "on_hold", "closed")}
    for state in ("on_hold", "closed", "draft"):
        assert halts_work_under({"status": state}, job_stages) == state
    assert halts_work_under({"status": "open"}, job_stages) is None
    # a draft that goes for a decision gets its parts added (a draft report's expenses)
    report_stages = {"status": ("draft", "submitted", "approved", "reimbursed")}
    assert halts_work_under({"status": "draft"}, report_stages) is None


def test_an_overdue_bill_is_not_sent_again() -> None:
    for state in ("overdue", "past_due", "partially_paid"):
        assert not may_write({"status": state}, ACTION, "send_invoice")
    assert may_write({"status": "draft"}, ACTION, "send_invoice")


def test_work_someone_is_at_now_is_not_handed_over() -> None:
    """A room booking checked in, a meeting live: its host is in it (``work_over``)."""
    booked = {
        "status": "booked",
        "starts_at": "2026-07-19T08:30:00Z",
        "ends_at": "2026-07-19T09:00Z",
    }
    assert not work_over(booked, NOW)
    assert work_over(dict(booked, status="checked_in", starts_at="2026-07-18T08:30:00Z"), NOW)
    assert work_over({"status": "live", "starts_at": "2026-07-18T08:45:00Z"}, NOW)
    assert not work_over({"status": "checked_in", "assignee_email": "a@x.com"}, NOW)  # an asset


def test_one_guest_holds_one_stay_at_a_time() -> None:
    mine = {"id": "r1", "status": "checked_in", "guest_email": "g@x", "check_in": "2026-07-13",
            "check_out": "2026-07-21"}  # fmt: skip
    other = dict(mine, id="r2", status="confirmed", check_in="2026-07-15", check_out="2026-07-17")
    who = ["guest_email"]
    assert double_booked(mine, "reservation", [mine, other], who) is other
    later = dict(other, check_in="2026-07-21", check_out="2026-07-24")  # leaves, then returns
    assert double_booked(mine, "reservation", [later], who) is None
    assert double_booked(mine, "reservation", [dict(other, status="canceled")], who) is None
    assert double_booked(mine, "reservation", [dict(other, guest_email="h@x")], who) is None


# -- composed plans ------------------------------------------------------------------------
SERVICES = [
    "identity", "recruiting", "workplace", "meetings", "calendar", "todo", "mail", "docs",
    "subscriptions", "crm", "hotels", "car_rental", "invoicing", "knowledge_base",
]  # fmt: skip
_THERE = {"checked_in", "live", "picked_up", "boarded", "in_progress"}
_HELD = {"on_hold", "paused", "closed", "draft", "filled", "canceled", "cancelled"}


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    return make_env(library.classes, library.nodes, config=ComposeConfig())


def _writes(walker: Walker) -> list[tuple[Any, dict[str, Any], dict[str, Any]]]:
    """(step, record as the request found it, the state of that service) per write on a
    record that was there before the plan."""
    world = initial_world(walker)
    out = []
    for step in walker.steps:
        e = step.entity
        if not step.write or e is None or e.created:
            continue
        state = world.services[e.service].state
        record = getattr(state, e.collection).get(e.id)
        if record is not None:
            out.append((step, record.model_dump(mode="json"), state))
    return out


def _at(walker: Walker) -> dt.datetime:
    return walker.base.clock


def test_no_plan_edits_a_happening_under_way_or_over(env: ComposeEnv) -> None:
    """No plan hands over, moves or cancels a booking, a meeting or a stay someone is at
    (or one that is over): its notes, its end and its state are all that change."""
    seen = 0
    workflows = forced("offboarding", "scheduling", "travel")
    for walker in finished_walks(env, 120, "s8-happenings", workflows):
        now = _at(walker)
        for step, record, state in _writes(walker):
            if step.tool.kind not in (UPDATE, ACTION):
                continue
            status = str(record.get("status") or "")
            ends = [v for k, v in record.items() if k in ("ends_at", "check_out", "end_time")]
            past = any(
                isinstance(v, str) and dt.datetime.fromisoformat(v.replace("Z", "+00:00")) < now
                for v in ends
                if "T" in str(v)
            )
            moved = {
                k
                for k, v in step.args.items()
                if k in record and record[k] != v and not k.endswith(("notes", "note", "ends_at"))
            }
            if step.tool.collection in ("reservations", "rentals"):
                guest = [k for k in record if k in ("guest_email", "driver_email")]
                others = getattr(state, step.tool.collection).values()
                rows = [o.model_dump(mode="json") for o in others]
                assert double_booked(record, "stay", rows, guest) is None, (record, step.args)
            if step.tool.collection in ("bookings", "meetings", "reservations", "events"):
                seen += 1
                assert not (status in _THERE and moved), (step.tool.name, record, step.args)
                assert not (status in _THERE and "cancel" in step.tool.name), (record, step.args)
                assert not (past and moved), (step.tool.name, record, step.args)
    assert seen >= 5


def test_no_plan_changes_a_paused_subscription(env: ComposeEnv) -> None:
    seen = 0
    for walker in finished_walks(env, 60, "s8-renewal", forced("renewal")):
        for step, record, _ in _writes(walker):
            if step.tool.collection != "subscriptions":
                continue
            seen += 1
            if record.get("status") == "paused" and "status" not in step.args:
                assert step.tool.name.split("_")[0] in ("resume", "cancel"), (record, step.args)
    assert seen >= 5


def test_no_plan_hires_into_a_job_on_hold_closed_or_not_posted(env: ComposeEnv) -> None:
    """No interview is booked and no application moved on for a job that is not open;
    handing an application to another recruiter (the old one leaves) still happens."""
    seen = 0
    for walker in finished_walks(env, 70, "s8-hiring", forced("hiring", "offboarding")):
        world = initial_world(walker)
        state = world.services["recruiting"].state
        for step in walker.steps:
            if not step.write or step.tool.service != "recruiting":
                continue
            application = None
            if step.tool.collection == "applications" and step.entity is not None:
                application = state.applications.get(step.entity.id)
            elif step.tool.kind == CREATE and step.tool.collection == "interviews":
                application = state.applications.get(step.args.get("application_id"))
            ends = step.tool.name.startswith("reject") or step.args.get("stage") == "rejected"
            if application is None or ends:
                continue  # (an application of a closed job is rejected: that goes)
            job = state.jobs.get(application.job_id)
            status = str(getattr(job.status, "value", job.status)) if job is not None else ""
            seen += 1
            handed = set(step.args) <= {"application_id", "recruiter_email"}
            if status in _HELD:
                assert status == "on_hold" and handed, (step.tool.name, status, step.args)
    assert seen >= 5


def test_a_write_on_a_stay_that_overlaps_another_of_its_guest_is_refused(env: ComposeEnv) -> None:
    """A plan never changes a hotel stay its guest holds beside another on the same nights
    (``Writes._double_booked``): the world gives one guest one place at a time."""
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random("s8-double"))
    state = world.services["hotels"].state
    rows = [r.model_dump(mode="json") for r in state.reservations.values()]
    who = ["guest_email"]
    alone = [  # guests the seeded world gives one stay at a time
        r
        for r, row in zip(state.reservations.values(), rows, strict=True)
        if str(r.status) != "canceled" and double_booked(row, "stay", rows, who) is None
    ]
    first, second = alone[0], alone[1]
    state.reservations[second.id] = second.model_copy(
        update={
            "guest_email": first.guest_email,
            "check_in": first.check_in,
            "check_out": first.check_out,
            "status": first.status,
        }
    )
    world.invalidate("hotels")
    before = world.snapshot()
    world.call("hotels__update_reservation", {"reservation_id": first.id, "rooms": 3})
    assert walker._double_booked(world.diff(before))
    state = world.services["hotels"].state  # (a call may leave a new state behind)
    state.reservations[second.id] = second  # one guest each again: nothing to refuse
    world.invalidate("hotels")
    before = world.snapshot()
    world.call("hotels__update_reservation", {"reservation_id": first.id, "rooms": 2})
    assert not walker._double_booked(world.diff(before))
    world.restore(base)
