"""What a coherent world allows a plan to do: records follow their state machine (no edit to
a closed or paid record unless the tool is the way out of that state) and ranges stay
ordered (a rental ends after it starts)."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping
from typing import Any

from library.compiler.actions import REOPENS, STATUS_FIELDS, TERMINAL
from library.graph.nodes import name_words, tool_verb
from library.rubric.values import timestamp
from library.seed.pool import (
    AHEAD_STATES,
    HAPPENING,
    HELD_ALONE,
    LIVE_STATES,
    MONEY_BACK_NOUNS,
    PAST_STATES,
    PRESENCE,
    START_FIELDS,
    TERMS_PLACES,
    place_of,
    window_kind,
)

# Finished business: nothing but the transition out of it may touch the record.
FINAL = TERMINAL | {"resolved", "solved", "paid", "settled", "shipped", "sent", "posted"}
FINAL |= {"wont_do", "wontfix", "wont_fix", "abandoned", "obsolete", "duplicate"}  # given up
FINAL |= {"missed", "ended", "hung_up"}  # a call that is over
FINAL |= {"succeeded", "captured"}  # money taken: refunded, never cancelled
# From these, a few follow-up transitions are still legitimate (a paid invoice is refunded,
# a shipped order delivered, a sent invoice paid); field edits are not.
FOLLOW_UPS: dict[str, frozenset[str]] = {
    "paid": frozenset({"refund", "reverse", "credit", "reconcile", "archive", "receipt"}),
    "succeeded": frozenset({"refund", "reverse", "reconcile", "archive", "receipt"}),
    "captured": frozenset({"refund", "reverse", "reconcile", "archive", "receipt"}),
    "settled": frozenset({"refund", "reverse", "reconcile", "archive"}),
    "shipped": frozenset({"deliver", "receive", "return", "track", "archive", "complete"}),
    "sent": frozenset({"pay", "mark", "remind", "void", "cancel", "archive", "record", "accept",
                       "decline", "sign", "resend", "complete", "close", "receive"}),
    "posted": frozenset({"reverse", "reconcile", "archive"}),
    "resolved": frozenset({"close", "reopen", "archive"}),
    "solved": frozenset({"close", "reopen", "archive"}),
    "completed": frozenset({"archive", "reopen"}),
    "closed": frozenset({"reopen", "archive"}),
    "delivered": frozenset({"return", "archive", "complete", "close"}),
}  # fmt: skip
_LEAVE = frozenset(REOPENS) | {"reopen", "restore", "unarchive", "reactivate", "undelete"}
# Verbs that finish a record's business: a request does not make a record only to end it
# ("create a meeting, then end the meeting").
ENDING_VERBS = frozenset({
    "end", "complete", "close", "cancel", "void", "archive", "pause", "suspend", "deactivate",
    "reject", "decline", "expire", "terminate", "finish", "resolve", "dismiss", "revoke",
    "disable", "return",
})  # fmt: skip


def ends_record(tool_name: str) -> bool:
    """Whether the action ``tool_name`` finishes the record it acts on."""
    return tool_verb(tool_name) in ENDING_VERBS


# A person record's states that say they are away or gone: no work is handed to them.
# States of a colleague's record before they started (a new hire, an invited account):
# no one covers for them "today".
NOT_STARTED = frozenset(
    {"onboarding", "staged", "invited", "provisioned", "pre_hire", "preboarding", "pending"}
)
AWAY_STATES = frozenset(
    {"suspended", "deactivated", "disabled", "terminated", "inactive", "locked", "on_leave",
     "offboarded", "deprovisioned", "left", "blocked"}
)  # fmt: skip


def status_of(record: Mapping[str, Any]) -> str | None:
    for name in STATUS_FIELDS:
        value = record.get(name)
        if isinstance(value, str):
            return value.lower()
    return None


_UNDO_VERBS = frozenset({"void", "cancel"})
# What calls a bill off (voids, cancels or deletes it): nothing is paid on it after, and a
# refund, which gives paid money back, never does it (only an unpaid bill is voided).
CALLS_OFF = frozenset({"void", "cancel", "delete"})


# Yes/no marks that a record's work is over, where no status says it (a to-do "completed").
DONE_FLAGS = ("completed", "is_completed", "done", "is_done")


def work_over(record: Mapping[str, Any], now: str | None = None) -> bool:
    """Whether a record's work is over (a closed ticket, a sent quote, a to-do ticked off,
    and given ``now``, an ISO time, a meeting or event that has ended, or one someone is at
    now: a room booking checked in, a meeting live): nothing to hand on."""
    if status_of(record) in FINAL or any(record.get(f) is True for f in DONE_FLAGS):
        return True
    return now is not None and (_happened(record, now) or _someone_there(record))


def _someone_there(record: Mapping[str, Any]) -> bool:
    """Whether a record that schedules something (it has a time span or a start) says
    someone is at it now (checked in, picked up, live): its host is in it, so no one
    takes it over. (An asset "checked in" or a product "live" schedules nothing.)"""
    if status_of(record) not in THERE | {"live"}:
        return False
    starts = any(isinstance(record.get(f), str) for f in START_FIELDS)
    return starts or any(
        window_kind(s, e, "", record, False) in HAPPENING for s, e in range_pairs(record)
    )


def _happened(record: Mapping[str, Any], now: str) -> bool:
    """Whether what ``record`` schedules (a meeting, an event, a booking) ended before now."""
    today = _comparable(now)
    for start, end in range_pairs(record):
        b = _comparable(record.get(end))
        kind = window_kind(start, end, "", record, False)
        if isinstance(b, str) and isinstance(today, str) and b < today and kind in HAPPENING:
            return True
    return False


def archived(record: Mapping[str, Any]) -> bool:
    """Whether a record is put away (``archived``/``is_archived`` set, or its status says
    so): nothing new hangs on it (a chat post into an archived channel fails)."""
    flags = ("archived", "is_archived", "closed", "is_closed")
    return any(record.get(f) is True for f in flags) or status_of(record) == "archived"


# Flags by which a person asks not to be contacted at all (not only by newsletters).
OPT_OUT_FLAGS = ("do_not_contact", "do_not_email")


def opted_out(record: Mapping[str, Any]) -> bool:
    """Whether a person's record says they want no messages (a CRM contact flagged
    ``do_not_contact``); unsubscribing from a mailing list is about newsletters only."""
    return any(record.get(f) is True for f in OPT_OUT_FLAGS)


# States of a charge whose money was taken (some of it may have gone back since).
_TAKEN = frozenset({"paid", "captured", "succeeded", "settled", "partially_refunded", "refunded"})


def money_taken(record: Mapping[str, Any]) -> bool:
    """Whether a record shows money already received on it (``amount_paid`` or
    ``amount_refunded`` above 0, or a state such as ``partially_refunded``)."""
    return status_of(record) in _TAKEN or any(
        bool({"paid", "refunded"} & set(name_words(name)))
        and isinstance(v, int | float)
        and not isinstance(v, bool)
        and v > 0
        for name, v in record.items()
    )


# States a record is not yet live in (an account staged, a report still a draft, an order
# awaiting payment), and the actions that need it live: one suspends an active account,
# approves a report once submitted, refunds an order once paid.
_NOT_LIVE = frozenset({"staged", "provisioned", "invited", "draft", "pending_activation"})
NOT_YET: dict[str, frozenset[str]] = {
    **dict.fromkeys(("suspend", "pause", "deactivate", "disable", "lock"), _NOT_LIVE),
    **dict.fromkeys(("approve", "reject", "decline", "reimburse"), frozenset({"draft"})),
    "refund": _NOT_LIVE | {"pending", "unpaid", "awaiting_payment", "payment_pending"},
}


# States in which an action is already done: money is captured once, while it is only
# authorised (a payment succeeded, or partly refunded since, has nothing left to capture).
# A bill or an offer that is overdue, part paid, viewed or answered went out already: it
# is not sent (issued, finalised) again, only reminded of (a report approved is not
# submitted again either: ``Writes._moves_back`` by its stages).
_GONE_OUT_SINCE = frozenset(
    {"overdue", "past_due", "partially_paid", "viewed", "opened", "accepted", "declined",
     "expired"}
)  # fmt: skip
DONE: dict[str, frozenset[str]] = {
    "capture": frozenset(
        {"succeeded", "captured", "partially_refunded", "refunded", "paid", "settled"}
    ),
    **dict.fromkeys(("send", "issue", "finalize", "finalise"), _GONE_OUT_SINCE),
}


def may_write(record: Mapping[str, Any], kind: str, tool_name: str) -> bool:
    """Whether a write of ``kind`` (update, action, delete) by ``tool_name`` is a legitimate
    move from the record's current state."""
    if tool_verb(tool_name) in _UNDO_VERBS and money_taken(record):
        return False  # an invoice with money paid on it is settled or refunded, not voided
    state = status_of(record)
    if state in NOT_YET.get(tool_verb(tool_name), frozenset()):
        return False  # a staged account is not suspended, a draft report not approved
    if state in DONE.get(tool_verb(tool_name), frozenset()):
        return False  # a captured payment is not captured again
    if state is None or state not in FINAL:
        return True
    verb = tool_verb(tool_name)
    two = "_".join(tool_name.lower().split("_")[:2])
    if verb in _LEAVE or two in _LEAVE:
        return True
    if kind != "action":
        return False
    return verb in FOLLOW_UPS.get(state, frozenset())


