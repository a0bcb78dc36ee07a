"""Binding arguments: from facts the agent has seen, from a name it has seen (a first or
last name), from a threshold rule, or from literals the instruction will state."""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Mapping
from typing import Any

from library.compiler.naming import a_or_an
from library.compose.catalog import (
    CREATE,
    Param,
    ToolInfo,
    access_words,
    ref_collection,
    singular,
    title,
    words,
)
from library.compose.coherence import (
    CALLS_OFF,
    FINAL,
    already_begun,
    archived,
    money_taken,
    set_in_motion,
    status_of,
)
from library.compose.context import Entity, Fact, be, field_words
from library.compose.departments import departments_for
from library.compose.direction import (
    DECIDED,
    RAISES_URGENCY,
    against_the_grain,
    clashing,
    forward,
    is_stage,
    is_verdict,
    rank,
)
from library.compose.domains import TEAM_WORK
from library.compose.inject import clone, new_id
from library.compose.literals import literal
from library.compose.matters import Matters, is_message, matters_of, worked_on
from library.compose.motifs import (
    CONTRADICTS,
    HANDS_OVER,
    STAFF_WORK,
    STAFF_WORKFLOWS,
    claimed_by,
    staff_work,
)
from library.compose.plan import Bound, Step, show
from library.compose.realism import decides, number_text, threshold
from library.compose.roles import (
    PERSON_KEYS,
    hands_over,
    is_external_role,
    is_staff_role,
    names_person,
    role_of,
)
from library.compose.walk_state import (
    Reject,
    WalkState,
    compatible,
    found_records,
    name_tokens,
    ordered_times,
)
from library.graph.nodes import name_words, tool_verb
from library.rubric import same
from library.seed.vocab import ADDRESS_PARTS, BY_KIND, is_person_resource, meaning

# Untyped parameters that hold part of a person's name: bound from a name the agent saw
# (the index of the word to take, None for the whole name).
NAME_PARTS: dict[str, int | None] = {
    "first_name": 0,
    "given_name": 0,
    "last_name": -1,
    "family_name": -1,
    "surname": -1,
    "full_name": None,
    "display_name": None,
    "contact_name": None,
}
# Fields that record someone's leaving: the last day, the end of their contract.
_ENDING_FIELD = re.compile(r"(^|_)(end|ends|ended|termination|terminated|last|leaving|exit)(_|$)")
# Enum fields a business rule would not decide (a currency follows the money, not a rule).
_NOT_RULED = frozenset({"currency", "country", "timezone", "locale", "language", "unit"})
_NUMERIC_SKIP = frozenset({"limit", "offset", "total", "seq", "count", "version"})


# Money moving from one tool to another is an amount paid, owed or claimed (an expense's
# amount from the hotel's total); a price or fee is the new record's own (a ticket's price
# is not a reservation's total).
_TRANSFERRED_MONEY = frozenset({"amount", "total", "cost", "subtotal"})
# Money a business has or earns, not money that changes hands: an account's annual revenue
# is never what a customer pays.
_HELD_MONEY = frozenset({"revenue", "arr", "mrr", "budget", "salary", "limit", "valuation"})
# Parts of a sum: what changes hands is the whole (an invoice's total), and a part fills only
# the same part of another record (a subtotal, a subtotal).
_PART_MONEY = frozenset({"subtotal", "tax", "shipping", "discount", "fee", "fees"})


def _named(value: Any, name: str, email: str) -> Bound:
    """``value`` (an e-mail, or a list of one) stated with whose it is: ``Name ("e-mail")``."""
    bound = Bound.literal(value)
    return Bound(value, bound.bind, f"{name} ({show(email)})", bound.literals)


def carries_across(param: str, key: str, field: str) -> bool:
    """Whether a value of semantic ``key`` found in another service may fill ``param``:
    people, companies and business keys travel; money travels only as an amount; a link
    only into a field of the same name (a pull request's URL is not a LinkedIn profile)."""
    if key == "money":
        words = set(field.lower().split("_"))
        if words & _PART_MONEY:  # a payment of an invoice is for its total, not its subtotal
            return param.lower() == field.lower()
        return param.rsplit("_", 1)[-1] in _TRANSFERRED_MONEY and not words & _HELD_MONEY
    if key == "url":
        return param == field
    return True


def _refunding(collection: str | None) -> bool:
    """Whether records of ``collection`` are refunds (money paid back)."""
    return bool({"refund", "refunds"} & set(name_words(str(collection or ""))))


def _asks_to_pay(collection: str | None) -> bool:
    """Whether records of ``collection`` ask someone to pay (payment links, checkouts)."""
    words = set(name_words(str(collection or "")))
    return bool(words & {"payment", "payments", "checkout", "checkouts"}) and bool(
        words & {"link", "links", "checkout", "checkouts", "request", "requests"}
    )


def _unaccepted_offer(entity: Entity) -> bool:
    """Whether a record is an offer the customer has not accepted (a draft or sent quote):
    nothing is owed on it yet."""
    words = set(name_words(entity.collection))
    if not words & {"quote", "quotes", "estimate", "estimates", "proposal", "proposals"}:
        return False
    return str(entity.record.get("status", "")).lower() not in ("accepted", "approved", "won")


# States of a bill nothing more is owed on: paid, or called off.
_SETTLED = frozenset(
    {"paid", "settled", "refunded", "partially_refunded", "void", "voided", "canceled",
     "cancelled", "written_off", "uncollectible", "succeeded", "captured"}
)  # fmt: skip


def money_received(collection: str | None) -> bool:
    """Whether records of ``collection`` are money received (payments, charges)."""
    words = set(name_words(str(collection or "")))
    return bool({"payment", "payments", "charge", "charges"} & words) and not (
        {"link", "links", "method", "methods", "plan", "plans"} & words
    )


# Free text a person wrote (a comment's body, a message's text, a document's content, the
# reason a CTA was raised): set when the record is written, not rewritten later by someone
# asked to do other work.
AUTHORED = frozenset(
    {"body", "text", "content", "quoted_text", "message", "body_text", "body_html", "html",
     "markdown", "snippet", "description", "reason"}
)  # fmt: skip


# Texts that cite a record's number ("Wagner LLC invoice INV-2026-3116"): stated as the
# number of the bill the request works on.
_CITES_A_NUMBER = frozenset({"payment_description"})


# Who wrote a message (whose channel or thread a post goes to).
_WRITERS = frozenset({"author", "sender", "from", "posted_by", "created_by"})


# Our own bookkeeping on a record (which budget pays for it): set on our people's records,
# never on a customer's.
_OUR_BOOKKEEPING = frozenset({"cost_center"})


# Who a hand-over's own messages and notes are to or by: the colleague taking the work over.
_TAKER_ROLES = frozenset({"recipient", "author", "commenter", "posted_by", "created_by"})


# What kind of thing a record is (an issue's type, an expense's category).
_KIND_FIELD = re.compile(r"(^|_)(type|category|kind|classification)$")


# What a record is called, given when it is made: no workflow renames what it works on (a
# colleague's booking retitled "Catch-up", an issue's summary rewritten).
NAMES = frozenset({"title", "name", "topic", "subject", "summary", "display_name"})


# Where a record came from (a candidate's source, a lead's origin): history, set once when it
# came in; moving the record on does not rewrite it.
PROVENANCE = frozenset(
    {"source", "origin", "lead_source", "referral_source", "referred_by", "utm_source"}
)


# What a transaction settled when it was made (its currency, its totals and balances): a
# refund or a renewal does not rewrite them, and no one asks to.
SETTLED = re.compile(
    r"(^|_)(currency|total|subtotal|amount_paid|amount_due|amount_refunded|balance)(_|$)", re.I
)


# Keys whose values differ by purpose, which the field name says: a candidate's LinkedIn
# URL is no interview's meeting URL.
_LINKS = frozenset({"url"})


def _same_purpose(param: str, field: str, key: str) -> bool:
    """Whether two link fields serve one purpose: their names share a word besides the
    key's own (``meeting_url``, ``join_url`` do not; ``url`` alone is any link)."""
    mine, theirs = name_tokens(param) - {key, "link"}, name_tokens(field) - {key, "link"}
    return not mine or not theirs or bool(mine & theirs)


# The parts of a postal address a new one states (``library.seed.vocab.meaning`` kinds).
_SECOND_LINES = ("Apt 2", "Apt 4B", "Unit 7", "Suite 210", "Floor 3")


