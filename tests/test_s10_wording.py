"""A request reads as a person wrote it, not as a schema: no field name, quoted status or
enum value, "record"/"field"/"entry" about data, ``whose <field> is``; and every template
gives grammatical English for every value it takes (no "is waiting on us: a refund.", no
"a open ticket", no doubled word).

``flags`` is the checker: per instruction, what reads as a schema (a reviewer of
tau2-bench or AppWorld tasks flagged these in 11 of 20 composed tasks). The tests below run
it over the templates' every value, hand-made plans in the shape composition writes, and a
small composed corpus."""

from __future__ import annotations

import re
from typing import Any

import pytest

from library.compose import compose_tasks, make_env
from library.compose.openings import (
    CUSTOMER,
    CUSTOMER_CAUSES,
    GENERIC,
    MAIL,
    RECORD,
    RECORD_ALONE,
    RECORD_CAUSES,
    STAFF,
    STAFF_HERE,
    WORK,
    opening,
)
from library.compose.realism import article, matched_words, matching_literal, plain_value
from library.compose.render import render_instruction, required_literals
from tests.libraries import bundled_library
from tests.plan_steps import find_step as _find
from tests.plan_steps import plan_step as _step

# -- the checker ------------------------------------------------------------------------------
_QUOTED = re.compile(r'"([^"]*)"')
# a quoted value that is a code out of a list, not a text a person wrote: one lower-case word
_ENUM = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
# What a name or a written text follows: a naming word, or the noun it names ("the
# deployment "search-service"", but not "with the keytype "csk"").
_NAMING = re.compile(
    r"(?:\b(?:named|called|titled|labell?ed|saying|text|subject|line|note|labels?|tags?"
    r"|reason|name is|name to)|(?<!with )\b(?:[Tt]he|[Aa]n?|[Tt]hat) [a-z]+"
    r"(?: (?!(?:to|is|are|be|as|of|for|and|or|by|in|on|with)\b)[a-z]+)?) $"
)
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")
_DATA_NOUN = re.compile(
    r"\b(?:the|a|an|its|their|this|that|each|every|other|any|no|one|[A-Za-z]+'s)\s+"
    r"(?:\w+\s+)?(record|records|collection|collections|field|fields|entry|entries)\b"
)
_WHOSE = re.compile(r"\bwhose ([a-z][\w ]{0,30}?) (?:is|are|was|were)\b")
_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)
_ARTICLE = re.compile(r"\b([Aa]n?)\s+([A-Za-z][\w\-]*)")
# a person's detail said as the field that stores it: "the issue's reporter email"
_PERSON_FIELD = re.compile(
    r"'s (?:reporter|requester|assignee|owner|customer|recipient|sender|host|employee"
    r"|client|author|manager) (?:email|name)\b"
)
# a clause's slot filled by a bare noun phrase: "Ann is waiting on us: a refund."
_COLON_BARE = re.compile(r":\s+(?:a|an|the|some)\s+[\w'\-]+(?:\s+[\w'\-]+){0,3}[.!?]")


