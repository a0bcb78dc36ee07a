"""House rules that make a task more than a chain of calls: selection rules (pick one of
several matching records), thresholds (a value read decides what is written) and the
wording of both."""

from __future__ import annotations

import math
import random
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from library.compose.catalog import CollectionInfo, FieldMeta, words
from library.compose.context import field_words
from library.graph.nodes import name_words
from library.rubric.values import normalize, timestamp
from library.seed.vocab import is_person_resource
from library.seed.vocab import role_of as field_role

LATEST, EARLIEST, LARGEST, SMALLEST, MATCHING = (
    "latest",
    "earliest",
    "largest",
    "smallest",
    "matching",
)
_ORDER_RULES = {LATEST: max, EARLIEST: min, LARGEST: max, SMALLEST: min}
_SKIP_FIELDS = frozenset({"id", "seq", "limit", "offset", "total"})


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    field: str
    value: Any = None  # for MATCHING

    def to_dict(self) -> dict[str, Any]:
        out = {"rule": self.kind, "field": self.field}
        if self.kind == MATCHING:
            out["value"] = self.value
        return out


def is_time(meta: FieldMeta | None, value: Any) -> bool:
    if meta is not None and meta.key in ("datetime", "date"):
        return True
    return timestamp(value) is not None


def is_number(meta: FieldMeta | None, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return meta is None or not (meta.key or "").startswith("id:")


def rule_options(records: list[dict[str, Any]], info: CollectionInfo | None) -> list[Rule]:
    """Rules that single out exactly one of ``records``."""
    options: list[Rule] = []
    fields = sorted(set().union(*(r.keys() for r in records))) if records else []
    for name in fields:
        if name in _SKIP_FIELDS:
            continue
        meta = info.fields.get(name) if info else None
        values = [r.get(name) for r in records]
        if any(v is None or isinstance(v, list | dict) for v in values):
            continue
        distinct = len({normalize(v) for v in values}) == len(values)
        if is_time(meta, values[0]) and distinct:
            if chosen_by(name, meta, values[0]):
                options += [Rule(LATEST, name), Rule(EARLIEST, name)]
        elif all(is_number(meta, v) for v in values) and distinct:
            if chosen_by(name, meta, values[0]) and not _mixed_money(meta, records):
                options += [Rule(LARGEST, name), Rule(SMALLEST, name)]
        elif categories(name, meta, values) and all(isinstance(v, str) for v in values):
            counts = Counter(values)
            options += [Rule(MATCHING, name, v) for v in sorted(counts) if counts[v] == 1]
    return options


# Fields that hold a level, a state or a kind by their name (a task's ``priority``), where
# a spec lists no values: what a person picks one record of several by ("the urgent one").
# (not ``state``: beside a city it is where someone lives)
_CATEGORY_FIELDS = re.compile(
    r"(^|_)(priority|severity|urgency|status|stage|phase|kind|type|category|tier|level)$"
)


def categories(name: str, meta: FieldMeta | None, values: Iterable[Any]) -> tuple[Any, ...]:
    """The values of field ``name`` a rule may match on: its spec's enum, or where the spec
    lists none and the name says it holds a level, state or kind, the words ``values``
    (what records hold) take: a task's priority "low", "high", "urgent"; none for free
    text or codes."""
    if meta is not None and meta.enum:
        return tuple(meta.enum)
    if not _CATEGORY_FIELDS.search("_".join(name_words(name))):
        return ()
    if meta is not None and meta.key is not None:
        return ()  # a value of known meaning (a url, an id), not a level
    held = [v for v in values if v is not None]
    if not held or not all(isinstance(v, str) and _WORDISH.fullmatch(v) for v in held):
        return ()
    distinct = tuple(sorted(set(held)))
    return distinct if 2 <= len(distinct) <= 8 else ()


# What a person picks one of several records by, for the work at hand: when it is due or
# starts (the ticket due first, the next booking), how much money or how big it is (the
# largest order: ``_SIZES``). Never the record's own bookkeeping (when it was created,
# updated, sent or last seen) nor a reading of no consequence (a car's odometer, a job's
# salary band): those pick a record the request has no reason to prefer.
_CHOSEN_TIMES = re.compile(
    r"(^|_)(due|deadline|start|starts|begin|begins|check_in|checkin|pickup|departure|departs"
    r"|renewal|renews|close|closes|expires|expiry|expiration|scheduled|issue|issued)(_|$)"
)


def _mixed_money(meta: FieldMeta | None, records: list[dict[str, Any]]) -> bool:
    """Whether amounts of ``records`` are in different currencies: 3,250 EUR and 3,333 USD
    are not ordered by their numbers, so no "largest total" picks among them."""
    if meta is None or meta.key != "money":
        return False
    currencies = {r.get("currency") for r in records}
    return len(currencies) > 1


def chosen_by(name: str, meta: FieldMeta | None, value: Any) -> bool:
    """Whether a person would choose among records by the order of field ``name`` (an
    ordered rule: latest, smallest ...)."""
    snake = "_".join(name_words(name))
    if is_time(meta, value):
        return bool(_CHOSEN_TIMES.search(snake))
    if _MONEY_SO_FAR.search(snake):
        return False  # "the invoice with the smallest amount paid" is no one's way to pick
    return (meta is not None and meta.key == "money") or bool(_SIZED.search(snake))


# Money a record's history left on it (paid so far, refunded, its taxes and fees): what
# happened to the money, not how big the matter is.
_MONEY_SO_FAR = re.compile(
    r"(^|_)(paid|refunded|captured|received|settled|tax|taxes|fee|fees|discount)(_|$)"
)


def apply_rule(rule: Rule, records: list[dict[str, Any]]) -> int:
    """The index of the record the rule selects."""
    if rule.kind == MATCHING:
        return next(i for i, r in enumerate(records) if r.get(rule.field) == rule.value)
    pick = _ORDER_RULES[rule.kind]
    keyed = [(normalize(r[rule.field]), i) for i, r in enumerate(records)]
    return pick(keyed)[1]


def time_words(field: str) -> str:
    """``updated_at`` -> ``last update time``; ``check_in_at`` -> ``check in time``."""
    if field == "created_at":
        return "creation time"
    if field == "updated_at":
        return "last update time"
    base = field.removesuffix("_at").removesuffix("_on")
    base = {"starts": "start", "ends": "end"}.get(base, base)
    if base.endswith("date") or base.endswith("day"):
        return words(base)
    return f"{words(base)} time"


# Enumerated fields whose value a person says before the noun ("the on-hold ticket", "the AUD
# expense report", "the high-priority ticket"), with the word that follows the value.
_SAID_BEFORE = {
    "status": "", "state": "", "direction": "", "type": "", "kind": "", "employment_type": "",
    "segment": "", "tier": "", "category": "", "currency": "",
    "priority": "-priority", "severity": "-severity", "stage": "-stage",
}  # fmt: skip
# Values that would say something else there: "the new ticket" reads as one just created,
# "the lowest-priority ticket" as a comparison, "the todo task" as nothing.
# (nor "open" or "active": in plain words a "new" ticket is open too, a trialing plan active)
_NOT_SAID_BEFORE = frozenset(
    {"new", "todo", "other", "none", "unknown", "default", "custom", "all", "any", "lowest",
     "highest", "requires_capture", "open", "active"}
)  # fmt: skip
_WORDISH = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[a-z0-9]+){0,2}")


