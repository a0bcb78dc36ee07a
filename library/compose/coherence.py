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
    LIVE_STATES,
    PAST_STATES,
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
    and given ``now``, an ISO time, a meeting or event that has ended): nothing to hand
    on."""
    if status_of(record) in FINAL or any(record.get(f) is True for f in DONE_FLAGS):
        return True
    return now is not None and _happened(record, now)


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
DONE: dict[str, frozenset[str]] = {
    "capture": frozenset(
        {"succeeded", "captured", "partially_refunded", "refunded", "paid", "settled"}
    ),
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


def set_in_motion(record: Mapping[str, Any], field: str) -> bool:
    """Whether ``field`` says how a consignment travels and the record is already on its
    way (a shipment in transit keeps its carrier and its service level)."""
    return status_of(record) in _ON_ITS_WAY and bool(_ROUTE.search(field.lower()))


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