def flags(text: str) -> dict[str, list[str]]:
    """What in ``text`` reads as a schema or a broken template: kind -> snippets. Quoted
    texts (what a person wrote, a name) are not read, except to ask whether a quoted word
    is a code out of a list ("booked", "p2", "in_progress")."""
    out: dict[str, list[str]] = {}
    for m in _QUOTED.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        if _ENUM.match(m.group(1)) and not _NAMING.search(before):
            out.setdefault("quoted_enum", []).append(m.group(0))
    bare = _QUOTED.sub('"…"', text)
    found = {
        "snake_case": [m.group(0) for m in _SNAKE.finditer(bare)],
        "camel_case": [m.group(0) for m in _CAMEL.finditer(bare)],
        "data_noun": [m.group(0) for m in _DATA_NOUN.finditer(bare)],
        "whose_field_is": [m.group(0) for m in _WHOSE.finditer(bare)],
        "doubled_word": [
            m.group(0)
            for m in _DOUBLED.finditer(bare)
            if not m.group(1)[0].isupper() and m.group(1).lower() not in ("that", "had")
        ],
        "article": [
            m.group(0) for m in _ARTICLE.finditer(bare) if article(m.group(2)) != m.group(1).lower()
        ],
        "colon_bare_np": [m.group(0) for m in _COLON_BARE.finditer(bare)],
        "person_field": [m.group(0) for m in _PERSON_FIELD.finditer(bare)],
    }
    out.update({k: v for k, v in found.items() if v})
    return out


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('Set the priority of the ticket to "p2".', "quoted_enum"),
        ('Cancel the booking whose status is "booked".', "quoted_enum"),
        ("Set the status to in_progress.", "snake_case"),
        ("Copy the ownerEmail of the deal.", "camel_case"),
        ("Email the owner of Mark's contact record in CRM.", "data_noun"),
        ("Cancel the booking whose status is booked.", "whose_field_is"),
        ("Add a task task in Todo.", "doubled_word"),
        ("Close a open ticket.", "article"),
        ("Ann is waiting on us: a refund.", "colon_bare_np"),
        ("Then tell me the issue's reporter email.", "person_field"),
    ],
)
def test_the_checker_flags_what_reads_as_a_schema(text: str, kind: str) -> None:
    assert kind in flags(text), (text, flags(text))


def test_the_checker_leaves_a_person_s_request_alone() -> None:
    text = (
        'Hunter Hunter ("hunter.hunter@x.nl") called. Scale the deployment "mobile-app" to 3 '
        'replicas, add a TSIG key named "monitoring", cancel the booking that\'s booked, and '
        'send an email saying "done". Add an SLA note: "Call back: a refund is due."'
    )
    assert flags(text) == {}


# -- every template, every value --------------------------------------------------------------
_PERSON = 'Ann Lee ("ann.lee@example.com")'
_FAMILIES = {
    "staff": (STAFF, {"staff": True}),
    "staff here": (STAFF_HERE, {"staff": True, "here": True}),
    "customer": (CUSTOMER, {"staff": False}),
    "record": (RECORD, {"noun": "server"}),
    "mail": (MAIL, {"mail": True}),
}


@pytest.mark.parametrize("family", sorted(_FAMILIES))
@pytest.mark.parametrize("motif", sorted(WORK))
def test_every_opening_reads_as_english_for_every_work(family: str, motif: str) -> None:
    """Each opening, filled with each kind of work: no noun phrase where a clause belongs
    ("is waiting on us: a refund."), no "a" before a vowel, no word twice."""
    templates, kwargs = _FAMILIES[family]
    subject = (
        'the message "Refund request"'
        if family == "mail"
        else 'the server "ns1.example.com"'
        if family == "record"
        else _PERSON
    )
    for variant in range(3 * len(templates) + 7):
        text = opening(subject, motif, variant, **kwargs)
        assert not flags(text), (motif, text, flags(text))


def test_the_other_families_read_as_english_too() -> None:
    for motif in sorted(WORK):
        for template in (
            *GENERIC,
            *RECORD_ALONE,
            *RECORD_CAUSES.get(motif, ()),
            *CUSTOMER_CAUSES.get(motif, ()),
        ):
            work = WORK[motif]
            text = template.format(subject=_PERSON, work=work, Work=work[:1].upper() + work[1:])
            assert not flags(text), (motif, text, flags(text))