def said_before(field: str, value: Any) -> str:
    """The words before the noun that pick the record whose ``field`` is ``value``
    (``on_hold`` -> "on-hold", a ``high`` priority -> "high-priority"), or "" where the value
    reads as no such word: the request then says ``whose status is "new"``."""
    after = _SAID_BEFORE.get(field)
    if after is None or not isinstance(value, str) or value.lower() in _NOT_SAID_BEFORE:
        return ""
    if not _WORDISH.fullmatch(value):
        return ""
    return value.replace("_", "-") + after


def matching_literal(field: str, value: Any) -> str:
    """A matching rule's value as the request states it (checked to be in the request):
    "on-hold" before the noun, "partially fulfilled" after it (an enum's word, never
    its underscore)."""
    if said_before(field, value):
        return str(value).replace("_", "-")
    if isinstance(value, str) and _WORDISH.fullmatch(value):
        return value.replace("_", " ")
    return str(value)


# Fields whose value is a level, a state or a kind out of a fixed list: a person says the
# value as a word ("with high priority", "set the status to closed", "a renewal CTA"), not
# as a quoted text. (Names, titles and texts a person wrote stay quoted.)
_PLAIN_FIELDS = re.compile(
    r"(?:^|\s|key)(?:priority|severity|urgency|status|stage|state|type|kind|category|tier"
    r"|segment|level|condition|resolution|channel|source|method|mode|visibility|health"
    r"|currency|direction|frequency|interval|plan|carrier|class)$"
)
# One word a list of values holds: "p2", "high", "Master", "on-hold" (not "in_progress":
# a stated literal is said verbatim, and a person never writes an underscore).
_ONE_WORD = re.compile(r'"([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)?)"')


