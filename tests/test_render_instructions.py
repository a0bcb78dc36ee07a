"""Instructions a user would write: the changes they want, each record named by what they
know of it, not a checklist of the reads an agent will make (``library.compose.referring``).
The plans here are hand-made in the shape composition writes (``text`` notes, binds,
``select``), so each test sees exactly the case it is about; the last tests render the
tasks composition makes over the reference services."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from library.compose import compose as compose_module
from library.compose import compose_tasks, make_env
from library.compose.referring import person_role, write_centric
from library.compose.render import introduce_once, render_instruction, required_literals
from library.services import reference_service_classes

GOAL = 'For Ronald Garcia ("ronald.garcia@changfisher.com"), we have a follow-up to take care of.'
RONALD = '"ronald.garcia@changfisher.com"'


def _read(service: str, noun: str, label: str | None = None, **text: Any) -> dict[str, Any]:
    select = text.pop("select", None)
    step: dict[str, Any] = {
        "tool": f"{service.lower()}.list",
        "write": False,
        "kind": "list",
        "arguments": {"q": "x"},
        "binds": {"q": {"from": "step", "step": 0, "path": "x"}},
        "text": {"kind": "lookup", "service": service, "noun": noun, "nouns": noun + "s",
                 "label": label or noun, **text},
    }  # fmt: skip
    if select:
        step["select"] = select
    return step


def _stated(step: dict[str, Any], **args: Any) -> dict[str, Any]:
    """``step`` with ``args`` stated by the user."""
    step["arguments"] = dict(args)
    step["binds"] = {name: {"from": "user"} for name in args}
    return step


def _write(kind: str, service: str, **text: Any) -> dict[str, Any]:
    return {
        "tool": f"{service.lower()}.{kind}",
        "write": True,
        "kind": kind,
        "arguments": {},
        "binds": {},
        "text": {"kind": kind, "service": service, **text},
    }


def _long_plan() -> list[dict[str, Any]]:
    """The README's old first sample: calls, documents, an expense report's expense, a
    meeting, events and calendars, read then written."""
    return [
        _stated(
            _read("Voice", "call", by=[["user email", RONALD]],
                  select={"rule": "latest", "field": "updated_at"}),
            user_email="ronald.garcia@changfisher.com",
        ),
        _read("Docs", "document", by=[["owner email", RONALD]],
              select={"rule": "latest", "field": "updated_at"}),
        _stated(
            _write("create", "Docs", summary="create a comment", label="comment",
                   **{"for": ["the document"]}, values=[["body", '"Followed up with them."']]),
            body="Followed up with them.",
        ),
        _read("Expenses", "expense report", by=[["employee email", RONALD]]),
        {**_read("Expenses", "expense", of=["the expense report"])},
        _stated(
            _write("create", "Meetings", summary="create a meeting", label="meeting",
                   values=[["topic", '"Check-in"'],
                           ["host email", "the employee email of the expense"],
                           ["starts at", '"2026-04-04T10:00:00Z"']]),
            topic="Check-in", starts_at="2026-04-04T10:00:00Z",
        ),
        _write("action", "Voice", summary="hang up the call"),
        _read("Calendar", "event", by=[["organizer email", RONALD]],
              select={"rule": "earliest", "field": "updated_at"}),
        _read("Calendar", "calendar", by=[["owner email", RONALD]],
              select={"rule": "latest", "field": "created_at"}),
        _stated(
            _write("update", "Calendar", target="the event",
                   values=[["location", '"Cafeteria"']]),
            location="Cafeteria",
        ),
        _write("action", "Calendar", summary="cancel the event"),
        _stated(
            _write("create", "Calendar", summary="create an event", label="new event",
                   **{"for": ["the calendar"]},
                   values=[["title", '"Check-in"'], ["starts at", '"2026-03-10T10:00:00Z"'],
                           ["ends at", '"2026-03-10T10:30:00Z"']]),
            title="Check-in", starts_at="2026-03-10T10:00:00Z", ends_at="2026-03-10T10:30:00Z",
        ),
    ]  # fmt: skip


GUARDS = [
    {"scope": "others", "service": "Voice", "noun": "call"},
    {"scope": "others", "service": "Calendar", "noun": "event"},
    {"scope": "collection", "service": "Expenses", "nouns": "expense reports"},
]
ANSWERS = [{"field": "word count", "of": "the document"}]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if s]


def test_a_long_request_states_the_changes_not_the_reads() -> None:
    plan = _long_plan()
    text = render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=0)
    assert text != render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=0, steps=True)
    assert text.startswith(GOAL)
    # No read is a sentence of its own, and no rule is the checklist's "if more than one".
    for sentence in _sentences(text):
        assert not re.match(r"(?:Then )?(?:Find|Look up|Pull up|Open) ", sentence), sentence
    assert "If more than one" not in text
    # The rules are folded into the records' names, each stated once.
    assert "Ronald's most recently updated call in Voice" in text
    assert "on the most recently updated document owned by Ronald in Docs" in text
    assert "the least recently updated event organized by Ronald" in text
    assert "the newest calendar owned by Ronald" in text
    # A chain of reads becomes one phrase, of two links at most: the expense of his
    # expense report, named first, then its employee (not "the employee of the expense of
    # Ronald's expense report in Expenses", three links: tests/test_s11_wording_chains.py)
    assert "the expense of Ronald's expense report in Expenses" in text
    assert "hosted by the expense's employee" in text
    # Two changes to one record read as one sentence.
    assert re.search(r'set the location to "Cafeteria", then cancel it\.', text) or re.search(
        r'its location is "Cafeteria", then cancel it\.', text
    ), text
    for lit in required_literals(plan):
        assert lit in text
    assert len(text.split()) < len(
        render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, steps=True).split()
    )


@pytest.mark.parametrize("variant", range(8))
def test_each_service_is_named_where_its_first_record_is(variant: int) -> None:
    plan = _long_plan()
    text = render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=variant)
    for service in ("Voice", "Docs", "Expenses", "Meetings", "Calendar"):
        assert text.count(f" in {service}") == 1, (service, text)
    assert "Over in" not in text and "Using " not in text


@pytest.mark.parametrize("variant", range(6))
def test_guards_close_the_request_in_one_sentence(variant: int) -> None:
    text = render_instruction(_long_plan(), GUARDS, ANSWERS, goal=GOAL, variant=variant)
    sentences = _sentences(text)
    guard = [s for s in sentences if "other call" in s]
    assert len(guard) == 1
    assert "event" in guard[0] and "expense report" in guard[0]  # (the one found, or all)
    assert sentences[-2] == guard[0]  # then what to report
    assert "word count" in sentences[-1]


def test_phrasings_vary_with_the_variant_and_repeat_with_it() -> None:
    plan = _long_plan()
    texts = {render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=v) for v in range(12)}
    assert len(texts) >= 6
    again = render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=5)
    assert again == render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=5)


def test_a_read_is_narrated_when_a_write_before_its_mention_could_change_it() -> None:
    """The newest ticket, read before a ticket is created, is named before the create: left
    to its first mention (after the create), "the newest" would be the new one."""
    plan = [
        _read("Helpdesk", "ticket", by=[["customer email", RONALD]],
              select={"rule": "latest", "field": "created_at"}),
        _stated(
            _write("create", "Helpdesk", summary="create a ticket", label="new ticket",
                   values=[["subject", '"Printer jam"']]),
            subject="Printer jam",
        ),
        _write("action", "Helpdesk", summary="close the ticket"),
    ]  # fmt: skip
    text = render_instruction(plan, goal=GOAL, variant=0)
    first = text.index("Ronald's newest ticket")
    assert first < text.index('"Printer jam"'), text
    # Without the create in between, the ticket is named where it is closed.
    quiet = render_instruction([plan[0], plan[2]], goal=GOAL, variant=0)
    assert "Close Ronald's newest ticket in Helpdesk." in quiet, quiet


def test_a_read_nothing_names_is_still_asked_for() -> None:
    plan = [
        _stated(
            _read("CRM", "contact", search='"Acme renewal"', label="contact"),
            query="Acme renewal",
        ),
        _stated(
            _write("create", "Meetings", summary="create a meeting", label="meeting",
                   values=[["topic", '"Renewal call"']]),
            topic="Renewal call",
        ),
    ]  # fmt: skip
    text = render_instruction(plan, goal="", variant=0)
    assert '"Acme renewal"' in text
    _, unnamed = write_centric(plan, (), (), "", 0)
    assert unnamed == {"contact"}


def test_a_value_the_request_form_would_drop_falls_back_to_the_steps() -> None:
    plan = _long_plan()
    plan[6] = _stated(_write("action", "Voice", summary="hang up the call"), reason="spam")
    text = render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=0)
    assert text == render_instruction(plan, GUARDS, ANSWERS, goal=GOAL, variant=0, steps=True)


def test_chains_deeper_than_two_new_records_are_split() -> None:
    """review <- product; profile <- review's reviewer; call <- profile: naming the call
    in one phrase would nest three new records."""
    plan = [
        _stated(_read("Storefront", "product", by=[["SKU", '"4KMON-LIT"']]), sku="4KMON-LIT"),
        _read("Reviews", "review", by=[["product SKU", "the SKU of the product"]]),
        _read("Analytics", "profile", by=[["email", "the reviewer email of the review"]]),
        _read("Voice", "call", by=[["user email", "the email of the profile"]],
              select={"rule": "largest", "field": "duration"}),
        _write("action", "Voice", summary="hang up the call"),
    ]  # fmt: skip
    text = render_instruction(plan, goal='The product "4KMON-LIT" needs a look.', variant=0)
    assert text.count(". ") >= 2
    assert "Find the review in Reviews for the product in Storefront." in text
    assert "the profile of the reviewer of the review" in text or "review's reviewer" in text
    assert "with the largest duration" in text


def test_person_roles_read_from_field_names() -> None:
    assert person_role("email") == ""
    assert person_role("customer email") == "customer"
    assert person_role("hiring manager email") == "hiring manager"
    assert person_role("personal email") == ""
    assert person_role("from address") == "sender"
    assert person_role("attendees") == "attendee"
    assert person_role("SKU") is None


# -- composed tasks ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rendered() -> list[tuple[Any, dict[str, Any]]]:
    """Tasks composed over the reference services, with what their instruction was
    rendered from."""
    calls: dict[str, dict[str, Any]] = {}
    original = compose_module.render_instruction

    def spy(plan: Sequence[Any], guards: Sequence[Any] = (), answers: Sequence[Any] = (),
            **kw: Any) -> str:  # fmt: skip
        text = original(plan, guards, answers, **kw)
        calls[text] = {"plan": plan, "guards": guards, "answers": answers, **kw}
        return text

    compose_module.render_instruction = spy  # type: ignore[assignment]
    try:
        classes = reference_service_classes()
        tasks, _ = compose_tasks(classes, 40, env=make_env(classes), seed=3)
    finally:
        compose_module.render_instruction = original  # type: ignore[assignment]
    return [(t, calls[t.template_instruction]) for t in tasks]


def test_composed_instructions_are_requests_not_step_lists(rendered) -> None:
    assert len(rendered) >= 30
    written = 0
    for task, args in rendered:
        text = task.instruction
        for lit in task.literals:
            assert lit in text, (task.task_id, lit)
        steps = render_instruction(args["plan"], args["guards"], args["answers"],
                             goal=args["goal"], variant=args["variant"], steps=True)  # fmt: skip
        if text == steps:
            continue
        written += 1
        assert "If more than one" not in text
        assert not re.search(r"\b(?:Over in|Using) [A-Z]", text), text
        reads = sum(1 for s in task.gold_plan if not s["write"])
        narrated = [
            s
            for s in _sentences(text)
            if re.match(r"(?:Find|You'll (?:also )?need|Before you change) ", s)
        ]
        assert len(narrated) < max(1, reads), (task.task_id, narrated)
    assert written >= 0.9 * len(rendered)


def test_a_kind_two_services_hold_names_its_service_every_first_time() -> None:
    """Storefront is named at the order; its customer is still "in Storefront", because
    Invoicing holds customers too."""
    plan = [
        _read("Storefront", "order", by=[["customer email", RONALD]]),
        _write("action", "Storefront", summary="refund the order"),
        _read("Storefront", "customer", by=[["email", "the customer email of the order"]]),
        _read("Invoicing", "customer", label="Invoicing customer", by=[["email", RONALD]]),
        _stated(
            _write("update", "Storefront", target="the customer", values=[["tier", '"gold"']]),
            tier="gold",
        ),
        _write("action", "Invoicing", summary="archive the Invoicing customer"),
    ]  # fmt: skip
    text = render_instruction(plan, goal=GOAL, variant=0)
    assert "Refund Ronald's order in Storefront." in text, text
    assert "the order's customer in Storefront" in text, text
    assert "Ronald's Invoicing customer" in text, text


def test_the_subject_goes_by_full_name_beside_a_colleague_of_the_same_first_name() -> None:
    plan = [
        _read("Helpdesk", "ticket", by=[["customer email", RONALD]]),
        _stated(
            _write("action", "Helpdesk", summary="assign the ticket",
                   values=[["assignee email", 'Ronald Smith ("ronald.smith@changfisher.com")']]),
            assignee_email="ronald.smith@changfisher.com",
        ),
    ]  # fmt: skip
    text = render_instruction(plan, goal=GOAL, variant=0)
    assert "Assign Ronald Garcia's ticket in Helpdesk" in text, text
    close = _write("action", "Helpdesk", summary="close the ticket")
    alone = render_instruction([plan[0], close], goal=GOAL, variant=0)
    assert "Close Ronald's ticket in Helpdesk." in alone, alone


def test_a_record_reached_by_an_id_in_its_own_service_does_not_repeat_it() -> None:
    """Docs and Issue Tracker both hold comments, yet the comments *of the issue* are the
    issue tracker's: the service is said once, at the issue."""
    plan = [
        _read("Issue Tracker", "issue", by=[["assignee email", RONALD]]),
        _read("Issue Tracker", "comment", of=["the issue"],
              select={"rule": "latest", "field": "created_at"}),
        _stated(
            _write("update", "Issue Tracker", target="the comment", values=[["body", '"Done."']]),
            body="Done.",
        ),
        _read("Docs", "document", by=[["owner email", RONALD]]),
        _stated(
            _write("create", "Docs", summary="create a comment", label="new comment",
                   **{"for": ["the document"]}, values=[["body", '"Seen."']]),
            body="Seen.",
        ),
    ]  # fmt: skip
    text = render_instruction(plan, goal=GOAL, variant=0)
    assert "the newest comment of the issue assigned to Ronald in Issue Tracker" in text, text
    assert text.count(" in Issue Tracker") == 1, text
    assert "on the document owned by Ronald in Docs" in text, text