# -- values said as words ---------------------------------------------------------------------
def test_a_level_or_a_kind_is_a_word_and_a_text_stays_quoted() -> None:
    assert plain_value("priority", '"p2"') == "p2"
    assert plain_value("status", '"closed"') == "closed"
    assert plain_value("vehicle class", '"minivan"') == "minivan"
    assert plain_value("keytype", '"csk"') == "csk"
    assert plain_value("title", '"p2"') == '"p2"'  # a name someone gave
    assert plain_value("reason", '"ordered by mistake"') == '"ordered by mistake"'
    # said verbatim, the literal checked: an underscore stays in its quotes
    assert plain_value("status", '"in_progress"') == '"in_progress"'


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("status", "booked", "that's booked"),
        ("status", "open", "that's open"),
        ("status", "todo", "marked todo"),
        ("status", "in_progress", "marked in-progress"),
        ("fulfillment_status", "partially_fulfilled", "that's partially fulfilled"),
        ("stage", "screening", "at the screening stage"),
        ("channel", "web_form", "that came in by web form"),
        ("resolution", "exchange", "asking for an exchange"),
        ("carrier", "ups", "with ups as its carrier"),
        ("status", "requires_capture", "that requires capture"),
        ("condition", "damaged", "in damaged condition"),
    ],
)
def test_a_record_picked_by_a_value_is_said_as_a_person_tells_it_apart(
    field: str, value: str, said: str
) -> None:
    words = matched_words(field, value)
    assert words == said
    assert matching_literal(field, value) in words  # what composition checks is said
    assert not flags(f"Cancel the booking {words}."), flags(words)


_ARTICLES = [("open", "an"), ("user", "a"), ("SLA", "an"), ("CTA", "a"), ("hour", "an"),
             ("expansion", "an")]  # fmt: skip


@pytest.mark.parametrize(("word", "a"), _ARTICLES)
def test_a_or_an_as_the_word_sounds(word: str, a: str) -> None:
    assert article(word) == a


# -- hand-made plans in the shape composition writes ------------------------------------------
_EDWARD = '"edward.cook@myers.com.au"'
_SABRINA = 'Sabrina Leon ("sabrina.leon@changfisher.com")'


def _plans() -> list[list[dict[str, Any]]]:
    contact = _find("crm.list_contacts", "contact", [["email", _EDWARD]])
    booking = _find("workplace.list", "booking", [["organizer email", _EDWARD]])
    booking["select"] = {"rule": "matching", "field": "status", "value": "booked"}
    ticket = _find("helpdesk.list", "ticket", [["requester email", _EDWARD]])
    ticket["select"] = {"rule": "matching", "field": "status", "value": "new"}
    task = {"kind": "create", "summary": "add a new task", "label": "new task",
            "values": [["title", '"Call back"'], ["assignee email", _SABRINA],
                       ["priority", '"p4"']]}  # fmt: skip
    owner_task = {"kind": "create", "summary": "add a new task", "label": "new task",
                  "values": [["title", '"Call back"'],
                             ["assignee email", "the owner email of the contact"]]}  # fmt: skip
    update = {"kind": "update", "target": "the ticket",
              "values": [["priority", '"urgent"'], ["status", '"pending"']]}  # fmt: skip
    ruled = {"kind": "update", "target": "the ticket", "values": [],
             "threshold": {"field": "amount", "of": "the ticket", "limit": "500",
                           "param": "priority", "above": '"p1"', "otherwise": '"p3"'}}  # fmt: skip
    cancel = {"kind": "action", "summary": "cancel the booking"}
    cta = {"kind": "create", "summary": "create a CTA", "label": "new CTA",
           "for": ["the contact"], "values": [["type", '"renewal"']]}  # fmt: skip
    stage = {"kind": "action", "summary": "advance the ticket to a stage",
             "values": [["stage", '"triage"']]}  # fmt: skip
    return [
        [booking, _step("workplace.cancel", cancel)],
        [ticket, _step("helpdesk.update", update, {"priority": "urgent", "status": "pending"})],
        [ticket, _step("helpdesk.update", ruled)],
        [contact, _step("todo.create", task, {"title": "Call back", "priority": "p4"})],
        [contact, _step("todo.create", owner_task, {"title": "Call back"})],
        [contact, _step("cs.create_cta", cta, {"type": "renewal"})],
        [ticket, _step("helpdesk.advance", stage, {"stage": "triage"})],
    ]