def plain_value(label: str, phrase: str) -> str:
    """``phrase`` as a person says a value of field ``label``: the word itself where the
    field holds a level, state or kind (``priority``, ``"p2"`` -> ``p2``), else as is."""
    m = _ONE_WORD.fullmatch(phrase)
    if m is None or not _PLAIN_FIELDS.search(label.lower()):
        return phrase
    if label.lower().endswith("state") and m.group(1)[:1].isupper():
        return phrase  # a region of an address ("Hesse", "NY"): a name, quoted as stated
    return m.group(1)


# State values a person says as "the one that's <value>": past participles and the states
# read as adjectives. Others are "marked <value>" ("the task marked todo").
_ADJECTIVE_STATES = frozenset(
    {"open", "active", "pending", "paid", "unpaid", "due", "overdue", "live", "idle",
     "inactive", "online", "offline", "available", "busy", "late", "current", "past",
     "upcoming", "ongoing", "complete", "incomplete", "void", "public", "private", "done"}
)  # fmt: skip
_STATE_FIELDS = re.compile(r"(?:^|_)(?:status|state)$")
_STAGE_FIELDS = re.compile(r"(?:^|_)(?:stage|phase)$")


def matched_words(field: str, value: Any) -> str:
    """How a person says which record holds ``value`` in ``field``, after "the <noun>"
    or "the one": "that's booked", "marked todo", "at the screening stage", "that came in
    by phone", "with UPS as its carrier"; never ``whose status is "booked"``. Holds
    ``matching_literal(field, value)``."""
    v = matching_literal(field, value)
    if field in _MATCHED_AS:
        return _MATCHED_AS[field].format(v=v, a=article(v))
    said = field_words(field)
    word = isinstance(value, str) and _WORDISH.fullmatch(value) is not None
    if _STATE_FIELDS.search(field) and word:
        low = v.lower()
        if low.startswith(("requires ", "needs ")):
            return f"that {v}"  # "the payment that requires capture"
        if low in _ADJECTIVE_STATES or (low.endswith("ed") and len(low) > 4):
            return f"that's {v}"
        return f"marked {v}"
    if _STAGE_FIELDS.search(field) and word:
        return f"at the {v} {said.split(' ')[-1]}"
    if word and not re.search(r"\d", v):
        return f"with {v} as its {said}"
    return f'with {said} "{v}"'


def article(word: str) -> str:
    """ "a" or "an" before ``word`` as it sounds: "an open ticket", "a user", "an SLA",
    "an hour"."""
    w = word.strip('"')
    if not w:
        return "a"
    if (len(w) > 1 and w.isupper()) or len(w) == 1:
        return "an" if w[0].upper() in "AEFHILMNORSX" else "a"
    low = w.lower()
    if low.startswith(("hour", "honest", "honou", "heir")):
        return "an"
    if low.startswith(("uni", "use", "usu", "uti", "ura", "eu", "one", "once", "ubiq")):
        return "a"
    return "an" if low[0] in "aeiou" else "a"