def _states_why(p: Param, where: str) -> bool:
    """Whether ``p`` states why an action is taken (a cancellation's reason)."""
    return p.type == "string" and (meaning(p.name, where) or "").endswith("reason")


def _reason_given(p: Param, where: str, asked: str) -> str | None:
    """The reason the person asking gave (``asked``), for ``p`` when it states why an
    action is taken (a cancellation's reason): as the tool spells it where it offers
    options ("ordered by mistake"), None where it offers none that matches."""
    if not asked or not _states_why(p, where):
        return None
    if not p.enum:
        return asked
    return next((v for v in p.enum if str(v).casefold() == asked.casefold()), None)


def _replies(param: str, field: str) -> bool:
    """Whether ``param`` of a new record addresses the sender of one like it: a message's
    recipient may be another message's sender (a reply), though a new message copies
    nothing else from the messages the agent read."""
    return role_of(param) == "recipient" and role_of(field) == "sender"


class Binding(WalkState):
    """Where each argument of a step comes from."""

    def _fact_index(
        self,
    ) -> tuple[dict[str | None, list[Fact]], dict[tuple[str, Any], list[Fact]]]:
        """The facts so far by semantic key, and the id facts by (service, collection), in
        their order: ``_facts_for`` asks for each argument of each try, and ``facts`` is
        only ever replaced, never changed in place, so the index lasts until it is."""
        index = self.fact_index
        if index is None or index[0] is not self.facts:
            by_key: dict[str | None, list[Fact]] = {}
            ids: dict[tuple[str, Any], list[Fact]] = {}
            for f in self.facts:
                by_key.setdefault(f.key, []).append(f)
                if f.field == "id":
                    ids.setdefault((f.entity.service, f.entity.collection), []).append(f)
            index = self.fact_index = (self.facts, by_key, ids)
        return index[1], index[2]

    def _facts_for(self, p: Param, service: str, exclude: tuple[str, str | None]) -> list[Fact]:
        key = p.key or p.item_key
        if key is None or key in ("date", "datetime"):
            # Times are stated, not copied: "schedule it when the message was sent" is not
            # how anyone asks.
            return []
        by_key, ids = self._fact_index()
        if key.startswith("id:"):
            coll = ref_collection(
                key.split(":", 1)[1], self.world.services[service].State.collection_types
            )
            return [f for f in ids.get((service, coll), ()) if not f.entity.deleted]
        out = [
            f
            for f in by_key.get(key, ())
            if not f.entity.deleted
            and ((f.entity.service, f.entity.collection) != exclude or _replies(p.name, f.field))
            and compatible(p, f.value)
            and (f.entity.service == service or carries_across(p.name, key, f.field))
        ]
        if key in PERSON_KEYS:
            # A person on a record the plan made was put there by the plan: named where
            # they came from ("the issue's assignee"), never "the host of the meeting I
            # booked" nor "the assignee of the new task".
            out = [
                f
                for f in out
                if not f.entity.created
                and self._fits_role(p.name, key, f.value)
                and self._in_story(f)
            ]
            # The subject's own name or address is stated, or read where the request already
            # is: not fetched off a record of theirs nothing else uses ("requester name:
            # the guest name of their hotel reservation").
            subjects = self.subjects()
            out = [
                f
                for f in out
                if self.env.identity(key, f.value) not in subjects or self._in_the_matter(f.entity)
            ]
            if is_staff_role(role_of(p.name)):
                # work goes to no one who is away (an interviewer on leave), however the
                # request came to know them; the one it is about (a leaver) is its subject
                away = self._away()
                out = [
                    f
                    for f in out
                    if str(f.value).casefold() not in away
                    or self.env.identity(key, f.value) in subjects
                ]
        if key == "money":
            # Money comes from the matter the request works on (the invoice it sends), not
            # from another record of the customer's (an order nothing else touches).
            out = [f for f in out if self._in_the_matter(f.entity)]
            # Money comes from what was there (an invoice's amount, an order's total), not
            # from a record the plan made ("a payment of the payment link's amount"); and a
            # refund's amount is money going back: no new payment or link is for it.
            out = [f for f in out if not f.entity.created]
            # ... and not from a bill the plan called off (void the invoice, then take a
            # payment of its total)
            undone = {
                (st.tool.service, st.entity.id)
                for st in self.steps
                if st.write
                and st.entity is not None
                and tool_verb(st.tool.name) in CALLS_OFF | {"refund"}
            }
            out = [f for f in out if (f.entity.service, f.entity.id) not in undone]
            if not _refunding(exclude[1]):
                # ... and money already paid is asked for again by nothing but a refund:
                # no payment link for the amount of the invoice's payment
                out = [
                    f
                    for f in out
                    if not _refunding(f.entity.collection)
                    and not money_received(f.entity.collection)
                ]
            if money_received(exclude[1]) or _asks_to_pay(exclude[1]):
                # money is taken for what is owed: not for a quote the customer has not
                # accepted (a payment right after the quote is sent), nor again for a bill
                # already paid or called off, nor the whole of one partly paid
                out = [
                    f
                    for f in out
                    if not _unaccepted_offer(f.entity)
                    and status_of(f.entity.record) not in _SETTLED
                    and not money_taken(f.entity.record)
                ]
        if key in _LINKS:
            out = [f for f in out if _same_purpose(p.name, f.field, key)]
        # "The email of the user found by the message's recipient" is the recipient: a
        # value a lookup was called with, read back from its result, is not new.
        return [f for f in out if not self._echoes_lookup(f)]

    def _work_of(self, entity: Entity) -> str | None:
        """The piece of work (one of ``works``) a record of the subject's is about: the
        customer's order and their payment are one refund."""
        if not self.works or not self._found_by_subject(entity):
            return None
        claimed = claimed_by(entity.collection) & set(self.works)
        return min(claimed) if claimed else None

    def _matters_of(self, steps: list[Step]) -> Matters:
        """The matters the writes among ``steps`` work on."""
        shared = self.env.catalogs
        worked = [e for s in steps for e in worked_on(s, shared)]
        return matters_of(worked, shared, self._work_of)

    def _matters(self) -> Matters:
        """The matters the plan's writes work on so far (worked out once a step)."""
        last = self.steps[-1] if self.steps else None
        memo = self.matters_memo
        if memo is None or memo[0][0] != len(self.steps) or memo[0][1] is not last:
            memo = ((len(self.steps), last), self._matters_of(self.steps))
            self.matters_memo = memo
        return memo[1]

    def _in_the_matter(self, entity: Entity) -> bool:
        """Whether ``entity`` is where the request already is: the record it opened with,
        one the plan made, or one tied to a record the plan works on (before any write,
        any record)."""
        if entity.found == 0 or entity.created:
            return True
        matters = self._matters()
        return matters.count == 0 or id(entity) in matters.reached

    def _echoes_lookup(self, fact: Fact) -> bool:
        """Whether ``fact`` is a value its own lookup was called with, from another record
        (a value the user stated is theirs to state again)."""
        step = self.steps[fact.step] if 0 <= fact.step < len(self.steps) else None
        return (
            step is not None
            and not step.write
            and fact.entity is step.entity
            and any(
                same(fact.value, v) and step.binds.get(name, {}).get("from") != "user"
                for name, v in step.args.items()
            )
        )

    # -- people: who has a part in the work ------------------------------------------------
    def _in_story(self, fact: Fact) -> bool:
        """Whether the person ``fact`` names has a part in the work, so that a step may give
        them a role: the request's subject, someone on a record the work makes or changes,
        or someone on a record of the subject's that the work is about (the assignee of
        their ticket in an escalation). A person two records away (the hiring manager of the
        job of an application, the author of a policy note) is no one's choice for a role:
        a colleague is named instead."""
        if self.env.identity(str(fact.key), fact.value) in self.subjects():
            return True
        entity = fact.entity
        if entity.created or any(s.write and s.entity is entity for s in self.steps):
            return True
        if any(r["id"] == entity.id and r["service"] == entity.service for r in self.house_rules):
            return False
        # Asked for every person fact of every candidate step: worked out once a record
        # (the dict holds the record, so no other one takes its place).
        subjects_own = self.story_records.get(entity)
        if subjects_own is None:
            subjects_own = self._found_by_subject(entity) and self._about_the_work(entity)
            self.story_records[entity] = subjects_own
        return subjects_own

    def _found_by_subject(self, entity: Entity) -> bool:
        """Whether the step that found ``entity`` opened the request or searched by its
        subject (not by a record another lookup found)."""
        if entity.found == 0:
            return True
        if not 0 <= entity.found < len(self.steps):
            return False
        step = self.steps[entity.found]
        return bool(self.naming_subject(step.tool, step.args))

    def naming_subject(self, tool: ToolInfo, args: dict[str, Any]) -> list[str]:
        """The person parameters of a call that name the request's subject (a lookup by
        their e-mail, a message to them)."""
        subjects = self.subjects()
        return [
            name
            for name, value in args.items()
            if (p := tool.param(name)) is not None
            and (p.key or p.item_key) in PERSON_KEYS
            and any(
                self.env.identity(str(p.key or p.item_key), v) in subjects
                for v in (value if isinstance(value, list) else [value])
            )
        ]

    def _found_handling(self, entity: Entity) -> bool:
        """Whether ``entity`` was found by its subject in a role that handles others' work
        (as its approver, host or manager)."""
        if not 0 < entity.found < len(self.steps):
            return False
        step = self.steps[entity.found]
        return any(hands_over(role_of(n)) for n in self.naming_subject(step.tool, step.args))

    def _about_the_work(self, entity: Entity) -> bool:
        """Whether ``entity`` is a record of the kind the workflow is about (its nouns, or an
        allied workflow's), or the subject's own person record (their account's owner)."""
        if self.motif is None:
            return True
        collection = entity.collection
        # The workflows whose nouns name the record best (a purchase order is
        # procurement's, though it is an order too).
        claimed = claimed_by(collection)
        # Correspondence (messages, calls, comments) is follow-up's: in other work the
        # people the subject wrote to are correspondents, not people with a part in it.
        allies = self.motif.allies - {"follow-up"}
        if self.motif.name in claimed:
            return True
        if claimed & allies:
            # An allied workflow's record of the subject's is theirs (the expense report of
            # their trip), not one they handle for someone else (a report they approve).
            return not self._found_handling(entity)
        # A person record that is the subject's own (their contact record, not the
        # employee they manage): its owner or manager is theirs.
        return self.subjects_own_person(entity)

    def subjects_own_person(self, entity: Entity) -> bool:
        """Whether ``entity`` is a person record of the request's subject (their contact or
        employee record: its own e-mail or name is theirs, not a manager's or owner's)."""
        if not is_person_resource(entity.collection):
            return False
        subjects = self.subjects()
        return any(
            isinstance(v, str) and not role_of(k) and self.env.identity("", v) in subjects
            for k, v in entity.record.items()
        )

    def _for_an_outsider(self) -> bool:
        """Whether the request is an outside person's (a customer's), whose matter takes
        none of the work only colleagues have, unless that work is the request itself."""
        if self.motif is not None and self.motif.name in STAFF_WORK:
            return False
        subjects = self.subjects()
        return bool(subjects) and not any(self.env.is_staff("email", s) for s in subjects)

    def subjects(self) -> set[str]:
        """Who the request is about: the people the opening lookup named, else the
        outside people (customer, guest ...) on the record it opened with."""
        if not self.steps or not self.entities:
            return set()
        opening = self.steps[0]
        if self.subject_cache is None or self.subject_cache[0] is not opening:
            self.subject_cache = (opening, self._subjects_of(opening))
        return self.subject_cache[1]

    def _subjects_of(self, opening: Step) -> set[str]:
        named = set()
        for name, value in opening.args.items():
            p = opening.tool.param(name)
            key = (p.key if p else None) or ""
            if key in PERSON_KEYS or (isinstance(value, str) and "@" in value):
                named.add(self.env.identity(key, value))
        if named:
            return named
        info = self._coll(self.entities[0].service, self.entities[0].collection)
        senders: set[str] = set()
        for fname, value in self.entities[0].record.items():
            meta = info.fields.get(fname) if info else None
            external = meta and meta.key in PERSON_KEYS and not is_staff_role(role_of(fname))
            if external and isinstance(value, str):
                named.add(self.env.identity(meta.key, value))
                if role_of(fname) == "sender":
                    senders.add(self.env.identity(meta.key, value))
        # A message is its sender's request, not its cc's (and a newsletter we sent is
        # nobody's request: only our own colleague is named, whom no work is for).
        return senders or named

    # -- people: different roles are different people --------------------------------------
    def _fits_role(self, name: str, key: str, value: Any) -> bool:
        """Whether ``value`` (a person) can fill parameter ``name``: staff roles take our
        colleagues, customer-like roles outside people, and within one call a person holds
        one role."""
        role = self._role(name)
        staff = self.env.is_staff(key, value)
        if is_staff_role(role) and (not staff or self.env.is_private(value)):
            return False  # a colleague's role takes their work address
        if (is_staff_role(role) or role == "recipient") and self._leaver(key, value):
            return False  # someone leaving takes on no work and is told nothing more
        if is_external_role(role) and staff:
            return False
        held = self.call_people.get(self.env.identity(key, value))
        return held is None or held == role

    def _leaver(self, key: str, value: Any) -> bool:
        """Whether ``value`` is the colleague an offboarding is for, in a call that writes
        (their work is found by their name, and handed to someone else)."""
        if self.motif is None or self.motif.name != "offboarding" or not self.steps:
            return False
        if not self.call_writes:
            return False
        return self.env.identity(key, value) in self.subjects()

    def hands_work_over(self) -> bool:
        """Whether the workflow hands its colleague's work to another (``HANDS_OVER``)."""
        return self.motif is not None and self.motif.name in HANDS_OVER

    def _handing_over(self, tool: ToolInfo, entity: Entity | None) -> bool:
        """Whether a write hands over work of the colleague a workflow is for
        (``motifs.HANDS_OVER``): an edit of a record they handle, which is not theirs."""
        return (
            self.hands_work_over()
            and tool.qualified in self.env.handover_tools
            and (entity is None or not is_person_resource(entity.collection))
        )

    def _told_successor(self, p: Param) -> Bound | None:
        """In a hand-over, a message goes to the colleague taking the leaver's work over,
        and a note on the work is theirs to write (not whoever a record of theirs names)."""
        if not self.hands_work_over():
            return None
        if (p.key or p.item_key) != "email" or role_of(p.name) not in _TAKER_ROLES:
            return None
        return self._colleague(p)

    def _held_by_subject(self, entity: Entity, field: str) -> bool:
        """Whether ``entity``'s ``field`` names the request's own person in a role someone
        else can take on (the assignee of their ticket, the host of their meeting)."""
        value = entity.record.get(field)
        if not isinstance(value, str) or not hands_over(role_of(field)):
            return False
        key = "email" if "@" in value else "person_name"
        return self.env.identity(key, value) in self.subjects()

    def handled_by_subject(self, entity: Entity) -> bool:
        """Whether the request's person handles ``entity`` (any of its hand-over roles)."""
        return any(self._held_by_subject(entity, f) for f in entity.record)

    def _hold_record(self, entity: Entity) -> None:
        """The people a record already names hold their roles in a call that edits it (a
        draft's recipient cannot become its bcc)."""
        current = self._state_record(entity.service, entity.collection, entity.id)
        info = self._coll(entity.service, entity.collection)
        if current is None or info is None:
            return
        record = current.model_dump(mode="json")
        for name, value in record.items():
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, str) and "@" in v for v in values):
                self._hold(name, value)  # e-mails, lists of recipients included

    def _topic(self) -> str | None:
        """The workflow the walk carries out, whose words its free text uses."""
        return self.motif.name if self.motif is not None else None

    def _to_colleague(self) -> bool:
        """Whether the call being bound addresses only our own people (a message to the
        deal's owner, not to the customer)."""
        people = [who for who in self.call_people if "@" in who]
        return bool(people) and all(self.env.is_staff("email", who) for who in people)

    def _to_requester(self) -> bool:
        """Whether the call being bound addresses only the colleague the request is done
        for (who asked, or whose plate it is): what they read reports the work done."""
        if self.motif is None or self.motif.name in STAFF_WORKFLOWS:
            return False  # a joiner or a leaver did not ask for the work
        # Who reads it: the sender a reply answers, else a new message's recipients.
        held = [(w, role) for w, role in self.call_people.items() if "@" in w]
        readers = self.call_answers or {w for w, role in held if role == "recipient"}
        people = {self.env.identity("email", w) for w in readers}
        subjects = {self.env.identity("email", s) for s in self.subjects()}
        return bool(people) and people <= subjects and self._to_colleague()

    @staticmethod
    def _where(tool: ToolInfo) -> str:
        """``service.collection``: what a stated text is about (a job's title is not a
        meeting's)."""
        return f"{tool.service}.{tool.collection or ''}"

    def _role(self, name: str) -> str:
        """The role of a person parameter; a bare e-mail or name is the record's own
        subject (a candidate's, a customer's)."""
        return role_of(name) or self.call_subject

    def _hold(self, name: str, value: Any) -> None:
        """Remember who fills which role in the call being bound."""
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str):
                self.call_people[self.env.identity("", v)] = self._role(name)

    def _hold_readers(self, bound: Bound) -> None:
        """A post in the channel or thread of someone's message is read by them (what it
        says to a colleague's channel is said to a colleague, and reports to whoever asked)."""
        for who in self.readers_of(bound.value):
            self.call_people[who] = "recipient"

    def readers_of(self, place: Any) -> set[str]:
        """Who reads a post in ``place`` (a channel or thread id): the writers of the
        messages found there, or of the message it is."""
        out: set[str] = set()
        for e in self.entities:
            if not is_message(e.collection) or not (place == e.id or place in e.record.values()):
                continue
            for name, value in e.record.items():
                if role_of(name) in _WRITERS and isinstance(value, str) and "@" in value:
                    out.add(self.env.identity("email", value))
        return out

    def _away(self) -> frozenset[str]:
        """The e-mails of colleagues a person record of theirs says are away or gone (an
        Identity user suspended, an employee on leave or terminated), in the world as seeded."""
        return self.env.away_in(self.base)

    def leaver_department(self) -> str | None:
        """The department of the colleague a hand-over is for (None outside one, or where
        the pool does not know it)."""
        if not self.hands_work_over():
            return None
        return self.subject_department()

    def subject_department(self) -> str | None:
        """The department of the colleague the request is about (the one leaving, the one
        I cover for): None where it is about no colleague, or the pool does not know it."""
        for email in sorted(self.subjects()):
            person = self.env.person_by_email(email)
            if person is not None and person.staff and getattr(person, "department", ""):
                return str(person.department)
        return None

    def _holding_it(self, p: Param, service: str, facts: list[Fact]) -> list[Fact]:
        """Of the colleagues ``facts`` name, those who would hold ``p``'s role in
        ``service`` (the engineer an issue goes to is no one from Customer Success because
        a ticket went to them): other facts stay."""
        wanted = departments_for(service, role_of(p.name))
        if wanted is None or not is_staff_role(role_of(p.name)):
            return facts
        out = []
        for fact in facts:
            person = self.env.person_by_email(str(fact.value)) if fact.key == "email" else None
            if person is None or not person.staff or person.department in wanted:
                out.append(fact)
        return out

    def _team_s_own_thing(self) -> bool:
        """Whether the request is a team's own work on a thing of its own (a DNS server, a
        deployment, an API key), about no person: a message it sends tells a colleague
        (who asked, or who works with it) that the work is done."""
        return (
            bool(self.steps)
            and self.motif is not None
            and self.motif.name in TEAM_WORK
            and not self.subjects()
        )

    def _colleague(self, p: Param, service: str | None = None) -> Bound | None:
        """A colleague for a staff role the agent has not read anywhere: stated in the
        instruction by name and e-mail. One role keeps one colleague across the task.
        Someone who would hold the role on a record of ``service`` comes first (a ticket's
        assignee from Support); a leaver's successor is of the leaver's department."""
        key = p.key or p.item_key
        role = role_of(p.name)
        # Someone leaving hands all their work to one colleague, who is the one told.
        taking_over = self.hands_work_over() and (hands_over(role) or role in _TAKER_ROLES)
        told = role == "recipient" and self._team_s_own_thing()
        if key not in PERSON_KEYS or not (taking_over or is_staff_role(role) or told):
            return None
        staff = self.env.staff
        if not staff:
            return None
        departments: frozenset[str] | None = (
            departments_for(service, role) if service is not None else None
        )
        if taking_over:
            role = "successor"
            leaving = self.leaver_department()
            departments = frozenset({leaving}) if leaving else None
        person = self.staff_roles.get(role)
        if (
            person is None
            or not self._fits_role(p.name, "email", person.email)
            # one role keeps one colleague, in the departments that hold it here
            or (departments and getattr(person, "department", "") not in departments)
        ):
            # A colleague who fits and holds no other role yet, in a random order: of the
            # departments that hold the role first.
            taken = {id(x) for x in self.staff_roles.values()}
            start = self.rng.randrange(len(staff))
            away = self._away()  # no work goes to a colleague whose account is suspended
            order = [s for s in staff[start:] + staff[:start] if s.email.casefold() not in away]
            if departments:
                order.sort(key=lambda s: getattr(s, "department", "") not in departments)
            person = next(
                (
                    s
                    for s in order
                    if id(s) not in taken and self._fits_role(p.name, "email", s.email)
                ),
                None,
            ) or next((s for s in order if self._fits_role(p.name, "email", s.email)), None)
            if person is None:
                return None
            self.staff_roles[role] = person
        if key == "email":
            value: Any = person.email
        elif key == "phone":
            value = person.phone
        else:
            low = p.name.lower()
            value = (
                person.first_name
                if "first" in low or "given" in low
                else person.last_name
                if "last" in low or "surname" in low or "family" in low
                else person.full_name
            )
        if p.type == "array":
            value = [value]
        if key == "email":
            return _named(value, person.full_name, person.email)
        return Bound.literal(value)

    def _filed_for(self, p: Param, tool: ToolInfo) -> Bound | None:
        """The person a new record only our own people have (an expense report) is of, its
        employee rather than its approver: the colleague the request is for, named as the
        request names them."""
        if tool.kind != CREATE or not staff_work(tool.collection, tool.name):
            return None
        if (p.key or p.item_key) != "email" or hands_over(role_of(p.name)):
            return None
        person = next(
            (
                self.env.person_by_email(s)
                for s in sorted(self.subjects())
                if self.env.is_staff("email", s)
            ),
            None,
        )
        if person is None:
            return None
        value: Any = [person.email] if p.type == "array" else person.email
        return _named(value, person.full_name, person.email)

    def _stated_subject(self, fact: Fact) -> bool:
        """Whether ``fact`` is a contact value of the request's subject that the opening
        states (the instruction already gives it: no record needs reading for it)."""
        if fact.key not in PERSON_KEYS or not self.steps:
            return False
        opening = self.steps[0]
        return any(
            bind.get("from") == "user" and opening.args.get(name) == fact.value
            for name, bind in opening.binds.items()
        )

    def _stated_before(self, fact: Fact) -> bool:
        """Whether the request already states the person ``fact`` names (an assignee it
        gave): they are named again, not reached through a record the plan made for them
        ("reporter: Robert Carroll", not "the host email of the meeting")."""
        if fact.key not in PERSON_KEYS:
            return False
        return any(
            bind.get("from") == "user"
            and (arg == fact.value or (isinstance(arg, list) and fact.value in arg))
            for step in self.steps
            for name, bind in step.binds.items()
            if (arg := step.args.get(name)) is not None
        )

    def _as_stated(self, fact: Fact, as_list: bool = False) -> Bound | None:
        """``fact``'s value as the request already states it, if it does: the subject's own
        contact as the opening gives it, or a person a step named (by name and e-mail)."""
        value = [fact.value] if as_list else fact.value
        if self._stated_subject(fact):
            return Bound.literal(value)
        if not self._stated_before(fact):
            return None
        person = self.env.person_by_email(str(fact.value)) if fact.key == "email" else None
        if person is not None and person.full_name:
            return _named(value, person.full_name, str(fact.value))
        return Bound.literal(value)

    def _cited_number(self) -> Fact | None:
        """The number of the bill the request works on (an invoice's own number, not the
        purchase order it cites), the latest read."""
        for fact in reversed(self.facts):
            own = f"key:{singular(fact.entity.collection)}_number"
            if fact.key == own and isinstance(fact.value, str) and self._in_the_matter(fact.entity):
                return fact
        return None

    def _bound_to(self, fact: Fact, p: Param) -> Bound:
        """``p`` bound to ``fact``: as the request already states it (``_as_stated``: no
        record needs reading for it), anything else as read from its record."""
        stated = self._as_stated(fact, as_list=p.type == "array")
        if stated is not None:
            return stated
        return Bound.of(fact, as_list=p.type == "array")

    def _best(self, p: Param, facts: list[Fact], service: str) -> Fact | None:
        if not facts:
            return None
        if (p.key or p.item_key) in PERSON_KEYS:
            # A person is named where they come from, not by an echo of a value the plan
            # set ("the assignee", not "the host of the meeting I booked for them").
            first: dict[str, Fact] = {}
            for f in sorted(facts, key=lambda f: (f.entity.created, f.step)):
                first.setdefault(self.env.identity(str(f.key), f.value), f)
            facts = list(first.values())
        want = name_tokens(p.name)

        def score(f: Fact) -> float:
            s = len(want & name_tokens(f.field)) + (2.0 if f.field == p.name else 0.0)
            if f.entity.service != service:
                s += 1.0  # information crossing services is the point
            if role_of(f.field) == "sender":
                s += 1.5  # a message is its sender's: "the sender of the message"
            if not f.entity.created:
                s += 0.5  # "the customer's email", not "the email of the record I just made"
            if f.entity.shared:
                # A record a selection rule chose: use what the rule decides.
                s += -3.0 if f.field in f.entity.shared else 2.0
            return s + f.step * 0.1 + self.rng.random() * 0.5

        return max(facts, key=score)

    def _held_person(self, name: str) -> Any:
        """The pool person whose e-mail this call already gave to ``name``'s role: a name
        in the same role must be theirs."""
        role = self._role(name)
        for who, held in self.call_people.items():
            if held == role and "@" in who:
                return self.env.person_by_email(who)
        return None

    def _name_of(self, p: Param, person: Any, exclude: tuple[str, str | None]) -> Bound:
        """``person``'s name (or its first/last part) for ``p``: from a value the agent saw
        where the request already is (``_in_the_matter``) when one matches, else stated in
        the instruction (not "the full name of their profile in Analytics")."""
        low = p.name.lower()
        if "first" in low or "given" in low:
            wanted, index = person.first_name, 0
        elif "last" in low or "surname" in low or "family" in low:
            wanted, index = person.last_name, -1
        else:
            wanted, index = person.full_name, None
        live = [
            f
            for f in self.facts
            if not f.entity.deleted
            and (f.entity.service, f.entity.collection) != exclude
            and isinstance(f.value, str)
            and self._in_the_matter(f.entity)
        ]
        exact = [f for f in live if f.value == wanted]
        if exact:
            return Bound.of(exact[0])
        if index is not None:
            for f in live:
                if f.key == "person_name" and f.value == person.full_name:
                    bind = {"from": "step", "step": f.step, "path": f.path, "part": p.name}
                    which = "first" if index == 0 else "last"
                    return Bound(wanted, bind, f"the {which} name from {f.phrase()}", (), f)
        return Bound.literal(wanted)

    def _name_part(self, p: Param, exclude: tuple[str, str | None]) -> Bound | None:
        """First or last name from a name the agent saw (the field itself, or a full name)."""
        person = self._held_person(p.name)
        if person is not None:
            return self._name_of(p, person, exclude)
        index = NAME_PARTS[p.name]
        live = [
            f
            for f in self.facts
            if not f.entity.deleted
            and (f.entity.service, f.entity.collection) != exclude
            and isinstance(f.value, str)
            and self._fits_role(p.name, "person_name", f.value)
            and self._in_story(f)
        ]
        same = [f for f in live if f.field == p.name]
        if same:
            return Bound.of(self.rng.choice(same))
        full = [f for f in live if f.key == "person_name" and len(f.value.split()) >= 2]
        if not full:
            return None
        fact = self.rng.choice(full)
        part = fact.value if index is None else fact.value.split()[index]
        bind = {"from": "step", "step": fact.step, "path": fact.path, "part": p.name}
        if index is None:
            return Bound.of(fact)
        phrase = f"the {'first' if index == 0 else 'last'} name from {fact.phrase()}"
        return Bound(part, bind, phrase, (), fact)

    def _bind(
        self, p: Param, tool: ToolInfo, exclude: tuple[str, str | None], current: Any = None
    ) -> Bound | None:
        """``current``: the value the record acted on holds now (an action's ``stage``
        moves on from it)."""
        held = self._held_person(p.name) if p.key == "person_name" else None
        taker = self._told_successor(p)
        if taker is not None:
            bound = taker  # the colleague taking a leaver's work over is the one told
        elif p.key is None and p.name in NAME_PARTS:
            bound = self._name_part(p, exclude)
        elif held is not None:
            bound = self._name_of(p, held, exclude)  # the name of the e-mail's owner
        elif (filer := self._filed_for(p, tool)) is not None:
            bound = filer  # a colleague's expense report is in their own name
        else:
            facts = self._holding_it(p, tool.service, self._facts_for(p, tool.service, exclude))
            fact = self._best(p, facts, tool.service)
            if fact is not None:
                bound = self._bound_to(fact, p)
            else:
                bound = self._colleague(p, tool.service)
                said = _reason_given(p, self._where(tool), self.asked_reason)
                if bound is None and said is not None:
                    bound = Bound.literal(said)  # the reason the customer gave
                elif bound is None and self.asked_reason and _states_why(p, self._where(tool)):
                    # The work a customer's e-mail asks for is done for the reason it
                    # gives, never another where the tool does not take theirs.
                    return None
                if bound is None and meaning(p.name, self._where(tool)) in _CITES_A_NUMBER:
                    # what a payment is for is the bill the request works on, by its number
                    # (not "Clayton-Cook invoice INV-2026-3189" of another customer)
                    cited = self._cited_number()
                    if cited is None:
                        return None
                    bound = self._bound_to(cited, p)
                if bound is None:
                    value = literal(
                        p,
                        self.rng,
                        self.world.now(),
                        avoid=current,
                        where=self._where(tool),
                        topic=self._topic(),
                        internal=self._to_colleague(),
                        reporting=self._to_requester(),
                    )
                    bound = None if value is None else Bound.literal(value)
        posts = is_message(str(tool.collection))
        if bound is not None and posts and (p.key or "").startswith("id:"):
            self._hold_readers(bound)
        if bound is not None and (p.key or p.item_key) in PERSON_KEYS:
            self._hold(p.name, bound.value)
        elif bound is not None and p.name in NAME_PARTS:
            # A first or last name holds the role for the person it was cut from.
            full = bound.fact.value if bound.fact and bound.fact.key == "person_name" else None
            self._hold(p.name, full or bound.value)
        return bound

    def _bind_required(
        self,
        tool: ToolInfo,
        skip: set[str],
        exclude: tuple[str, str | None],
        entity: Entity | None = None,
        resent: set[str] | None = None,
        acting_on: Entity | None = None,
    ) -> dict[str, Bound] | None:
        """Every required argument bound; with ``entity`` (the record an update or action
        acts on), one nothing else can fill takes the record's current value, as a call
        that must resend every field does (names in ``resent``). A stated value moves on
        from the current one of ``entity`` or ``acting_on`` (an action's record)."""
        acting_on = entity or acting_on
        out: dict[str, Bound] = {}
        if entity is not None:
            for name, b in self._new_address(tool, skip, entity).items():
                # a part the new address shares with the old (the country) is resent as
                # the record holds it, not stated: the request names what changes
                p = tool.param(name)
                same = p is not None and b.value == entity.record.get(name)
                kept = self._current(entity, p) if p is not None and same else None
                if kept is not None and resent is not None:
                    resent.add(name)
                out[name] = kept or b
            skip = skip | set(out)
        # E-mails first: a name in the same role then follows the e-mail's owner.
        params = sorted(tool.params, key=lambda p: (p.key or p.item_key) != "email")
        for p in params:
            if not p.required or p.name in skip:
                continue
            current = acting_on.record.get(p.name) if acting_on is not None else None
            bound = self._bind(p, tool, exclude, current)
            if bound is None and entity is not None:
                bound = self._current(entity, p)
                if bound is not None and resent is not None:
                    resent.add(p.name)
            if bound is None:
                return None
            out[p.name] = bound
        order = [p.name for p in tool.params]
        out = fitted_to_kind(out, self._where(tool), self.rng)
        return ordered_times(tool, {n: out[n] for n in order if n in out})

    def _new_address(self, tool: ToolInfo, skip: set[str], entity: Entity) -> dict[str, Bound]:
        """A new address for a record (an order's delivery address), stated whole: every
        part from one real address, so street, city, postcode and country agree. Only
        where nothing the agent found could fill it (a customer's own address would). A
        correction stays where the record was going: the same city where the pool has an
        address there, else the same country (a Paris order is not put right by sending it
        to Austin)."""
        where = self._where(tool)
        parts: dict[str, str] = {}
        for p in tool.params:
            if not p.required or p.name in skip or p.enum or p.type != "string":
                continue
            kind = (
                "country" if p.key == "country" else meaning(p.name, where) if not p.key else None
            )
            if kind in ADDRESS_PARTS:
                parts[p.name] = str(kind)
        if len({"street", "city", "postal_code"} & set(parts.values())) < 2:
            return {}
        exclude = (tool.service, tool.collection)
        street = tool.param(next(n for n, k in parts.items() if k in ("street", "city")))
        if street is None or self._facts_for(street, tool.service, exclude):
            return {}
        if self.by_mail:
            # Where the customer wants it is theirs to say, and their e-mail does not.
            raise Reject("not_in_the_mail")
        person = self.rng.choice(near_places(self.env.pool.people, entity.record))
        out: dict[str, Bound] = {}
        for name, kind in parts.items():
            value = self.rng.choice(_SECOND_LINES) if kind == "line2" else getattr(person, kind)
            if not isinstance(value, str) or not value:
                return {}
            if kind == "street":
                # Another house on the street: the pool's people live at its addresses, and
                # a parcel sent on to someone else's home is no new address of theirs.
                homes = {other.street for other in self.env.pool.people}
                # (numbers drawn, not counted up: a run's every new address at "401")
                for number in self.rng.sample(range(2, 500), 24):
                    if (moved := re.sub(r"\d+", str(number), value, count=1)) not in homes:
                        value = moved
                        break
            out[name] = Bound.literal(value)
        return out

    def _current(self, entity: Entity, p: Param) -> Bound | None:
        """``p`` bound to the value the record holds now under the same name, read from
        the record the agent found (a PUT-style update resends what it does not change)."""
        current = self._state_record(entity.service, entity.collection, entity.id)
        if current is None:
            return None
        value = current.model_dump(mode="json").get(p.name)
        if value is None or value != entity.record.get(p.name):
            return None  # changed since it was read: the agent has not seen this value
        fact = next((f for f in self.facts if f.entity is entity and f.field == p.name), None)
        return Bound.of(fact or Fact(entity, p.name, value, None, p.type))

    def _numeric_facts(self) -> list[Fact]:
        return [
            f
            for f in self.facts
            if isinstance(f.value, int | float)
            and not isinstance(f.value, bool)
            and f.value > 0
            and f.field not in _NUMERIC_SKIP
            and not (f.key or "").startswith("id:")
            and not f.entity.deleted
        ]

    def _values_of(self, fact: Fact) -> list[float]:
        """The numbers ``fact``'s field holds across its collection (the world as seeded)."""
        state = self.world.services[fact.entity.service].state
        records = getattr(state, fact.entity.collection, {})
        values = (getattr(r, fact.field, None) for r in records.values())
        return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]

    def _threshold(
        self,
        p: Param,
        current: Any,
        related: list[Entity],
        setting: set[tuple[str, str]] | None = None,
    ) -> tuple[Bound, dict[str, Any]] | None:
        """A value for ``p`` decided by a number the agent has read on the record being
        written or one tied to it (the order's total decides the shipment's service level;
        loyalty points never decide an interview); never by a field the same step sets
        (``setting``: record id and field), which decides nothing the request did not say."""
        options = [v for v in p.enum if isinstance(v, str)]
        topic = self._topic()
        facts = [
            f
            for f in self._numeric_facts()
            if f.entity in related
            and decides(f.field, p.name)
            # not a value the plan itself set: "seats above 23" after setting them to 15
            # decides nothing the request did not already say
            and (f.entity.service, f.entity.collection, f.entity.id, f.field) not in self.written
            and (f.entity.id, f.field) not in (setting or set())
        ]
        if len(options) < 2 or not facts or p.key is not None or p.name in _NOT_RULED:
            return None
        # Amounts are what business rules are written about ("orders over $500").
        money = [f for f in facts if f.key == "money"]
        fact = self.rng.choice(money or facts)
        picked = None
        seen = self._values_of(fact)
        for _ in range(3):  # a round limit can land on the value: draw again
            picked = threshold(float(fact.value), self.rng, integer=isinstance(fact.value, int))
            # ... or past every value the field holds ("health score above 100" on a 0-100
            # score): a rule splits the records it is about
            if picked is not None and (not seen or min(seen) < picked[0] < max(seen)):
                break
            picked = None
        if picked is None:
            return None
        limit, above = picked
        # The branch the value falls in must change the field, or the write does nothing;
        # either branch moves the record the workflow's way or keeps it.
        fresh = forward(p.name, p.enum, [v for v in options if v != current], current, topic)
        if not fresh:
            return None
        kept = [v for v in options if v == current]  # a branch may keep the value
        # (a health score runs the other way: the healthier account is the less urgent)
        higher = above != against_the_grain(fact.field, p.name)

        def ordered(value: str, other: str) -> bool:
            # The bigger number gets the higher rung ("orders over $500 are urgent"): the
            # branch the record is in decides which side of ``other`` ``value`` stands.
            mine, theirs = rank(p.name, value), rank(p.name, other)
            if mine is None and theirs is None:
                return True
            if mine is None or theirs is None:
                return False
            return mine > theirs if higher else mine < theirs

        pairs = [
            (value, other)
            for value in fresh
            for other in [v for v in fresh if v != value] + kept
            if ordered(value, other)
        ]
        if not pairs:
            return None
        value, other = self.rng.choice(pairs)
        high, low = (value, other) if above else (other, value)
        text = {
            "field": field_words(fact.field),
            "of": fact.entity.the,
            "limit": number_text(limit),
            "above": show(high),
            "otherwise": show(low),
        }
        bind = {
            "from": "rule",
            "rule": "threshold",
            "step": fact.step,
            "path": fact.path,
            "limit": limit,
            "above": high,
            "otherwise": low,
        }
        literals = (number_text(limit), high, low)
        return Bound(value, bind, "", literals, fact), text

    def _names_outsiders(self, record: Any) -> list[str]:
        """The fields of ``record`` holding the e-mail of someone outside our organisation."""
        return [
            f
            for f in type(record).model_fields
            if isinstance(v := getattr(record, f, None), str)
            and "@" in v
            and not self.env.is_staff("email", v)
        ]

    def _house_rule(
        self, tool: ToolInfo, bound: Bound, text: dict[str, Any]
    ) -> tuple[Bound, dict[str, Any]] | None:
        """Move a threshold rule into the environment: a policy note in a documents
        service states it, the plan looks the note up (a step of its own) and the
        instruction only names the note."""
        sources = [s for s in self.env.policy_sources if s[0].qualified not in self.used]
        if not sources or bound.fact is None:
            return None
        search, info, title_field, body_field = self.rng.choice(sources)
        state = getattr(self.world.services[search.service].state, info.name)
        if not state:
            return None
        source = self._coll(bound.fact.entity.service, bound.fact.entity.collection)
        target = self._coll(tool.service, tool.collection)
        noun = target.noun if target else words(str(tool.collection))
        nouns = target.nouns if target else words(str(tool.collection))
        src_noun = source.noun if source else words(bound.fact.entity.collection)
        heading = f"{text['param'].capitalize()} policy for {nouns}"
        fact = bound.fact.entity
        same = (fact.service, fact.collection) == (tool.service, tool.collection)
        body = policy_text(heading, noun, src_noun, same, text)
        # Our own policy, written by a colleague: a note about no customer (a notes app's
        # note is often about a contact), copied from one about nobody outside if any is,
        # and from one in force (published, in English, for our staff) where any is.
        records = [state[k] for k in sorted(state)]
        base = max(records, key=lambda r: (not self._names_outsiders(r), *_in_force(r)))
        changes = {title_field: heading, body_field: body}
        changes |= {
            f: None
            for f in self._names_outsiders(base)
            if not type(base).model_fields[f].is_required()
        }
        changes |= _put_in_force(base)
        rid = new_id(self.world, search.service, info.name, base.id, self.rng)
        try:
            note = clone(base, rid, changes)
        except ValueError:
            return None
        self._inject(search.service, info.name, note)
        args = {"query": heading}
        envelope = self._call(search, args)
        found = found_records(envelope["data"], search.many, info.id_key)
        if [r["id"] for _, r in found] != [rid]:
            raise Reject("policy_note_ambiguous")
        path, record = found[0]
        entity = Entity(
            search.service,
            info.name,
            rid,
            record,
            len(self.steps),
            path,
            self._label(search.service, info.name, created=False),
        )
        self._add_entity(entity)
        step_text = {
            "kind": "lookup",
            "service": title(search.service),
            "noun": info.noun,
            "nouns": info.nouns,
            "search": show(heading),
            "label": entity.label,
        }
        step = Step(
            search, args, {"query": {"from": "user"}}, step_text, [heading], envelope, entity
        )
        self.used.add(search.qualified)
        if search.service not in self.services:
            self.services.append(search.service)
        self.steps.append(step)
        self.pending_sources.append(len(self.steps) - 1)
        self.house_rules.append(
            {"service": search.service, "collection": info.name, "id": rid, "title": heading,
             "text": body, "step": step}
        )  # fmt: skip
        bind = {**bound.bind, "policy": len(self.steps) - 1}
        rule = {
            "policy": show(heading),
            "service": title(search.service),
            "param": text["param"],
        }
        return Bound(bound.value, bind, "", (), bound.fact), rule

    @staticmethod
    def _pairs_identity(p: Param, info: Any) -> bool:
        """Whether ``p`` is one of several fields naming one person on the record (an
        e-mail beside a name of the same role): changing it alone would pair one person's
        e-mail with another's name."""
        if not names_person(p.name, p.key or p.item_key):
            return False
        role = role_of(p.name)
        prefix = p.name.split("_", 1)[0] if "_" in p.name else ""
        return any(
            names_person(n, m.key)
            and n != p.name
            and (role_of(n) == role or (prefix and n.startswith(prefix + "_")))
            for n, m in info.fields.items()
        )

    def _settable(self, tool: ToolInfo, entity: Entity | None) -> list[Param]:
        """Optional parameters that set a stored field of the record (so the effect shows)."""
        info = self._coll(tool.service, tool.collection)
        if info is None:
            return []
        out = []
        handing = self._handing_over(tool, entity)
        if handing and entity is not None and self._settled(entity):
            return []  # what is over (an approved report, a closed ticket) is not handed on
        for p in tool.params:
            if p.required or p.name == tool.own or p.name not in info.fields:
                continue
            if handing and entity is not None and not self._held_by_subject(entity, p.name):
                continue  # a leaver's ticket changes hands, nothing else of it changes
            if (p.key or "").startswith("id:") or (p.type in ("object", None) and not p.enum):
                continue
            if (
                entity is not None
                and (entity.service, entity.collection, entity.id, p.name) in self.written
            ):
                continue
            if entity is not None and (
                p.name.lower() in AUTHORED | NAMES | PROVENANCE or SETTLED.search(p.name)
            ):
                continue  # nobody asks to rewrite a comment, where a lead came from, or a total
            if self._works_against(p):
                continue  # a renewal does not turn on "cancel at period end"
            if entity is not None and p.type == "boolean" and is_message(tool.collection or ""):
                continue  # a message's read and starred marks are its reader's, not work
            if entity is not None and self._reclassifies(p):
                continue  # an escalated bug is not made an epic
            if meaning(p.name) in _OUR_BOOKKEEPING and self._for_an_outsider():
                continue  # a customer's flight booking is charged to no cost center of ours
            if self._leaving_edit(entity, p):
                continue  # a leaver's records are closed, not given a new job title
            if self._moving_on_edit(entity, p):
                continue  # a hiring step moves an interview or hands it on, not resizes it
            if entity is None and is_verdict(p.name):
                continue  # an interview being scheduled has no recommendation yet
            if entity is not None and is_verdict(p.name) and self._decided(entity):
                continue  # a verdict informs a decision: none after it (an interview's, once hired)
            if (
                entity is not None
                and (p.key or p.item_key) in PERSON_KEYS
                and not hands_over(role_of(p.name))
            ):
                continue  # whom a record is about stays; only who handles it changes
            if entity is not None and set_in_motion(entity.record, p.name):
                continue  # a shipment in transit keeps its carrier
            if entity is not None and already_begun(entity.record, p.name):
                continue  # a rental picked up keeps where it was picked up
            out.append(p)
        return out

    def _decided(self, entity: Entity) -> bool:
        """Whether a record tied to ``entity`` was already moved on by the plan, or stands
        at a decision in the world (the application an interview is for, "hired")."""
        finished = self._finished()
        return any(
            (e.service, e.collection, e.id) in finished or self.decided(e) for e in entity.links
        )

    def decided(self, entity: Entity) -> bool:
        """Whether ``entity`` stands at a decision now (hired, won, approved)."""
        current = self._state_record(entity.service, entity.collection, entity.id)
        if current is None:
            return False
        return status_of(self.env.dumps.dump(current)) in DECIDED

    def _finished(self) -> set[tuple[str, str, str]]:
        """Records the plan already moved on with an action (``Writes._finished``)."""
        return set()

    def _settled(self, entity: Entity) -> bool:
        """Whether ``entity`` stands at a final state or a decision now (closed, approved)."""
        current = self._state_record(entity.service, entity.collection, entity.id)
        if current is None:
            return False
        return status_of(self.env.dumps.dump(current)) in FINAL | DECIDED

    def _moving_on_edit(self, entity: Entity | None, p: Param) -> bool:
        """Whether setting ``p`` on a record of a workflow that moves a person on (a hiring
        step) would do other than move it (its stage, its time, the verdict it moves on) or
        change who handles it (an interview's length is the interviewer's to set)."""
        if self.motif is None or self.motif.name != "hiring" or entity is None:
            return False
        key = (p.key or p.item_key or "").split(":", 1)[0]
        moves = is_stage(p.name) or is_verdict(p.name) or key in ("date", "datetime")
        return not (moves or key in PERSON_KEYS)

    def _leaving_edit(self, entity: Entity | None, p: Param) -> bool:
        """Whether setting ``p`` on a person record in an offboarding would edit the leaver
        rather than wind them up: only their status and end dates change."""
        if self.motif is None or self.motif.name != "offboarding" or entity is None:
            return False
        if not is_person_resource(entity.collection):
            return False
        return not (is_stage(p.name) or _ENDING_FIELD.search(p.name.lower()))

    def _reclassifies(self, p: Param) -> bool:
        """Whether setting ``p`` would change what kind of thing a record is (its type,
        category or kind) in a workflow that raises urgency: an escalation raises priority
        and changes hands, it does not reclassify what it escalates."""
        return (
            self.motif is not None
            and self.motif.name in RAISES_URGENCY
            and bool(_KIND_FIELD.search(p.name.lower()))
        )

    def _works_against(self, p: Param) -> bool:
        """Whether setting flag ``p`` does what the workflow contradicts (its name holds a
        verb the workflow never does: ``cancel_at_period_end`` in a renewal)."""
        if self.motif is None or p.type != "boolean":
            return False
        against = CONTRADICTS.get(self.motif.name, frozenset())
        return bool(name_tokens(p.name) & against)

    def _values(
        self,
        tool: ToolInfo,
        params: list[Param],
        entity: Entity | None,
        exclude: tuple[str, str | None],
        related: list[Entity] | None = None,
    ) -> tuple[dict[str, Bound], dict[str, Any] | None]:
        """Values for optional fields: from what the agent knows, a threshold, or literals.
        ``related``: the records a threshold may read (default: the record and its direct ties)."""
        out: dict[str, Bound] = {}
        rule_text_: dict[str, Any] | None = None
        if related is None:
            # The record itself or one directly tied to it: a sibling two ties away (another
            # interview of the same application) is not what decides this one.
            related = [entity, *entity.links] if entity is not None else []
        handing = self._handing_over(tool, entity)
        # E-mails first: a name in the same role then follows the e-mail's owner.
        params = sorted(params, key=lambda p: (p.key or p.item_key) != "email")
        info = self._coll(tool.service, tool.collection)
        for p in params:
            if entity is not None and info is not None and self._pairs_identity(p, info):
                continue  # an e-mail or a name alone would no longer match its partner
            current = entity.record.get(p.name) if entity is not None else None
            if (
                rule_text_ is None
                and related
                and p.enum
                and self.rng.random() < self.cfg.p_threshold
            ):
                setting = {(entity.id, q.name) for q in params} if entity is not None else set()
                picked = self._threshold(p, current, related, setting)
                if picked is not None:
                    out[p.name], rule_text_ = picked
                    rule_text_["param"] = field_words(p.name)
                    if self.rng.random() < self.cfg.p_house_rule:
                        # The rule lives in a policy note the instruction only points to.
                        moved = self._house_rule(tool, out[p.name], rule_text_)
                        if moved is not None:
                            out[p.name], rule_text_ = moved
                    continue
            if handing and hands_over(role_of(p.name)) and (p.key or p.item_key) == "email":
                # Someone leaving hands all their work to one colleague.
                if self.successor is None:
                    self.successor = self._colleague(p, tool.service)
                taker = self.successor
                if (
                    taker is not None
                    and taker.value != current
                    and self._fits_role(p.name, "email", taker.value)
                ):
                    # ... unless they already hold another role on the record
                    out[p.name] = taker
                    self._hold(p.name, taker.value)
                continue
            held = self._held_person(p.name) if p.key == "person_name" else None
            if held is not None:
                named = self._name_of(p, held, exclude)
                if named.value != current:
                    out[p.name] = named
                continue
            facts = self._holding_it(p, tool.service, self._facts_for(p, tool.service, exclude))
            fact = self._best(p, facts, tool.service)
            if fact is not None and not (p.key or "").startswith("id:") and fact.value != current:
                out[p.name] = self._bound_to(fact, p)
                if (p.key or p.item_key) in PERSON_KEYS:
                    self._hold(p.name, fact.value)
                continue
            if p.key and not p.enum:
                colleague = self._colleague(p, tool.service)
                if colleague is not None and colleague.value != current:
                    out[p.name] = colleague
                    self._hold(p.name, colleague.value)
                continue
            value = literal(
                p,
                self.rng,
                self.world.now(),
                avoid=current,
                strict=True,
                where=self._where(tool),
                topic=self._topic(),
                internal=self._to_colleague(),
                reporting=self._to_requester(),
            )
            if value is not None and value != current:
                out[p.name] = Bound.literal(value)
        out = fitted_to_kind(out, self._where(tool), self.rng)
        ends, raises = clashing({name: b.value for name, b in out.items()})
        # The side a rule decides stays (its policy note is already a step of the plan).
        drop = ends if any(out[n].bind.get("rule") for n in raises) else raises
        out = {n: b for n, b in out.items() if n not in drop}
        return out, rule_text_

    def _pairs(
        self, bound: dict[str, Bound], skip: set[str], tool: ToolInfo | None = None
    ) -> list[list[str]]:
        """(field words, value as said) of what a write states; ``tool``: the write, whose
        record's permission flags are named as access ("read access")."""
        info = self._coll(tool.service, tool.collection) if tool is not None else None
        said = {t for step in self.steps for t in step.literals}
        # (a person the request names by their address is named by their full name too)
        said |= {
            person.full_name
            for t in list(said)
            if "@" in t and (person := self.env.person_by_email(t)) is not None
        }
        return [
            [
                access_words(name, info.fields)
                if info is not None and isinstance(b.value, bool)
                else field_words(name),
                _as_said(b, said),
            ]
            for name, b in bound.items()
            if name not in skip and b.bind.get("rule") != "threshold"
        ]