# How a consignment travels, fixed once it is on its way: no carrier changed mid-transit.
_ON_ITS_WAY = frozenset(
    {"in_transit", "shipped", "out_for_delivery", "delivered", "dispatched", "picked_up",
     "fulfilled", "partially_fulfilled", "returned"}
)  # fmt: skip
_ROUTE = re.compile(
    r"(^|_)(carrier|service_level|shipping_method|delivery_method|origin|destination|"
    r"ship_to|shipping_address|weight|package)(_|$)"
)


# What tells a carrier how to hand a parcel over ("Call before delivery."), and the states
# of a delivery that is done: an order fulfilled or delivered takes no such note any more.
_HANDOVER_NOTE = re.compile(r"(^|_)(note|notes|instructions|delivery_instructions)(_|$)")
_DELIVERY_STATES = ("fulfillment_status", "shipment_status", "delivery_status", "status")
_DELIVERED = frozenset({"fulfilled", "delivered"})


def set_in_motion(record: Mapping[str, Any], field: str) -> bool:
    """Whether ``field`` says how a consignment travels and the record is already on its
    way (a shipment in transit keeps its carrier and its service level), or is a note for
    its delivery and the delivery is done (no "Call before delivery." on a fulfilled
    order)."""
    name = field.lower()
    if status_of(record) in _ON_ITS_WAY and _ROUTE.search(name):
        return True
    states = {str(record.get(f)).lower() for f in _DELIVERY_STATES}
    return bool(states & _DELIVERED) and bool(_HANDOVER_NOTE.search(name))