def test_an_action_that_sets_one_named_value_says_it_in_the_sentence() -> None:
    plan = [
        _read("Issue Tracker", "issue", by=[["assignee email", RONALD]]),
        _stated(
            _write("action", "Issue Tracker", summary="change status for the issue",
                   values=[["status", '"done"']]),
            status="done",
        ),
        _read("Recruiting", "application", by=[["recruiter email", RONALD]]),
        _stated(
            _write("action", "Recruiting", summary="advance to a stage for the application",
                   values=[["stage", '"hired"']]),
            stage="hired",
        ),
    ]  # fmt: skip
    text = render_instruction(plan, goal=GOAL, variant=0)
    assert "Change the status of the issue assigned to Ronald in Issue Tracker to done." in text
    advance = "dvance the application with Ronald as recruiter in Recruiting to stage hired."
    assert advance in text, text


def test_reads_a_write_would_change_are_named_before_it_in_one_sentence() -> None:
    """The call and the message are found through the ticket's assignee; reassigning the
    ticket first would find other ones: both are named before it, together."""
    plan = [
        _read("Helpdesk", "ticket", by=[["customer email", RONALD]]),
        _read("Voice", "call", by=[["user email", "the assignee email of the ticket"]]),
        _read("Chat", "message", by=[["author email", "the assignee email of the ticket"]]),
        _stated(
            _write("action", "Helpdesk", summary="assign the ticket",
                   values=[["assignee email", 'Ann Lee ("ann.lee@changfisher.com")']]),
            assignee_email="ann.lee@changfisher.com",
        ),
        _write("action", "Voice", summary="hang up the call"),
        _write("delete", "Chat", target="the message"),
    ]  # fmt: skip
    text = render_instruction(plan, goal=GOAL, variant=0)
    intro = [s for s in _sentences(text) if "efore you change anything in Helpdesk" in s]
    assert len(intro) == 1, text
    assert "the call in Voice of the assignee of Ronald's ticket" in intro[0], text
    assert "the message written by the ticket's assignee in Chat" in intro[0], text
    assert text.index(intro[0]) < text.index("Ann Lee")


def test_a_person_is_introduced_once() -> None:
    """Name and e-mail the first time, the first name after (strict reading: "Lisa Lopez
    ("lisa.lopez@...")" eleven times in one hand-over); two people sharing a first name
    keep their full forms, and a sentence-opening verb is no part of the name."""
    gary = 'Gary Chambers ("gary.chambers@changfisher.com")'
    text = f"Make {gary} the owner of the deal. Reassign the ticket to {gary}. Make {gary} host."
    assert introduce_once(text) == (
        f"Make {gary} the owner of the deal. Reassign the ticket to Gary. Make Gary host."
    )
    other = 'Gary Bell ("gary.bell@changfisher.com")'
    both = f"Hand it to {gary}, then to {other}, then to {gary}."
    assert introduce_once(both) == both