def _put_in_force(record: Any) -> dict[str, Any]:
    """The changes that make a copy of ``record`` a document in force (see ``_in_force``),
    each only where the record's own schema takes it."""
    data = record.model_dump(mode="json")
    published, _, _, internal = _in_force(record)
    wanted: dict[str, Any] = {}
    if "status" in data and not published:
        wanted["status"] = "published"
    for name, english in (("locale", "en-US"), ("language", "en")):
        if isinstance(data.get(name), str) and not data[name].lower().startswith("en"):
            wanted[name] = english
    if isinstance(data.get("visibility"), str) and not internal:
        wanted["visibility"] = "internal"
    out: dict[str, Any] = {}
    for name, value in wanted.items():
        try:
            clone(record, record.id, {name: value})
        except ValueError:
            continue  # not a value this service has (a locale pattern, a status enum)
        out[name] = value
    return out


# States of a document in force: a policy is followed once published, never as a draft.
_IN_FORCE = frozenset({"published", "active", "live", "current", "approved", "final"})


def _in_force(record: Any) -> tuple[bool, bool, bool, bool]:
    """How far a document reads as a policy in force: published (or without a status), not
    archived, in English, and for our own staff rather than the public help centre."""
    data = record.model_dump(mode="json")
    status = status_of(data)
    locale = str(data.get("locale") or data.get("language") or "en").lower()
    visibility = str(data.get("visibility") or "internal").lower()
    return (
        status is None or status in _IN_FORCE,
        not archived(data),
        locale.startswith("en"),
        visibility in ("internal", "private", "team", "staff", "restricted"),
    )


