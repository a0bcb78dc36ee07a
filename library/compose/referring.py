"""Write-centric instructions: what a user writes is the changes they want, each on a record
named by what they know about it ("Ronald's most recently updated call in Voice", "the
technician of that work order"), not the reads an agent will need to find it.

The plan's ``text`` notes say everything: a lookup note says how its record is found (by a
stated value, by another record's field, by a search, with a selection rule), a fetch note
which reference leads to it, a write note what changes. Each record a read finds becomes a
*referring expression*, built at its first mention from the chain of notes that leads to it
(the selection rule folded in: "the oldest", "with the largest amount", ``whose channel is
"email"``); later mentions are short ("the call", "that call", "it"). Reads that only feed a
write are not narrated; a read is narrated (as "find ...") only where leaving it to its first
mention could change what it finds (a write in between touches its service) or where nothing
mentions it. A service is named at the first record in it. Guards close the request in one
sentence. Deterministic: ``variant`` picks among the phrasings of each part.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from library.compose.context import be, field_words
from library.compose.realism import (
    article,
    matched_words,
    plain_value,
    said_before,
    time_words,
    why_asked,
)

Note = Mapping[str, Any]
Notes = Sequence[Note]
Plan = Sequence[Mapping[str, Any]]

# Roles a person "has" a record in: "Ronald's call" is the call whose user is Ronald.
_POSSESSIVE = frozenset(
    {"customer", "user", "guest", "employee", "contact", "candidate", "client", "member",
     "patient", "traveler", "traveller", "driver", "applicant", "buyer", "subscriber",
     "requester", "passenger", "tenant"}
)  # fmt: skip
# Roles a verb says better: "the issues assigned to Anna".
_VERBS = {
    "assignee": "assigned to {p}",
    "assigned_to": "assigned to {p}",
    "reporter": "reported by {p}",
    "owner": "owned by {p}",
    "organizer": "organized by {p}",
    "organiser": "organized by {p}",
    "author": "written by {p}",
    "sender": "from {p}",
    "recipient": "sent to {p}",
    "host": "hosted by {p}",
    "created_by": "created by {p}",
    "creator": "created by {p}",
    "manager": "managed by {p}",
}
# Roles said as what the subject does, once the request calls them "they": "the event
# they organize" (not "organized by them").
_THEY = {
    "organizer": "they organize",
    "organiser": "they organize",
    "host": "they host",
    "manager": "they manage",
    "reporter": "they reported",
    "author": "they wrote",
    "created_by": "they created",
    "creator": "they created",
}
# Where messages are written, and a message named by its writer alone: "the message
# written by Jessica" (with no rule or other detail after it).
_PLACES = frozenset({"channel", "thread", "conversation", "room", "space", "chat", "topic"})
_WROTE = re.compile(
    r"the (?:message|post|comment|reply) (?:written by|from|posted by|sent by) (?P<who>[^(),]+)"
)
# Fields named for the person in them: "attendees" (the people), "to" (the recipient).
_BARE_ROLES = {
    "attendee": "attendee",
    "participant": "participant",
    "to": "recipient",
    "from": "sender",
    "sender": "sender",
    "recipient": "recipient",
    "cc": "cc",
}
# Records that are a person's own entry: "John's user record".
_RECORD_NOUNS = frozenset(
    {
        "user",
        "candidate",
        "customer",
        "employee",
        "member",
        "contact",
        "lead",
        "subscriber",
        "vendor",
        "supplier",
        "client",
        "patient",
        "applicant",
        "driver",
    }
)


def _entry(noun: str) -> str:
    """What a person's own entry is called after its noun, in the words of the people who
    use it: a user or a customer has an "account" (what people suspend), the others a
    "profile" ("Ann's contact profile"), never a "record"."""
    return " account" if noun in _ACCOUNT_NOUNS else " profile"


_ACCOUNT_NOUNS = frozenset({"user", "customer", "client", "subscriber", "member"})


# Words before "email" that say which address, not whose.
_NOT_ROLES = frozenset(
    {"personal", "work", "primary", "secondary", "backup", "alternate", "alternative",
     "notification", "billing", "reply", "business", "private", "other"}
)  # fmt: skip
_PARTICLES = frozenset({"up", "in", "out", "off", "down", "over", "back", "on", "to", "for"})
_LITERAL = re.compile(r'^(?:"|-?\d)|\("[^"]*@[^"]*"\)$')


# A person's full name as the pool writes it ("Vanessa Bird", "Mary-Ann O'Neil").
_FULL_NAME = re.compile(r"[A-Z][\w'\-]*(?: [A-Z][\w'\-]*)+")


@dataclass(slots=True)
class Record:
    """A record a read step finds: its label (unique in the task) and how it is found."""

    label: str
    step: int
    note: Note
    select: Mapping[str, Any] | None
    service: str
    deps: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Subject:
    """The person the opening names: ``Ronald Garcia ("ronald.garcia@...")``."""

    first: str
    said: str


def _listed(noun: str, of: str, svc: str) -> str | None:
    """How a person names the one ``noun`` a record lists, given how the record is named
    (``of``): "Raymond's order in Retail" (of ``Raymond's user account in Retail``), "the
    order in Retail belonging to the sender of the message" (of ``the user account in
    Retail of the sender of the message``), "that user's order" (of ``that user``); None
    for other names."""
    own = re.fullmatch(r"(\S+'s|their) [\w ]+ (?:record|account|profile)( in .+)?", of)
    if own:
        return f"{own.group(1)} {noun}{own.group(2) or svc}"
    held = re.fullmatch(r"the [\w ]+ (?:record|account|profile)( in .+?)? of (the .+)", of)
    if held:  # "the order in Retail belonging to the sender of the message"
        return f"the {noun}{held.group(1) or svc} belonging to {held.group(2)}"
    short = re.fullmatch(r"(the|that) ([\w ]+?)( in .+)?", of)
    if short:  # "the customer in Telecom" -> "the customer's line in Telecom"
        return f"{short.group(1)} {short.group(2)}'s {noun}{short.group(3) or svc}"
    return None


def _theirs(posts: Sequence[str], service: str) -> tuple[str, str] | None:
    """(``Michael's``, `` in Payments``) where a record's one detail is that it belongs to
    a person's own entry in its own service (``of Michael's customer record in
    Payments``): then it is simply Michael's."""
    if len(posts) != 1:
        return None
    own = re.fullmatch(r"of (\S+'s|their) [\w ]+ (?:record|account|profile)(?: in (.+))?", posts[0])
    if own is None or own.group(2) not in (None, service):
        return None
    return own.group(1), f" in {service}" if own.group(2) else ""


def _words_end(text: str, *ends: str) -> str | None:
    for end in ends:
        if text == end:
            return ""
        if text.endswith(" " + end):
            return text[: -len(end) - 1]
    return None


def person_role(field_words: str) -> str | None:
    """``reviewer email`` -> ``reviewer``; ``email`` -> ``""`` (the record's own person);
    ``from address`` -> ``sender``; ``attendee`` -> ``attendee``; None when the field holds
    no person (``personal email`` -> ``""``: whose address, not which person)."""
    base = _words_end(field_words, "email", "emails", "email address", "address")
    if base is None:
        word = field_words.removesuffix("s")
        if word in _POSSESSIVE or word.replace(" ", "_") in _VERBS or word in _BARE_ROLES:
            return _BARE_ROLES.get(word, word)
        return None
    if not base or base in _NOT_ROLES:
        return ""
    return {"from": "sender", "to": "recipient", "reply to": "", "receipt": "payer"}.get(base, base)


