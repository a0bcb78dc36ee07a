"""Which way a request moves its records: the enum values a plan may set.

A request moves its matter forward: an application goes from screen to interview, never back
to screen from an offer; a case a request touches becomes more urgent or keeps its urgency,
never less; and nothing is set to what the workflow is against (a follow-up cancels nothing,
a hiring step's interview does not say "no" while the application advances). One function
answers it for every way a value is chosen (a stated literal, both branches of a threshold,
a policy note), so no path can pick a value another path refuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from library.compiler.actions import STATUS_FIELDS
from library.compose.coherence import FINAL
from library.compose.motifs import CONTRADICTS, KIND_FIELDS, OTHER_KINDS
from library.graph.nodes import name_words
from library.ingest.naming import singular

# Urgency levels, least to most urgent; ``p0`` is the most urgent of ``p0``..``p4``.
_URGENCY = (
    "lowest", "trivial", "low", "minor", "normal", "medium", "moderate", "high", "major",
    "urgent", "critical", "highest", "blocker", "emergency",
)  # fmt: skip
_URGENCY_FIELDS = re.compile(r"(^|_)(priority|severity|urgency)$")
# Workflows that raise urgency: even a new record of theirs is in the upper half.
RAISES_URGENCY = frozenset({"escalation", "incident"})
# A pipeline's stage field (an application's, a deal's), and the stages that end it by
# giving up.
_PIPELINE = re.compile(r"(^|_)stage$")
_GIVES_UP = frozenset({"rejected", "declined", "withdrawn", "closed_lost", "lost"})
# Workflows that speed a delivery up: a delivery problem is not answered by slower shipping.
SPEEDS_UP = frozenset({"fulfilment"})
# Values naming one half of a pair set up together: a lone KSK signs no zone (the ZSK
# does), a lone ZSK's keys no parent trusts; a CSK (combined signing key) stands alone.
IN_PAIRS = frozenset({"ksk", "zsk"})
_SPEED_FIELDS = re.compile(r"(^|_)(service_level|shipping_method|delivery_method)$")
# Workflows that chase someone for news: they leave a case's urgency as it is.
_CHASES = frozenset({"follow-up"})
# A record's place in its life cycle, in the order the spec declares its values (specs list
# them as the pipeline runs: applied, screen, interview, offer, hired).
_STAGE_FIELDS = re.compile(rf"(^|_)({'|'.join(STATUS_FIELDS)})$")
# States a record waits in, from which it resumes where it was ("on_hold" back to "open").
WAITING = frozenset({
    "on_hold", "paused", "pending", "waiting", "waitlisted", "tentative", "blocked", "past_due",
    "overdue", "exception", "maintenance", "in_repair", "suspended",
})  # fmt: skip
# States a service derives from other fields (capacity, dates, money received): an event
# is sold out when its seats are taken, an invoice overdue when its date passes; no one sets
# them by hand.
DERIVED = frozenset({
    "sold_out", "full", "overdue", "past_due", "expired", "partially_paid", "partially_refunded",
    "partially_shipped", "partially_fulfilled", "out_of_stock", "low_stock", "waitlisted",
})  # fmt: skip
# Verdicts a workflow that moves a person forward does not record about them.
_NEGATIVE = frozenset({"no", "strong_no", "not_recommended", "fail", "failed", "poor"})
_MOVES_PEOPLE_ON = frozenset({"hiring", "onboarding"})


# A judgement made once something has happened: an interview's recommendation, a review's
# rating. A record made now for what is still to come (an interview next week) has none yet.
_VERDICTS = re.compile(
    r"(^|_)(recommendation|rating|outcome|result|verdict|decision|grade|feedback|sentiment)$"
)


def is_verdict(field: str) -> bool:
    return bool(_VERDICTS.search(field.lower()))


# States a decision put a record in (a candidate hired, a deal won, a report approved): what
# hangs on it is settled with it, whether the plan or the world took the decision.
DECIDED = frozenset({
    "hired", "rejected", "declined", "closed_won", "closed_lost", "won", "lost", "approved",
    "accepted",
})  # fmt: skip


def urgency(value: Any) -> int | None:
    """The rank of an urgency level (higher is more urgent), or None if it is not one."""
    word = str(value).lower()
    if word in _URGENCY:
        return _URGENCY.index(word)
    m = re.fullmatch(r"p([0-9])", word)
    return 100 - int(m.group(1)) if m else None


# Which way a policy runs: the bigger number gets the higher value ("orders over $500 are
# urgent", "jobs paying over 90,000 are full time", "stories over 8 points are epics").
_LADDERS: tuple[tuple[re.Pattern[str], dict[str, int]], ...] = tuple(
    (re.compile(rf"(^|_)({target})$"), {v: i for i, rung in enumerate(rungs) for v in rung})
    for target, rungs in (  # (the first that names the field: a service level is no tier)
        (r"employment_type", (("intern",), ("contractor", "part_time"), ("full_time",))),
        (r"service_level|shipping_method|delivery_method",
         (("ground", "standard", "economy"), ("express", "priority"), ("overnight",))),
        (r"tier|segment|plan|level", (("free",), ("basic", "starter", "smb"),
         ("standard", "mid_market"), ("pro", "professional", "business"),
         ("premium", "enterprise"))),
        (r"type", (("task", "bug"), ("story",), ("epic",))),
    )
)  # fmt: skip


def rank(field: str, value: Any) -> int | None:
    """Where ``value`` stands on ``field``'s ladder (higher: what a bigger number gets), or
    None where no policy order is known."""
    if is_urgency(field):
        return urgency(value)
    for target, ladder in _LADDERS:
        if target.search(field.lower()):
            return ladder.get(str(value).lower())
    return None


# Readings where more is better (an account's health, a customer's satisfaction): the
# lower one calls for more urgency ("health score below 40 -> urgent"), not the higher.
_WELLBEING = re.compile(
    r"(^|_)(health|satisfaction|nps|csat|sentiment|engagement|adoption|rating|uptime)(_|$)"
)


def against_the_grain(source: str, target: str) -> bool:
    """Whether a bigger number in ``source`` calls for a lower rung of ``target``: a higher
    health score makes a CTA less urgent."""
    return is_urgency(target) and bool(_WELLBEING.search(source.lower()))


def is_urgency(field: str) -> bool:
    return bool(_URGENCY_FIELDS.search(field.lower()))


def more_urgent(field: str, options: Sequence[Any], current: Any) -> list[Any]:
    """Of ``options`` for an urgency field (``priority``, ``severity``): those above the
    current level, or for a new record those in the upper half; others pass unchanged."""
    if not is_urgency(field):
        return list(options)
    ranked = [(urgency(v), v) for v in options]
    if any(r is None for r, _ in ranked):
        return list(options)  # not a scale we know: no direction to follow
    floor = urgency(current)
    if floor is None:
        ranks = sorted(r for r, _ in ranked if r is not None)
        floor = ranks[len(ranks) // 2] - 1 if ranks else 0
    return [v for r, v in ranked if r is not None and r > floor]


def _against(value: Any, verbs: frozenset[str]) -> bool:
    """Whether an enum value is a participle of one of ``verbs`` ("cancelled" for cancel)."""
    for token in re.split(r"[_\-\s]+", str(value).lower()):
        if any(token.startswith(v) and len(token) - len(v) <= 3 for v in verbs):
            return True
    return False


def forward(
    field: str,
    declared: Sequence[Any],
    options: Sequence[Any],
    current: Any,
    workflow: str | None,
) -> list[Any]:
    """Of ``options`` (values of the enum ``declared`` for ``field``), those a request of
    ``workflow`` may set on a record whose value is now ``current`` (None: a new record)."""
    out = list(options)
    if is_urgency(field) and workflow in _CHASES and current is not None:
        return []  # a follow-up chases the case: re-prioritising it is an escalation
    if is_urgency(field):
        if current is not None or workflow in RAISES_URGENCY:
            out = more_urgent(field, out, current)
        if workflow in RAISES_URGENCY:  # an escalation lands in the upper half: not "medium"
            top = more_urgent(field, declared, None)
            out = [v for v in out if v in top]
    elif is_stage(field) and current is None:
        # A new record starts at the start of its life: no success plan is made "achieved"
        out = [v for v in out if v in list(declared)[:2]]
    elif is_stage(field) and current in declared:
        order = list(declared)
        allowed = set(order[order.index(current) + 1 :])
        if _PIPELINE.search(field.lower()):
            # a pipeline moves one stage on (screen to interview, never applied to hired),
            # or ends where it gives up (rejected, closed lost)
            allowed = {order[order.index(current) + 1]} if allowed else set()
            allowed |= {v for v in order[order.index(current) + 1 :] if v in _GIVES_UP}
        if str(current).lower() in WAITING:  # resumes: back to any working state
            allowed |= {v for v in order[1:] if str(v).lower() not in WAITING}
        out = [v for v in out if v in allowed]
    if _SPEED_FIELDS.search(field.lower()) and workflow in SPEEDS_UP and current is not None:
        floor = rank(field, current)
        if floor is not None:  # faster than it ships now, never slower
            out = [v for v in out if (r := rank(field, v)) is not None and r > floor]
    if is_stage(field):
        out = [v for v in out if str(v).lower() not in DERIVED]
        if workflow == "escalation":  # an escalated case is worked on, not put on hold
            out = [v for v in out if str(v).lower() not in WAITING]
    against = CONTRADICTS.get(workflow or "", frozenset())
    out = [v for v in out if not _against(v, against)]
    if field.lower() in KIND_FIELDS:  # an escalation adds a risk CTA, not a renewal one
        out = [v for v in out if str(v).lower() not in OTHER_KINDS.get(workflow or "", ())]
    if workflow in _MOVES_PEOPLE_ON:
        out = [v for v in out if str(v).lower() not in _NEGATIVE]
    # One of a pair that works only together (a DNSSEC key-signing key beside its zone-
    # signing key) is never asked for alone where the field has a value that stands alone.
    alone = [v for v in out if str(v).lower() not in IN_PAIRS]
    return alone or out


def is_stage(field: str) -> bool:
    return bool(_STAGE_FIELDS.search(field.lower()))


def past_stage_of(stages: dict[str, Sequence[Any]], record: dict[str, Any], kind: str) -> bool:
    """Whether ``record`` stands past the stage of its life cycle that records of ``kind``
    belong to (``stages``: each stage field and its values in order): an application at
    "offer" or "hired" is past its interviews, so none is booked for it, and one that has an
    interview booked now is not moved beyond "interview" in the same request."""
    words = set(name_words(kind)) | {singular(w) for w in name_words(kind)}
    for name, order in stages.items():
        values = [str(v).lower() for v in order]
        stage = next((v for v in values if v in words), None)
        now = str(record.get(name, "")).lower()
        if stage is not None and now in values and values.index(now) > values.index(stage):
            return True
    return False


def clashing(values: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Fields of one write that pull against each other: a case set to a final state is
    not made more urgent in the same breath ("solved" and "urgent"). The two sides (the
    fields that end the record, those that raise its urgency); one of them must go."""
    ends = {f for f, v in values.items() if is_stage(f) and str(v).lower() in FINAL}
    raises = {f for f in values if is_urgency(f)}
    return (ends, raises) if ends and raises else (set(), set())