def _as_said(bound: Bound, said: set[str]) -> str:
    """How the request names a value: as the user said it earlier where it is a value the
    request itself states (notes "#72167" after "find the order #72167", not "the order's
    order number", "Matthew King" after naming him); an address keeps its own naming."""
    fact = bound.fact
    if (
        bound.bind.get("from") == "step"
        and isinstance(bound.value, str)
        and bound.value in said
        and fact is not None
        and fact.key not in ("email", "phone")
    ):
        return show(bound.value)
    return bound.phrase


def fitted_to_kind(out: dict[str, Bound], where: str, rng: random.Random) -> dict[str, Bound]:
    """A stated text whose words depend on its record's kind (a CTA's reason on its type,
    ``vocab.BY_KIND``) fits the kind the same call states: a "renewal" CTA's reason is
    about the renewal, not usage that dropped."""
    for name, bound in list(out.items()):
        table = BY_KIND.get(str(meaning(name, where)))
        if table is None or bound.bind.get("from") != "user":
            continue
        kinds = [b.value for b in out.values() if isinstance(b.value, str) and b.value in table]
        if kinds and bound.value not in table[kinds[0]]:
            out[name] = Bound.literal(rng.choice(table[kinds[0]]))
    return out


# A policy note states a standing rule of a team's, for every record of its kind ("a task
# for a reservation whose ..."), never one written for the record at hand ("When the total
# price of the reservation is above 2400, the task's priority is ..."). One wording per
# note, by its title (no draw from the walk's stream).
_POLICY_FOR_OTHERS = (
    "Our rule: {a_noun} for {a_src} whose {field} {be} above {limit} gets the {param} "
    "{above}; for any other {src}, the {param} is {otherwise}.",
    "How we work: whenever {a_src}'s {field} {be} above {limit}, {a_noun} for it is given "
    "the {param} {above}. For every other {src} we use {otherwise}.",
)
_POLICY_FOR_ITSELF = (
    "Our rule: {a_noun} whose {field} {be} above {limit} gets the {param} {above}; any "
    "other {noun} gets {otherwise}.",
    "How we work: we give every {noun} whose {field} {be} above {limit} the {param} "
    "{above}, and every other {noun} the {param} {otherwise}.",
)