# A trip or stay under way: where and when it began is history.
_UNDER_WAY = frozenset(
    {"picked_up", "checked_in", "in_progress", "departed", "boarded", "on_trip", "ongoing",
     "underway", "in_use", "rented", "out"}
)  # fmt: skip
_START_SIDE = re.compile(r"(^|_)(pickup|pick_up|origin|departure|depart|check_in|checkin)(_|$)")


def already_begun(record: Mapping[str, Any], field: str) -> bool:
    """Whether ``field`` says where or when something began that is already under way (a
    rental picked up at Schiphol keeps its pickup place and time; its drop-off may move)."""
    return status_of(record) in _UNDER_WAY and bool(_START_SIDE.search(field.lower()))


# Actions of arriving for what a record books: done on its day, not a week before.
_ARRIVALS = ("check_in", "checkin", "board")


def too_early(record: Mapping[str, Any], tool_name: str, now: dt.datetime) -> bool:
    """Whether an arrival (a check-in) is asked for a record whose start is more than a
    day ahead: a room is not checked in nine days before the meeting."""
    if not any(word in tool_name.lower() for word in _ARRIVALS):
        return False
    tomorrow = (now + dt.timedelta(days=1)).date().isoformat()
    for start, _ in range_pairs(record):
        begins = _comparable(record.get(start))
        if isinstance(begins, str) and begins[:10] > tomorrow:
            return True
    return False


