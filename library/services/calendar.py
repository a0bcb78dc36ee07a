"""Calendar: the user's events with attendees, cancellation and free-slot search.

The calendar belongs to the workspace user (the shared pool's first person, who also owns the
mailbox and the files); the seeded events are meetings among pool people about the pool's
products and companies, so the attendee in the calendar is the contact in the CRM.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Literal

from pydantic import BaseModel

from library.runtime import (
    DateTime,
    Email,
    ErrorCode,
    PersonName,
    Record,
    Ref,
    Service,
    State,
    ToolError,
    paginate,
    tool,
)
from library.seed import SeedPool

EventStatus = Literal["confirmed", "cancelled"]
EventId = Ref["events"]

MAX_EVENT = dt.timedelta(days=14)


class Event(Record):
    title: str
    start: DateTime
    end: DateTime
    organizer: Email
    attendees: tuple[Email, ...] = ()
    location: str | None = None
    description: str | None = None
    status: EventStatus = "confirmed"
    created_at: DateTime
    updated_at: DateTime


class Slot(BaseModel):
    """A free stretch of time."""

    start: DateTime
    end: DateTime


class CalendarState(State):
    owner: Email = "me@example.com"
    owner_name: PersonName = "Calendar Owner"
    events: dict[str, Event] = {}


def _utc(value: dt.datetime) -> dt.datetime:
    """Timestamps without a zone are read as UTC (the World's clock is in UTC)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _unique(addresses: list[str] | tuple[str, ...], exclude: str | None = None) -> tuple[str, ...]:
    seen = {exclude.lower()} if exclude else set()
    out: list[str] = []
    for address in addresses:
        if address.lower() not in seen:
            seen.add(address.lower())
            out.append(address)
    return tuple(out)


def _check_times(start: dt.datetime, end: dt.datetime) -> None:
    if end <= start:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "end: must be after start")
    if end - start > MAX_EVENT:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "end: an event lasts at most 14 days")


def _takes_part(event: Event, email: str) -> bool:
    return _same(event.organizer, email) or any(_same(a, email) for a in event.attendees)


# (title, description) templates for seeded meetings.
_MEETINGS = (
    ("Kickoff: {product} for {company}", "Kickoff of the {product} rollout at {company}."),
    ("Quarterly business review with {company}", "Review of usage, open invoices and renewals."),
    ("Demo: {product}", "Product demo of {product} for the {company} team."),
    ("Contract negotiation: {company}", "Terms and pricing for the {product} deal."),
    ("Invoice follow-up with {company}", "Go through the outstanding {product} invoices."),
    ("Weekly sync", "Pipeline, orders and blockers."),
)
_LOCATIONS = ("Zoom", "Google Meet", "Room 4.01", "Room 2.12", "Client office", None)