def rule_text(rule: Rule, noun: str, said: tuple[str, str] | None = None) -> str:
    """``If more than one ticket matches, use the one that's due first.`` (``said``: the
    rule as ``rule_words`` words it; without it, the field and the order plainly)."""
    if said is not None and said[0]:
        which = f"the {said[0]} one"
    elif said is not None and said[1]:
        which = f"the one {said[1]}"
    elif rule.kind == MATCHING:
        which = f"the one {matched_words(rule.field, rule.value)}"
    elif rule.kind in (LATEST, EARLIEST):
        which = f"the one whose {time_words(rule.field)} is the {rule.kind}"
    else:
        which = f"the one with the {rule.kind} {field_words(rule.field)}"
    return f"If more than one {noun} matches, use {which}."


# How a person says which of several records they mean, by what makes one of them the one
# the work is about: the work due first, the booking that comes next, the contract up for
# renewal first, the invoice issued last, the biggest deal, the cheapest rate. Each in the
# one direction that is a reason (no one picks "the ticket due last" or "the smallest
# order"). Sizes that are no reason to pick (seats, story points, guests) and times that are
# bookkeeping (a billing period's start) have no words: no rule picks by them.
_DUE_FIRST = re.compile(r"(^|_)(due|deadline)(_|$)")
_STARTS = re.compile(
    r"^(start|starts|begin|begins|check_in|checkin|pickup|departure|departs|scheduled)"
    r"(_(at|on|date|time|start))?$"
)
_FIRST_BY = (
    (re.compile(r"(^|_)(renewal|renews)(_|$)"), "that's up for renewal first"),
    (re.compile(r"(^|_)(expires|expiry|expiration)(_|$)"), "that expires first"),
    (re.compile(r"(^|_)(close|closes)(_|$)"), "that's set to close first"),
)
_ISSUED = re.compile(r"(^|_)(issue|issued)(_|$)")
# The amount that says how big a matter is (an order's total, a deal's amount, an
# account's ARR): not a part of it (a subtotal, the shipping) nor what has happened to it.
_HEADLINE_MONEY = re.compile(
    r"^(amount|total|total_amount|total_price|total_cost|grand_total|arr|mrr|annual_revenue"
    r"|balance|total_spent)$"
)
_VALUE = re.compile(r"^(value|contract_value|deal_value)$")
_PRICE = re.compile(r"^(price|unit_price|ticket_price|nightly_rate|rate|fare)$")


# Values of fields said as a person tells one record from another ("the ticket that came
# in by phone"), not as a field ("whose channel is "phone"").
_MATCHED_AS = {
    "channel": "that came in by {v}",
    "source": "that came in through {v}",
    "resolution": "asking for {a} {v}",
    "priority": "marked {v} priority",
    "severity": "marked {v} severity",
    "health": "marked {v}",
    "condition": "in {v} condition",
}


