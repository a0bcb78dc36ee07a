"""Request sentences as a person writes them, where a strict reviewer read them as made by a
machine or as stricter than they say: a described value a text field must hold alone says
so ("with just the order ID as its description"), a list a request replaces says so
("replace its labels with ..."), one "please" per request, one "(the one that's open)" per
sentence, no "the X with the Y of the Z", no "a csk Cryptokey for the server and the zone",
no "the user's username"."""

from __future__ import annotations

import re
from typing import Any

from library.compose.referring import write_centric

JORDAN = '"Jordan Walker"'
GREGORY = 'Gregory Ruiz ("gregory.ruiz@changfisher.com")'
# Words that say a text field holds the value and nothing else.
EXACT = re.compile(r"\b(?:just|nothing but|only)\b")


def _step(text: dict[str, Any], select: dict | None = None, **arguments: Any) -> dict:
    return {
        "write": text["kind"] not in ("lookup", "fetch"),
        "text": text,
        "select": select,
        "arguments": arguments,
        "binds": {name: {"from": "user"} for name in arguments},
    }


def _lookup(service: str, noun: str, by: list, label: str | None = None, **kw: Any) -> dict:
    text = {"kind": "lookup", "service": service, "noun": noun, "nouns": noun + "s", "by": by}
    return {**text, "label": label or noun, **kw}


# A MailScript key found by its input's address, and an e-mail whose body is the key's name.
KEY_PLAN = [
    _step(_lookup("MailScript", "input", [["name", '"auth-export"']])),
    _step(_lookup("MailScript", "key", [["address", "the address of the input"]])),
    _step(
        {
            "kind": "update",
            "service": "MailScript",
            "target": "the key",
            "values": [["read access", "false"], ["write access", "true"]],
        }
    ),
    _step(
        {
            "kind": "create",
            "service": "Gmail",
            "summary": "send an email message",
            "for": [],
            "values": [
                ["recipient", 'Anthony Reid ("anthony.reid@changfisher.com")'],
                ["subject", '"Credentials updated"'],
                ["body", "the name of the key"],
            ],
            "label": "message",
        }
    ),
]
KEY_GOAL = 'A credential change to do with the input "auth-export" is on my plate today.'


def test_a_described_value_in_a_text_field_is_said_to_be_all_it_holds() -> None:
    """The rubric checks the body as the key's name: "with the key's name as its body"
    reads as leave to write "The key is ..."; the request says nothing else goes there,
    in more than one way."""
    said = set()
    for v in range(8):
        text = write_centric(KEY_PLAN, [], [], KEY_GOAL, v)[0]
        m = re.search(r"(?:and|with) ([^.]*?the key's name[^.]*)\.", text)
        assert m is not None, text
        assert EXACT.search(m.group(1)), text
        said.add(EXACT.sub("_", m.group(1)).split('"')[-1])
    assert len(said) >= 3, said


def test_a_description_from_a_record_is_exact_and_so_are_notes() -> None:
    plan = [
        _step(_lookup("Retail", "order", [["order id", '"#W9004369"']])),
        _step({"kind": "action", "service": "Retail", "summary": "cancel the order", "values": []}),
        _step(
            {
                "kind": "create",
                "service": "Helpdesk",
                "summary": "create a ticket",
                "for": [],
                "values": [["title", '"Refund issued"'], ["description", "the ID of the order"]],
                "label": "ticket",
            }
        ),
        _step(
            {
                "kind": "create",
                "service": "Todo",
                "summary": "add a task",
                "for": [],
                "values": [["title", '"Refund follow-up"'], ["notes", "the total of the order"]],
                "label": "task",
            }
        ),
    ]
    for v in range(4):
        text = write_centric(plan, [], [], "I'm working on a refund.", v)[0]
        for value in ("the order ID", "the order's total"):
            at = text.index(value)
            assert EXACT.search(text[max(0, at - 30) : at + len(value) + 25]), text


def test_an_update_that_sets_a_list_replaces_it() -> None:
    """``labels: ["security"]`` is checked as the whole list: the request says the labels
    are replaced, not "its labels are "security"" (one label more, to a reader)."""
    plan = [
        _step(_lookup("Issue Tracker", "issue", [["key", '"WEB-12"']])),
        _step(
            {
                "kind": "update",
                "service": "Issue Tracker",
                "target": "the issue",
                "values": [["priority", '"highest"'], ["labels", '"security"']],
            },
            priority="highest",
            labels=["security"],
        ),
        _step(
            {
                "kind": "update",
                "service": "Issue Tracker",
                "target": "the issue",
                "values": [["labels", '"triage"']],
            },
            labels=["triage"],
        ),
    ]
    for v in range(6):
        text = write_centric(plan, [], [], "The issue needs looking at.", v)[0]
        assert re.search(r"replace (?:its|the) labels (?:of [^.]+ )?with \"security\"", text), text
        assert re.search(r"replace (?:its|the) labels (?:of [^.]+ )?with \"triage\"", text), text
        assert not re.search(r"labels (?:are|is|to) \"", text), text


def test_one_please_per_request() -> None:
    plan = KEY_PLAN
    for v in range(10):
        text = write_centric(plan, [], [], KEY_GOAL.replace(".", "; please sort it."), v)[0]
        assert len(re.findall(r"\bplease\b", text, re.I)) == 1, text
    # (a first step still may say it where the opening does not)
    assert any("Please " in write_centric(plan, [], [], KEY_GOAL, v)[0] for v in range(10))


