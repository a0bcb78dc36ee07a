"""Workflow motifs: the recognisable pieces of work a plan can form (onboarding, escalation,
refund, offboarding, renewal ...). A walk leans toward the tools of the motif its first
write starts, and a finished plan is named by the motif its writes fit best.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Motif:
    name: str
    verbs: frozenset[str]  # tool-name verbs that do this kind of work
    nouns: frozenset[str]  # collection words it works on
    goals: tuple[str, ...]  # how a person opens such a request ({subject} is filled in)


def _m(name: str, verbs: str, nouns: str, *goals: str) -> Motif:
    return Motif(name, frozenset(verbs.split()), frozenset(nouns.split()), goals)


MOTIFS: tuple[Motif, ...] = (
    _m(
        "onboarding",
        "create add invite provision enroll register activate assign",
        "employee employees user users member members account accounts seat seats onboarding",
        "{subject} is joining us and needs to be set up.",
        "We're onboarding {subject}.",
        "Please get {subject} set up with us.",
    ),
    _m(
        "offboarding",
        "suspend deactivate disable terminate revoke archive delete remove offboard",
        "employee employees user users member members account accounts access seat seats",
        "{subject} is leaving, so their access and records need wrapping up.",
        "We're offboarding {subject}.",
        "Please handle the offboarding for {subject}.",
    ),
    _m(
        "escalation",
        "escalate assign reassign update prioritize set",
        "ticket tickets issue issues incident incidents case cases cta ctas alert alerts",
        "An issue for {subject} needs escalating.",
        "{subject}'s case has been sitting too long; let's escalate it.",
        "Please escalate the open problem for {subject}.",
    ),
    _m(
        "refund",
        "refund return credit void cancel reverse reimburse",
        "order orders payment payments invoice invoices charge charges return returns refund",
        "{subject} is owed a refund.",
        "We need to sort out a refund for {subject}.",
        "Please process the refund for {subject}.",
    ),
    _m(
        "renewal",
        "renew update extend create upgrade send",
        "subscription subscriptions contract contracts quote quotes renewal renewals plan plans",
        "{subject}'s renewal is coming up.",
        "Let's prepare the renewal for {subject}.",
        "Please take care of {subject}'s renewal.",
    ),
    _m(
        "scheduling",
        "create schedule book reschedule invite",
        "event events meeting meetings booking bookings reservation reservations appointment "
        "appointments interview interviews calendar",
        "I need to set up time with {subject}.",
        "Please get a meeting on the books with {subject}.",
        "We have to schedule things with {subject}.",
    ),
    _m(
        "billing",
        "create send issue pay charge capture mark record",
        "invoice invoices payment payments bill bills charge charges ledger entries",
        "{subject}'s billing needs to be sorted out.",
        "Please get the invoicing for {subject} in order.",
        "Let's settle the billing for {subject}.",
    ),
    _m(
        "fulfilment",
        "create ship fulfill dispatch update receive adjust",
        "order orders shipment shipments stock item items inventory warehouse warehouses "
        "parcel parcels product products",
        "{subject}'s order needs to go out.",
        "Please push the fulfilment along for {subject}.",
        "We need to get {subject}'s shipment moving.",
    ),
    _m(
        "hiring",
        "create advance schedule reject hire move update",
        "candidate candidates application applications interview interviews offer offers job jobs",
        "We're moving {subject} through hiring.",
        "Please advance {subject}'s application.",
        "Let's take the next hiring step with {subject}.",
    ),
    _m(
        "procurement",
        "create approve submit send order receive",
        "purchase order orders vendor vendors requisition requisitions po pos supplier suppliers",
        "We need to buy from {subject}.",
        "Please handle the purchasing for {subject}.",
        "Let's place the order with {subject}.",
    ),
    _m(
        "travel",
        "book create cancel reserve update",
        "flight flights hotel hotels booking bookings rental rentals reservation reservations trip",
        "{subject} is travelling and needs arrangements.",
        "Please sort out the travel for {subject}.",
        "Let's get {subject}'s trip booked.",
    ),
    _m(
        "expenses",
        "submit approve reimburse reject create mark",
        "expense expenses report reports reimbursement reimbursements receipt receipts",
        "{subject}'s expenses need processing.",
        "Please deal with the expense claim from {subject}.",
        "Let's close out {subject}'s expense report.",
    ),
    _m(
        "follow-up",
        "send create reply forward post notify log add",
        "message messages email emails sms chat note notes task tasks comment comments draft "
        "drafts call calls",
        "Please follow up with {subject}.",
        "I need you to follow up on {subject}.",
        "Time to get back to {subject}.",
    ),
)
BY_NAME = {m.name: m for m in MOTIFS}


def motif_of(tool_name: str, collection: str | None) -> Motif | None:
    """The motif one write step starts, if it clearly belongs to one."""
    scored = [(fits(m, tool_name, collection), i) for i, m in enumerate(MOTIFS)]
    score, i = max(scored)
    return MOTIFS[i] if score >= 2.5 else None


GENERIC_GOALS = (
    "Here's what I need done for {subject}.",
    "Could you take care of the following for {subject}?",
    "A request about {subject}.",
)


def _words(text: str) -> set[str]:
    return {t for t in text.lower().replace("-", "_").split("_") if t}


def fits(motif: Motif, tool_name: str, collection: str | None) -> float:
    """How well one write step fits a motif: its verb and its collection."""
    tokens = _words(tool_name)
    verb = tool_name.split("_", 1)[0].lower()
    nouns = _words(collection or "") | tokens
    score = 0.0
    if verb in motif.verbs:
        score += 1.0
    if nouns & motif.nouns:
        score += 1.5
    if score < 1.5 and motif.name != "follow-up":
        # Telling someone about it is part of every workflow.
        notify = BY_NAME["follow-up"]
        if verb in notify.verbs and nouns & notify.nouns:
            score = 1.5
    return score


def name_motif(writes: Iterable[tuple[str, str | None]]) -> str:
    """The motif the plan's writes ``(tool name, collection)`` fit best, or "" when none
    fits at least half of them (a chain of unrelated chores is no workflow)."""
    steps = list(writes)
    if not steps:
        return ""
    best, best_score = "", 0.0
    for motif in MOTIFS:
        per = [fits(motif, tool, coll) for tool, coll in steps]
        strong = sum(1 for p in per if p >= 2.5)
        fitting = sum(1 for p in per if p >= 1.5)
        if strong == 0 or fitting * 2 < len(steps):
            continue
        score = sum(per) + strong
        if score > best_score:
            best, best_score = motif.name, score
    return best