def rule_words(
    rule: Rule,
    records: list[dict[str, Any]],
    info: CollectionInfo | None,
    now: str | None = None,
) -> tuple[str, str] | None:
    """(the words before the noun, those after "the one") that say which of ``records``
    ``rule`` picks, as a person says it: ("next", "") for the booking that starts first
    where all are ahead of ``now``, ("", "that's due first"), ("larger", "") between two
    orders; None where no one would pick by it (the issue with the most story points)."""
    if rule.kind == MATCHING:
        before = said_before(rule.field, rule.value)
        if before:
            return before, ""
        return "", matched_words(rule.field, rule.value)
    snake = "_".join(name_words(rule.field))
    two = len(records) == 2
    if is_time(_meta(info, rule.field), records[0].get(rule.field)):
        if rule.kind == EARLIEST and _DUE_FIRST.search(snake):
            return "", "that's due first"
        if rule.kind == EARLIEST and _STARTS.fullmatch(snake):
            if info is not None and is_person_resource(info.name):
                return None  # "the next employee" is no one
            first = timestamp(records[apply_rule(rule, records)].get(rule.field))
            today = timestamp(now)
            ahead = first is not None and today is not None and first > today
            return ("next", "") if ahead else None  # the earliest of past ones: no reason
        for pattern, said in _FIRST_BY:
            if rule.kind == EARLIEST and pattern.search(snake):
                return "", said
        if rule.kind == LATEST and _ISSUED.search(snake):
            return ("more recently issued" if two else "most recently issued"), ""
        return None
    if not _one_money_order(rule, records, info):
        return None  # "the largest order" must not depend on which amount is read
    if rule.kind == LARGEST and _HEADLINE_MONEY.fullmatch(snake):
        return ("larger" if two else "largest"), ""
    if rule.kind == LARGEST and _VALUE.fullmatch(snake):
        return ("more valuable" if two else "most valuable"), ""
    if rule.kind == SMALLEST and _PRICE.fullmatch(snake):
        return ("cheaper" if two else "cheapest"), ""
    return None


def picks_by(name: str, meta: FieldMeta | None, value: Any) -> bool:
    """Whether ``rule_words`` words a rule ordering records by field ``name`` one way at
    least (a due date, a start, a total, a price): what decoys that a rule tells apart may
    differ in."""
    snake = "_".join(name_words(name))
    if is_time(meta, value):
        times = (_DUE_FIRST, _ISSUED, *(p for p, _ in _FIRST_BY))
        return bool(_STARTS.fullmatch(snake) or any(p.search(snake) for p in times))
    if not is_number(meta, value) or _MONEY_SO_FAR.search(snake):
        return False
    return any(p.fullmatch(snake) for p in (_HEADLINE_MONEY, _VALUE, _PRICE))


def _meta(info: CollectionInfo | None, name: str) -> FieldMeta | None:
    return info.fields.get(name) if info else None


def _one_money_order(
    rule: Rule, records: list[dict[str, Any]], info: CollectionInfo | None
) -> bool:
    """Whether every amount the records carry (total, subtotal, price ...) picks the one
    ``rule`` picks: then "the largest order" is that order by any reading."""
    chosen = apply_rule(rule, records)
    for name in records[0]:
        snake = "_".join(name_words(name))
        meta = _meta(info, name)
        amount = (meta is not None and meta.key == "money") or any(
            p.fullmatch(snake) for p in (_HEADLINE_MONEY, _VALUE, _PRICE)
        )
        if name == rule.field or not amount or _MONEY_SO_FAR.search(snake) or "compare" in snake:
            continue
        values = [normalize(r.get(name)) for r in records]
        if not all(is_number(None, v) for v in values) or len(set(values)) < len(values):
            continue
        if apply_rule(Rule(rule.kind, name), records) != chosen:
            return False
    return True


def nice(value: float) -> float | int:
    """Two significant digits: a threshold a person would write (437.2 -> 440)."""
    if value <= 0:
        return 0
    magnitude = 10 ** (math.floor(math.log10(value)) - 1)
    rounded = round(value / magnitude) * magnitude
    return int(rounded) if rounded >= 10 else round(rounded, 2)


# What a business rule decides, and the numbers that decide it: how urgent a piece of work
# is or which tier a customer gets (money that changes hands, how many, points and scores),
# how a parcel ships (weight, postage, value), a job's employment type (its pay), an issue's
# type (its size: stories over 8 points are epics). Never a judgement (an interview's
# recommendation by its length), a record's other kinds or whether it is open: no number
# decides those in a policy anyone writes.
_SIZES = (
    r"amount|total|subtotal|price|value|revenue|arr|mrr|balance|spend|seats|quantity|qty"
    r"|units|story_points|points|health_score|score|attendees|guests|passengers|employees"
    r"|headcount"
)
_SIZED = re.compile(rf"(^|_)({_SIZES})(_|$)")
_POLICIES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(rf"(^|_)({target})$"), re.compile(rf"(^|_)({source})(_|$)"))
    for target, source in (
        (r"priority|severity|urgency|tier|segment|level|plan|class|cabin", _SIZES),
        (r"service_level|carrier|shipping_method|delivery_method",
         r"weight|postage|total|subtotal|value|amount"),
        (r"employment_type", r"salary|pay|rate"),
        (r"type", r"story_points|estimate"),
    )
)  # fmt: skip