def test_a_key_found_by_its_inputs_address_is_not_a_chain_of_withs_and_ofs() -> None:
    for v in range(4):
        text = write_centric(KEY_PLAN, [], [], KEY_GOAL, v)[0]
        assert not re.search(r"\bthe \w+ with the \w+ of the \w+", text), text
        assert "the key with the same address as the input" in text, text


def _handover_plan() -> list[dict]:
    by = [["organizer email", "the email of the user"]]
    plan = [
        _step(
            {
                "kind": "lookup",
                "service": "Identity",
                "noun": "user",
                "nouns": "users",
                "search": JORDAN,
                "label": "user",
            }
        ),
        _step(
            {"kind": "action", "service": "Identity", "summary": "suspend the user", "values": []}
        ),
    ]
    records = [
        ("Workplace", "booking", "organizer email", "booked"),
        ("Recruiting", "job", "hiring manager email", "open"),
        ("Calendar", "event", "organizer email", "tentative"),
        ("Helpdesk", "ticket", "assignee email", "pending"),
    ]
    for service, noun, role, state in records:
        by = [[role, "the email of the user"]]
        plan.append(
            _step(
                _lookup(service, noun, by, pick=["", f"that's {state}"]),
                {"rule": "matching", "field": "status", "value": state},
            )
        )
        plan.append(
            _step(
                {
                    "kind": "update",
                    "service": service,
                    "target": f"the {noun}",
                    "values": [[role, GREGORY]],
                    "unasked": True,
                }
            )
        )
    return plan


def test_a_sentence_says_the_one_that_is_at_most_once() -> None:
    """A hand-over lists several records each picked by a state: "(the one that's open)"
    once in a sentence, the others said otherwise ("the open job ...")."""
    goal = "Jordan Walker has handed in their notice; please handle the offboarding."
    seen = 0
    for v in range(6):
        text = write_centric(_handover_plan(), [], [], goal, v)[0]
        for sentence in text.split(". "):
            assert sentence.count("(the one") <= 1, text
        seen += "(the one" in text
        for state in ("booked", "open", "tentative", "pending"):
            assert state in text, text  # each rule still said
    assert seen, "the parenthesis is still one of the phrasings"


POWERDNS_PLAN = [
    _step(
        _lookup("PowerDNS", "server", [["domain", '"dns-us.changfisher.com"']]),
        {"rule": "matching", "field": "domain", "value": "dns-us.changfisher.com"},
    ),
    _step(
        {
            "kind": "create",
            "service": "PowerDNS",
            "summary": "create a new domain",
            "for": ["the server"],
            "values": [["kind", '"Native"'], ["name", '"docs.example.com"']],
            "label": "zone",
        }
    ),
    _step(
        {
            "kind": "create",
            "service": "PowerDNS",
            "summary": "create a Cryptokey",
            "for": ["the server", "the zone"],
            "values": [["keytype", '"csk"']],
            "label": "cryptokey",
        }
    ),
]


def test_a_new_record_of_a_product_s_own_term_is_said_as_people_say_it() -> None:
    """Not "create a csk Cryptokey for the server and the zone": the lowercase code after
    the product's noun, the key for the domain the request just made (which is the
    server's), called what the request called it."""
    goal = 'A colleague flagged the server "dns-us.changfisher.com"; could you set it up?'
    for v in range(4):
        text = write_centric(POWERDNS_PLAN, [], [], goal, v)[0]
        assert "Cryptokey of type csk for the domain" in text, text
        assert not re.search(r"\ba [a-z]+ [A-Z]", text), text
        assert "zone" not in text and "the server and" not in text, text


def test_a_field_named_after_its_record_is_not_said_twice() -> None:
    """ "the user's username" is the subject's username: "their username" / "Jordan's"."""
    plan = [
        *_handover_plan()[:2],
        _step(
            {
                "kind": "create",
                "service": "Todo",
                "summary": "add a task",
                "for": [],
                "values": [
                    ["title", '"Offboarding handover"'],
                    ["notes", "the username of the user"],
                ],
                "label": "task",
            }
        ),
    ]
    goal = "Jordan Walker has handed in their notice; please handle the offboarding."
    for v in range(4):
        text = write_centric(plan, [], [], goal, v)[0]
        assert "user's username" not in text, text
        assert re.search(r"\b(?:their|Jordan's) username\b", text), text


def test_a_record_the_opening_names_is_not_named_again_in_full() -> None:
    """'A follow-up to do with the task "File the expense report" ...': the step picks the
    low-priority task "with that title", not the title in full a second time."""
    title = '"File the expense report"'
    plan = [
        _step(
            _lookup("Simplechecklist", "task", [["title", title]]),
            {"rule": "matching", "field": "priority", "value": "low"},
        ),
        _step(
            {
                "kind": "update",
                "service": "Simplechecklist",
                "target": "the task",
                "values": [["due date", '"2026-04-07"']],
            }
        ),
    ]
    goal = f"A follow-up to do with the task {title} is on my plate today."
    for v in range(4):
        text = write_centric(plan, [], [], goal, v)[0]
        assert text.count(title) == 1, text
        assert "with that title" in text and "low" in text, text