@pytest.mark.parametrize("variant", range(4))
@pytest.mark.parametrize("which", range(7))
def test_a_request_says_values_and_picks_in_words_and_keeps_every_literal(
    which: int, variant: int
) -> None:
    """ "with priority p4", "set the priority to urgent", "the booking ... that's
    booked", "Edward's account owner in Crm", "a renewal CTA", "to stage triage": no
    quoted status, no ``whose status is``, no "contact record"; each value the request
    states is still there, verbatim."""
    plan = _plans()[which]
    text = render_instruction(plan, goal="Edward Cook (" + _EDWARD + ") got in touch.",
                              variant=variant)  # fmt: skip
    assert not flags(text), (text, flags(text))
    for lit in required_literals(plan):
        assert lit in text, (lit, text)


# -- a composed corpus ------------------------------------------------------------------------
_SERVICES = ["crm", "customer_success", "helpdesk", "mail", "recruiting", "returns",
             "storefront", "subscriptions", "todo", "workplace", "identity", "hr"]  # fmt: skip


@pytest.fixture(scope="module")
def composed() -> list[Any]:
    lib = bundled_library(_SERVICES)
    env = make_env(lib.classes, lib.nodes)
    tasks, _ = compose_tasks(lib.classes, 40, env=env, seed=0)
    return tasks


def test_composed_requests_read_as_a_person_wrote_them(composed: list[Any]) -> None:
    """Over a composed corpus, at most one request in ten has anything the checker flags
    (before this rule: most of them, for a quoted status or priority alone), and none a
    quoted code other than one said verbatim with its underscore."""
    flagged = {t.task_id: flags(t.instruction) for t in composed}
    flagged = {k: v for k, v in flagged.items() if v}
    assert len(composed) >= 20
    assert len(flagged) <= len(composed) // 10, flagged
    quoted = [q for f in flagged.values() for q in f.get("quoted_enum", ())]
    assert all("_" in q for q in quoted), quoted


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("reporter email", "the e-mail address of the issue's reporter"),
        ("requester name", "the name of the issue's requester"),
        ("customer email", "the e-mail address of the issue's customer"),
        ("due date", "the issue's due date"),
        ("first name", "the issue's first name"),  # no person in "first"
    ],
)
def test_a_person_s_detail_the_answer_reports_is_asked_by_the_person(field: str, said: str) -> None:
    """ "let me know the e-mail address of the issue's reporter", not "the issue's reporter
    email"."""
    issue = _find("issues.list", "issue", [["assignee email", _EDWARD]])
    plan = [issue, _step("issues.close", {"kind": "action", "summary": "close the issue"})]
    answers = [{"field": field, "of": "the issue", "why": ""}]
    for variant in range(3):
        text = render_instruction(plan, answers=answers, goal="Edward asked.", variant=variant)
        assert said in text, text
        assert "person_field" not in flags(text), text


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("recipient name", "Thomas Randall", 'the shipment sent to "Thomas Randall"'),
        ("assignee email", "ann@x.com", 'the shipment assigned to "ann@x.com"'),
        ("customer email", "ann@x.com", 'the shipment for "ann@x.com"'),
    ],
)
def test_a_record_found_by_a_person_s_stated_detail_is_theirs(
    field: str, value: str, said: str
) -> None:
    """'the shipment sent to "Thomas Randall"', not 'the shipment with recipient name
    "Thomas Randall"': the field that stores the person is no one's word for them."""
    found = _find("shipping.list", "shipment", [[field, f'"{value}"']])
    found["arguments"] = {field.replace(" ", "_"): value}
    found["binds"] = {field.replace(" ", "_"): {"from": "user"}}
    plan = [found, _step("shipping.cancel", {"kind": "action", "summary": "cancel the shipment"})]
    text = render_instruction(plan, goal="Please help.", variant=0)
    assert said in text and field not in text, text
    assert value in text