def decides(source: str, target: str) -> bool:
    """Whether a policy would let the number in field ``source`` decide field ``target``
    ("orders over $500 ship express"; never "interviews over 180 minutes say yes")."""
    source, target = source.lower(), target.lower()
    if "compare_at" in source:
        return False  # a list price no one pays
    return any(t.search(target) and s.search(source) for t, s in _POLICIES)


def threshold(
    value: float, rng: random.Random, integer: bool = False
) -> tuple[float | int, bool] | None:
    """(a round threshold, whether ``value`` is above it), clearly on one side; a whole
    number for counts and ratings."""
    if value <= 0:
        return None
    above = rng.random() < 0.5
    limit = nice(value * (rng.uniform(0.5, 0.85) if above else rng.uniform(1.2, 1.8)))
    if integer:
        limit = round(limit)
    if limit <= 0 or (value > limit) != above or math.isclose(value, limit):
        return None
    return limit, above


def number_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# Why the person asking wants a value back, said as they would say it ("... so I can keep
# them posted"): who to tell or check in with, the number to pass on, the amount to confirm
# or check against a budget, a date to plan around. A value with no such use (an order's
# subtotal beside its total, a customer's seats, when a billing period began) is not asked.
_IN_CHARGE = frozenset(
    {"assignee", "assigned_to", "owner", "recruiter", "manager", "hiring_manager", "approver",
     "host", "organizer", "csm", "rep", "account_manager", "technician", "reviewer"}
)  # fmt: skip
_BUDGETED = frozenset({"expenses", "travel", "procurement"})
_FROM_PEOPLE = frozenset({"email", "person_name", "phone"})
# Each use said several ways, as different people would say it: one line repeated across a
# batch of requests reads as a template. The use follows the work: in an offboarding the
# people a leaver's work was for hear who takes over and a date goes into the handover; in
# an escalation someone is waiting and the date says how urgent it is.
PURPOSES: dict[str, tuple[str, ...]] = {
    "in_charge": (
        "so I know who to check in with",
        "so I know who to follow up with",
        "so I know who's handling it",
    ),
    "in_charge_handover": (
        "so I know who to check in with about the handover",
        "so I know who to loop in on the handover",
        "so I can check the handover with them",
    ),
    "handed_over": (  # whom a leaver's work was for learns who has it now
        "so I can tell them who's taking over",
        "so I can let them know who's handling it now",
        "so I can let them know who they'll be dealing with from now on",
    ),
    "waiting": (  # who an escalated piece of work is for
        "so I know who's waiting on it",
        "so I know who it's for",
        "so I know who we're doing this for",
    ),
    "whose": (
        "so I know whose it is",
        "so I can put a name to it",
        "so I know who it belongs to",
    ),
    "keep_posted": (
        "so I can keep them posted",
        "so I can follow up with them",
        "so I can update them myself",
    ),
    "reference": (
        "so I can pass it on",
        "so I have it for my notes",
        "so I can quote it if anyone asks",
        "so I can refer to it later",
    ),
    "date_handover": (
        "so nothing slips in the handover",
        "so I can flag it in the handover",
        "so I can make sure the handover covers it",
        "so the new owner knows what's coming up",
    ),
    "date_urgent": (
        "so I know how much time we have",
        "so I know how urgent it is",
        "so I can set expectations",
        "so I can plan around it",
    ),
    "date_renewal": (
        "so I can time the renewal around it",
        "so I know how long we have before the renewal",
        "so I can plan the renewal outreach around it",
    ),
    "date": (
        "so I can put it in my calendar",
        "so I can plan around it",
        "so I can block out time for it",
    ),
    "risk": (
        "so I can judge how much the renewal is at risk",
        "so I can gauge the risk to the renewal",
    ),
    "budget": (
        "so I can check it against the budget",
        "so I can log it against the budget",
        "so I can see where it leaves the budget",
    ),
    "renewal": (
        "so I have it for the renewal conversation",
        "so I have the numbers ready for the renewal call",
        "so I know what's at stake in the renewal",
        "so I can prepare the renewal offer",
    ),
    "confirm": (
        "so I can confirm it with them",
        "so I can double-check it against my notes",
        "so I can check it matches what they were told",
    ),
}
# A date's own sense said outright: when a piece of work falls due, when a deal closes.
_DUE_SAID = {"due": "so I know when it's due", "close": "so I know when it's set to close"}


