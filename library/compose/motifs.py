"""Workflow motifs: the recognisable pieces of work a plan can form (onboarding, escalation,
refund, offboarding, renewal ...). A walk leans toward the tools of the motif its first
write starts, and a finished plan is named by the motif its writes fit best.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from library.compose.coherence import CALLS_OFF
from library.graph.nodes import name_words, tool_verb
from library.seed.vocab import is_person_resource

if TYPE_CHECKING:
    from library.compose.context import Entity


@dataclass(frozen=True, slots=True)
class Motif:
    name: str
    verbs: frozenset[str]  # tool-name verbs that do this kind of work
    nouns: frozenset[str]  # collection words it works on
    goals: tuple[str, ...]  # how a person opens such a request ({subject} is filled in)
    # Workflows whose core steps belong to this one too (onboarding books a welcome
    # meeting; a refund tells the customer): their strong tools are part of the work.
    allies: frozenset[str] = frozenset({"follow-up"})


def _m(name: str, verbs: str, nouns: str, *goals: str) -> Motif:
    return Motif(name, frozenset(verbs.split()), frozenset(nouns.split()), goals)


MOTIFS: tuple[Motif, ...] = (
    _m(
        "onboarding",
        "create add invite provision enroll register activate assign",
        "employee employees user users member members account accounts seat seats onboarding "
        "candidate candidates hire hires",
        "{subject} is joining us and needs to be set up.",
        "{subject} starts soon; let's get the onboarding done.",
        "{subject} needs onboarding.",
    ),
    _m(
        "offboarding",
        "suspend deactivate disable terminate revoke archive delete remove offboard",
        "employee employees user users member members account accounts access seat seats",
        "{subject} is leaving, so their access and records need wrapping up.",
        "{subject} has handed in their notice; please handle the offboarding.",
        "{subject} is on their way out.",
    ),
    _m(
        "escalation",
        "escalate assign reassign update prioritize set",
        "ticket tickets issue issues incident incidents case cases cta ctas alert alerts",
        "{subject} has a problem that needs escalating.",
        "{subject}'s case has been sitting too long; let's escalate it.",
        "{subject} needs an escalation.",
    ),
    _m(
        "refund",
        "refund return credit void cancel reverse reimburse",
        "order orders payment payments invoice invoices charge charges return returns refund "
        "refunds",
        "{subject} is owed a refund.",
        "{subject} asked for their money back; let's process it.",
        "{subject} needs a refund processed.",
    ),
    _m(
        "renewal",
        "renew update extend create upgrade send",
        "subscription subscriptions contract contracts quote quotes renewal renewals plan plans",
        "{subject}'s renewal is coming up.",
        "{subject} is due to renew; let's prepare it.",
        "{subject} is up for renewal.",
    ),
    _m(
        "scheduling",
        "create schedule book reschedule invite",
        "event events meeting meetings booking bookings reservation reservations appointment "
        "appointments interview interviews",
        "{subject} needs some time on the calendar.",
        "{subject} asked to meet; let's get it scheduled.",
        "{subject} needs something scheduled.",
    ),
    _m(
        "billing",
        "create send issue pay charge capture mark record void",
        "invoice invoices payment payments bill bills charge charges ledger",
        "{subject}'s billing needs to be sorted out.",
        "{subject} has open billing items to settle.",
        "{subject} needs a billing clean-up.",
    ),
    _m(
        "fulfilment",
        "create ship fulfill dispatch update receive adjust modify",
        # not the catalogue nor the warehouses: a delivery problem tags no product and
        # hands no warehouse to a new manager
        "order orders shipment shipments stock item items inventory parcel parcels",
        "{subject}'s order needs to go out.",
        "{subject} is waiting on a delivery; let's move it along.",
        "{subject} needs their order fulfilled.",
    ),
    _m(
        "hiring",
        "create advance schedule reject hire move update",
        "candidate candidates application applications interview interviews offer offers job jobs",
        "{subject} is in our hiring pipeline.",
        "{subject}'s application needs the next step.",
        "{subject} moves to the next hiring stage.",
    ),
    _m(
        "procurement",
        "create approve submit send order receive",
        "purchase vendor vendors requisition requisitions po pos supplier suppliers",
        "{subject} is part of a purchase we need to make.",
        "{subject} came up in procurement today.",
        "{subject} is involved in a purchase.",
    ),
    _m(
        "travel",
        "book create cancel reserve update",
        "flight flights hotel hotels booking bookings rental rentals reservation reservations trip",
        "{subject} is travelling and needs arrangements.",
        "{subject} has a trip coming up.",
        "{subject} needs travel arrangements.",
    ),
    _m(
        "expenses",
        "submit approve reimburse reject create mark",
        "expense expenses report reports reimbursement reimbursements receipt receipts",
        "{subject}'s expenses need processing.",
        "{subject} sent in an expense claim.",
        "{subject} needs their expenses processed.",
    ),
    # The work of teams that run software and infrastructure (real devops, DNS, file and
    # credential APIs): a workload that misbehaves, a domain to set up, keys to rotate,
    # files to share.
    _m(
        "incident",
        "scale restart rollback redeploy upgrade install uninstall flush notify rectify "
        "configure resume suspend restore deploy retry",
        "deployment deployments pod pods helm_chart helm_charts chart charts cluster clusters "
        "node nodes server servers instance instances sandbox sandboxes device devices app "
        "apps line lines cache caches",
        "{subject} is misbehaving; let's stabilise it.",
        "{subject} needs attention from the on-call engineer.",
        "{subject} is part of an incident we are handling.",
    ),
    _m(
        "domain setup",
        "create add verify patch put notify rectify check request edit update",
        "zone zones domain domains record records rrset rrsets cryptokey cryptokeys "
        "sender senders signature signatures web_resource web_resources verify verifies",
        "{subject} needs its DNS and domain settings sorted out.",
        "{subject} is being set up on our domains.",
        "{subject} needs a DNS change.",
    ),
    _m(
        "access",
        "rotate revoke regenerate update create delete replace grant",
        "secret secrets key keys token tokens tsigkey tsigkeys credential credentials "
        "cryptokey cryptokeys permission permissions vault vaults",
        "{subject} needs its keys and credentials brought up to date.",
        "{subject} is due for a credential rotation.",
        "{subject} needs an access change.",
    ),
    _m(
        "file sharing",
        "share replace move archive associate upload create",
        "file files folder folders document documents directory directories association "
        "associations attachment attachments",
        "{subject} needs its files put in order and shared.",
        "{subject} is waiting on some files from us.",
        "{subject} needs files shared.",
    ),
    # The everyday work of teams on their own tools (a task board, a user directory): what
    # a colleague asks of another about a record of theirs, not a customer's case.
    _m(
        "task update",
        "complete toggle mark approve close reopen assign update edit create add move",
        "task tasks subtask subtasks todo todos checklist checklists",
        "{subject} has tasks that need bringing up to date.",
        "{subject}'s tasks need some attention today.",
        "{subject} needs their task list updated.",
    ),
    _m(
        "account change",
        "update replace patch edit rename add remove assign set",
        "user users group groups role roles team teams membership memberships directory",
        "{subject}'s account needs changing.",
        "{subject} asked for a change to their account.",
        "{subject} needs an account change.",
    ),
    _m(
        "follow-up",
        "send create reply forward post notify log add",
        "message messages email emails sms chat note notes task tasks comment comments draft "
        "drafts call calls ticket tickets case cases",
        "{subject} is waiting to hear back from us.",
        "{subject} needs a follow-up.",
        "{subject} deserves a follow-up.",
    ),
)
# Which workflows' core steps each one takes part in (follow-up belongs to every one).
_ALLIES: dict[str, str] = {
    "onboarding": "scheduling",
    "offboarding": "",
    "escalation": "scheduling",
    "refund": "fulfilment",
    "renewal": "billing scheduling",
    "scheduling": "",
    "billing": "refund",
    "fulfilment": "",  # a delivery problem takes no payment
    "hiring": "scheduling onboarding",
    "procurement": "billing fulfilment",
    "travel": "expenses scheduling",
    "expenses": "billing",
    "incident": "escalation",
    "domain setup": "access",
    "access": "",
    "file sharing": "",
    "task update": "",
    "account change": "access",
    "follow-up": "",
}
MOTIFS = tuple(
    Motif(m.name, m.verbs, m.nouns, m.goals, frozenset({"follow-up", *_ALLIES[m.name].split()}))
    for m in MOTIFS
)
BY_NAME = {m.name: m for m in MOTIFS}

CORE = 2.5  # a step that is the workflow's own work (its verb on its records)
PART = 1.5  # a step that belongs to it (its records, or telling someone)


def motif_of(tool_name: str, collection: str | None) -> Motif | None:
    """The motif one write step starts, if it clearly belongs to one."""
    scored = [
        (fits(m, tool_name, collection), i)
        for i, m in enumerate(MOTIFS)
        if part_of(m, tool_name, collection)  # (a payment cancelled starts no refund)
    ]
    score, i = max(scored, default=(0.0, 0))
    return MOTIFS[i] if score >= CORE else None


def _words(text: str) -> set[str]:
    return set(name_words(text))


@functools.cache
def _claimed(tool_name: str, collection: str | None) -> frozenset[str]:
    """The motifs whose nouns name the record best: a purchase order is procurement's
    (two of its words), not a refund's because it is also an order. Someone joining or
    leaving claims only person records (an employee, a user), not every record called an
    account or a member (a customer's account, a ledger account)."""
    words = _words(collection or "") | (_words(tool_name) - {tool_verb(tool_name)})
    if words & {"work", "purchase"}:
        # a work order is a technician's job, a purchase order procurement's: not a sale
        words -= {"order", "orders"}
    person = is_person_resource(collection or "")
    overlap = {
        m.name: len(words & m.nouns) if person or m.name not in STAFF_WORKFLOWS else 0
        for m in MOTIFS
    }
    most = max(overlap.values(), default=0)
    return frozenset(name for name, n in overlap.items() if n and n == most)


# Work that a cancellation ends: a trip or a meeting called off is not planned further (no
# expense report filed, no briefing booked for it); what follows is telling people.
CALLED_OFF = frozenset({"travel", "scheduling"})


# Allied work a workflow takes on only for a colleague: a customer's trip books no meeting
# about it (a trip briefing is a colleague's, with their manager).
COLLEAGUE_ALLIES: dict[str, frozenset[str]] = {"travel": frozenset({"scheduling"})}


def for_an_outsider(motif: Motif, tool_name: str, collection: str | None) -> bool:
    """Whether a write may be part of ``motif`` done for an outside person (a customer):
    not one that comes in only through an ally kept for colleagues (``COLLEAGUE_ALLIES``)."""
    if fits(motif, tool_name, collection) >= PART:
        return True
    return not any(
        fits(BY_NAME[a], tool_name, collection) >= CORE
        for a in COLLEAGUE_ALLIES.get(motif.name, ())
    )


# Work that comes as one matter even off a colleague's plate: their scheduling is one
# meeting, their trip one trip (a long request of it strings unrelated calendar chores).
ONE_MATTER = frozenset({"scheduling", "travel", "file sharing"})


# Workflows whose own records live in services of some domains only: a trip's bookings are
# with a travel service (a flight, a hotel, a car), not a meeting room's booking.
HOME_DOMAINS: dict[str, frozenset[str]] = {"travel": frozenset({"travel"})}


# ... and domains whose records of its kind are another workflow's: a flight, hotel or car
# booking is a trip's, so someone asking to meet is not checked in to a flight.
AWAY_DOMAINS: dict[str, frozenset[str]] = {"scheduling": frozenset({"travel"})}


def at_home(motif: Motif, tool_name: str, collection: str | None, domain: str) -> bool:
    """Whether a write on a record of ``collection`` in a service of ``domain`` may be the
    workflow's own (``HOME_DOMAINS``, ``AWAY_DOMAINS``): records of its kind elsewhere are
    someone else's."""
    if motif.name not in _claimed(tool_name, collection):
        return True
    home = HOME_DOMAINS.get(motif.name)
    return (home is None or domain in home) and domain not in AWAY_DOMAINS.get(motif.name, ())


def claimed_by(collection: str) -> frozenset[str]:
    """The workflows a kind of record belongs to (``_claimed``)."""
    return _claimed("", collection)


# Records whose making is a workflow's own work, whatever the verb's name: a refund made on
# a payment gives money back as much as "refund the order" does.
MADE_AS_WORK: dict[str, frozenset[str]] = {
    "refund": frozenset({"refund", "refunds", "reversal", "reversals"}),
}
_MAKING = frozenset({"create", "add", "issue", "make"})


def fits(motif: Motif, tool_name: str, collection: str | None) -> float:
    """How well one write step fits a motif: its verb and its collection."""
    tokens = _words(tool_name)
    verb = tool_verb(tool_name)
    nouns = _words(collection or "") | tokens
    score = 0.0
    if verb in motif.verbs or (
        verb in _MAKING and nouns & MADE_AS_WORK.get(motif.name, frozenset())
    ):
        score += 1.0
    if nouns & motif.nouns and motif.name in _claimed(tool_name, collection):
        score += 1.5
    if score < 1.5 and motif.name != "follow-up":
        # Telling someone about it is part of every workflow.
        notify = BY_NAME["follow-up"]
        if verb in notify.verbs and nouns & notify.nouns:
            score = 1.5
    return score


# What of a workflow joins other work, where that is not all of it: a renewal or an
# escalation books a meeting, not a hotel room or an interview (both scheduling's own).
APPOINTMENTS = frozenset({"meeting", "meetings", "event", "events", "appointment", "appointments"})
JOINS: dict[str, frozenset[str]] = {"scheduling": APPOINTMENTS}


def joins(motif: Motif, tool_name: str, collection: str | None) -> bool:
    """Whether a write of ``motif`` may come into another workflow's request (as an ally's
    step or as a second piece of work)."""
    nouns = JOINS.get(motif.name)
    return nouns is None or bool(_words(collection or "") & nouns)


def part_of(motif: Motif, tool_name: str, collection: str | None) -> bool:
    """Whether a write step belongs to a workflow: one of its own steps, or a core step
    of an allied workflow (the part of it that joins others), and never one that
    contradicts it."""
    verb = tool_verb(tool_name)
    if refuses(motif, tool_name, collection):
        return False
    if verb in ("create", "add") and _makes_what_it_undoes(motif, str(collection or "")):
        return False  # someone leaving is not added anywhere; a refund charges no one
    if verb in _EDITS and _words(str(collection or "")) & _NOT_EDITED.get(motif.name, frozenset()):
        return False  # a hiring step does not redefine the job or rewrite the candidate
    if motif.name == "refund" and _not_money_back(verb, _words(str(collection or ""))):
        return False
    if fits(motif, tool_name, collection) >= PART:
        return True
    return any(
        fits(BY_NAME[a], tool_name, collection) >= CORE and joins(BY_NAME[a], tool_name, collection)
        for a in motif.allies
    )


def _not_money_back(verb: str, nouns: set[str]) -> bool:
    """Whether a write is no part of giving money back: a bill sent out asks for money;
    and a bill voided, or a payment or charge cancelled, never had its money taken
    (``coherence.may_write``): that is a void, not a refund, and nothing of it goes back
    (a "refund" whose only money step cancels an authorisation tells a false story)."""
    if verb in _ASKS and nouns & _BILLS:
        return True
    return verb in CALLS_OFF and bool(nouns & (_BILLS | _CHARGES))


def refuses(motif: Motif, tool_name: str, collection: str | None) -> bool:
    """Whether a write is never part of a request for ``motif``, not even as the work of a
    workflow that follows it: a verb that contradicts it (``CONTRADICTS``: onboarding
    suspends no one), a remark where it makes none (``NO_REMARKS``: "Meeting booked." on
    some document of theirs tells no one anything)."""
    if tool_verb(tool_name) in CONTRADICTS.get(motif.name, frozenset()):
        return True
    return motif.name in NO_REMARKS and bool(_words(str(collection or "")) & _REMARKS)


# Money a refund gives back, never makes anew (no new payment, charge, invoice or order).
_NEW_MONEY = frozenset(
    {"payment", "payments", "charge", "charges", "invoice", "invoices", "order", "orders"}
)


# What a workflow never makes, though its nouns name it: an onboarding starts from the
# hire's candidate record (it makes no new candidate or application); a hiring step moves a
# candidate on (opening a new job is another request).
_NOT_MADE: dict[str, frozenset[str]] = {
    "onboarding": frozenset({"candidate", "candidates", "application", "applications"}),
    # ... and moves candidates on: it makes their interviews, not new candidates or new
    # applications (sourcing people is other work)
    "hiring": frozenset({"job", "jobs", "candidate", "candidates", "application", "applications"}),
    "expenses": frozenset({"report", "reports"}),  # processing a claim files no new one
}


# What a workflow works on but does not edit: a hiring step moves candidates on (their
# applications and interviews); the job they apply to is the hiring manager's to open, pause
# or redefine, and a candidate's own details (their company, their links) are theirs.
_NOT_EDITED: dict[str, frozenset[str]] = {
    "hiring": frozenset({"job", "jobs", "candidate", "candidates"}),
}
_EDITS = frozenset({"update", "edit", "modify", "patch", "set", "change", "put"})
# Workflows whose news goes to people, never as a remark on a record: what is scheduled is
# told by the invitation (or a message), and what it books takes no comments; a comment
# there could only go on some other record of the person's, a chore of its own.
NO_REMARKS = frozenset({"scheduling"})
_REMARKS = frozenset({"comment", "comments"})
# Sending out a bill asks for money (what a refund gives back).
_ASKS = frozenset({"send", "issue", "finalize", "remind"})
_BILLS = frozenset({"invoice", "invoices", "quote", "quotes", "bill", "bills"})
# Money taken from someone: cancelled, it was only authorised (a void), never refunded.
_CHARGES = frozenset({"payment", "payments", "charge", "charges"})


def _makes_what_it_undoes(motif: Motif, collection: str) -> bool:
    """Whether creating a record of ``collection`` works against ``motif``: an offboarding
    adds no one anywhere, a refund creates no payment, charge, invoice or order, and no
    workflow makes what it starts from (``_NOT_MADE``)."""
    if motif.name == "offboarding":
        return is_person_resource(collection)
    if motif.name == "refund":
        return bool(_words(collection) & _NEW_MONEY)
    return bool(_words(collection) & _NOT_MADE.get(motif.name, frozenset()))


def gives_back_another(motif: Motif | None, about: Entity, target: Entity) -> bool:
    """Whether a refund's step on ``target`` would give back money of another record than
    the one the request is about (``about``: a payment, charge, invoice, order or return
    it names, or the one its refund already gave back): "a refund for the payment INV-1"
    refunds that payment or what is tied to it (its refund, the return of that order), not
    some other order of its payer; the order refunded and the return received are one."""
    if motif is None or motif.name != "refund" or about.created:
        return False
    if not _words(about.collection) & _GIVEN_BACK:
        return False  # a request about a person: their order is the one to refund
    return not _tied(about, target)


# What a refund gives back money of (or for): a payment, a bill, an order, a return.
_GIVEN_BACK = _NEW_MONEY | {"return", "returns", "rma", "rmas"}


def _tied(one: Entity, other: Entity) -> bool:
    """Whether two records are one matter's: the same, tied by how one was found from the
    other, or one naming the other's id (a return's ``order_id``, found on its own)."""
    if other is one or any(e is other for e in one.links):
        return True
    return any(
        name.endswith("id") and value == b.id
        for a, b in ((one, other), (other, one))
        for name, value in a.record.items()
        if name != "id"
    )


# Kinds of record (the value of its ``type``) that are other work than a workflow's, though
# its nouns name them: an escalation raises a problem (a risk CTA, a renewal slipping), not
# a customer success team's expansion or lifecycle call to action ("escalate the expansion
# CTA" tells of a problem there is none of; "Quarterly business review due" is routine).
OTHER_KINDS: dict[str, frozenset[str]] = {
    "escalation": frozenset(
        {"expansion", "upsell", "cross_sell", "lifecycle", "onboarding", "adoption", "advocacy"}
    ),
}
KIND_FIELDS = ("type", "kind", "category")


def other_kind(motif: Motif | None, record: Mapping[str, Any]) -> bool:
    """Whether ``record`` is of a kind that is other work than ``motif``'s
    (``OTHER_KINDS``): no step of the workflow acts on it."""
    others = OTHER_KINDS.get(motif.name) if motif is not None else None
    if not others:
        return False
    return any(str(record.get(f, "")).lower() in others for f in KIND_FIELDS)


# Workflows that keep the records they work on going: an escalation raises a ticket's
# priority, it does not close it; a renewal does not end the subscription it renews; a
# follow-up waits on a reply, so the case it chases stays open.
ONGOING = frozenset({"escalation", "renewal", "onboarding", "scheduling", "follow-up"})

# Workflows that move money: what a reply may be asked about them includes amounts (a
# refund's total), which no other work has a use for (an offboarding's deal amount).
MONEY_WORK = frozenset(
    {"refund", "billing", "renewal", "expenses", "procurement", "travel", "fulfilment"}
)

# Workflows about a colleague: someone joining or leaving us, never a customer.
STAFF_WORKFLOWS = frozenset({"onboarding", "offboarding"})
# Workflows that hand what their colleague handled (the tickets they are assigned, the
# contacts they own, the meetings they host) to another colleague: someone leaving hands
# over their work.
HANDS_OVER = frozenset({"offboarding"})
# Workflows done about their person, not at their request: a candidate does not ask for
# their application to move on, nor a leaver for their access to go ("as Ann asked" is
# never said of them).
ABOUT_NOT_FOR = STAFF_WORKFLOWS | {"hiring"}
# Work only our own people have: a customer's trip files no expense report of ours, and a
# customer requests none of our purchases.
STAFF_WORK = STAFF_WORKFLOWS | {"expenses", "procurement"}


def staff_work(collection: str | None, tool_name: str = "") -> bool:
    """Whether records of ``collection`` (written or read by ``tool_name``: a procurement
    service's ``orders`` are its purchase orders) are only ever our own people's (expense
    reports, employee records, purchase orders)."""
    claimed = _claimed(tool_name, collection)
    return bool(claimed) and claimed <= STAFF_WORK


# The second piece of work a long request may carry for the same person: what naturally
# follows the first (a refund, then the escalation of the ticket; a hire, then their
# onboarding), never an unrelated errand (a renewal, then a room booking).
SEQUELS: dict[str, tuple[str, ...]] = {
    "onboarding": ("scheduling", "follow-up"),
    "offboarding": ("billing", "follow-up"),
    "escalation": ("refund", "follow-up", "scheduling"),
    "refund": ("escalation", "follow-up"),  # not billing: a refund charges no one again
    "renewal": ("billing", "escalation", "follow-up"),
    "scheduling": ("follow-up",),
    "billing": ("refund", "escalation", "follow-up"),
    "fulfilment": ("escalation", "follow-up"),  # an order to deliver is not refunded
    "hiring": ("onboarding", "scheduling", "follow-up"),
    "procurement": ("billing", "expenses", "follow-up"),
    "travel": ("expenses", "scheduling", "follow-up"),
    "expenses": ("billing", "follow-up"),
    "incident": ("escalation", "follow-up"),
    "domain setup": ("access", "follow-up"),
    "access": ("follow-up",),
    "file sharing": ("follow-up",),
    "task update": ("follow-up",),
    "account change": ("access", "follow-up"),
    "follow-up": ("scheduling",),
}

# Verbs that contradict a workflow: onboarding someone does not suspend them.
CONTRADICTS: dict[str, frozenset[str]] = {
    "onboarding": frozenset(
        {"suspend", "deactivate", "disable", "terminate", "revoke", "delete", "remove",
         "cancel", "reject", "offboard", "archive"}
    ),
    "offboarding": frozenset(
        {"activate", "reactivate", "invite", "enroll", "provision", "hire", "onboard"}
    ),
    # not a changed order, nor a note or a new resolution on it: the refund is the change;
    # and what it gives back it does not refuse (no return request rejected beside it)
    "refund": frozenset(
        {"charge", "capture", "bill", "modify", "update", "reject", "decline", "deny"}
    ),
    "file sharing": frozenset({"update", "rename", "delete"}),  # sharing, not renaming
    # getting back to someone ends nothing of theirs (no hung-up call, no cancelled event)
    "follow-up": frozenset(
        {"end", "hang", "cancel", "delete", "remove", "archive", "decline", "reject", "void"}
    ),
    # an order to deliver is not called off, nor what it sells taken off the shelf
    "fulfilment": frozenset({"cancel", "void", "refund", "archive"}),
    "hiring": frozenset({"terminate", "offboard"}),
    "renewal": frozenset({"cancel", "terminate"}),
    # a change to someone's account keeps it (removing it is someone leaving)
    "account change": frozenset(
        {"delete", "deactivate", "disable", "suspend", "terminate", "offboard"}
    ),
}  # fmt: skip


def name_motif(writes: Iterable[tuple[str, str | None]]) -> str:
    """The motif the plan's writes ``(tool name, collection)`` fit best, or "" when none
    fits at least half of them (a chain of unrelated chores is no workflow)."""
    steps = list(writes)
    if not steps:
        return ""
    best, best_score = "", 0.0
    verbs = {tool_verb(tool) for tool, _ in steps}
    for motif in MOTIFS:
        if verbs & CONTRADICTS.get(motif.name, frozenset()):
            continue
        per = [fits(motif, tool, coll) for tool, coll in steps]
        part = [part_of(motif, tool, coll) for tool, coll in steps]
        # (a step it refuses is none of its work, however well its words fit)
        strong = sum(1 for p, ok in zip(per, part, strict=True) if p >= CORE and ok)
        fitting = sum(part)
        if strong == 0 or fitting * 2 < len(steps):
            continue
        score = sum(per) + strong
        if score > best_score:
            best, best_score = motif.name, score
    return best


# Free text of a record that logs work (a ticket, a case, a task): where it names what the
# work was done on (``writes._logs_the_work``).
LOG_TEXTS = ("description", "details", "notes", "note")
