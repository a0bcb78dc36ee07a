"""Values a user states in the instruction: texts that fit the field's meaning, enum choices,
amounts, dates. Each generator returns ``None`` when it cannot produce a value the schema
accepts, which makes the parameter unbindable rather than the call invalid.

Texts come from the shared vocabulary (``library.seed.vocab``), by what the field means: a
job's ``title`` is a job title, a ticket's ``subject`` reads like one, a channel's ``name`` is
a slug. ``where`` (``service.collection``) tells the meaning apart where the field name alone
does not; without it, a value that fits the field in every collection is used, or none.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from library.compose.catalog import Param
from library.compose.direction import forward
from library.compose.topics import topic_texts
from library.seed import vocab
from library.seed.numbers import numeric_range

# Parts of a person's name: never made up here, always bound from a record.
_PERSON_PARTS = frozenset(
    {"first", "last", "given", "family", "middle", "full", "contact", "display", "surname"}
)
# Derived from a person (``jcooper``): bound from the person, never invented here.
_FROM_PERSON = frozenset({"username", "user_name", "login", "screen_name"})
# Fields whose meaning depends on the collection (a job's ``title`` is not a meeting's), and
# what each reads as when the caller does not say where it writes: the most common case.
_AMBIGUOUS = {
    "title": "task_title", "name": "project_name", "label": "tag", "summary": "issue_summary",
    "headline": "article_title", "topic": "meeting_topic", "subject": "email_subject",
}  # fmt: skip
# Numbers by meaning: (name pattern, low, high).
_NUMBERS: tuple[tuple[Any, ...], ...] = (
    (r"(^|_)(rating|stars)$", 1, 5),
    # Counts a person asks for: a stay of one to four rooms, not thirteen.
    (r"(^|_)(rooms|nights)$", 1, 4),
    (r"(^|_)(guests|passengers|adults|attendees)$", 1, 6),
    (r"(^|_)seats$", 2, 50),
    (r"(^|_)(quantity|qty|units|count)(_|$)", 1, 10),
    # Round values, as people state them: a 45-minute interview, a 15% discount.
    (r"probability|percent|percentage|discount|health_score", 5, 95, 5),
    (r"duration_minutes|minutes", 15, 120, 15),
    (r"(^|_)hours$", 1, 8),
    (r"(^|_)days$", 1, 30),
    (r"story_points|(^|_)estimate$", 1, 13),  # an estimate in points, not a loyalty balance
    (r"points", 50, 2000, 50),
    (r"amount|price|total|cost|budget|fee|salary|revenue|value|arr|mrr|rate", 20, 5000),
)


def _fits(text: str, p: Param) -> bool:
    if p.min_length is not None and len(text) < p.min_length:
        return False
    if p.max_length is not None and len(text) > p.max_length:
        return False
    if p.pattern:
        try:
            return re.search(p.pattern, text) is not None
        except re.error:
            return False
    return True


def _kind(p: Param, where: str | None, avoid: Any, strict: bool) -> str | None:
    """The vocabulary kind of a text parameter: from its name and collection, else from
    the value it replaces (an update keeps the kind of the current value)."""
    low = p.name.lower()
    kind = vocab.meaning(p.name, where or "")
    ambiguous = low in _AMBIGUOUS and not where
    if isinstance(avoid, str):
        same = vocab.kind_of_value(avoid)
        if same is not None and (kind is None or ambiguous):
            return same
    if ambiguous:  # an edit must not guess; a new record reads as the common case
        return None if strict else _AMBIGUOUS[low]
    return kind


def text(
    p: Param,
    rng: random.Random,
    strict: bool = False,
    where: str | None = None,
    avoid: Any = None,
    topic: str | None = None,
    internal: bool = False,
    reporting: bool = False,
) -> str | None:
    tokens = set(p.name.lower().split("_"))
    if ("name" in tokens and tokens & _PERSON_PARTS) or p.name.lower() in _FROM_PERSON:
        return None  # a person's name (or username) is never made up: it comes from a record
    kind = _kind(p, where, avoid, strict)
    if kind == "job_title":
        kind = "client_title"
    if kind is None or kind in ("username", "display_name", "person_name"):
        return None  # unknown meaning: better unbound than a made-up placeholder
    if strict and kind in _FORMATS:
        return None  # made-up codes do not read naturally in an instruction
    own = list(topic_texts(topic, kind, internal, reporting))  # the workflow's words first
    rng.shuffle(own)
    options = [*own, *_candidates(kind, rng)]
    regions = vocab.ROWS.get(kind, {}).get("region", {})
    if isinstance(avoid, str) and avoid in regions:
        # a place changed stays in its region: a car picked up at JFK is not dropped off in
        # Rotterdam
        options = [v for v in options if regions.get(v) == regions[avoid]]
    return next((v for v in options if v != avoid and _fits(v, p)), None)


# Kinds whose values are codes (tracking numbers, references): fine in data, not as a
# literal a user would state unprompted.
_FORMATS = frozenset(
    {"tracking_number", "pnr", "confirmation", "invoice_number", "po_number", "quote_number",
     "order_number", "asset_tag", "serial", "case_number", "reference", "sha", "password",
     "passcode", "iban", "last4", "tax_id"}
)  # fmt: skip


def _candidates(kind: str, rng: random.Random) -> list[str]:
    """Values of a kind in random order: listed values first, then drawn ones."""
    listed = list(vocab.values_of(kind))
    rng.shuffle(listed)
    pool = _pool()
    drawn = [pool.text(kind, rng) for _ in range(6)] if vocab.known(kind) else []
    return [v for v in dict.fromkeys([*listed[:12], *drawn, *listed[12:]]) if v]


def _pool() -> Any:
    from library.seed import seed_pool  # cached; the pool behind every seeded world

    return seed_pool(0)


def number(p: Param, rng: random.Random, integer: bool) -> int | float | None:
    rule = next((r for r in _NUMBERS if re.search(r[0], p.name.lower())), None)
    if rule is None and (meant := numeric_range(p.name)) is not None:
        rule = (p.name, *meant)  # a latitude, a port, a percentage: what the name means
    default_lo, default_hi = (rule[1], rule[2]) if rule else (1 if integer else 5, None)
    lo = p.minimum if p.minimum is not None else default_lo
    hi = p.maximum if p.maximum is not None else default_hi
    hi = hi if hi is not None else lo + (20 if integer else 1000)
    if rule is not None:  # the field's plausible range, within the schema's bounds
        lo = max(lo, rule[1]) if rule[1] <= hi else lo
        hi = min(hi, rule[2]) if rule[2] >= lo else hi
    if hi < lo:
        return None
    if integer:
        low, high = int(lo) + (1 if lo != int(lo) else 0), int(hi)
        if high < low:
            return None
        step = rule[3] if rule is not None and len(rule) > 3 else 1
        rounded = range(-(-low // step) * step, high + 1, step)
        if step > 1 and rounded:
            return rng.choice(rounded)
        return rng.randint(low, high if rule is not None else min(high, low + 19))
    step = rule[3] if rule is not None and len(rule) > 3 else None
    if step is not None and (rounded := range(int(-(-lo // step) * step), int(hi) + 1, step)):
        return float(rng.choice(rounded))
    return round(rng.uniform(max(lo, 1.0) if hi > 1 else lo, hi), 2)


# Days offices are closed nearly everywhere (month, day): no meeting or deadline set on them.
_CLOSED = frozenset({(1, 1), (12, 24), (12, 25), (12, 26), (12, 31)})


def working_day(day: dt.datetime) -> dt.datetime:
    """``day``, or the next one that is neither a weekend nor a public holiday."""
    while day.weekday() >= 5 or (day.month, day.day) in _CLOSED:
        day += dt.timedelta(days=1)
    return day


def when(p: Param, rng: random.Random, now: dt.datetime) -> str:
    """A date or time a user would set: a working day, a few days to weeks ahead, at an
    office hour."""
    day = working_day(now + dt.timedelta(days=rng.randint(2, 45)))
    if p.key == "date" or p.fmt == "date":
        return day.date().isoformat()
    return day.replace(hour=rng.choice((9, 10, 11, 14, 15, 16)), minute=0, second=0).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )


def literal(
    p: Param,
    rng: random.Random,
    now: dt.datetime,
    avoid: Any = None,
    strict: bool = False,
    *,
    where: str | None = None,
    topic: str | None = None,
    internal: bool = False,
    reporting: bool = False,
) -> Any | None:
    """A value for ``p`` a user would state, different from ``avoid`` (the current value);
    ``strict``: only values that read naturally (no made-up codes); ``where``: the
    ``service.collection`` the parameter writes to, which decides what a ``title`` is;
    ``topic``: the workflow the text belongs to (``library.compose.topics``), said to a
    colleague when ``internal``, to the colleague the work is done for when ``reporting``."""
    if p.enum:
        options = [v for v in p.enum if v != avoid and v is not None]
        options = forward(p.name, p.enum, options, avoid, topic)
        return rng.choice(options) if options else None
    key = (p.key or "").split(":", 1)[0]
    if key in ("date", "datetime") or p.fmt in ("date", "date-time"):
        return when(p, rng, now)
    if key == "currency":
        return next((c for c in ("USD", "EUR", "GBP") if c != avoid and _fits(c, p)), None)
    if key == "country":
        return next((c for c in ("US", "GB", "DE", "FR") if c != avoid and _fits(c, p)), None)
    if key:
        return None  # emails, phones, names, ids...: bound from what the agent knows
    if p.type == "boolean":
        return (not avoid) if isinstance(avoid, bool) else rng.random() < 0.5
    if p.type == "integer":
        return number(p, rng, integer=True)
    if p.type == "number":
        return number(p, rng, integer=False)
    if p.type == "string":
        return text(p, rng, strict, where, avoid, topic, internal, reporting)
    if p.type == "array" and p.item_type == "string" and not p.item_key:
        if p.item_enum:
            return [rng.choice(p.item_enum)]
        item = text(Param(p.name, True, "string"), rng, where=where)
        if item is None:
            kind = vocab.meaning(vocab.singular(p.name), where or "")
            item = text(Param(vocab.singular(p.name), True, "string"), rng, where=where)
            item = item if kind else None
        return [item] if item else None
    return None