def answer_use(field: str, key: str | None, value: Any, motif: str | None) -> str | None:
    """What ``field``'s value (``key``: its semantic key) is wanted back for in work of
    ``motif`` (a ``PURPOSES`` key): "keep_posted" for a ticket's requester's address,
    "reference" for an order number; None where no one would need it back."""
    snake = "_".join(name_words(field))
    if key in _FROM_PEOPLE:
        # whom the work is for hears of it (the requester, the record's own customer);
        # whoever handles it is checked in with
        if field_role(snake) in _IN_CHARGE:
            return "in_charge_handover" if motif == "offboarding" else "in_charge"
        if motif == "offboarding":
            return "handed_over"  # the leaver's work changes hands
        if key == "person_name":
            return "waiting" if motif == "escalation" else "whose"
        return "keep_posted"
    if key is not None and key.startswith("key:"):
        return "reference"
    if is_time(None, value):
        if not picks_by(field, None, value):
            return None
        if motif == "offboarding":
            return "date_handover"
        return {"escalation": "date_urgent", "renewal": "date_renewal"}.get(str(motif), "date")
    if not is_number(None, value):
        return None
    if snake == "health_score" and motif == "renewal":
        return "risk"
    if not (_HEADLINE_MONEY.fullmatch(snake) or _VALUE.fullmatch(snake)):
        return None  # a part of the amount (a subtotal, the shipping) or a size
    if motif in _BUDGETED:
        return "budget"
    return "renewal" if motif == "renewal" else "confirm"


def wordings(use: str, field: str) -> tuple[str, ...]:
    """The ways a request says the ``answer_use`` ``use`` of ``field``'s value: a date's
    own sense among them where the field names it ("so I know when it's due")."""
    said = PURPOSES[use]
    if use in ("date_urgent", "date_renewal", "date"):
        snake = "_".join(name_words(field))
        said += tuple(s for w, s in _DUE_SAID.items() if re.search(rf"(^|_){w}(_|$)", snake))
    return said


def answer_purpose(field: str, key: str | None, value: Any, motif: str | None) -> str | None:
    """The reason a request gives for asking for ``field``'s value: one of the ``wordings``
    of its ``answer_use`` ("so I can keep them posted", "so I can follow up with them"),
    picked by the field and the value asked, so one record reads the same way every time
    but a batch of requests does not repeat one line; None where no one would need it
    back."""
    use = answer_use(field, key, value, motif)
    if use is None:
        return None
    said = wordings(use, field)
    pick = zlib.crc32(f"{'_'.join(name_words(field))}|{normalize(value)}|{motif}".encode())
    return said[pick % len(said)]


def why_asked(answers: Sequence[Mapping[str, Any]]) -> str:
    """What follows the question in the request: " so I can keep them posted" (the reason
    ``answer_purpose`` gave the last value asked for), or nothing."""
    why = str(answers[-1].get("why") or "") if answers else ""
    return f" {why}" if why else ""