# (start pattern, end replacement): "starts_at" -> "ends_at", "check_in_date" -> ...
_PAIRS: tuple[tuple[str, str], ...] = (
    (r"(^|_)start(s)?(_|$)", r"\1end\2\3"),
    (r"(^|_)begin(s)?(_|$)", r"\1end\2\3"),
    (r"(^|_)from(_|$)", r"\1to\2"),
    (r"(^|_)from(_|$)", r"\1until\2"),
    (r"(^|_)check_in(_|$)", r"\1check_out\2"),
    (r"(^|_)checkin(_|$)", r"\1checkout\2"),
    (r"(^|_)pick_up(_|$)", r"\1drop_off\2"),
    (r"(^|_)pickup(_|$)", r"\1dropoff\2"),
    (r"(^|_)pickup(_|$)", r"\1return\2"),
    (r"(^|_)departure(_|$)", r"\1arrival\2"),
    (r"(^|_)depart(s|ure)?(_|$)", r"\1arrive\2\3"),
    (r"(^|_)valid_from(_|$)", r"\1valid_until\2"),
    (r"(^|_)valid_from(_|$)", r"\1valid_to\2"),
    (r"(^|_)min(imum)?(_|$)", r"\1max\2\3"),
    (r"(^|_)issue(d)?_(date|on|at)$", r"\1due_\3"),
    (r"(^|_)opened(_|$)", r"\1closed\2"),
    (r"(^|_)effective(_|$)", r"\1expir\2"),
)
_COMPILED_PAIRS = tuple((re.compile(pattern), repl) for pattern, repl in _PAIRS)


def range_pairs(fields: Any) -> list[tuple[str, str]]:
    """(start field, end field) pairs among ``fields`` (names)."""
    return list(_range_pairs(frozenset(fields)))


@functools.lru_cache(maxsize=4096)
def _range_pairs(names: frozenset[str]) -> tuple[tuple[str, str], ...]:
    # Cached: every record of a collection has the same fields, and composition asks for
    # each record it seeds, binds or checks.
    out: list[tuple[str, str]] = []
    for name in sorted(names):
        for pattern, repl in _COMPILED_PAIRS:
            if not pattern.search(name):
                continue
            other = pattern.sub(repl, name, count=1)
            if other != name and other in names and (name, other) not in out:
                out.append((name, other))
    return tuple(out)