def policy_text(heading: str, noun: str, src_noun: str, same: bool, text: Mapping[str, Any]) -> str:
    """The body of a policy note stating a threshold ``text`` (field, limit, param, above,
    otherwise) as our standing rule for every ``noun``: by its own field (``same``) or by
    the field of the ``src_noun`` it is for."""
    forms = _POLICY_FOR_ITSELF if same else _POLICY_FOR_OTHERS
    form = forms[zlib.crc32(f"{heading}:{text['limit']}".encode()) % len(forms)]
    return form.format(
        a_noun=a_or_an(noun),
        a_src=a_or_an(src_noun),
        noun=noun,
        src=src_noun,
        field=text["field"],
        be=be(str(text["field"])),
        limit=text["limit"],
        param=text["param"],
        above=text["above"],
        otherwise=text["otherwise"],
    )


def near_places(people: list[Any], record: dict[str, Any]) -> list[Any]:
    """The pool's people living in the country of ``record``'s address (its own fields or
    a nested address) but not in its city (a new address, not the old one's neighbour);
    anyone where it states no place or the pool has no one there."""
    places: dict[str, str] = {}
    nested = next((v for v in record.values() if isinstance(v, dict)), {})
    for key, value in [*record.items(), *nested.items()]:
        kind = "country" if key.lower() in ("country", "country_code") else meaning(key)
        if kind in ("city", "country") and isinstance(value, str) and value:
            places.setdefault(kind, value.casefold())
    city, country = places.get("city"), places.get("country")
    there = [
        p
        for p in people
        if str(getattr(p, "country", "")).casefold() == country
        and str(getattr(p, "city", "")).casefold() != city
    ]
    return there or people