class Calendar(Service):
    name = "calendar"
    description = "Calendar: events with attendees, cancellations and free-slot search."
    State = CalendarState
    state: CalendarState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> CalendarState:
        me = pool.people[0]
        self.state = CalendarState(owner=me.email, owner_name=me.full_name)
        now = self.now()
        today = now.replace(hour=0, minute=0, second=0, microsecond=0)
        # Each meeting is with one client company: a lead contact and maybe colleagues of
        # theirs, never people from unrelated companies in one room.
        others = [p for p in pool.people if p.company != me.company]
        for i in range(max(1, size)):
            lead = rng.choice(others)
            team = [p for p in pool.people_at(lead.company) if p.email != lead.email]
            guests = [lead, *rng.sample(team, min(len(team), rng.randint(0, 2)))]
            host = me if rng.random() < 0.6 else guests.pop(0)
            if host is not me or not guests:
                guests.append(me)
            product = rng.choice(pool.products)
            company = lead.company
            title, description = rng.choice(_MEETINGS)
            day = today + dt.timedelta(days=rng.randint(-7, 14))
            start = day.replace(hour=rng.randint(8, 16), minute=rng.choice((0, 30)))
            # Scheduled a few days ahead: created before the start (and before now).
            stamp = min(now, start) - dt.timedelta(days=rng.randint(1, 10))
            self.put(
                "events",
                Event(
                    id=self.new_id("evt"),
                    title=title.format(product=product.name, company=company),
                    start=start,
                    end=start + dt.timedelta(minutes=rng.choice((30, 30, 45, 60, 60, 90))),
                    organizer=host.email,
                    attendees=tuple(g.email for g in guests),
                    location=rng.choice(_LOCATIONS),
                    description=description.format(product=product.name, company=company),
                    status="cancelled" if i % 8 == 5 else "confirmed",  # about one in eight
                    created_at=stamp,
                    updated_at=stamp,
                ),
            )
        return self.state

    def _sorted(self, events: list[Event]) -> list[Event]:
        return sorted(events, key=lambda e: (e.start, e.end, e.id))

    def _open(self, event_id: str) -> Event:
        event: Event = self.get("events", event_id)
        if event.status == "cancelled":
            raise ToolError(ErrorCode.FAILED_PRECONDITION, f"event {event_id!r} is cancelled")
        return event

    # -- events ---------------------------------------------------------------------------
    @tool(write=True)
    def create_event(
        self,
        title: str,
        start: DateTime,
        end: DateTime,
        attendees: list[Email] | None = None,
        location: str | None = None,
        description: str | None = None,
        organizer: Email | None = None,
    ) -> Event:
        """Create a confirmed event. The end must come after the start.

        Args:
            title: Short name of the event.
            start: Start time (ISO 8601; UTC if no zone).
            end: End time (ISO 8601; UTC if no zone); at most 14 days after the start.
            attendees: Email addresses of the invited guests (the organizer is not repeated).
            location: Room, address or meeting link.
            description: Agenda or notes.
            organizer: Who organizes it; defaults to the calendar's owner.
        """
        if not title.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "title: must not be empty")
        start, end = _utc(start), _utc(end)
        _check_times(start, end)
        host = organizer or self.state.owner
        now = self.now()
        event = Event(
            id=self.new_id("evt"),
            title=title,
            start=start,
            end=end,
            organizer=host,
            attendees=_unique(attendees or [], exclude=host),
            location=location,
            description=description,
            created_at=now,
            updated_at=now,
        )
        return self.put("events", event)

    @tool
    def get_event(self, event_id: EventId) -> Event:
        """Get one event by id.

        Args:
            event_id: The event's id.
        """
        return self.get("events", event_id)

    @tool
    def list_events(
        self,
        attendee: Email | None = None,
        start_after: DateTime | None = None,
        start_before: DateTime | None = None,
        status: EventStatus | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Event]:
        """List events in order of start time, optionally filtered.

        Args:
            attendee: Only events this person takes part in, as organizer or guest.
            start_after: Only events starting at or after this time (UTC if no zone).
            start_before: Only events starting before this time (UTC if no zone).
            status: Only events with this status: confirmed or cancelled.
            limit: Page size, 1 to 500.
            offset: How many matching events to skip.
        """
        after = _utc(start_after) if start_after is not None else None
        before = _utc(start_before) if start_before is not None else None
        found = [
            e
            for e in self.state.events.values()
            if (attendee is None or _takes_part(e, attendee))
            and (after is None or e.start >= after)
            and (before is None or e.start < before)
            and (status is None or e.status == status)
        ]
        return paginate(self._sorted(found), limit, offset)

    @tool
    def search_events(self, query: str, limit: int = 20) -> list[Event]:
        """Find events whose title, description or location contains the query.

        Case-insensitive; in order of start time.

        Args:
            query: Text to look for.
            limit: Maximum number of results, 1 to 500.
        """
        if not query.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "query: must not be empty")
        q = query.strip().lower()
        found = [
            e
            for e in self.state.events.values()
            if q in e.title.lower()
            or q in (e.description or "").lower()
            or q in (e.location or "").lower()
        ]
        return paginate(self._sorted(found), limit)

    @tool(write=True)
    def update_event(
        self,
        event_id: EventId,
        title: str | None = None,
        start: DateTime | None = None,
        end: DateTime | None = None,
        location: str | None = None,
        description: str | None = None,
    ) -> Event:
        """Change an event's details; fields left out keep their value. Not for cancelled events.

        Args:
            event_id: The event's id.
            title: New title.
            start: New start time (UTC if no zone).
            end: New end time (UTC if no zone); must stay after the start.
            location: New location.
            description: New description.
        """
        event = self._open(event_id)
        if title is not None and not title.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "title: must not be empty")
        new_start = _utc(start) if start is not None else event.start
        new_end = _utc(end) if end is not None else event.end
        _check_times(new_start, new_end)
        return self.update(
            "events",
            event_id,
            title=title,
            start=new_start,
            end=new_end,
            location=location,
            description=description,
            updated_at=self.now(),
        )

    @tool(write=True)
    def delete_event(self, event_id: EventId) -> Event:
        """Delete an event for good (to keep a record, cancel it instead).

        Args:
            event_id: The event's id.
        """
        return self.delete("events", event_id)

    @tool(write=True)
    def cancel_event(self, event_id: EventId, reason: str | None = None) -> Event:
        """Cancel an event; it stays on the calendar with status cancelled.

        Args:
            event_id: The event's id.
            reason: Why it is cancelled; appended to the description.
        """
        event = self._open(event_id)
        description = event.description
        if reason:
            description = f"{description}\n\nCancelled: {reason}" if description else reason
        return self.update(
            "events",
            event_id,
            status="cancelled",
            description=description,
            updated_at=self.now(),
        )

    @tool(write=True)
    def add_attendee(self, event_id: EventId, email: Email) -> Event:
        """Invite one more person to an event.

        Args:
            event_id: The event's id.
            email: The guest's email address.
        """
        event = self._open(event_id)
        if _takes_part(event, email):
            raise ToolError(ErrorCode.CONFLICT, f"{email} already takes part in event {event_id!r}")
        return self.update(
            "events", event_id, attendees=(*event.attendees, email), updated_at=self.now()
        )

    @tool(write=True)
    def remove_attendee(self, event_id: EventId, email: Email) -> Event:
        """Take a guest off an event. The organizer cannot be removed.

        Args:
            event_id: The event's id.
            email: The guest's email address.
        """
        event = self._open(event_id)
        if _same(event.organizer, email):
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"{email} organizes event {event_id!r} and cannot be removed",
            )
        kept = tuple(a for a in event.attendees if not _same(a, email))
        if len(kept) == len(event.attendees):
            raise ToolError(ErrorCode.NOT_FOUND, f"{email} is not a guest of event {event_id!r}")
        return self.update("events", event_id, attendees=kept, updated_at=self.now())

    @tool
    def find_free_slot(
        self,
        attendees: list[Email],
        duration_minutes: int,
        window_start: DateTime,
        window_end: DateTime,
    ) -> Slot:
        """Find the earliest time in a window when every given person is free for the duration.

        A person is busy during every confirmed event they organize or attend.

        Args:
            attendees: Email addresses of everyone who must be free; at least one.
            duration_minutes: Length of the slot in minutes, 1 to 1440.
            window_start: Earliest start of the slot (UTC if no zone).
            window_end: Latest end of the slot (UTC if no zone).
        """
        if not attendees:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "attendees: needs at least one address")
        if not 1 <= duration_minutes <= 1440:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "duration_minutes: must be 1 to 1440")
        lo, hi = _utc(window_start), _utc(window_end)
        if hi <= lo:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "window_end: must be after window_start")
        length = dt.timedelta(minutes=duration_minutes)
        if hi - lo < length:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "duration_minutes: longer than the window")
        busy = sorted(
            (e.start, e.end)
            for e in self.state.events.values()
            if e.status == "confirmed"
            and e.end > lo
            and e.start < hi
            and any(_takes_part(e, a) for a in attendees)
        )
        candidate = lo
        for start, end in busy:
            if start >= candidate + length:
                break
            candidate = max(candidate, end)
        if candidate + length > hi:
            raise ToolError(
                ErrorCode.NOT_FOUND,
                f"no free slot of {duration_minutes} minutes for {', '.join(attendees)} "
                f"between {lo.isoformat()} and {hi.isoformat()}",
            )
        return Slot(start=candidate, end=candidate + length)
