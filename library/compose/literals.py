"""Values a user states in the instruction: short readable texts, enum choices, amounts,
dates. Each generator returns ``None`` when it cannot produce a value the schema accepts,
which makes the parameter unbindable rather than the call invalid."""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from library.compose.catalog import Param, words

_TOPICS = (
    "Renewal follow-up",
    "Quarterly review",
    "Onboarding check-in",
    "Billing question",
    "Delivery delay",
    "Contract update",
    "Escalation review",
    "Kickoff planning",
    "Pricing clarification",
    "Account handover",
    "Service outage recap",
    "Budget approval",
    "Travel arrangements",
    "Warranty claim",
    "Training session",
    "Security review",
)
_SENTENCES = (
    "Please review the details and confirm by Friday.",
    "Following up on our last conversation.",
    "Customer asked for an update on this.",
    "Flagged during the weekly review.",
    "Needs a decision before the end of the month.",
    "Summary of the call: all open points are resolved.",
    "Please prioritise this request.",
    "Checked with finance; the figures are correct.",
    "The customer prefers to be contacted by email.",
    "Handing this over to the account owner.",
)
_TAGS = ("vip", "follow-up", "priority", "q3-review", "escalated", "renewal", "verified")
_PLACES = ("Berlin", "Chicago", "Toronto", "Lisbon", "Austin", "Denver", "Dublin", "Seattle")
_PLACE_HINTS = frozenset(
    {"location", "city", "place", "destination", "origin", "venue", "site", "room"}
)
_CLASSES = ("standard", "premium", "compact", "basic", "economy")
_CLASS_HINTS = frozenset({"class", "tier", "level", "plan", "grade"})
_PERSON_PARTS = frozenset(
    {"first", "last", "given", "family", "middle", "full", "contact", "display"}
)
_TITLE_HINTS = frozenset({"name", "title", "subject", "summary", "headline", "topic"})
_BODY_HINTS = frozenset(
    {
        "body",
        "description",
        "note",
        "notes",
        "message",
        "comment",
        "content",
        "text",
        "reason",
        "details",
        "memo",
        "resolution",
        "feedback",
        "instructions",
        "answer",
        "bio",
    }
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


def text(p: Param, rng: random.Random, strict: bool = False) -> str | None:
    tokens = set(p.name.lower().split("_"))
    if "name" in tokens and tokens & _PERSON_PARTS:
        return None  # a person's name is never made up: it comes from a record
    if tokens & _BODY_HINTS:
        candidates = [rng.choice(_SENTENCES)]
    elif tokens & _TITLE_HINTS:
        topic = rng.choice(_TOPICS)
        candidates = [f"{topic} {rng.randint(2, 99)}", topic]
    elif tokens & {"tag", "tags", "category", "group", "label", "labels"}:
        candidates = [rng.choice(_TAGS)]
    elif tokens & _PLACE_HINTS:
        candidates = [rng.choice(_PLACES)]
    elif tokens & _CLASS_HINTS:
        candidates = [rng.choice(_CLASSES)]
    elif tokens & {"username", "handle", "login"}:
        candidates = [f"user{rng.randint(100, 999)}"]
    elif strict:
        return None  # an optional field with no obvious content is better left alone
    else:
        base = words(p.name).capitalize() or "Value"
        candidates = [f"{base} {rng.randint(10, 99)}", rng.choice(_TAGS)]
    return next((c for c in candidates if _fits(c, p)), None)


def number(p: Param, rng: random.Random, integer: bool) -> int | float | None:
    lo = p.minimum if p.minimum is not None else (1 if integer else 5)
    hi = p.maximum if p.maximum is not None else (lo + (20 if integer else 1000))
    if hi < lo:
        return None
    if integer:
        low, high = int(lo) + (1 if lo != int(lo) else 0), int(hi)
        return rng.randint(low, max(low, min(high, low + 19)))
    return round(rng.uniform(max(lo, 1.0) if hi > 1 else lo, hi), 2)


def when(p: Param, rng: random.Random, now: dt.datetime) -> str:
    day = now + dt.timedelta(days=rng.randint(2, 45))
    if p.key == "date" or p.fmt == "date":
        return day.date().isoformat()
    return day.replace(hour=rng.choice((9, 10, 11, 14, 15, 16)), minute=0, second=0).strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )


def literal(
    p: Param, rng: random.Random, now: dt.datetime, avoid: Any = None, strict: bool = False
) -> Any | None:
    """A value for ``p`` a user would state, different from ``avoid`` (the current value);
    ``strict``: only values that read naturally (no made-up codes)."""
    if p.enum:
        options = [v for v in p.enum if v != avoid and v is not None]
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
        value = text(p, rng, strict)
        return value if value != avoid else None
    if p.type == "array" and p.item_type == "string" and not p.item_key:
        if p.item_enum:
            return [rng.choice(p.item_enum)]
        item = text(Param(p.name, True, "string"), rng)
        return [item] if item else None
    return None