def _join(items: Sequence[str], last: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def _rule_words(select: Mapping[str, Any] | None) -> tuple[str, str]:
    """(a word before the noun, a phrase after it) saying which of several matches:
    ("most recently updated", "") or ("", "with the largest amount")."""
    if not select:
        return "", ""
    kind, name = str(select.get("rule")), str(select.get("field"))
    words = field_words(name)
    if kind in ("latest", "earliest") and name == "updated_at":
        return ("most recently updated" if kind == "latest" else "least recently updated"), ""
    if kind in ("latest", "earliest") and name == "created_at":
        return ("newest" if kind == "latest" else "oldest"), ""
    if kind in ("latest", "earliest"):
        return "", f"with the {kind} {time_words(name)}"
    if kind in ("largest", "smallest") and be(words) == "are" and " in " not in words:
        # a count: "with the most seats", not "with the largest seats"
        return "", f"with the {'most' if kind == 'largest' else 'fewest'} {words}"
    if kind in ("largest", "smallest"):
        return "", f"with the {kind} {words}"
    if kind == "matching":
        before = said_before(name, select.get("value"))
        return (before, "") if before else ("", matched_words(name, select.get("value")))
    return "", ""


# Words naming a list of people or addresses: one value is "one of" them.
_MANY = frozenset(
    {"recipients", "emails", "attendees", "participants", "members", "cc", "bcc", "mentions",
     "invitees", "interviewers", "watchers", "followers", "collaborators"}
)  # fmt: skip


def _handed_to(summary: str, pairs: Sequence[Sequence[str]]) -> str | None:
    """The person an ``assign`` hands the record to, where that is the one value it sets."""
    if not summary.startswith(("assign ", "reassign ")) or len(pairs) != 1:
        return None
    label, phrase = pairs[0]
    return str(phrase) if person_role(str(label)) in ("assignee", "assigned to", "owner") else None


# A person named with their address, as a request names a colleague: Ann Lee ("ann@x.com").
_NAMED_COLLEAGUE = re.compile(r'[A-Z][\w.\'-]*(?: [A-Z][\w.\'-]*)+ \("[^"]+@[^"]+"\)')


def _handed_over(pairs: Sequence[Sequence[str]]) -> tuple[str, str] | None:
    """(role, person) where an update only gives a record to one named colleague in one
    role (its owner, assignee, host): said as a person says it ("make Ann the owner of
    the deal", "reassign the issue to Ann"), not as fields set ("set owner email to Ann")."""
    if len(pairs) != 1:
        return None
    label, phrase = (str(x) for x in pairs[0])
    role = person_role(label)
    if not role or not re.fullmatch(
        r'[A-Z][\w.\'-]*(?: [A-Z][\w.\'-]*)+ \("[^"]+@[^"]+"\)', phrase
    ):
        return None
    role = "assignee" if role in ("assignee", "assigned to", "assigned") else role
    return said_role(role), phrase


# Roles people write in capitals: "Alexander's CSM", not "csm" (a sales "rep" stays a rep).
_ROLE_ACRONYMS = frozenset({"csm", "cc", "bcc", "pm", "ae", "sdr", "cto", "ceo", "cfo"})


def said_role(role: str) -> str:
    """A role as a request writes it: ``csm`` -> ``CSM``."""
    return role.upper() if role in _ROLE_ACRONYMS else role


def _role_in(name: str, role: str) -> bool:
    """Whether a record's name says whose it is in ``role`` ("the deal owned by Ann", "the
    job with Ann as hiring manager"), so "hand it over" can only mean that role."""
    stem = role.lower().removesuffix("er").removesuffix("or")
    return f" as {role} " in f" {name} " or f" {stem}" in f" {name.lower()}"


def _label(field_words: str) -> str:
    """A value's label as a person says it: a time field is a time (``starts at`` -> ``start
    time``, ``pickup at`` -> ``pickup time``); other fields keep their words."""
    if field_words.endswith(" at"):
        return time_words(field_words.replace(" ", "_"))
    return field_words


def _join_postmods(parts: Sequence[str]) -> str:
    """``with A``, ``with B`` -> ``with A and B``."""
    out: list[str] = []
    seen_with = False
    for part in parts:
        out.append(f"and {part[5:]}" if part.startswith("with ") and seen_with else part)
        seen_with = seen_with or part.startswith("with ")
    return " ".join(out)


# -- a record's values, as a request gives them -----------------------------------------------
# Fields that hold what a message or comment says: given last, after a colon or "saying".
_BODY = frozenset(
    {"body", "body text", "text", "content", "message", "message text", "message body",
     "text body", "body html", "html body", "comment", "markdown", "body markdown"}
)  # fmt: skip
# A new record's name, as people give it ("a task titled ...", "a meeting about ...").
_TITLES: dict[str, tuple[str, ...]] = {
    "title": ("titled {p}", "called {p}"),
    "name": ("called {p}", "named {p}"),
    "topic": ("titled {p}", "about {p}"),
    "subject": ("with the subject {p}", "with the subject line {p}"),
    "summary": ("titled {p}", "with the summary {p}"),
}
# A person given in a role, as a verb or preposition: "assigned to Ann", "to Ann".
_GIVEN_AS = {
    "assignee": "assigned to {p}",
    "recipient": "to {p}",
    "host": "hosted by {p}",
    "organizer": "organized by {p}",
    "organiser": "organized by {p}",
    "owner": "owned by {p}",
    "author": "as {p}",
    "sender": "from {p}",
    "employee": "for {p}",
    "reporter": "reported by {p}",
    "cc": "copying {p}",
}
_NOTES = frozenset({"notes", "note", "memo", "remarks", "internal note", "internal notes"})
_LEVELS = frozenset({"priority", "severity", "urgency", "status", "stage", "state"})
_GRADES = frozenset({"priority", "severity", "urgency"})
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# Actions that take a record to a value: "scale it to 8 replicas", "extend it until ...".
_TO_VERBS = frozenset({"scale", "resize", "extend", "postpone", "grow", "shrink"})


def _person_mod(label: str, role: str, who: str, v: int) -> tuple[int, str]:
    """(rank, words) for a person given in ``role``: "assigned to Ann", "with Ann as
    interviewer"; the recipient first, then the record's name, then the others."""
    form = _GIVEN_AS.get(role)
    if form is not None:
        return (0 if role == "recipient" else 2), form.format(p=who)
    if role in _POSSESSIVE:
        return 2, f"for {who}"  # whose it is: "a booking for Ann", not "with Ann as guest"
    many = label.endswith("s") and ", " in who
    said = said_role(role) + ("s" if many else "")
    if re.search(r" (?:as|with|whose) ", who):
        return 2, f"with {said} {who}"  # no "with ... as" inside "with ... as"
    return 2, f"with {who} as {said}"


# Fields a person writes text into: where a request describes their value ("the order ID")
# rather than quoting it, an agent may write more around it ("Order #W9004369"). (Not a
# name or a title: nobody pads "the company name" when told to copy it.)
_TEXT_FIELDS = frozenset(
    {"description", "body", "notes", "note", "memo", "remarks", "text", "content", "message",
     "comment", "summary", "details", "detail", "reason", "caption", "bio", "purpose",
     "instructions", "remark"}
)  # fmt: skip


def _is_text(label: str) -> bool:
    """Whether a field holds free text: ``description``, ``body text``, ``order notes``."""
    return label in _BODY or label.split(" ")[-1] in _TEXT_FIELDS


def _exactly(p: str, label: str, v: int) -> str:
    """A text field given a described value that it must hold and nothing else: the rubric
    checks it as that value ("with the order ID as its description" was read as leave for
    "Order #W9004369", which the check refuses)."""
    forms = (
        f"with just {p} as its {label}",
        f"with nothing but {p} in its {label}",
        f"with its {label} set to just {p}",
        f"with only {p} as its {label}",
    )
    return forms[v % len(forms)]


def _value_mod(label: str, p: str, literal: bool, after: str, v: int) -> tuple[int, str]:
    """(rank, words) for one value of a new record or an action: ``title`` -> ``titled
    "X"``, ``start time`` -> ``starting "..."``, ``notes`` -> ``with the order number as
    its notes``, a number of a plural field -> ``with 3 seats``, any other -> ``with the cost center
    "CC-1"`` or ``with the order number as its description``."""
    low = label.lower()
    if low in _TITLES and literal:
        forms = _TITLES[low]
        return 1, forms[v % len(forms)].format(p=p)
    if low in _NOTES:
        if literal:
            return 5, (f"with the note {p}", f"with {p} in its notes")[v % 2]
        return 5, _exactly(p, "notes", v)
    if low in _LEVELS:
        p = plain_value(low, p)
        if low in _GRADES and re.fullmatch(r"[A-Za-z]+", p):
            return 4, f"with {p} {low}"  # "with high priority", not 'with priority "high"'
        return 4, f"with {low} {p}"
    if low in ("start time", "start date", "start"):
        return 3, f"starting {p}"
    if low in ("end time", "end date", "end"):
        return 3, f"ending {p}"
    if low in ("due date", "due time", "due"):
        return 3, f"due {p}"
    if low == "amount":
        return 4, f"for {p}"
    if low == "currency":
        return 4, f"in {p}"
    verb = after.split(" ")[0]
    if verb in _TO_VERBS and literal:
        # "scale the deployment to 8 replicas", "extend the rental until "2026-04-03""
        if low.endswith((" time", " date")):
            return 4, f"until {p}"
        if _NUMBER.fullmatch(p) and be(label) == "are":
            return 4, f"to {p} {label}"
    moves = verb in ("move", "transfer", "copy")
    if low.endswith(" id") and not literal and moves:
        return 4, f"to {p}"  # "move the file to the folder"
    if not literal and _is_text(low):
        return 4, _exactly(p, label, v)
    if not literal:
        return 4, f"with {p} as its {label}"
    if _NUMBER.fullmatch(p) and be(label) == "are":
        return 4, f"with {p} {label}"  # "with 3 rooms"
    if plain_value(label, p) != p and low == "condition":
        return 4, f"in {plain_value(label, p)} condition"  # "in damaged condition"
    if plain_value(label, p) != p:
        return 4, f"with {label} {plain_value(label, p)}"  # a kind's word: "with channel email"
    return 4, (f"with the {label} {p}" if p.startswith('"') else f"with {label} {p}")


# "create a CTA" and its type said before the noun: 'create a "renewal" CTA'.
_TYPED = re.compile(r"an? ([\w ]+)")
_TYPES = frozenset({"type", "kind", "category"})


def _is_type(label: str) -> bool:
    """A field naming a new record's kind: ``type``, ``category``, ``keytype`` (a "csk"
    key is 'a csk Cryptokey', not 'a Cryptokey with the keytype "csk"')."""
    return label in _TYPES or re.fullmatch(r"[a-z]+type", label) is not None


# What a new record is put on (a comment on a ticket) or in (a message in a channel),
# by the last word of its noun and of its parent's; "for" elsewhere.
_ON = frozenset({"comment", "note", "review", "reaction", "rating", "annotation", "label", "tag"})
_IN_PLACES = frozenset(
    {"channel", "thread", "conversation", "project", "folder", "calendar", "board", "list",
     "space", "workspace", "repository", "repo", "album", "playlist", "group", "chat"}
)  # fmt: skip


def _article(word: str) -> str:
    return article(word)


def _no_new(summary: str) -> str:
    """Drop "new" from a summary ("add a new task" -> "add a task"): whatever a request
    creates is new."""
    return re.sub(r"\ban? new (\w)", lambda m: f"{_article(m.group(1))} {m.group(1)}", summary)


def _owner_word(rest: str, owners: Sequence[str]) -> str:
    """The word before a new record's parent: a comment "on" a ticket, a message "in" a
    channel, else "for"."""
    made = rest.split(" for ")[0].split(" ")[-1]
    parent = owners[0].split(" ")[-1] if owners else ""
    if made in _ON:
        return "on"
    if parent in _IN_PLACES:
        return "in"
    return "for"


# The parts of a postal address, in the order people write them.
_ADDRESS_PARTS = {
    "address1": 0, "address 1": 0, "address line 1": 0, "line1": 0, "line 1": 0, "street": 0,
    "street address": 0, "address2": 1, "address 2": 1, "address line 2": 1, "line2": 1,
    "line 2": 1, "city": 2, "town": 2, "state": 3, "province": 3, "region": 3, "county": 3,
    "zip": 4, "zip code": 4, "postal code": 4, "postcode": 4, "country": 5,
    "country code": 5,
}  # fmt: skip


def one_address(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """An address given as one value, as a person writes it: ``address1 "1 Main St"``,
    ``city "Leeds"``, ``zip "LS1"`` -> ``address "1 Main St", "Leeds", "LS1"`` (street, then
    city, region, postcode, country), not six fields set one by one. Fewer than three
    parts, or no street and city among them, stay as they are."""
    parts: dict[int, tuple[int, str, str]] = {}
    prefix = None
    for i, (label, phrase) in enumerate(pairs):
        for part, rank in _ADDRESS_PARTS.items():
            head = label[: -len(part)] if label.endswith(part) else None
            if head is None or (head and not head.endswith(" ")) or not phrase.startswith('"'):
                continue
            if prefix in (None, head):
                prefix = head
                parts[i] = (rank, label, phrase)
            break
    ranks = {rank for rank, _, _ in parts.values()}
    if len(parts) < 3 or not {0, 2} <= ranks:
        return list(pairs)
    said = ", ".join(phrase for _, _, phrase in sorted(parts.values()))
    first = min(parts)
    out = [pair for i, pair in enumerate(pairs) if i not in parts]
    out.insert(first, (f"{prefix or ''}address", said))
    return out


# What a field named after its record ends in: a "username", a "userid", an "ordernumber".
_NAMING = frozenset({"name", "id", "number", "code", "key", "handle"})


def _possessed(name: str, what: str) -> str:
    """A field of a record the request has named: "the order's total", "the order ID" (not
    "the order's ID"), "the invoice's number" (not "the invoice's invoice number")."""
    head = name.split(" ")[-1]
    if what == "ID":
        return f"the {name} ID"
    if what.startswith(head + " "):
        return f"the {name}'s{what[len(head) :]}"
    return f"the {name}'s {what}"


def _with_joined(parts: Sequence[str]) -> list[str]:
    """Runs of ``with A``, ``with B`` said once: ``with A and B``."""
    out: list[str] = []
    run: list[str] = []
    for part in [*parts, ""]:
        if part.startswith("with "):
            run.append(part[5:])
            continue
        if run:
            out.append("with " + _join(run))
            run = []
        if part:
            out.append(part)
    return out


# A person's detail on a record: "reporter email", "requester name" (not "email" alone:
# the record's own address).
_PERSON_DETAIL = re.compile(r"([a-z][a-z ]*[a-z]) (email|name)")
_PEOPLE = frozenset(
    {"reporter", "requester", "recipient", "sender", "owner", "host", "organizer", "assignee",
     "manager", "author", "creator", "approver", "reviewer", "recruiter", "interviewer",
     "agent", "rep", "csm", "payer", "account manager", "hiring manager", "booker"}
)  # fmt: skip


class Writer:
    """One instruction's body: its write sentences, guards and answer request."""

    def __init__(
        self,
        plan: Sequence[Mapping[str, Any]],
        goal: str,
        variant: int,
        force: Iterable[str] = (),
    ) -> None:
        self.plan = plan
        self.variant = variant
        self.records: dict[str, Record] = {}
        for i, step in enumerate(plan):
            t = step["text"]
            if t.get("kind") in ("lookup", "fetch") and t.get("label"):
                if t.get("kind") == "fetch" and t.get("via") == f"the {t['label']}":
                    continue  # the details of a record in hand: the same record, named as found
                self.records[str(t["label"])] = Record(
                    str(t["label"]), i, t, step.get("select"), str(t["service"])
                )
        # Longest first, so that "the Mail message" is not read as "the message".
        self.labels = sorted(self.records, key=len, reverse=True)
        for rec in self.records.values():
            rec.deps = self._mentions(self._note_phrases(rec.note)) - {rec.label}
        self.created = [
            str(step["text"]["label"])
            for step in plan
            if step["text"].get("kind") == "create" and step["text"].get("label")
        ]
        # What each new record is made for, and what the request calls it where its label
        # is another word for it: a zone made as "a Native domain" is "the domain" after.
        self.made_for: dict[str, set[str]] = {}
        self.made_as: dict[str, str] = {}
        for step in plan:
            t = step["text"]
            if t.get("kind") != "create" or not t.get("label"):
                continue
            made = str(t["label"])
            self.made_for[made] = {str(p).removeprefix("the ") for p in t.get("for") or ()}
            rest = _no_new(str(t.get("summary", ""))).partition(" ")[2].split(" for ")[0]
            word = rest.split(" ")[-1]
            taken = {lab.split(" ")[-1] for lab in [*self.records, *self.created] if lab != made}
            other = word.isalpha() and word.islower() and word != made.split(" ")[-1]
            if other and word not in taken and " " not in made:
                self.made_as[made] = word
        # The kinds of record (last word of the noun) each service's steps touch.
        self.kinds: dict[str, set[str]] = {}
        for step in plan:
            t = step["text"]
            words = [str(t[k]) for k in ("noun", "label") if isinstance(t.get(k), str)]
            if t.get("kind") == "create":
                words.append(str(t.get("summary", "")).split(" for ")[0])
            kinds = self.kinds.setdefault(str(t["service"]), set())
            kinds.update(w.split(" ")[-1] for w in words if w)
        self.introduced: set[str] = set()
        self.alias: dict[str, str] = {}  # how a record is called once named otherwise
        self.named: set[str] = set()
        self.force = set(force)
        self.subject = self._subject(goal)
        # Whether the request calls its subject "they" after the opening (a hand-over of
        # their work: "their deal", "the task assigned to them"), not their name each time.
        self.pronoun = False
        self.opening = self._opening(goal)
        self.goal = goal
        self.one_said = False  # whether this sentence has named a record by a rule after it

    # -- who and what ------------------------------------------------------------------------
    def _subject(self, goal: str) -> Subject | None:
        if not self.plan:
            return None
        t = self.plan[0]["text"]
        said = t.get("search") or next((p for _, p in t.get("by") or ()), None)
        if not isinstance(said, str) or not said.startswith('"'):
            return None
        m = re.search(r"([A-Z][\w'\-]*(?: [A-Z][\w'\-]*)*) \(" + re.escape(said) + r"\)", goal)
        name = said.strip('"')
        if m is not None:
            tokens = m.group(1).split()
        elif _FULL_NAME.fullmatch(name) and re.search(rf"\b{re.escape(name)}\b", goal):
            tokens = name.split()  # found by their name, which the opening gives bare
        else:
            return None
        local = re.split(r"[._\-+]", name.split("@")[0])[0].casefold()
        first = next((w for w in tokens if w.casefold() == local), None)
        if first is None:
            first = tokens[-2] if len(tokens) >= 2 else tokens[0]
        full = " ".join(tokens[tokens.index(first) :])
        # A colleague of the same first name in the request: the full name, always.
        named = {
            found
            for step in self.plan
            for _, phrase in step["text"].get("values") or ()
            for found in re.findall(r"([A-Z][\w'\-]*(?: [A-Z][\w'\-]*)+) \(\"", str(phrase))
        }
        if any(n != full and n.split(" ")[0] == first for n in named):
            first = full
        return Subject(first, said)

    def _opening(self, goal: str) -> str | None:
        """The record the opening already names (``the product "4KMON-LIT"``), if its
        lookup needs no rule: then "the product" is enough."""
        if not self.plan:
            return None
        t = self.plan[0]["text"]
        said = t.get("search") or next((p for _, p in t.get("by") or ()), None)
        select = self.plan[0].get("select") or {}
        same = select.get("rule") == "matching" and f'"{select.get("value")}"' == said
        if (
            t.get("kind") == "lookup"
            and t.get("label") in self.records
            and (not select or same)  # ("the server "ns1"" matched by that very name)
            and isinstance(said, str)
            and f"{t.get('noun')} {said}" in goal
            and len(t.get("by") or ()) <= 1
            and not t.get("of")
        ):
            return str(t["label"])
        return None

    @staticmethod
    def _note_phrases(t: Note) -> list[str]:
        out: list[str] = []
        for key in ("target", "via", "search", "summary"):
            if isinstance(t.get(key), str):
                out.append(t[key])
        for key in ("for", "of"):
            out += [str(p) for p in t.get(key) or ()]
        for key in ("by", "values"):
            out += [str(p) for _, p in t.get(key) or ()]
        th = t.get("threshold")
        if isinstance(th, Mapping) and isinstance(th.get("of"), str):
            out.append(th["of"])
        return out

    def _mentions(self, phrases: Iterable[str]) -> set[str]:
        """The found records the phrases name: ``the ticket``, ``the assignee email of
        the ticket``, or inside a summary (``mark the task as completed``)."""
        found: set[str] = set()
        for phrase in phrases:
            m = re.fullmatch(r"the (.+) of the (.+)", phrase)
            if m and m.group(2) in self.records:
                found.add(m.group(2))
                continue
            if phrase.startswith("the ") and phrase[4:] in self.records:
                found.add(phrase[4:])
                continue
            text = f" {phrase} "
            for label in self.labels:
                needle = f" the {label} "
                if needle in text:
                    found.add(label)
                    text = text.replace(needle, " ")
        return found

    def _closure(self, labels: set[str]) -> set[str]:
        out = set(labels)
        todo = list(labels)
        while todo:
            for dep in self.records[todo.pop()].deps:
                if dep not in out:
                    out.add(dep)
                    todo.append(dep)
        return out

    # -- naming records ----------------------------------------------------------------------
    def _in(self, service: str, noun: str = "") -> str:
        """`` in Voice`` at the first record in a service, or wherever another service of
        the task holds records of the same kind (a Storefront and an Invoicing customer)."""
        if service in self.named and not self._shared(noun, service):
            return ""
        self.named.add(service)
        return f" in {service}"

    def _kind(self, rec: Record, noun: str) -> str:
        """``noun``, or "" where an id on a record of the same service leads to ``rec`` (the
        comments of an issue are the issue tracker's): then the service goes unsaid once
        named."""
        t = rec.note
        by_id = self._mentions([str(p) for p in t.get("of") or ()])
        if t.get("kind") == "fetch":
            by_id |= self._mentions([str(t.get("via", ""))])
        if any(self.records[d].service == rec.service for d in by_id):
            return ""
        return noun

    def _shared(self, noun: str, service: str) -> bool:
        last = noun.split(" ")[-1]
        return bool(last) and any(
            other != service and last in kinds for other, kinds in self.kinds.items()
        )

    def called(self, label: str) -> str:
        """A named record's short name: its label, or "Chat message" where another
        record is the "Mail message"."""
        if label in self.alias:
            return self.alias[label]
        rec = self.records.get(label)
        others = [*self.records, *(c for c in self.created if not c.startswith("new "))]
        if rec is not None and any(o != label and o.endswith(" " + label) for o in others):
            return f"{rec.service} {label}"
        return label

    def short(self, label: str, k: int = 0) -> str:
        name = self.called(label)
        return f"that {name}" if (self.variant + k) % 4 == 3 else f"the {name}"

    def np(self, label: str, k: int = 0) -> str:
        """The record as this sentence names it: in full at its first mention."""
        if label in self.introduced:
            return self.short(label, k)
        self.introduced.add(label)
        rec = self.records[label]
        t = rec.note
        noun = str(t.get("noun") or label)
        if label == self.opening:
            return f"the {label}{self._in(rec.service, self._kind(rec, noun))}"
        if t.get("kind") == "fetch":
            return self._fetched(rec, noun)
        own_name = label != noun and label.endswith(noun) and rec.service in label
        if own_name:
            noun = label  # "the Mail message": the label names its service
            self.named.add(rec.service)
        pre, post = t.get("pick") or _rule_words(rec.select)  # (as the lookup worded it)
        select = rec.select or {}
        echo = pre[:4] == noun.split(" ")[-1][:4] and "_" not in str(select.get("value"))
        if pre and echo and select.get("rule") == "matching":  # ("_": the literal is "x-y")
            # not "the booked booking": the state after the noun, as its field says it
            pre, post = "", matched_words(str(select.get("field")), select.get("value"))
        if (rec.select or {}).get("rule") == "matching" and any(
            str(p).strip('"') == str(rec.select.get("value")) for _, p in t.get("by") or ()
        ):
            pre = post = ""  # found by that very value: "(the one whose name is ...)" says it again
        head = f"{pre} {noun}" if pre else noun
        posts: list[str] = []
        owner = ""
        before = len(self.introduced)
        search = t.get("search")
        if isinstance(search, str):
            if self.subject is not None and search == self.subject.said:
                owner = "their" if self.pronoun else f"{self.subject.first}'s"
                if noun in _RECORD_NOUNS:
                    head += _entry(noun)  # "Jeffrey's user account", not "Jeffrey's user"
            elif _LITERAL.search(search):
                posts.append(search if search.startswith('"') else f"matching {search}")
            else:
                posts.append(f"matching {self.ref(search)}")
        for owner_phrase in t.get("of") or ():
            posts.append(f"of {self.ref(str(owner_phrase))}")
        for fwords, phrase in t.get("by") or ():
            if str(phrase).startswith('"') and f"{noun} {phrase}" in self.goal:
                # the opening named it so ('the task "File the expense report"'): "the
                # low-priority task with that title", not the title in full again
                posts.append(f"with that {fwords}")
                continue
            clause, possessor = self._by(str(fwords), str(phrase), noun)
            if possessor and not owner:
                owner = possessor
                if person_role(str(fwords)) == "" and noun in _RECORD_NOUNS:
                    head += _entry(noun)  # "John's user account", not "John's user"
            elif possessor:
                posts.append(f"whose {fwords} is {self.ref(str(phrase))}")
            elif clause:
                posts.append(clause)
                own = person_role(str(fwords)) == "" and clause.startswith("of ")
                if own and noun in _RECORD_NOUNS and not head.endswith(_entry(noun)):
                    head += _entry(noun)  # "the customer record of the order's customer"
        theirs = _theirs(posts, rec.service) if not owner else None
        if theirs is not None:
            # "Michael's payment in Payments whose status is ...", not "the payment whose
            # status is ... among those of Michael's customer record in Payments"
            owner, posts = theirs[0], []
        same = re.fullmatch(rf"of (the \S+'s {re.escape(noun)})", posts[0]) if posts else None
        if same and len(posts) == 1 and head == noun + _entry(noun) and not owner:
            # "the invoice's customer in Payments", not "the customer record of the
            # invoice's customer in Payments"
            return (
                same.group(1)
                + self._in(rec.service, self._kind(rec, noun))
                + (f" {post}" if post else "")
            )
        tail = _join_postmods(posts)
        det = owner or "the"
        # Named after what the phrase nests: "the expense of Ronald's expense report in
        # Expenses" names the service once, at the innermost record.
        svc = "" if own_name else self._in(rec.service, self._kind(rec, noun))
        if theirs is not None and not svc:
            svc = theirs[1]
        if not tail:
            return f"{det} {head}{svc}" + (f" {post}" if post else "")
        if len(self.introduced) == before:
            # Nothing new named inside: the service closes the phrase, the rule follows.
            state = re.fullmatch(r"that's ([a-z]+(?:-[a-z]+)?)", post)
            if self.one_said and state and state[1][:4] != noun.split(" ")[-1][:4]:
                return f"{det} {state[1]} {head} {tail}{svc}"  # "the open job ..."
            said, self.one_said = self.one_said, self.one_said or bool(post)
            if post and (self.variant % 2 == 0 or said):
                # "... in Helpdesk whose channel is"; and where the sentence has said "(the
                # one that's open)" already, not again for the next record in its list
                return f"{det} {head} {tail}{svc} {post}"
            return f"{det} {head} {tail}{svc}" + (f" (the one {post})" if post else "")
        if post:  # a long tail: the rule before it, so that it cannot attach inside
            return f"{det} {head}{svc} {post} among those {tail}"
        return f"{det} {head}{svc} {tail}"

    def _fetched(self, rec: Record, noun: str) -> str:
        via = str(rec.note.get("via", ""))
        m = re.fullmatch(r"the (.+) ID of the (.+)", via)
        if m and m.group(2) in self.records:
            base, owner = m.group(1), m.group(2)
            if base == noun or base.endswith(" " + noun):
                of = self.np(owner)
                svc = self._in(rec.service, self._kind(rec, noun))
                wrote = _WROTE.fullmatch(of)
                if wrote and noun in _PLACES:
                    # "the channel where Jessica wrote", not "the channel of the message
                    # written by Jessica"
                    who, _, where = str(wrote["who"]).rpartition(" in ")
                    if not who or where not in self.named:  # no service in the name
                        who, where = str(wrote["who"]), ""
                    # "where Megan wrote in Chat", not "where Megan in Chat wrote"
                    return f"the {base}{svc} where {who} wrote" + (f" in {where}" if where else "")
                bare = self._bare(owner, of)
                kin = base.startswith(self.called(owner).split(" ")[-1] + " ")
                if bare is not None and not (bare and svc) and not kin:
                    # "the order's customer", not "the customer of the order": one link
                    # less wherever the phrase is nested ("the account owner of ..."); not
                    # "the expense's report" for the expense report of an expense
                    return _possessed(self.called(owner), base) + (svc or bare)
                return f"the {base}{svc} of {of}"
        m = re.fullmatch(rf"the {re.escape(noun)} (listed on|of) the (.+)", via)
        if m and m.group(2) in self.records:
            # "the order listed on the user": the reference names the record already
            of = self.np(m.group(2))
            svc = self._in(rec.service, self._kind(rec, noun))
            listed = _listed(noun, of, svc) if m.group(1) == "listed on" else None
            if listed is not None:
                return listed
            return f"the {noun}{svc} {m.group(1)} {of}"
        via = self.ref(via)
        return f"the {noun}{self._in(rec.service, self._kind(rec, noun))} referenced by {via}"

    def _by(self, fwords: str, phrase: str, noun: str) -> tuple[str, str]:
        """(a clause after the noun, or a possessor before it) for ``whose <fwords> is
        <phrase>``."""
        role = person_role(fwords)
        subject = self.subject
        if subject is not None and phrase == subject.said and role is not None:
            return self._subject_role(role)
        if _LITERAL.search(phrase):
            if role and "@" in phrase and "(" in phrase:
                return f"with {phrase} as {said_role(role)}", ""
            named = _PERSON_DETAIL.fullmatch(fwords)
            if named and phrase.startswith('"') and named.group(1) in _VERBS:
                # a person by their stated name or address: "the shipment sent to "Ann
                # Lee"", not 'with recipient name "Ann Lee"'
                return _VERBS[named.group(1)].format(p=phrase), ""
            if named and phrase.startswith('"') and named.group(1) in _POSSESSIVE:
                return f"for {phrase}", ""  # "the order for "ann@x.com""
            return f"with {fwords} {phrase}", ""
        m = re.fullmatch(r"the (.+) of the (.+)", phrase)
        if m and subject is not None and role is not None and self._own_detail(*m.groups()):
            # Larry's own address read off the user record found by his name is Larry:
            # "the event organized by Larry", not "whose organizer email is the user's email"
            return self._subject_role(role)
        if m and m.group(2) in self.records:
            src, owner = m.group(1), m.group(2)
            src_role = person_role(src)
            if role is not None and src_role:
                return self._role_clause(role, self._of(src_role, owner), same=src_role)
            person = self.records[owner].note.get("noun") in _RECORD_NOUNS
            if role and src_role == "" and person:
                # a person's own address is that person: "the message from the order's
                # customer", not "whose sender is the email of the customer of the order"
                return self._role_clause(role, self.np(owner))
            if role == "" and src_role == "" and person:
                # one person's two entries: "the contact in CRM of the invoice's customer",
                # not "the contact in CRM with the email of the customer of the invoice"
                return f"of {self.np(owner)}", ""
            if role == "" and src_role == "" and src == fwords and owner not in self.introduced:
                # "the key with the same address as the input in MailScript", not "the key
                # with the address of the input in MailScript" (a chain of "the X with the Y
                # of the Z")
                return f"with the same {src} as {self.np(owner)}", ""
            if role == "" and src_role == "":
                return f"with {self._of(src, owner)}", ""
            if fwords == f"{owner} {src}":
                return f"for {self.np(owner)}", ""
        m = re.fullmatch(r"the (.+) of the (.+)", phrase)
        if m and m.group(1).split(" ")[-1] in _MANY and not fwords.endswith("s"):
            # one address among a list's: "whose email is one of the cc recipients of ..."
            return f"whose {fwords} is one of {self.ref(phrase)}", ""
        return f"whose {fwords} is {self.ref(phrase)}", ""

    def _own_detail(self, src: str, owner: str) -> bool:
        """Whether ``the <src> of the <owner>`` is the subject's own detail: the record the
        opening found by their name, and a field of its own person (its ``email``)."""
        if not self.plan or person_role(src) != "":
            return False
        t = self.plan[0]["text"]
        return t.get("kind") == "lookup" and t.get("label") == owner

    def _subject_role(self, role: str) -> tuple[str, str]:
        """How a record relates to the request's subject in ``role``: by name ("organized
        by Larry", "Larry's"), or once the request calls them "they" (``pronoun``): "the
        event they organize", "the task assigned to them", "their deal"."""
        assert self.subject is not None
        if not self.pronoun:
            return self._role_clause(role, self.subject.first, possessive=True)
        key = role.replace(" ", "_")
        if role in ("", "owner") or role in _POSSESSIVE:
            return "", "their"
        if key in _THEY:
            return _THEY[key], ""
        if key in _VERBS:
            return _VERBS[key].format(p="them"), ""
        return f"with them as {said_role(role)}", ""

    @staticmethod
    def _role_clause(
        role: str, who: str, *, possessive: bool = False, same: str | None = None
    ) -> tuple[str, str]:
        """How a record relates to a person in ``role`` (``""``: the record is theirs)."""
        if role == "" or role == same or (role in _POSSESSIVE and not possessive):
            return ("", f"{who}'s") if possessive else (f"of {who}", "")
        if role in _POSSESSIVE:
            return "", f"{who}'s"
        verb = _VERBS.get(role.replace(" ", "_"))
        if verb:
            return verb.format(p=who), ""
        if len(who.split()) > 6 or re.search(r" (?:as|with|whose) ", who):
            return f"whose {said_role(role)} is {who}", ""  # no "with ... as" in "with ... as"
        return f"with {who} as {said_role(role)}", ""

    def _of(self, what: str, label: str) -> str:
        """``the ticket's assignee`` once the ticket is known, else ``the assignee of
        <the ticket in full>``."""
        if label in self.introduced:
            return self._possessed(label, what)
        of = self.np(label)
        own = re.fullmatch(r"(\S+'s|their) [\w ]+ (?:account|profile)( in .+)?", of)
        if own and person_role(what):
            # a person's own colleague: "Mark's account owner in CRM", not "the owner of
            # Mark's contact profile in CRM"
            role = "account owner" if what == "owner" else what
            return f"{own.group(1)} {role}{own.group(2) or ''}"
        whose = self._entry_of(label, of) if person_role(what) else None
        if whose is not None:
            # the same for a person the request names by a role: "the account owner in CRM
            # of the payment's payer", not "the owner of the contact profile of the
            # payment's payer in CRM" (three links for one person)
            role = "account owner" if what == "owner" else what
            return f"the {role}{whose[1]} of {whose[0]}"
        if self._bare(label, of) == "":
            # "the order's customer"; not where its service follows ("the message's cc
            # recipients in Gmail" would put the recipients in Gmail)
            return self._possessed(label, what)
        return f"the {what} of {of}"

    def _possessed(self, label: str, what: str) -> str:
        """``_possessed`` of a named record, where a field named after its record says
        whose it is: "their username" (the subject's own account) or "the username" (the
        one user of the request), not "the user's username"."""
        name = self.called(label)
        head = name.split(" ")[-1]
        if not (what.startswith(head) and what[len(head) :] in _NAMING):
            return _possessed(name, what)
        if self.subjects_entry(label) is not None:
            return f"their {what}" if self.pronoun else f"{self.subject.first}'s {what}"  # type: ignore[union-attr]
        others = [o for o in [*self.records, *self.created] if o != label]
        if any(o.split(" ")[-1] == head for o in others):
            return _possessed(name, what)
        return f"the {what}"

    def _bare(self, label: str, of: str) -> str | None:
        """`` in <service>`` or "" where ``of`` names ``label`` by its noun alone ("the
        payment in Payments"), so that a field of it may be its own ("the payment's payer
        in Payments"); else None."""
        for det in ("the", "that"):
            head = f"{det} {self.called(label)}"
            if of == head:
                return ""
            if of == f"{head} in {self.records[label].service}":
                return of[len(head) :]
        return None

    def _entry_of(self, label: str, of: str) -> tuple[str, str] | None:
        """(the person, `` in <service>``) where ``of``, the first mention of ``label``, is
        a person's own entry named by its person: "the contact profile of the payment's
        payer in CRM" -> ("the payment's payer", " in CRM"); else None."""
        noun = str(self.records[label].note.get("noun") or label)
        head = f"the {noun}{_entry(noun)}"
        if noun not in _RECORD_NOUNS or not of.startswith(head + " "):
            return None
        rest, svc = of[len(head) :], f" in {self.records[label].service}"
        if rest.startswith(svc + " "):
            rest = rest[len(svc) :]
        elif rest.endswith(svc):
            rest = rest[: -len(svc)]
        else:
            svc = ""
        if not rest.startswith(" of ") or " whose " in rest or " among " in rest:
            return None
        return rest[4:], svc

    def subjects_entry(self, label: str) -> str | None:
        """The request's person's own entry ("Kevin's user account") where the record
        ``label`` is it, found by who they are (their name or address as the opening gives)."""
        rec = self.records[label]
        noun = str(rec.note.get("noun") or label)
        if self.subject is None or noun not in _RECORD_NOUNS:
            return None
        said = [str(rec.note.get("search") or ""), *(str(p) for _, p in rec.note.get("by") or ())]
        if not any(s and s in self.subject.said for s in said):
            return None
        owner = "their" if self.pronoun else f"{self.subject.first}'s"
        return f"{owner} {noun}{_entry(noun)}"

    def asked(self, field: str, of: str) -> str:
        """A value the answer reports, as a person asks for it: a person's detail by the
        person ("the e-mail address of the issue's reporter", "the name of the ticket's
        requester"), not the field ("the issue's reporter email"); others as the field
        of their record ("the order's total")."""
        m = _PERSON_DETAIL.fullmatch(field)
        if m and (m.group(1) in _PEOPLE or m.group(1) in _POSSESSIVE):
            detail = "e-mail address" if m.group(2) == "email" else "name"
            return f"the {detail} of {self.ref(f'the {said_role(m.group(1))} of {of}')}"
        return self.ref(f"the {field} of {of}")

    def ref(self, phrase: str, k: int = 0) -> str:
        """A value phrase of the notes with each found record named as it should be."""
        if phrase.startswith("the ") and phrase[4:] in self.records:
            return self.np(phrase[4:], k)
        if phrase.startswith("the ") and phrase[4:] in self.made_as:
            return f"the {self.made_as[phrase[4:]]}"  # "the domain", as it was made
        m = re.fullmatch(r"the (.+) of the (.+)", phrase)
        if m and m.group(2) in self.records:
            return self._of(m.group(1), m.group(2))
        if m and (m.group(2) in self.created or re.fullmatch(r"[a-z]+", m.group(2))):
            # a record named in a summary ("cancel the order listed on the user"): "the
            # order ID", not "the ID of the order"
            return _possessed(self.made_as.get(m.group(2), m.group(2)), m.group(1))
        return phrase

    def embed(self, text: str, label: str | None, replacement: str) -> str:
        """``text`` with ``the <label>`` replaced (its last occurrence)."""
        if not label:
            return text
        needle = f"the {label}"
        at = text.rfind(needle)
        if at < 0:
            return text
        found = re.search(rf"the ([\w ]+?) listed on {re.escape(needle)}\b", text)
        said = _listed(found.group(1), replacement, "") if found else None
        if found and said is not None:  # "cancel the order listed on the user": "Bruce's order"
            return text[: found.start()] + said + text[found.end() :]
        return text[:at] + replacement + text[at + len(needle) :]

    # -- sentences ---------------------------------------------------------------------------
    def person(self, raw: str, k: int) -> str:
        """A value that holds a person, as the person: ``the owner email of the contact`` ->
        "the contact's owner" (whose address the agent reads off), not the field dumped."""
        m = re.fullmatch(r"the (.+) of the (.+)", raw)
        if m and m.group(2) in self.records:
            role = person_role(m.group(1))
            if role and role not in _BARE_ROLES:
                return self._of(said_role(role), m.group(2))
        return self.ref(raw, k)

    def values(
        self, pairs: Sequence[Sequence[str]], k: int, after: str = "", owned: bool = False
    ) -> str:
        """A new record's (or an action's) values as a person gives them: `` titled "X",
        assigned to Ann ("ann@...") with priority "p2": "body"``, never a ``label: value``
        list. ``after``: the words before; ``owned``: they end in the record it is for (a
        comma then, so that "with ..." cannot attach to that record)."""
        mods: list[tuple[int, str]] = []
        body: str | None = None
        v = self.variant + k
        for label, raw in one_address([(_label(str(a)), str(b)) for a, b in pairs]):
            role = person_role(label)
            literal = bool(_LITERAL.search(raw)) or raw in _YES_NO
            if label in _BODY and literal and body is None:
                body = raw  # what it says comes last
            elif role and not literal:
                mods.append(_person_mod(label, role, self.person(raw, k), v))
            elif role:
                mods.append(_person_mod(label, role, raw, v))
            else:
                mods.append(_value_mod(label, self.ref(raw, k), literal, after, v))
        mods.sort(key=lambda m: m[0])
        parts = _with_joined([text for _, text in mods])
        out = ""
        if parts:
            out = (", " if owned else " ") + ", ".join(parts)
        if body is not None:
            if owned or not parts:
                out += (f": {body}", f" saying {body}")[0 if owned else v % 2]
            elif v % 2 == 0:
                out += f", saying {body}"
            else:  # "with the subject "X" and the text "Y"", not "with ..., with ..."
                out += (" and" if parts[-1].startswith("with ") else ", with") + f" the text {body}"
        return out

    def _policy(self, th: Note) -> str:
        """``our policy note "X" in Docs``, the note then known as "the policy note"."""
        service = str(th["service"])
        self.named.add(service)
        for rec in self.records.values():
            if rec.note.get("search") == th["policy"] and rec.label not in self.introduced:
                self.introduced.add(rec.label)
                self.alias[rec.label] = "policy note"
        return f"our policy note {th['policy']} in {service}"

    def _read(self, th: Note, target: str | None, k: int) -> tuple[str, str]:
        """(the value a rule compares, "is"/"are"): ``its story points``, ``are``."""
        of = str(th.get("of", ""))
        if target is not None and of == f"the {target}":
            read = f"its {th['field']}"
        else:
            read = self.ref(f"the {th['field']} of {of}", k)
        return read, be(str(th["field"]))  # "its story points are above 3"

    def threshold(self, th: Note | None, target: str | None, k: int) -> str:
        if not th:
            return ""
        v = (self.variant + k) % 3
        param = th["param"]
        if th.get("policy"):
            note = self._policy(th)
            return (
                f" Set its {param} as {note} says.",
                f" For its {param}, follow {note}.",
                f" Check {note} for what its {param} should be.",
            )[v]
        read, is_ = self._read(th, target, k)
        limit = th["limit"]
        above, otherwise = plain_value(param, th["above"]), plain_value(param, th["otherwise"])
        return (
            f" If {read} {is_} above {limit}, its {param} should be {above};"
            f" otherwise {otherwise}.",
            f" Its {param} should be {above} if {read} {is_} above {limit}, and {otherwise}"
            " if not.",
            f" For its {param}: {above} when {read} {is_} above {limit}, {otherwise} otherwise.",
        )[v]

    def ruled(self, th: Note, name: str, target: str | None, k: int) -> str:
        """An update that only sets a field by a rule, in one clause: "set the priority of
        the issue to "high" if its story points are above 3, or to "low" if not", not
        "update the issue. Its priority should be ..."."""
        v = (self.variant + k) % 2
        what = f"its {th['param']}" if name == "it" else f"the {th['param']} of {name}"
        if name != "it" and chain_links(name) >= 2:  # not a third link: "on <name>, set its"
            return f"on {name}, " + self.ruled(th, "it", target, k)
        if th.get("policy"):
            note = self._policy(th)
            return (f"set {what} as {note} says", f"set {what} according to {note}")[v]
        read, is_ = self._read(th, target, k)
        limit, param = th["limit"], str(th["param"])
        above, otherwise = plain_value(param, th["above"]), plain_value(param, th["otherwise"])
        return (
            f"set {what} to {above} if {read} {is_} above {limit}, or to {otherwise} if not",
            f"set {what}: {above} if {read} {is_} above {limit}, otherwise {otherwise}",
        )[v]

    def create(self, t: Note, k: int) -> str:
        summary = _no_new(str(t["summary"]))
        pairs = list(t.get("values") or ())
        verb, _, rest = summary.partition(" ")
        if verb == "create" and rest:
            noun = rest.split(" ")[-1]
            choices = _CREATE_VERBS.get(noun, ("create", "add", "create"))
            verb = choices[(self.variant + k) % len(choices)]
            summary = f"{verb} {rest}"
        kind = _TYPED.fullmatch(rest)
        typed = next((p for p in pairs if _is_type(str(p[0])) and _LITERAL.search(str(p[1]))), None)
        if kind and typed is not None:
            # 'create a "renewal" CTA', not "create a CTA, with type "renewal""
            said = plain_value(str(typed[0]), str(typed[1]))  # 'a renewal CTA', no quotes
            noun = kind.group(1)
            if said.islower() and noun[:1].isupper() and not noun.split(" ")[0].isupper():
                # a product's own term keeps its value after it: "a Cryptokey of type csk",
                # not "a csk Cryptokey" (a lowercase code before a capital reads as a typo)
                summary = f"{verb} {article(noun)} {noun} of type {said}"
            else:
                summary = f"{verb} {article(said)} {said} {noun}"
            pairs.remove(typed)
        service = str(t["service"])
        was_named = service in self.named
        parents = [str(p) for p in t.get("for") or ()]
        # not "for the server and the zone" where the zone is the server's: "for the domain"
        held = {q for p in parents for q in self._holders(p.removeprefix("the "))}
        parents = [p for p in parents if p.removeprefix("the ") not in held] or parents
        known = all(p.removeprefix("the ") in self.introduced for p in parents)
        owners = [self.ref(p, k) for p in parents]
        # The service at the record it is for, where that names it: "a comment on Kim's
        # ticket in Helpdesk", not "a comment in Helpdesk on Kim's ticket in Helpdesk";
        # after a record already named: "a comment on the issue in Issue Tracker".
        named_by_owner = not was_named and service in self.named
        svc = "" if named_by_owner else self._in(service, rest.split(" for ")[0])
        core = summary if owners and known else summary + svc
        if owners:
            core += f" {_owner_word(rest, parents)} " + _join(owners)
            core += svc if known else ""
        return core + self.values(pairs, k, core, owned=bool(owners))

    def _holders(self, label: str) -> set[str]:
        """The records ``label`` belongs to: those it was made for, or found of."""
        if label in self.made_for:
            return self.made_for[label]
        rec = self.records.get(label)
        return set() if rec is None else self._mentions(str(p) for p in rec.note.get("of") or ())

    def target(self, t: Note, k: int, it: bool) -> tuple[str | None, str]:
        """(the written record's label, how this sentence names it)."""
        target = str(t.get("target", ""))
        label = target[4:] if target.startswith("the ") else None
        if it:
            return label, "it"
        if label in self.records:
            return label, self.np(label, k)
        return label, target

    def update(self, t: Note, k: int, it: bool, lists: Collection[str] = ()) -> str:
        """An update as a person asks for it; ``lists``: the fields it sets to a list, which
        it replaces ("replace its labels with "security"", not "its labels are
        "security"", which reads as one label more)."""
        label, name = self.target(t, k, it)
        every = one_address(
            [self._set_pair(str(lab), str(p), k) for lab, p in t.get("values") or ()]
        )
        pairs = [(lab, p) for lab, p in every if p not in _YES_NO and lab not in lists]
        swaps = [(lab, p) for lab, p in every if p not in _YES_NO and lab in lists]
        flags = [(lab, p == "true") for lab, p in every if p in _YES_NO]
        v = (self.variant + k) % 3
        # a record named through two links is not named through a third ("make Ann the
        # lead of the project of the issue's sprint"): its fields are "its"
        long = chain_links(name) >= 2
        if long and v == 2 and len(pairs) == 1 and not it:
            v = 1
        given = [(_label(str(a)), str(b)) for a, b in t.get("values") or () if b not in _YES_NO]
        handed = _handed_over(given) if not flags else None
        if handed is not None:
            role, who = handed
            make = f"make {who} the {role} of {name}"
            if long:
                make = f"on {name}, make {who} its {role}"
            core = (
                f"reassign {name} to {who}"
                if role == "assignee"
                else (make, f"hand {name} over to {who}")[v % 2]
                if _role_in(name, role)
                else make
            )
        elif not pairs and not flags and isinstance(t.get("threshold"), Mapping) and not swaps:
            return self.ruled(t["threshold"], name, label, k) + "."
        elif not pairs and swaps and not flags:
            lab, p = swaps.pop(0)
            core = (
                f"replace the {lab} of {name} with {p}"
                if not long and not it
                else f"replace its {lab} with {p}"
                if it
                else f"on {name}, replace its {lab} with {p}"
            )
        elif not pairs:
            core = flag_clauses(flags, name) if flags else f"update {name}"
        elif v == 0:
            core = f"update {name}: set " + _join([f"the {lab} to {p}" for lab, p in pairs])
        elif v == 1:
            its = [f"its {lab} {be(lab)} {p}" for lab, p in pairs]
            core = f"change {name} so that " + _join(its)
        elif it:
            core = "set " + _join([f"its {lab} to {p}" for lab, p in pairs])
        elif len(pairs) == 1:
            core = f"set the {pairs[0][0]} of {name} to {pairs[0][1]}"
        else:
            core = f"on {name}, set " + _join([f"the {lab} to {p}" for lab, p in pairs])
        if pairs and flags:  # "mark the message as unread and starred", after the values
            core += ", and " + flag_clauses(flags, "it")
        if swaps:
            core += ", and " + _join([f"replace its {lab} with {p}" for lab, p in swaps])
        if self._asked_by_subject(name, pairs) and not t.get("threshold") and not t.get("unasked"):
            first = self.subject.first  # type: ignore[union-attr]
            their = "their " + name[len(first) + 3 :]  # "as Ann asked, update their order"
            core = f"as {first} asked, " + core.replace(name, their, 1)
        return core + "." + self.threshold(t.get("threshold"), label, k)

    def _set_pair(self, label: str, raw: str, k: int) -> tuple[str, str]:
        """(field, value) of an update as a request says them: a person field by its role
        ("set the assignee to Ann (...)", "to the issue's reporter"), not "assignee email"."""
        said = _label(label)
        role = person_role(said)
        if not role and not _LITERAL.search(raw) and raw not in _YES_NO and _is_text(said):
            return said, f"just {self.ref(raw, k)}"  # that value and nothing else, as above
        if not role or raw in _YES_NO:
            return said, plain_value(said, self.ref(raw, k))
        if _NAMED_COLLEAGUE.fullmatch(raw):
            return said_role(role), raw
        m = re.fullmatch(r"the (.+) of the (.+)", raw)
        if m and m.group(2) in self.records and person_role(m.group(1)):
            return said_role(role), self.person(raw, k)
        return said, self.ref(raw, k)

    def _asked_by_subject(self, name: str, pairs: list[tuple[str, str]]) -> bool:
        """Whether an update sets values on the subject's own record that nothing else
        decides (rooms on their reservation): then it is what they asked for, and the
        request says so instead of setting values for no stated reason."""
        if self.subject is None or not pairs or not name.startswith(f"{self.subject.first}'s "):
            return False
        if any(set(re.findall(r"[a-z]+", lab.lower())) & _OUR_FIELDS for lab, _ in pairs):
            return False  # a customer asks for two rooms, never for their ticket's status
        return all(  # a stated text, a number or a kind's word ("a minivan")
            p.startswith('"') or re.fullmatch(r"-?\d+(\.\d+)?|[A-Za-z][\w-]*", p) is not None
            for _, p in pairs
        )

    def action(self, t: Note, k: int, it: bool) -> str:
        summary = str(t["summary"])
        label = self.written_label(t)
        summary = tidy_summary(summary, label)
        pairs = list(t.get("values") or ())
        m = re.fullmatch(r"(.+) to an? (\w+)", summary)
        if m and len(pairs) == 1 and pairs[0][0] == m.group(2):
            # "advance the application to a stage (stage: "hired")" -> "... to stage "hired""
            said = plain_value(m.group(2), str(pairs[0][1]))
            summary, pairs = f"{m.group(1)} to {m.group(2)} {said}", []
        m = re.fullmatch(r"change the ([\w ]+) of (the .+)", summary)
        if m and len(pairs) == 1 and pairs[0][0] == m.group(1):
            # "change the status of the issue (status: "done")" -> "... to "done""
            summary, pairs = f"{summary} to {plain_value(m.group(1), str(pairs[0][1]))}", []
        if it and label and summary.startswith(f"{summary.split(' ')[0]} the {label}"):
            name = "it"
        elif label in self.records:
            name = self.np(label, k)
        else:
            name = f"the {label}" if label else ""
        text = self.embed(summary, label, name) if label else summary
        to = _handed_to(summary, pairs)
        if to is not None:
            # "assign the issue (assignee email: Ann)" -> "assign the issue to Ann"; an issue
            # already "assigned to Keith" is reassigned
            verb = "reassign" if " assigned to " in f" {text} " else text.split(" ")[0]
            who = self.person(str(to), k)  # "to the owner of Ann's contact", not "owner email"
            if who.endswith(" email") and not who.endswith('"'):
                who = who.removesuffix(" email")  # "to the policy note's author"
            return f"{verb} {text.split(' ', 1)[1]} to {who}."
        return text + self.values(pairs, k, text) + "."

    def delete(self, t: Note, k: int, it: bool) -> str:
        _, name = self.target(t, k, it)
        return ("delete" if (self.variant + k) % 2 == 0 else "remove") + f" {name}."

    def written_label(self, t: Note) -> str | None:
        if t.get("kind") in ("update", "delete"):
            target = str(t.get("target", ""))
            return target[4:] if target.startswith("the ") else None
        if t.get("kind") == "action":
            summary = f" {t.get('summary', '')} "
            known = sorted([*self.labels, *self.created], key=len, reverse=True)
            return next((lab for lab in known if f" the {lab} " in summary), None)
        return None

    def reads(self, label: str) -> set[tuple[str, str]]:
        """(record, field) pairs the finding of ``label`` reads, along its whole chain."""
        out: set[tuple[str, str]] = set()
        for lab in self._closure({label}):
            for phrase in self._note_phrases(self.records[lab].note):
                m = re.fullmatch(r"the (.+) of the (.+)", phrase)
                if m and m.group(2) in self.records:
                    out.add((m.group(2), m.group(1)))
        return out

    def affects(self, t: Note, rec: Record) -> bool:
        """Whether the write ``t``, done before ``rec`` is found, could change what finding
        it gives: it creates or changes a record of the same kind in the same service, or
        changes a field the finding reads."""
        written = self.written_label(t)
        if written is not None:
            changed = {str(lab) for lab, _ in t.get("values") or ()}
            th = t.get("threshold")
            if isinstance(th, Mapping) and th.get("param"):
                changed.add(str(th["param"]))
            if t.get("kind") != "update":
                changed.add("status")
            if any(lab == written and f in changed for lab, f in self.reads(rec.label)):
                return True
            if t.get("kind") == "delete" and written in self._closure({rec.label}):
                return True
        if t.get("service") != rec.service:
            return False
        if written is not None:
            kind = (
                str(self.records[written].note.get("noun", written))
                if (written in self.records)
                else written.removeprefix("new ")
            )
        else:
            kind = str(t.get("summary", "")).split(" for ")[0]
        noun = str(rec.note.get("noun", rec.label))
        return kind.split(" ")[-1] == noun.split(" ")[-1]

    def unnamed_before(self, i: int, t: Note) -> tuple[list[Record], list[Record]]:
        """(records found before step ``i`` and not yet named that its write ``t`` could
        change the finding of, records the request must still ask to find): both are
        named in a sentence of their own before the write."""
        refs = self._closure(self._mentions(self._note_phrases(t)))
        pending = [
            rec
            for rec in sorted(self.records.values(), key=lambda r: r.step)
            if rec.step < i and rec.label not in self.introduced and rec.label not in refs
        ]
        affected = [rec for rec in pending if self.affects(t, rec)]
        forced = [rec for rec in pending if rec not in affected and rec.label in self.force]
        return affected, forced

    def commute(self, a: Note, b: Note) -> bool:
        """Whether two writes may be asked for in either order: neither could change what
        finding the other's records gives."""
        for first, second in ((a, b), (b, a)):
            found = self._closure(self._mentions(self._note_phrases(second)))
            if any(self.affects(first, self.records[lab]) for lab in found):
                return False
        return True

    def may_join(self, j: int, plan: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the write of step ``j`` may be said now, in an earlier sentence: it
        needs no record found (named) in a sentence before it."""
        t = plan[j]["text"]
        affected, forced = self.unnamed_before(j, t)
        deep = self.too_deep(self._mentions(self._note_phrases(t))) or self.too_linked(
            self.note_said(t)
        )
        return not affected and not forced and deep is None

    def subjects_role(self, label: str) -> str | None:
        """The role the request's subject has in the found record ``label`` (the job
        "with Larry as hiring manager": ``hiring manager``; "Larry's deal": ``owner``),
        where that is how it is found; else None."""
        rec = self.records.get(label)
        if rec is None or self.subject is None:
            return None
        for fwords, phrase in rec.note.get("by") or ():
            role = person_role(str(fwords))
            m = re.fullmatch(r"the (.+) of the (.+)", str(phrase))
            if role is not None and (
                phrase == self.subject.said or (m is not None and self._own_detail(*m.groups()))
            ):
                return role
        return None

    def hands_over_work(self, notes: Sequence[Note], k: int) -> bool:
        """Whether ``hand_over`` says "hand their work over to Ann: ..." (a verb phrase
        that may follow another: "suspend their account and hand ..."), not "Ann takes
        over from them: ..."."""
        return len(notes) <= 2 or (self.variant + k) % 2 == 0

    def hand_over(self, notes: Sequence[Note], k: int, lead: str) -> str:
        """One sentence for updates that each hand a record of the subject's over to the
        same colleague: "hand their work over to Ann Lee ("ann@..."): their deal in CRM,
        the task assigned to them in Todo and the meeting they host in Meetings", not a
        sentence ("make Ann the owner of the deal owned by Larry in CRM") per record."""
        handed = _handover(notes[0])
        assert handed is not None
        who = handed[1]
        items = [self.np(str(self.written_label(t)), k) for t in notes]
        if any(", " in x or " and " in x for x in items):
            listed = "; ".join(items[:-1]) + "; and " + items[-1]
        else:
            listed = _join(items)
        if len(items) <= 2:
            return f"{lead}hand {listed} over to {who}."
        if self.hands_over_work(notes, k):
            return f"{lead}hand their work over to {who}: {listed}."
        lead = "" if lead in ("please ", "first, ") else lead  # not "please Ann takes over"
        return f"{lead}{who} takes over from them: {listed}."

    def depth(self, label: str, seen: frozenset[str] = frozenset()) -> int:
        """How many records not yet named a first mention of ``label`` would describe."""
        if label in self.introduced or label in seen:
            return 0
        deps = self.records[label].deps
        return 1 + max((self.depth(d, seen | {label}) for d in deps), default=0)

    def too_deep(self, labels: set[str], most: int = 2) -> Record | None:
        """A record to name first so that no phrase for ``labels`` nests more than
        ``most`` new records, or None."""
        if all(self.depth(lab) <= most for lab in labels):
            return None
        inner = [
            self.records[lab]
            for lab in self._closure(labels)
            if lab not in self.introduced and self.depth(lab) == most
        ]
        return min(inner, key=lambda r: r.step) if inner else None

    def _said(self, say: Callable[[], str]) -> str:
        """What ``say`` would write now, with nothing it names counted as named."""
        saved = (set(self.introduced), set(self.named), dict(self.alias))
        one_said = self.one_said
        try:
            return say()
        finally:
            self.one_said = one_said
            self.introduced.clear()
            self.introduced.update(saved[0])
            self.named.clear()
            self.named.update(saved[1])
            self.alias.clear()
            self.alias.update(saved[2])

    def too_linked(
        self, phrases: Iterable[tuple[str, Callable[[], str]]], most: int = 2
    ) -> Record | None:
        """A record to name first, in a sentence of its own, so that no reference in the
        phrases (each with how it is said) chains more than ``most`` links: not "the owner
        of the contact profile of the payment's payer" nor "the assignee of the ticket of
        the message's sender" (three), which nobody says. The outermost record not yet
        named of the first such phrase, or, where its own first mention chains too many,
        the record inside it that does; None where every phrase reads."""
        for phrase, say in phrases:
            fresh = [lab for lab in self._mentions([phrase]) if lab not in self.introduced]
            if not fresh:
                continue
            links = [chain_links(self._said(say))]
            links += [chain_links(self._said(lambda lab=lab: self.np(lab))) for lab in fresh]
            if max(links) <= most:
                continue
            rec = self.records[min(fresh, key=lambda lab: self.records[lab].step)]
            seen = {rec.label}
            while chain_links(self._said(lambda r=rec: self.np(r.label))) > most:  # type: ignore[misc]
                inner = [d for d in rec.deps if d not in self.introduced and d not in seen]
                if not inner:
                    break
                rec = self.records[max(inner, key=lambda d: self.records[d].step)]
                seen.add(rec.label)
            return rec
        return None

    def note_said(self, t: Note) -> list[tuple[str, Callable[[], str]]]:
        """A write note's phrases, each with how the request would say it now: a value that
        holds a person as that person ("the account owner in CRM of ...", ``person``)."""
        people = {
            str(raw)
            for label, raw in t.get("values") or ()
            if person_role(_label(str(label))) and not _LITERAL.search(str(raw))
        }
        return [
            (p, lambda p=p: self.person(p, 0) if p in people else self.ref(p))  # type: ignore[misc]
            for p in self._note_phrases(t)
        ]

    def intro(self, recs: Sequence[Record], service: str | None, k: int) -> str:
        """Reads narrated, in one sentence: because they must happen before a write in
        ``service``, or (``service`` None) because nothing else names them, or a phrase
        would nest them too deep."""
        if service is not None:
            self.named.add(service)
        names: list[str] = []
        for rec in recs:
            if rec.label not in self.introduced:  # not already inside an earlier name
                names.append(self.np(rec.label, k))
        listed = _join(names)
        if service is not None:
            lead = f"before you change anything in {service}"
            if (self.variant + k) % 2 == 0:
                return f"{lead}, find {listed}."
            return f"you'll need {listed}; find {'it' if len(names) == 1 else 'them'} {lead}."
        return f"find {listed}." if (self.variant + k) % 2 == 0 else f"you'll also need {listed}."


_YES_NO = frozenset({"true", "false"})
# One-word yes/no fields that read as a state a record is in: "mark it as archived".
_STATES = frozenset(
    {"active", "inactive", "private", "public", "draft", "billable", "read", "unread",
     "prerelease", "paid", "open", "closed", "visible", "hidden", "done", "complete", "urgent",
     "default", "primary", "verified", "pinned", "favorite", "favourite", "flagged", "locked",
     "muted", "enabled", "disabled", "important", "spam", "available", "online"}
)  # fmt: skip


# Fields of a record that are ours to set (how we track and route the work), which the
# person the record is about never asks for.
_OUR_FIELDS = frozenset(
    {"status", "stage", "priority", "severity", "assignee", "owner", "queue", "group", "team",
     "tags", "labels", "notes", "internal", "agent", "csm", "recruiter", "pipeline"}
)  # fmt: skip


def flag_clauses(flags: Sequence[tuple[str, bool]], name: str) -> str:
    """Yes/no changes as a person asks for them: ``[("unread", True), ("starred", True)]``
    -> ``mark <name> as unread and starred``; ``("insurance", False)`` -> ``turn off
    insurance for <name>``; ``("sms enabled", True)`` -> ``enable sms for <name>``."""
    states: list[str] = []
    clauses: list[str] = []
    for label, on in flags:
        words = label.split()
        if words[:1] == ["is"]:
            words = words[1:]
        last = words[-1] if words else label
        if len(words) > 1 and last in ("enabled", "disabled"):
            turn_on = on == (last == "enabled")
            clauses.append(f"{'enable' if turn_on else 'disable'} {' '.join(words[:-1])}")
        elif len(words) == 1 and (last.endswith("ed") or last in _STATES):
            if on:
                states.append(last)
            elif last.startswith("un") and last[2:] in _STATES:
                states.append(last[2:])  # not unread: read
            elif last == "read":
                states.append("unread")  # "mark it as unread", not "as not read"
            else:
                states.append(f"not {last}")
        else:
            clauses.append(f"turn {'on' if on else 'off'} {' '.join(words)}")
    parts = [f"mark {name} as {_join(states)}"] if states else []
    for i, clause in enumerate(clauses):
        parts.append(f"{clause} for {name if not parts and i == 0 else 'it'}")
    return ", and ".join(parts)


_CREATE_VERBS: dict[str, tuple[str, ...]] = {
    "meeting": ("create", "book", "schedule", "set up"),
    "event": ("create", "add", "schedule"),
    "booking": ("create", "make", "add"),
    "reservation": ("create", "make", "book"),
    "rental": ("create", "book", "arrange"),
    "interview": ("create", "schedule", "set up"),
    "comment": ("add", "leave", "post", "create"),
    "note": ("add", "leave", "create"),
    "draft": ("create", "write", "prepare"),
    "ticket": ("create", "open", "raise"),
    "issue": ("create", "file", "open"),
}
_TIDY: tuple[tuple[str, str], ...] = (
    (r"^reply to the sender for (the .+)$", r"reply to the sender of \1"),
    (r"^change status for (the .+)$", r"change the status of \1"),
    (r"^mark an? (?:\w+ )?\w+ as (.+) for (the .+)$", r"mark \2 as \1"),
    (r"^(\w+) to (an?) (\w+) for (the .+)$", r"\1 \4 to \2 \3"),
    (r"^(\w+) for (\w+) for (the .+)$", r"\1 \3 for \2"),
    (r"^(\w+) to (\w+) for (the .+)$", r"\1 \3 to \2"),
)


def tidy_summary(summary: str, label: str | None) -> str:
    """A tool summary with its record filled in, as a person says it: ``approve a report
    for the expense report`` -> ``approve the expense report``; ``submit for approval for
    the expense report`` -> ``submit the expense report for approval``."""
    if not label:
        return summary
    m = re.fullmatch(r"(\w+) an? (\w+) for (the .+)", summary)
    if m and m.group(3) == f"the {label}" and label.split(" ")[-1] == m.group(2):
        return f"{m.group(1)} {m.group(3)}"
    for pattern, repl in _TIDY:
        if re.fullmatch(pattern, summary):
            return re.sub(pattern, repl, summary)
    return summary


# What must stay as it is: the other records of a kind the work changes, then the kinds it
# only reads ("leave the tickets as they are" leaves none created or deleted either).
# (the others, the kinds alone, the kinds after the others, the glue between)
_GUARDS = (
    ("leave every other {o} as it is", "leave the {c} as they are", "the {c} too", ", and "),
    ("don't touch any other {o}", "leave the {c} alone", "leave the {c} alone", "; "),
    ("apart from that, no other {o} should change", "the {c} stay as they are",
     "the {c} stay as they are", ", and "),
)  # fmt: skip
# A kind the work only reads, where the request found records of it: those records by
# the names the request gave them, then the rest of the kind ("don't change the server or
# any other server"; "Kevin's user account", not "the users", in a shop).
_NAMED_GUARDS = (
    "leave {r} as it is, and every other {o} too",
    "don't change {r} or any other {o}",
    "{r} and every other {o} should stay as they are",
)
# ... and a person's own entry the request found by who they are ("Kevin's user account").
_OWN_GUARDS = (
    "leave {r} as it is, and everyone else's too",
    "don't change {r} or anyone else's",
    "{r} and everyone else's should stay as they are",
)
_ASK = (
    "Finally, tell me {asked}.",
    "When you're done, let me know {asked}.",
    "In your reply, include {asked}.",
)
_FIRST = ("", "please ", "", "first, ", "")
_THEN = ("", "then ", "", "also, ", "", "next, ", "", "after that, ")


def _first(goal: str, variant: int) -> str:
    """The word that leads the first step: not a second "please" after an opening that
    said one ("...; please handle the offboarding. Please suspend ...")."""
    lead = _FIRST[variant % len(_FIRST)]
    return "" if lead == "please " and re.search(r"\bplease\b", goal, re.I) else lead


# Words that end a reference: a chain of links ("the X of the Y's Z") runs through nouns.
_CHAIN_ENDS = frozenset(
    {"to", "and", "or", "so", "with", "as", "is", "are", "for", "from", "by", "on", "in",
     "that", "which", "who", "whose", "where", "when", "among", "a", "an", "it", "its",
     "their", "them", "they", "i", "me", "my", "you", "your", "if", "then", "but", "saying",
     "titled", "called", "noting", "set", "was", "were", "be", "at", "into", "about", "know",
     "let", "tell", "include", "should", "must", "can", "could", "please", "after", "before"}
)  # fmt: skip


def chain_links(text: str) -> int:
    """The most links ("of", "'s") that one reference in ``text`` chains:
    "the owner of the contact profile of the payment's payer in CRM" has three, "the
    ticket's assignee" one. Quoted values are left out."""
    toks = re.findall(r"'s\b|[\w\-]+|[^\w\s]", re.sub(r'"[^"]*"', " QUOTE ", text))
    most, links, nouns, i = 0, 0, 0, 0
    while i < len(toks):
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if tok == "'s" and nouns:
            links, nouns = links + 1, 0
        elif tok == "of" and nouns:
            links, nouns = links + 1, 0
            i += nxt in ("the", "that")
        elif tok == "in" and nxt[:1].isupper() and nouns:
            i += 1  # "the contact profile in CRM of ...": the service inside the chain
            while i + 1 < len(toks) and toks[i + 1][:1].isupper() and toks[i + 1] != "QUOTE":
                i += 1
        elif re.fullmatch(r"[\w\-]+", tok) and tok.lower() not in _CHAIN_ENDS and tok != "QUOTE":
            nouns += 1
            if nouns > 4:
                links, nouns = 0, 1
        elif tok.lower() in ("the", "that") and not nouns:
            pass
        else:
            links, nouns = 0, 0
        most = max(most, links)
        i += 1
    return most


def _cap(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _guard_sentence(
    guards: Sequence[Note],
    plan: Sequence[Mapping[str, Any]],
    variant: int,
    w: Writer | None = None,
) -> str:
    if not guards:
        return ""
    where: dict[str, set[str]] = {}
    for step in plan:
        t = step["text"]
        for key in ("noun", "nouns", "label"):
            if isinstance(t.get(key), str):
                where.setdefault(str(t[key]).removeprefix("new "), set()).add(str(t["service"]))
    for g in guards:
        for key in ("noun", "nouns"):
            if isinstance(g.get(key), str):
                where.setdefault(str(g[key]), set()).add(str(g["service"]))

    # (a kind called as a field the plan sets is named with its service: "the notes stay
    # as they are" beside a to-do's notes reads as that field)
    set_fields = {
        str(pair[0]) for step in plan for pair in step["text"].get("values") or () if pair
    }

    def named(word: str, service: str) -> str:
        clash = len(where.get(word, ())) > 1 or word in set_fields
        return f"{word} in {service}" if clash else word

    others = list(
        dict.fromkeys(named(str(g["noun"]), str(g["service"])) for g in guards
                      if g["scope"] != "collection")
    )  # fmt: skip
    kept = [g for g in guards if g["scope"] == "collection"]
    found = {id(g): _found_of(w, g) for g in kept}
    colls = list(
        dict.fromkeys(named(str(g["nouns"]), str(g["service"])) for g in kept
                      if not found[id(g)])
    )  # fmt: skip
    o_form, c_alone, c_after, glue = _GUARDS[variant % len(_GUARDS)]
    parts = []
    if others:
        parts.append(o_form.format(o=_join(others, "or")))
    if colls:
        parts.append((c_after if others else c_alone).format(c=_join(colls, "and")))
    for g in kept:
        labels = found[id(g)]
        if labels and w is not None:
            noun = str(w.records[labels[0]].note.get("noun") or labels[0])
            owner = w.subjects_entry(labels[0]) if len(labels) == 1 else None
            said = owner or _join([w.np(label, variant) for label in labels], "and")
            forms = _OWN_GUARDS if owner else _NAMED_GUARDS
            form = forms[(variant + len(parts)) % len(forms)]
            if len(labels) > 1:
                form = form.replace("as it is", "as they are")
            parts.append(form.format(r=said, o=named(noun, str(g["service"]))))
    return _cap(glue.join(parts)) + "."


def _found_of(w: Writer | None, guard: Note) -> list[str]:
    """The labels of the records the request found of a kind a guard keeps as it is."""
    if w is None:
        return []
    return [
        label
        for label, rec in w.records.items()
        if rec.service == guard["service"] and rec.note.get("nouns") == guard["nouns"]
    ]


# The close of a hand-over: whatever the request does not hand over stays (every other
# record of the kinds it changes, and those it only reads, as the guards check).
_LEFT_AS_IT_IS = (
    "Leave everything else as it is.",
    "Nothing else should change.",
    "Everything else stays as it is.",
)


def _role_key(role: str) -> str:
    """One name per role: ``assigned to`` is the assignee, ``CSM`` the csm."""
    role = role.lower()
    return "assignee" if role in ("assignee", "assigned to", "assigned") else role


def _handover(t: Note) -> tuple[str, str] | None:
    """(role, person) where an update only hands its record to one named colleague."""
    if t.get("kind") != "update" or t.get("threshold"):
        return None
    given = [(_label(str(a)), str(b)) for a, b in t.get("values") or ()]
    if any(b in _YES_NO for _, b in given):
        return None
    return _handed_over(given)


def handover_group(w: Writer, plan: Plan) -> list[int]:
    """The writes (plan indices, in order) that hand records of the request's subject
    over to one colleague in the role the subject has in them (their deal to its new
    owner, the task assigned to them to its new assignee), which a person asks for
    together, at the first one's place ("hand their work over to Ann: ..."): at least
    two, each one free to move there (``Writer.commute`` with every write it passes).
    Where several colleagues take over, the one given the most."""
    by_who: dict[str, list[int]] = {}
    for i, step in enumerate(plan):
        t = step["text"]
        handed = _handover(t) if step.get("write") else None
        label = w.written_label(t) if handed is not None else None
        role = w.subjects_role(label) if label is not None else None
        if handed is not None and role is not None and _role_key(role) == _role_key(handed[0]):
            by_who.setdefault(handed[1], []).append(i)
    best: list[int] = []
    for members in by_who.values():
        kept = members[:1]
        for j in members[1:]:
            passed = [
                plan[x]["text"]
                for x in range(kept[0] + 1, j)
                if plan[x].get("write") and x not in kept
            ]
            if all(w.commute(plan[j]["text"], other) for other in passed):
                kept.append(j)
        labels = {w.written_label(plan[j]["text"]) for j in kept}
        if len(kept) >= 2 and len(labels) == len(kept) and len(kept) > len(best):
            best = kept
    return best


def _lists(step: Mapping[str, Any]) -> set[str]:
    """The fields (as the notes name them) a step sets from the request to a list."""
    args = step.get("arguments") or {}
    binds = step.get("binds") or {}
    return {
        _label(field_words(name))
        for name, value in args.items()
        if isinstance(value, list) and (binds.get(name) or {}).get("from") == "user"
    }


def write_centric(
    plan: Plan, guards: Notes, answers: Notes, goal: str, variant: int, force: Iterable[str] = ()
) -> tuple[str, set[str]]:
    """(the instruction, the labels of found records it never names)."""
    w = Writer(plan, goal, variant, force)
    handover = handover_group(w, plan)
    w.pronoun = bool(handover)
    handed_together = False
    body: list[str] = []
    last: str | None = None  # the record the last sentence wrote, if "it" may follow
    k = 0
    done: set[int] = set()
    for i, step in enumerate(plan):
        t = step["text"]
        if not step.get("write") or i in done:
            continue
        w.one_said = False
        service = str(t["service"])
        affected, forced = w.unnamed_before(i, t)
        for recs, where in ((affected, service), (forced, None)):
            if recs:
                body.append(_cap(w.intro(recs, where, k)))
                k += 1
                last = None
        while (
            deep := w.too_deep(w._mentions(w._note_phrases(t))) or w.too_linked(w.note_said(t))
        ) is not None:
            body.append(_cap(w.intro([deep], None, k)))
            k += 1
            last = None
        together = [j for j in handover if j == i or w.may_join(j, plan)] if i in handover else []
        if handover and handover[0] == i and len(together) >= 2:
            done.update(together)
            handed_together = True
            notes = [plan[j]["text"] for j in together]
            if last is not None and len(body[-1].split()) <= 8 and w.hands_over_work(notes, k):
                # "Suspend their account in Identity and hand their work over to Ann: ..."
                body[-1] = body[-1][:-1] + " and " + w.hand_over(notes, k, "")
            else:
                lead = _THEN[(variant + k) % len(_THEN)] if body else _first(goal, variant)
                body.append(_cap(w.hand_over(notes, k, lead)))
            last = None
            k += 1
            continue
        label = w.written_label(t)
        it = bool(body) and label is not None and label == last
        kind = t["kind"]
        if kind == "create":
            sentence = w.create(t, k) + "." + w.threshold(t.get("threshold"), None, k)
        elif kind == "update":
            sentence = w.update(t, k, it, _lists(step))
        elif kind == "action":
            sentence = w.action(t, k, it)
        else:
            sentence = w.delete(t, k, it)
        if it:
            body[-1] = body[-1][:-1] + ", then " + sentence
        else:
            lead = _THEN[(variant + k) % len(_THEN)] if body else _first(goal, variant)
            if sentence.startswith(("on ", "as ")) and lead == "please ":
                lead = ""  # not "please on the subscription, set ..."
            body.append(_cap(lead + sentence))
        # "it" may continue only a sentence that ends with the write itself.
        last = label if sentence.count(". ") == 0 and kind != "create" else None
        k += 1
    rest = [r for r in w.records.values() if r.label in w.force and r.label not in w.introduced]
    if rest:
        body.append(_cap(w.intro(sorted(rest, key=lambda r: r.step), None, k)))
        k += 1
    asks = {a for x in answers for a in w._mentions([str(x["of"])])}
    said = [(str(a["of"]), lambda a=a: w.asked(str(a["field"]), str(a["of"]))) for a in answers]
    while (deep := w.too_deep(asks) or w.too_linked(said)) is not None:
        body.append(_cap(w.intro([deep], None, k)))
        k += 1
    if len(body) == 1 and body[0].startswith("First, "):
        body[0] = _cap(body[0].removeprefix("First, "))  # no "first" where nothing follows
    if not guards:
        tail = []
    elif handed_together:  # the work is one hand-over: the rest of it simply stays
        tail = [_LEFT_AS_IT_IS[variant % len(_LEFT_AS_IT_IS)]]
    else:
        tail = [_guard_sentence(guards, plan, variant, w)]
    if answers:
        asked = _join([w.asked(str(a["field"]), str(a["of"])) for a in answers])
        asked += why_asked(answers)
        tail.append(_ASK[variant % len(_ASK)].format(asked=asked))
    text = " ".join(s for s in [goal, *body, *tail] if s)
    missing = set(w.records) - w.introduced
    return text, missing