def _comparable(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    stamp = timestamp(value)
    if stamp is None:
        return None
    return stamp if "T" in stamp else f"{stamp}T00:00:00+00:00"


def inverted(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The pairs of ``record`` whose end comes before its start."""
    out = []
    for start, end in range_pairs(record):
        a, b = _comparable(record.get(start)), _comparable(record.get(end))
        if a is None or b is None or type(a) is not type(b):
            continue
        if b < a:
            out.append((start, end))
    return out


def out_of_its_time(record: Mapping[str, Any], now: str) -> bool:
    """Whether ``record``'s status says where its span lies and the span lies elsewhere: a
    stay checked in that starts next month, a meeting ended that ends tomorrow, a booking
    still ahead that began last week (``now``: an ISO timestamp)."""
    state = status_of(record)
    if state not in PAST_STATES | LIVE_STATES | AHEAD_STATES | set(TERMS_PLACES):
        return False
    today = _comparable(now)
    for start, end in range_pairs(record):
        a, b = _comparable(record.get(start)), _comparable(record.get(end))
        if not isinstance(a, str) or not isinstance(b, str) or today is None:
            continue
        terms = window_kind(start, end, "", record, False) == "terms"  # an invoice's
        place = place_of(str(state), "terms" if terms else "")
        if place == "past" and (b[:10] >= today[:10] if terms else b[:10] > today[:10]):
            return True  # (a day's end is that whole day; a bill due today is not overdue)
        if place == "live" and (a > today or (terms and b[:10] < today[:10])):
            return True
        if place == "ahead" and a <= today:
            return True
    return False


# Actions whose time arguments move their record later: "extend the rental to ..." never
# brings its return forward.
LATER_VERBS = frozenset({"extend", "postpone", "delay", "prolong", "defer", "snooze"})


def against_its_verb(tool_name: str, record: Mapping[str, Any], args: Mapping[str, Any]) -> bool:
    """Whether an action named to move its record later sets one of the record's times to
    one no later than it was."""
    if tool_verb(tool_name) not in LATER_VERBS:
        return False
    for name, value in args.items():
        old, new = _comparable(record.get(name)), _comparable(value)
        if isinstance(old, str) and isinstance(new, str) and new <= old:
            return True
    return False


# -- a record's state and the clock decide which edits are still open ----------------------
# Happenings one is at for a while (a meeting, a visit, a stay, a rental, a flight, an
# event): once one is under way, who holds it and what it is are history.
ATTENDED = PRESENCE | HELD_ALONE | {"event"}
# States of an attended record that say someone is there now, whatever its dates (a guest
# checked in, a car picked up, a passenger boarded).
THERE = frozenset(
    {"checked_in", "picked_up", "boarded", "boarding", "departed", "in_flight", "on_trip"}
)
# A record's words for notes on it: written during or after a happening, they stay open.
_NOTES = re.compile(r"(^|_)(notes?|comments?|description|details|memo|remarks?)$")
# Values of a state that call a record off: nothing under way or over is called off.
_CALLED_OFF_STATES = frozenset({"canceled", "cancelled", "void", "voided", "rescheduled"})
# Actions that call a happening off or move it: only one still ahead takes them.
_CALLS_OFF_OR_MOVES = frozenset({"cancel", "void", "delete", "reschedule", "move", "postpone"})


def attended_pairs(record: Mapping[str, Any], noun: str) -> list[tuple[str, str]]:
    """The (start, end) pairs of ``record`` (a ``noun``) that span a happening one attends
    (``ATTENDED``): a booking's start and end, a stay's check-in and check-out."""
    out = []
    for start, end in range_pairs(record):
        date = isinstance(record.get(start), str) and "T" not in str(record.get(start))
        if window_kind(start, end, noun, record, date) in ATTENDED:
            out.append((start, end))
    return out


def _attended(record: Mapping[str, Any], noun: str) -> bool:
    """Whether ``record`` is a happening one attends: a span of that kind, or a record whose
    noun names one (a flight booking kept without dates, a meeting with a start and a
    duration). An asset "checked in" or a product "live" is none."""
    return bool(attended_pairs(record, noun)) or window_kind("", "", noun, (), False) in ATTENDED


def under_way(record: Mapping[str, Any], noun: str, now: str) -> bool:
    """Whether ``record`` (a ``noun``) is a happening going on now (``now``: an ISO time):
    its state says someone is there or it is under way (checked in, live, in progress), or
    its attended span holds now."""
    state = status_of(record)
    if state in FINAL or state in _CALLED_OFF_STATES or not _attended(record, noun):
        return False
    if state in THERE or state in LIVE_STATES | {"in_progress", "ongoing", "started", "underway"}:
        return True
    today = _comparable(now)
    for start, end in attended_pairs(record, noun):
        a, b = _comparable(record.get(start)), _comparable(record.get(end))
        if isinstance(a, str) and isinstance(b, str) and isinstance(today, str):
            whole_day = "T" not in str(record.get(end))  # (a date ends with its day)
            if a <= today and (b[:10] >= today[:10] if whole_day else b >= today):
                return True
    return False


def over(record: Mapping[str, Any], noun: str, now: str) -> bool:
    """Whether ``record`` (a ``noun``) is a happening one attends that has ended: its span
    ends before ``now``, or its state says it is past (a meeting ended, a stay checked out)."""
    if not _attended(record, noun):
        return False
    if status_of(record) in PAST_STATES:
        return True
    today = _comparable(now)
    for _, end in attended_pairs(record, noun):
        b = _comparable(record.get(end))
        if isinstance(b, str) and isinstance(today, str):
            whole_day = "T" not in str(record.get(end))
            if (b[:10] < today[:10]) if whole_day else b < today:
                return True
    return False


def kept_once_begun(
    record: Mapping[str, Any], noun: str, now: str, tool_name: str, changes: Mapping[str, Any]
) -> list[str]:
    """What a write (``tool_name`` setting ``changes``) would change of a happening that is
    under way or over and is no longer open to change: once a guest checked in or a meeting
    began, its host, its room and its start are what they were (a meeting live since 8:15
    is not handed to another host, a checked-in booking not cancelled). Its notes and its
    state stay open, and while it is under way, its end (a rental extended, a stay cut
    short). ``["<verb>"]`` where the action itself calls it off or moves it."""
    going = under_way(record, noun, now)
    if not going and not over(record, noun, now):
        return []
    if tool_verb(tool_name) in _CALLS_OFF_OR_MOVES:
        return [tool_verb(tool_name)]
    ends = {end for _, end in range_pairs(record)} if going else set()
    return [
        name
        for name, value in changes.items()
        if name in record
        and record.get(name) != value
        and not _NOTES.search(name.lower())
        and name not in ends
        and not (name in STATUS_FIELDS and str(value).lower() not in _CALLED_OFF_STATES)
    ]


# States a record waits in, its business paused (a subscription paused, a job or a vendor
# on hold, an account suspended): it is resumed, called off or handed to someone else, and
# notes go on it; its substance (seats, plan, amounts, dates) waits until it resumes.
PAUSED = frozenset({"paused", "on_hold", "hold", "frozen", "suspended"})
# What moves a paused record out of waiting (or ends it): those writes are its way on.
RESUMES = frozenset({"resume", "unpause", "unfreeze", "reactivate", "activate", "unsuspend"})
# Actions that pass a record to someone: a paused record still has an owner.
_HANDS_ON = frozenset({"assign", "reassign", "transfer", "delegate"})


def waits_for_resume(
    record: Mapping[str, Any], tool_name: str, changes: Mapping[str, Any], people: Any
) -> list[str]:
    """What a write (``tool_name`` setting ``changes``) would change of a record that waits
    (``PAUSED``) other than its state, who holds it (``people``: those field names) and its
    notes: the seats of a paused subscription are not changed for a renewal (it resumes
    first). ``["<verb>"]`` where the action itself is business as usual on it (a renewal)."""
    if status_of(record) not in PAUSED:
        return []
    verb = tool_verb(tool_name)
    if verb in RESUMES | ENDING_VERBS | CALLS_OFF | _LEAVE:
        return []
    if status_of(changes) is not None:
        return []  # it moves out of waiting (or on, or ends): the rest goes with it
    changed = [
        name
        for name, value in changes.items()
        if name in record
        and record.get(name) != value
        and name not in people
        and not _NOTES.search(name.lower())
    ]
    if not changed and not changes and verb not in _HANDS_ON:
        return [verb]  # an action with nothing to set is its business (renew, charge)
    return changed


# A parent's states under which no work goes on for what hangs on it: one waiting (a job or
# a vendor on hold), one ended (a job closed or filled, an event cancelled, a sprint closed).
# Work that ends the child (an application rejected, a registration cancelled) still goes.
HALTS = (PAUSED - {"suspended"}) | frozenset(
    {"closed", "canceled", "cancelled", "void", "voided", "archived", "filled", "expired",
     "terminated"}
)  # fmt: skip
# A draft that opens to others once it is ready (a job posted, an event published, a form
# opened to answers): until then no one outside applies, registers or answers. A draft
# that goes for a decision instead (an expense report, a pay run) gets its parts added.
OPENS = frozenset({"open", "published", "live", "accepting", "accepting_responses", "on_sale"})


def halts_work_under(parent: Mapping[str, Any], stages: Mapping[str, Any]) -> str | None:
    """The state of ``parent`` (with ``stages``: its stage fields and their values) under
    which nothing hanging on it moves on, or None: on hold, closed, cancelled, or a draft of
    a record that opens to others (see ``OPENS``; the caller tells whether the work is an
    outsider's)."""
    state = status_of(parent)
    if state in HALTS:
        return state
    if state == "draft" and any(
        OPENS & {str(v).lower() for v in order} for order in stages.values()
    ):
        return state
    return None


def double_booked(
    record: Mapping[str, Any], noun: str, others: Any, who: Any
) -> Mapping[str, Any] | None:
    """Another of ``others`` (records of the same collection) that books the same person
    (``who``: the field names naming them) for a span overlapping ``record``'s, where such
    happenings are held one at a time (a hotel stay, a rental car: ``HELD_ALONE``), or
    None. Cancelled or finished ones hold no one."""
    pairs = [
        (s, e)
        for s, e in range_pairs(record)
        if window_kind(s, e, noun, record, "T" not in str(record.get(s))) in HELD_ALONE
    ]
    mine = {record.get(f) for f in who if isinstance(record.get(f), str)}
    if not pairs or not mine or status_of(record) in FINAL:
        return None
    for other in others:
        if other is record or other.get("id") == record.get("id"):
            continue
        if status_of(other) in FINAL | _CALLED_OFF_STATES:
            continue
        if not mine & {other.get(f) for f in who}:
            continue
        for s, e in pairs:
            a, b = _comparable(record.get(s)), _comparable(record.get(e))
            c, d = _comparable(other.get(s)), _comparable(other.get(e))
            if all(isinstance(x, str) for x in (a, b, c, d)) and a < d and c < b:  # type: ignore[operator]
                return other
    return None


def born_after(
    record: Mapping[str, Any], parents: list[Mapping[str, Any]], now: str
) -> dict[str, Any] | None:
    """The creation stamp that puts ``record`` (a JSON row made another's: an order moved
    to the customer a task is about) after the records it refers to (``parents``): no
    order predates its customer, no refund its payment. ``{}`` where it already comes
    after; a stamp halfway between the latest parent's creation and the record's last
    update (or ``now``, its update then moved there too); None where no time is left."""
    born = record.get("created_at")
    mine = _comparable(born)
    latest = max(
        (t for p in parents if isinstance(t := _comparable(p.get("created_at")), str)),
        default=None,
    )
    if not isinstance(mine, str) or latest is None or mine >= latest:
        return {}
    first = dt.datetime.fromisoformat(latest)
    seen = _comparable(record.get("updated_at"))
    upper = dt.datetime.fromisoformat(seen if isinstance(seen, str) and seen > latest else now)
    if upper <= first:
        return None
    at = (first + (upper - first) / 2).replace(microsecond=0)
    out: dict[str, Any] = {"created_at": at if "T" in str(born) else at.date()}
    if not (isinstance(seen, str) and seen > latest) and "updated_at" in record:
        out["updated_at"] = upper
    return out


# A record's own stamps of when it came about (a message sent, a request filed).
_MADE_STAMPS = ("created_at", "sent_at", "received_at", "submitted_at", "requested_at")


def predates(record: Mapping[str, Any], others: Any) -> bool:
    """Whether ``record`` (a JSON row: a customer's message asking for a refund) came about
    before the latest of ``others`` (rows: the order it asks about) was made."""
    mine = [t for f in _MADE_STAMPS if isinstance(t := _comparable(record.get(f)), str)]
    made = [t for o in others if isinstance(t := _comparable(o.get("created_at")), str)]
    return bool(mine and made) and min(mine) < max(made)


def gives_back_untaken(child: Mapping[str, Any], noun: str, charge: Mapping[str, Any]) -> bool:
    """Whether ``child`` (a JSON row, a ``noun``) gives money back from ``charge``, a charge
    that took none (a refund of a payment only authorised, failed or cancelled)."""
    return gives_back(noun) and not money_taken(charge)


def gives_back(noun: str) -> bool:
    """Whether a record called ``noun`` ("refund", "payment_refund") gives money back."""
    return re.split(r"[_\s]+", noun.strip())[-1] in MONEY_BACK_NOUNS


def sends_back(noun: str) -> bool:
    """Whether a record called ``noun`` ("return request", "rma") sends goods back."""
    return bool(set(re.split(r"[_\s]+", noun.strip())) & SENDS_BACK)


def moved_after(
    times: Mapping[str, dt.datetime], others: Any, now: dt.datetime, share: float
) -> dict[str, dt.datetime] | None:
    """A record's ``times`` (its stamps) moved together, their order kept, so that the
    first lies after the latest creation among ``others`` (rows) and the last before
    ``now``: ``share`` (0-1) of the room left is taken before it. None where the record's
    span does not fit in between."""
    made = [t for o in others if isinstance(t := _comparable(o.get("created_at")), str)]
    if not times or not made:
        return None
    since = dt.datetime.fromisoformat(max(made))
    first, last = min(times.values()), max(times.values())
    room = now - since - (last - first)
    if room <= dt.timedelta(0):
        return None
    delta = since + room * share - first
    return {n: (v + delta).replace(microsecond=0) for n, v in times.items()}


# States of a consignment once it left (a return needs one that reached the customer, or
# part of it did); and the nouns of records that send something back.
_LEFT = frozenset(
    {"fulfilled", "delivered", "partial", "partially_fulfilled", "shipped", "in_transit",
     "out_for_delivery", "returned", "partially_returned", "completed"}
)  # fmt: skip
SENDS_BACK = frozenset({"return", "returns", "rma"})


def not_yet_sent(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` (an order, a JSON row) says its goods have not left yet: nothing
    of it is returned (a return request names an order fulfilled, or part of it)."""
    states = [str(record[f]).lower() for f in _DELIVERY_STATES[:3] if record.get(f)]
    return bool(states) and not set(states) & _LEFT
