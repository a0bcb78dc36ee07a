"""Requests worded as a person writes them: openings that say whose work it is and what
kind, yes/no changes said as states ("mark it as unread"), actions named by what they do
(not by the tool description's fine print), and no rewriting of what someone else wrote."""

from __future__ import annotations

import datetime as dt
import random
import re
from types import SimpleNamespace
from typing import Any

import pytest

from library.compose.binding import _same_purpose
from library.compose.catalog import Param
from library.compose.direction import forward, more_urgent
from library.compose.literals import literal
from library.compose.openings import CUSTOMER, RECORD_ALONE, STAFF, opening
from library.compose.realism import matching_literal
from library.compose.referring import flag_clauses, person_role
from library.compose.render import render_instruction
from library.compose.topics import topic_texts
from library.compose.writes import Writes

CRAIG = 'Craig Thomas ("craig.thomas@changfisher.com")'


def _find(tool: str, noun: str, by: list[list[str]], **stated: Any) -> dict[str, Any]:
    """A lookup step of service ``tool``'s prefix finding ``noun`` by ``by``, its arguments
    stated by the user."""
    service = tool.split(".")[0].title()
    text = {"kind": "lookup", "service": service, "noun": noun, "nouns": f"{noun}s",
            "label": noun, "by": by}  # fmt: skip
    return _step(tool, text, stated)


def _step(
    tool: str, text: dict[str, Any], stated: dict[str, Any] | None = None, **binds: Any
) -> dict[str, Any]:
    """A plan step in the shape composition writes: ``stated`` arguments come from the user,
    ``binds`` from earlier steps; it writes unless its note is a lookup or a fetch."""
    return {
        "tool": tool,
        "write": text["kind"] not in ("lookup", "fetch"),
        "arguments": dict(stated or {}),
        "binds": {**{name: {"from": "user"} for name in stated or {}}, **binds},
        "text": {"service": tool.split(".")[0].title(), **text},
    }


def test_a_colleague_and_a_customer_open_differently() -> None:
    staff = {opening(CRAIG, "escalation", v, staff=True) for v in range(len(STAFF))}
    customer = {opening(CRAIG, "escalation", v, staff=False) for v in range(len(CUSTOMER))}
    assert len(staff) == len(STAFF) and len(customer) == len(CUSTOMER)
    assert not staff & customer
    assert all("escalation" in text and CRAIG in text for text in staff | customer)
    assert any("covering for" in text.lower() for text in staff)
    assert not any("covering for" in text.lower() or "away" in text for text in customer)


def test_a_record_opening_does_not_repeat_its_own_noun_as_the_work() -> None:
    """ "the booking ..." in a travel booking: not "a travel booking around it"."""
    said = 'the booking "BK-1042"'
    for v in range(6):
        text = opening(said, "travel", v, noun="booking")
        assert said.lower() in text.lower() and "travel booking" not in text, text
    assert opening(said, "travel", 0, noun="booking") in {
        t.format(subject=said)[:1].upper() + t.format(subject=said)[1:] for t in RECORD_ALONE
    }
    shipment = opening('the shipment "123"', "fulfilment", 0, noun="shipment")
    assert "delivery problem" in shipment and shipment.startswith("A delivery problem to do with")


def test_the_motifs_own_openings_skip_a_possessive_after_a_parenthesis() -> None:
    about = ("{subject}'s application needs the next step.", "{subject} is in our pipeline.")
    texts = {opening(CRAIG, "hiring", v, staff=False, about=about) for v in range(4)}
    assert texts == {f"{CRAIG} is in our pipeline."}
    # A subject without a parenthesis keeps the possessive form.
    assert "Craig's application" in opening("Craig", "hiring", 0, about=about)


def test_the_opening_is_generic_without_a_workflow() -> None:
    text = opening(CRAIG, "", 1, staff=True)
    assert CRAIG in text and "there is" not in text


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ([("unread", True), ("starred", True)], "mark the message as unread and starred"),
        ([("unread", False)], "mark the message as read"),
        ([("archived", False)], "mark the message as not archived"),
        ([("insurance", False)], "turn off insurance for the message"),
        ([("sms enabled", True)], "enable sms for the message"),
        ([("is active", True), ("waiting room", True)],
         "mark the message as active, and turn on waiting room for it"),
    ],
)  # fmt: skip
def test_yes_no_changes_read_as_states(flags: list[tuple[str, bool]], said: str) -> None:
    assert flag_clauses(flags, "the message") == said


def _update_plan(values: list[list[str]]) -> list[dict[str, Any]]:
    email = "ronald.garcia@changfisher.com"
    return [
        _find("mail.list", "message", [["sender email", f'"{email}"']], sender=email),
        _step("mail.update", {"kind": "update", "target": "the message", "values": values}),
    ]


@pytest.mark.parametrize("variant", range(3))
def test_an_update_says_yes_no_fields_as_marks_not_as_true_or_false(variant: int) -> None:
    goal = 'Ronald Garcia ("ronald.garcia@changfisher.com") wrote in.'
    only = render_instruction(_update_plan([["unread", "true"]]), goal=goal, variant=variant)
    assert "as unread" in only and "true" not in only, only
    mixed = render_instruction(
        _update_plan([["label", '"Billing"'], ["starred", "false"]]), goal=goal, variant=variant
    )
    assert '"Billing"' in mixed and "mark it as not starred" in mixed, mixed
    assert "false" not in mixed, mixed


def _on(summary: str, tool: str, noun: str) -> str:
    info = SimpleNamespace(noun=noun)
    writes = Writes.__new__(Writes)
    writes._coll = lambda service, collection: info  # type: ignore[method-assign]
    entity = SimpleNamespace(service="s", collection="c", label=noun, the=f"the {noun}")
    return writes._on(summary, entity, tool)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("summary", "tool", "noun", "said"),
    [
        # fine print of the description gives way to the tool's own name
        ("refund a received return to the original payment method or as store credit",
         "refund_return_request", "return request", "refund the return request"),
        ("check in every passenger within 24 hours of departure", "check_in_booking",
         "booking", "check in the booking"),
        # no object named and nothing to tidy: the name says it
        ("close without merging", "close_pull_request", "pull request",
         "close the pull request"),
        # the object is the record under another word: the name's verb
        ("record a declined quote", "decline_quote", "quote", "decline the quote"),
        # the name's extra word is the description's adjective: the description's verb
        ("cancel a pending order", "cancel_pending_order", "order", "cancel the order"),
        # short and clear: the description stays
        ("hang up a call", "end_call", "call", "hang up the call"),
        ("dispatch a technician", "dispatch_work_order", "work order",
         "dispatch a technician for the work order"),
        # a phrase the renderer tidies ("submit the expense report for approval") stays
        ("submit for approval", "submit_expense_report", "expense report",
         "submit for approval for the expense report"),
    ],
)  # fmt: skip
def test_an_action_is_named_by_what_it_does(summary: str, tool: str, noun: str, said: str) -> None:
    assert _on(summary, tool, noun) == said


def test_an_escalation_only_raises_urgency() -> None:
    """Nobody escalates a ticket by lowering its priority, and no request lowers a case's
    urgency; a new record of another workflow, and other fields, choose freely."""
    priority = Param("priority", False, "string", enum=("low", "medium", "high", "urgent"))
    for seed in range(30):
        rng = random.Random(seed)
        now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
        raised = literal(priority, rng, now, avoid="medium", topic="escalation")
        assert raised in ("high", "urgent")
        assert literal(priority, rng, now, avoid="urgent", topic="incident") is None
        assert literal(priority, rng, now, topic="escalation") in ("medium", "high", "urgent")
    kept = {
        literal(priority, random.Random(s), now, avoid="medium", topic="refund") for s in range(30)
    }
    assert kept == {"high", "urgent"}
    free = {literal(priority, random.Random(s), now, topic="refund") for s in range(30)}
    assert "low" in free
    assert more_urgent("priority", ["p1", "p2", "p4"], "p3") == ["p1", "p2"]
    assert more_urgent("status", ["low", "high"], "high") == ["low", "high"]
    assert more_urgent("priority", ["sev1", "sev2"], "sev2") == ["sev1", "sev2"]  # unknown scale


def test_a_record_read_from_a_list_on_another_is_named_once() -> None:
    """ "Ann's order" (the one her user record lists), not "the order referenced by the
    order listed on the user"."""
    email = '"ann.lee@example.com"'
    plan = [
        _find("retail.find_user", "user", [["email", email]], email="ann.lee@example.com"),
        _step(
            "retail.get_order",
            {
                "kind": "fetch",
                "noun": "order",
                "label": "order",
                "via": "the order listed on the user",
            },
        ),
        _step("retail.cancel_pending_order", {"kind": "action", "summary": "cancel the order"}),
    ]
    text = render_instruction(plan, goal=f"Ann Lee ({email}) wrote in.", variant=0)
    assert "Cancel Ann's order in Retail." in text, text
    assert "referenced by" not in text and "listed on" not in text, text


@pytest.mark.parametrize("variant", range(3))
def test_values_set_on_the_subject_s_own_record_are_what_they_asked(variant: int) -> None:
    """Rooms set on Ann's own reservation are her request, and the request says so; a value
    taken from another record needs no such reason."""
    email = '"ann.lee@example.com"'
    rooms = [["rooms", "2"]]
    plan = [
        _find("hotels.list", "reservation", [["guest email", email]], guest_email=email[1:-1]),
        _step("hotels.update", {"kind": "update", "target": "the reservation", "values": rooms}),
    ]
    text = render_instruction(plan, goal=f"Ann Lee ({email}) wrote in.", variant=variant)
    assert "As Ann asked, " in text and "Please as" not in text, text
    assert "their reservation" in text and "Ann's reservation" not in text, text
    plan[1]["text"]["values"] = [["guest email", "the reservation's guest email"]]
    text = render_instruction(plan, goal=f"Ann Lee ({email}) wrote in.", variant=variant)
    assert "asked" not in text, text
    # how we track the work (a ticket's status, its assignee) is ours, never theirs to ask
    plan[1]["text"]["values"] = [["status", '"pending"'], ["assignee email", '"jo@ex.com"']]
    text = render_instruction(plan, goal=f"Ann Lee ({email}) wrote in.", variant=variant)
    assert "asked" not in text and "pending" in text, text


@pytest.mark.parametrize("variant", range(3))
def test_a_person_the_work_is_about_asked_for_none_of_it(variant: int) -> None:
    """A candidate's source set in a hiring step is ours to set, not what they asked: the
    request does not say "as Ann asked" of it."""
    email = '"ann.lee@example.com"'
    plan = [
        _find("recruiting.list", "candidate", [["email", email]], email=email[1:-1]),
        _step(
            "recruiting.update",
            {
                "kind": "update",
                "target": "the candidate",
                "values": [["source", '"job_board"']],
                "unasked": True,
            },
        ),
    ]
    text = render_instruction(plan, goal=f"Ann Lee ({email}) is a candidate.", variant=variant)
    assert "asked" not in text and '"job_board"' in text, text


def test_a_link_is_carried_only_into_a_link_of_the_same_purpose() -> None:
    """A candidate's LinkedIn URL does not become an interview's meeting URL."""
    assert not _same_purpose("meeting_url", "linkedin_url", "url")
    assert not _same_purpose("meeting_url", "join_url", "url")
    assert _same_purpose("website_url", "website", "url")
    assert _same_purpose("url", "profile_url", "url")  # a bare link takes any


def test_the_address_a_receipt_goes_to_is_the_payer() -> None:
    assert person_role("receipt email") == "payer"
    assert person_role("customer email") == "customer"


@pytest.mark.parametrize("variant", range(4))
def test_a_time_value_is_labelled_as_a_time(variant: int) -> None:
    """ "start time "2026-03-10T10:00:00Z"", not "starts at: ..."."""
    goal = 'Ronald Garcia ("ronald.garcia@changfisher.com") wrote in.'
    values = [["title", '"Check-in"'], ["starts at", '"2026-03-10T10:00:00Z"'],
              ["pickup at", '"2026-03-11T10:00:00Z"']]  # fmt: skip
    note = {"kind": "create", "summary": "create an event", "label": "new event", "values": values}
    stated = {"title": "Check-in", "starts_at": "2026-03-10T10:00:00Z"}
    plan = [_step("calendar.create_event", note, stated)]
    text = render_instruction(plan, goal=goal, variant=variant)
    assert ("start time" in text or "starting " in text) and "pickup time" in text, text
    assert "starts at" not in text and "pickup at" not in text, text


def test_an_assignment_names_who_takes_it() -> None:
    """ "Reassign the issue assigned to Keith to Marvin", not "Assign the issue assigned to
    Keith (assignee email: Marvin ...)"."""
    keith = '"keith.howard@changfisher.com"'
    marvin = 'Marvin Cabrera ("marvin.cabrera@changfisher.com")'
    handed = {
        "kind": "action",
        "summary": "assign the issue",
        "values": [["assignee email", marvin]],
    }
    plan = [
        _find("issues.list", "issue", [["assignee email", keith]], assignee_email=keith.strip('"')),
        _step("issues.assign_issue", handed, {"assignee_email": "marvin.cabrera@changfisher.com"}),
    ]
    text = render_instruction(plan, goal=f"Keith Howard ({keith}) is away.", variant=0)
    assert f"Reassign the issue assigned to Keith in Issues to {marvin}." in text, text
    found = [dict(step) for step in plan]
    reporter = [["assignee email", "the reporter email of the issue"]]
    found[1] = {
        **plan[1],
        "binds": {"assignee_email": {"from": "step", "step": 0, "path": "reporter_email"}},
        "text": {**plan[1]["text"], "values": reporter},
    }
    text = render_instruction(found, goal=f"Keith Howard ({keith}) is away.", variant=0)
    assert "Issues to the issue's reporter." in text, text


def test_a_value_found_in_a_list_is_one_of_it() -> None:
    """ "the user whose email is one of the cc recipients of the message", not "... is the cc
    recipients of the message"."""
    subject = '"Thanks for being a customer"'
    in_cc = {"email": {"from": "step", "step": 0, "path": "cc[0]"}}
    plan = [
        _find("gmail.search", "message", [["subject", subject]], query=subject.strip('"')),
        _step(
            "retail.find_user",
            {"kind": "lookup", "noun": "user", "nouns": "users", "label": "user",
             "by": [["email", "the cc recipients of the message"]]},
            **in_cc,
        ),
        _step("retail.cancel_order", {"kind": "action", "summary": "suspend the user"}),
    ]  # fmt: skip
    text = render_instruction(plan, goal=f"About the message {subject}:", variant=0)
    assert "is one of the cc recipients of the message" in text, text


def test_incident_words_claim_no_step_the_plan_may_not_have_taken() -> None:
    """An incident suspends, resumes, restarts or rolls back: its words fit any of them
    ("Incident: service restored" logged a suspended line)."""
    said = [
        *topic_texts("incident", "body:message"),
        *topic_texts("incident", "body:message", internal=True),
        *topic_texts("incident", "body:comment"),
        *topic_texts("incident", "email_subject"),
        *topic_texts("incident", "email_subject", internal=True),
    ]
    assert said
    claims = ("restor", "restart", "rolled back", "fixed", "back to normal")
    assert not [t for t in said if any(c in t.lower() for c in claims)], said


def test_billing_words_claim_no_step_the_plan_may_not_have_taken() -> None:
    """Billing sends an invoice, takes a payment or voids one: what its messages say fits
    any of them ("Thanks, we have received your payment." after sending an invoice did not)."""
    said = [
        *topic_texts("billing", "body:message"),
        *topic_texts("billing", "body:message", internal=True),
        *topic_texts("billing", "body:comment"),
        *topic_texts("billing", "email_subject"),
    ]
    assert said
    claims = ("received", "gone out", "attached", "sent", "paid", "void")
    assert not [t for t in said if any(c in t.lower() for c in claims)], said


@pytest.mark.parametrize(
    ("workflow", "claims"),
    [
        ("renewal", ("before we send", "will send", "review the terms")),
        ("hiring", ("next stage", "feedback", "interview", "offer")),
        ("expenses", ("to review", "approve", "reject")),
        ("fulfilment", ("left the warehouse", "shipped", "tracking")),
        ("procurement", ("approved", "sent to")),
        # asking a colleague to chase the customer the request just wrote to is redundant
        ("follow-up", ("could you follow up", "can you follow up")),
    ],
)
def test_what_a_colleague_is_told_claims_no_step_the_plan_may_not_have_taken(
    workflow: str, claims: tuple[str, ...]
) -> None:
    """A note to a colleague fits whichever of the workflow's steps the plan took: no
    "please review the terms before we send" after the quote was sent, no "to review" on a
    report the request approved, no "next stage" after a hire."""
    said = [
        *topic_texts(workflow, "body:message", internal=True),
        *topic_texts(workflow, "email_subject", internal=True),
    ]
    if workflow == "hiring":  # ... nor what the candidate reads, nor our notes and to-dos
        said += [*topic_texts(workflow, "body:message"), *topic_texts(workflow, "email_subject")]
        said += [*topic_texts(workflow, "body:comment"), *topic_texts(workflow, "task_title")]
        said += topic_texts(workflow, "ticket_subject")
    assert said
    assert not [t for t in said if any(c in t.lower() for c in claims)], said


@pytest.mark.parametrize(
    ("name", "kind", "step"),
    [
        ("duration_minutes", "integer", 15),
        ("discount_percent", "number", 5),
        ("points", "integer", 50),
    ],
)
def test_a_stated_amount_is_round_as_people_say_it(name: str, kind: str, step: int) -> None:
    """A person asks for a 45-minute interview or a 15% discount, not 97 minutes or 36.37%."""
    rng = random.Random(0)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    values = [literal(Param(name, True, kind), rng, now) for _ in range(30)]
    assert len(set(values)) > 2 and all(float(v) % step == 0 for v in values), values


def test_a_message_to_the_colleague_the_work_is_for_reports_it_done() -> None:
    """Written to the colleague who asked (or whose plate it is), a message says the work is
    done; it does not hand them their own case ("it is yours now, with priority")."""
    from library.compose import ComposeConfig, make_env
    from library.compose.topics import INTERNAL_TEXTS
    from tests.compose_walks import finished_walks
    from tests.libraries import bundled_library

    assert topic_texts("escalation", "body:message", internal=True, reporting=True) != (
        topic_texts("escalation", "body:message", internal=True)
    )
    library = bundled_library(["helpdesk", "mail", "todo", "customer_success", "issue_tracker"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))
    handing = {t for bank in INTERNAL_TEXTS.values() for t in bank.get("body:message", ())}
    reported = replies = 0
    for walker in finished_walks(env, 200, "report"):
        if walker.motif is None or walker.motif.name in ("onboarding", "offboarding"):
            continue
        subjects = {env.identity("email", s) for s in walker.subjects()}
        if not any(env.is_staff("email", s) for s in subjects):
            continue
        for step in walker.steps:
            to = step.args.get("to")
            body = step.args.get("body_text")
            if step.tool.name == "reply_to_message" and step.entity is not None:
                to = [step.entity.record["from"]]  # a reply goes to the message's sender
                replies += body is not None and env.identity("email", to[0]) in subjects
            if isinstance(to, list) and body and {env.identity("email", t) for t in to} <= subjects:
                reported += 1
                assert body not in handing, (to, body)
    assert reported >= 3 and replies >= 1, (reported, replies)


def test_an_issue_an_escalation_files_is_the_escalated_case_s_fix() -> None:
    """An issue filed in an escalation is about the case ("Fix for an escalated case"), not
    some feature of the project ("Add CSV export to the reports page")."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    own = set(topic_texts("escalation", "issue_summary"))
    for seed in range(10):
        said = literal(
            Param("summary", True, "string"),
            random.Random(seed),
            now,
            where="issue_tracker.issues",
            topic="escalation",
        )
        assert said in own, said


def test_a_record_found_by_its_person_s_name_is_theirs() -> None:
    """A request that starts from a person's name (a shipment found by its recipient) is
    about that person ("Vanessa Bird wrote in ... Vanessa's shipment"), never about a
    record called by a name ("the shipment "Vanessa Bird"")."""
    from library.compose import ComposeConfig, compose_tasks, make_env
    from tests.libraries import bundled_library

    library = bundled_library(["shipping", "identity", "todo", "mail", "docs", "meetings"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    named = 0
    for task in compose_tasks([], 60, env=env, seed=3).tasks:
        said = next(iter(task.gold_plan[0]["arguments"].values()), None)  # (a listing: none)
        person = env.pool.person_by_name(str(said)) if isinstance(said, str) else None
        if person is None:
            continue
        named += 1
        # (their name may be a value the plan writes, notes "Vanessa Bird", never a record's)
        assert not re.search(rf'\bthe [a-z ]+ "{re.escape(said)}"', task.instruction), (
            task.instruction
        )
        assert person.full_name in task.instruction.split(".")[0], task.instruction
        theirs = (f"{person.first_name}'s", f"as {person.first_name} asked")  # "... their order"
        # (a hand-over of their work calls them "they" after the opening: "their document")
        body = re.split(r"(?<=[.!?])\s+", task.instruction, maxsplit=1)[-1].replace("As ", "as ")
        assert any(t in body for t in theirs) or re.search(r"\btheir\b", body), task.instruction
    assert named >= 3


def test_a_reason_fits_what_is_called_off() -> None:
    """An order is cancelled because it was ordered by mistake, not "moved to another
    date"; a line an incident suspends was lost or misused, not put on hold for a trip."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for seed in range(12):
        rng = random.Random(seed)
        said = literal(Param("reason", True, "string"), rng, now, where="retail.orders")
        assert said not in ("Moved to another date", "Budget was not approved"), said
        line = literal(
            Param("reason", True, "string"), rng, now, where="telecom.lines", topic="incident"
        )
        assert line in topic_texts("incident", "suspension_reason"), line


def test_our_notes_on_a_record_are_not_what_the_customer_asked() -> None:
    """Notes a plan writes on a customer's call or ticket are ours ("Left a voicemail about
    the renewal quote."): the request does not say the customer asked for them."""
    import re as regex

    from library.compose import ComposeConfig, compose_tasks, make_env
    from tests.libraries import bundled_library

    library = bundled_library(["mail", "voice", "helpdesk", "crm", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    noted = 0
    for seed in (4, 5, 6):  # a further batch where the first has few notes set
        for task in compose_tasks([], 60, env=env, seed=seed).tasks:
            for sentence in regex.split(r"(?<=\.)\s", task.instruction):
                if regex.search(r"set (?:the )?notes|its notes is", sentence):
                    noted += 1
                    assert not regex.search(r"\b[Aa]s \w+ asked\b", sentence), sentence
        if noted >= 3:
            break
    assert noted >= 3


def test_a_leaver_found_by_name_is_named_in_their_roles() -> None:
    """Larry's user record, found by his name, gives his address: the events he organizes
    are "organized by Larry", not those "whose organizer email is the user's email"."""
    plan = [
        _find("identity.list_users", "user", [["full name", '"Larry Owens"']]),
        _step("identity.suspend_user", {"kind": "action", "summary": "suspend the user"}),
        _step(
            "calendar.list_events",
            {
                "kind": "lookup",
                "noun": "event",
                "nouns": "events",
                "label": "event",
                "by": [["organizer email", "the email of the user"]],
            },
            organizer_email={"from": "step", "step": 0, "path": "data[0].email"},
        ),
        _step(
            "calendar.update_event",
            {"kind": "update", "target": "the event", "values": [["organizer email", CRAIG]]},
        ),
    ]
    for first in (plan[0], {**plan[0], "text": {**plan[0]["text"], "search": '"Larry Owens"'}}):
        if "search" in first["text"]:  # found by a search for his name, or by his name
            del first["text"]["by"]
        text = render_instruction([first, *plan[1:]], goal="Larry Owens is leaving.", variant=0)
        assert "organized by Larry" in text, text
        assert "the user's email" not in text and "email of the user" not in text, text
    # ... where the record is not theirs by name, the address is still said as the record's
    plan[0] = _find("identity.list_users", "user", [["department", '"Sales"']])
    text = render_instruction(plan, goal="Sales needs a clean-up.", variant=0)
    assert "organized by Larry" not in text, text


def test_a_reply_goes_to_the_message_not_to_its_sender() -> None:
    """A reply is to Tyler's message ("Reply to Tyler's message"), never "to the sender of
    the message from Tyler" (its sender is Tyler)."""
    from library.compose import ComposeConfig, compose_tasks, make_env
    from tests.libraries import bundled_library

    library = bundled_library(["mail", "helpdesk", "todo", "crm", "voice"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    replies = 0
    for task in compose_tasks([], 60, env=env, seed=5).tasks:
        if any(s["tool"] == "mail__reply_to_message" for s in task.gold_plan):
            replies += 1
            assert "sender of" not in task.instruction, task.instruction
            assert "eply to " in task.instruction, task.instruction
    assert replies >= 5, replies


def test_a_record_found_by_a_name_is_not_picked_by_it_again() -> None:
    """A deployment picked from a list by its name is "the deployment "web" in Kubernetes",
    not "... (the one whose name is "web")": the rule that tells it from the others is the
    value it is found by."""
    plan = [
        {
            **_find("kubernetes.get_deployments", "deployment", [["name", '"web"']]),
            "select": {"rule": "matching", "field": "name", "value": "web"},
        },
        _step(
            "kubernetes.scale_deployment",
            {"kind": "action", "summary": "scale the deployment", "values": [["replicas", "3"]]},
        ),
    ]
    text = render_instruction(plan, goal="The deployment needs attention.", variant=0)
    assert text.count('"web"') == 1 and "whose name is" not in text, text


@pytest.mark.parametrize(
    ("field", "value", "said", "unsaid"),
    [
        ("status", "on_hold", "the on-hold ticket with Ann", "whose status"),
        ("priority", "high", "the high-priority ticket", "whose priority"),
        ("currency", "AUD", "the AUD ticket", "whose currency"),
        ("stage", "negotiation", "the negotiation-stage ticket", "whose stage"),
        # "the new ticket" would read as one just created: the value is quoted instead
        ("status", "new", "marked new", "new ticket"),
        ("channel", "web_form", "that came in by web form", "web-form"),
        # "the open ticket" when another is "new" (open too, in plain words): quoted
        ("status", "open", "that's open", "open ticket"),
    ],
)
def test_a_record_picked_by_its_state_is_named_by_it(
    field: str, value: str, said: str, unsaid: str
) -> None:
    """ "Close the on-hold ticket with Ann as requester", not "... (the one whose status is
    "on_hold")": a state, a priority, a currency or a stage is said before the noun, as a
    person says it, and the value the request states is what composition checks it for."""
    ann = 'Ann Lee ("ann.lee@example.com")'
    plan = [
        {
            **_find("helpdesk.list_tickets", "ticket", [["requester email", ann]]),
            "select": {"rule": "matching", "field": field, "value": value},
        },
        _step("helpdesk.close_ticket", {"kind": "action", "summary": "close the ticket"}),
    ]
    text = render_instruction(plan, goal="A ticket needs closing.", variant=0)
    assert said in text and unsaid not in text, text
    assert matching_literal(field, value) in text


@pytest.mark.parametrize("variant", range(3))
@pytest.mark.parametrize(
    ("field", "said"),
    [("owner email", ("the owner of", "over to")), ("assignee email", ("reassign",))],
)
def test_a_record_handed_to_a_colleague_is_said_as_a_hand_over(
    variant: int, field: str, said: tuple[str, ...]
) -> None:
    """ "Make Craig the owner of the deal owned by Larry" / "reassign the ticket to Craig",
    not "set the owner email of the deal ... to Craig": the field is how the tool stores
    it, the hand-over is what a person asks for."""
    plan = [
        _find("crm.list_deals", "deal", [["stage", '"Negotiation"']], stage="Negotiation"),
        _step(
            "crm.update_deal",
            {"kind": "update", "target": "the deal", "values": [[field, CRAIG]]},
            {field.replace(" ", "_"): "craig.thomas@changfisher.com"},
        ),
    ]
    text = render_instruction(plan, goal="Larry Owens is leaving.", variant=variant)
    assert CRAIG in text and field not in text, text
    assert any(s.lower() in text.lower() for s in said), text


@pytest.mark.parametrize("variant", range(3))
def test_what_must_stay_as_it_is_is_said_once_and_plainly(variant: int) -> None:
    """ "Leave every other ticket as it is, and the contacts too", not "..., and don't
    create, change or delete any contacts": each guarded kind is named once, in one plain
    clause, and the collection the work only reads is said to stay as it is."""
    plan = [
        {
            **_find("helpdesk.list_tickets", "ticket", [["requester email", CRAIG]]),
            "select": {"rule": "latest", "field": "created_at"},
        },
        _step("helpdesk.close_ticket", {"kind": "action", "summary": "close the ticket"}),
    ]
    guards = [
        {"scope": "others", "service": "Helpdesk", "noun": "ticket", "nouns": "tickets"},
        {"scope": "collection", "service": "CRM", "noun": "contact", "nouns": "contacts"},
        {"scope": "collection", "service": "Mail", "noun": "message", "nouns": "messages"},
    ]
    text = render_instruction(plan, guards, goal="A ticket needs closing.", variant=variant)
    last = text.rsplit(". ", 1)[-1]
    assert "other ticket" in last and "contacts and messages" in last, text
    assert "created, changed or deleted" not in text and last.lower().count("leave") <= 1, text


def test_a_role_written_in_capitals_is_said_so() -> None:
    """ "the account with Ann as CSM", not "... as csm"; a sales rep stays a "rep"."""
    ann = 'Ann Lee ("ann.lee@example.com")'
    plan = [
        _find("customer_success.list_accounts", "account", [["csm email", ann]]),
        _step("customer_success.archive", {"kind": "action", "summary": "archive the account"}),
    ]
    text = render_instruction(plan, goal="An account needs archiving.", variant=0)
    assert "as CSM" in text and "csm" not in text, text
    plan[0] = _find("crm.list_deals", "deal", [["rep email", ann]])
    text = render_instruction(plan, goal="A deal needs archiving.", variant=0)
    assert "as rep" in text, text


@pytest.mark.parametrize("topic", ["follow-up", "billing", "refund", "escalation", "renewal"])
def test_a_call_s_notes_are_about_the_work_at_hand(topic: str) -> None:
    """Notes written on a call in a billing task are about the bill, not "Customer called
    about a late delivery", and claim no conversation (the call may have gone to
    voicemail)."""
    notes = Param("notes", True, "string")
    rng, now = random.Random(7), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    for _ in range(10):
        said = literal(notes, rng, now, where="voice.calls", topic=topic)
        assert said in topic_texts(topic, "body:call"), said
        assert not re.search(r"\b(spoke|called|answered|walked)\b", str(said).lower()), said


def test_a_place_changed_stays_in_its_region() -> None:
    """A rental picked up at JFK is not to be returned in Rotterdam: a new branch for a
    record's place is one in the same region as the place it replaces."""
    from library.seed.vocab import RENTAL_BRANCHES

    place = Param("dropoff_location", False, "string")
    rng, now = random.Random(3), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    for old in ("JFK airport", "Berlin Hauptbahnhof", "Amsterdam Schiphol"):
        for _ in range(8):
            new = literal(place, rng, now, avoid=old, where="car_rental.rentals")
            assert new != old and RENTAL_BRANCHES[new] == RENTAL_BRANCHES[old], (old, new)


def test_a_delivery_problem_never_slows_the_delivery() -> None:
    """A late parcel is sent faster, not downgraded from overnight to ground: a delivery
    problem sets a service level above the one it ships at (or none where it is already
    the fastest)."""
    level = Param("service_level", False, "string", enum=("ground", "express", "overnight"))
    rng, now = random.Random(5), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    for _ in range(10):
        assert literal(level, rng, now, avoid="ground", topic="fulfilment") in (
            "express", "overnight"
        )  # fmt: skip
        assert literal(level, rng, now, avoid="express", topic="fulfilment") == "overnight"
        assert literal(level, rng, now, avoid="overnight", topic="fulfilment") is None


@pytest.mark.parametrize(
    ("description", "said"),
    [
        ("Send a new email immediately. It is filed in Sent.", "send a new email"),
        ("Queues a report export asynchronously", "queue a report export"),
        ("Creates a ticket and returns it", "create a ticket"),
    ],
)
def test_what_a_tool_does_is_said_without_how_the_system_does_it(
    description: str, said: str
) -> None:
    """ "Send a new email", not "send a new email immediately": how the system carries a
    call out is the tool description's fine print, not part of a request."""
    from library.compose.catalog import summary

    assert summary(description) == said


@pytest.mark.parametrize("variant", range(3))
def test_a_guarded_kind_called_as_a_field_the_plan_sets_names_its_service(variant: int) -> None:
    """Beside a to-do whose notes the plan sets, "leave the notes as they are" reads as
    that field: the Notes app's notes are named with their service."""
    plan = [
        _step(
            "todo.create_task",
            {
                "kind": "create",
                "summary": "add a new task",
                "label": "task",
                "values": [["title", '"Billing update"'], ["notes", '"Invoice 7"']],
            },
        ),
    ]
    guards = [{"scope": "collection", "service": "Notes", "noun": "note", "nouns": "notes"}]
    text = render_instruction(plan, guards, goal="Billing needs a task.", variant=variant)
    assert "notes in Notes" in text, text


def test_a_request_of_one_step_says_no_first() -> None:
    """ "First, update Theresa's shipment." with nothing after it reads as cut off."""
    plan = [_step("shipping.update_shipment", {"kind": "update", "label": "shipment",
                                               "values": [["carrier", '"ups"']]})]  # fmt: skip
    for variant in range(10):
        text = render_instruction(plan, goal="A shipment needs a change.", variant=variant)
        assert "First," not in text, text


def test_a_value_the_request_states_is_said_as_stated() -> None:
    """A to-do's notes carry the order number the user searched by: 'notes: "#72167"', not
    "notes: the order's order number" right after "find the order #72167" (the value is
    still checked as read from the order); an address keeps its own naming."""
    from library.compose.binding import _as_said
    from library.compose.context import Entity, Fact
    from library.compose.plan import Bound

    order = Entity("storefront", "orders", "ord_1", {}, 0, "data", "order")
    number = Bound.of(Fact(order, "order_number", "#72167", "key:order_number", "string"))
    email = Bound.of(Fact(order, "customer_email", "ann@x.com", "email", "string"))
    assert _as_said(number, {"#72167"}) == '"#72167"'
    assert _as_said(number, {"#10000"}) == "the order number of the order"
    assert _as_said(email, {"ann@x.com"}) == "the customer email of the order"


def test_a_pipeline_moves_one_stage_on() -> None:
    """An application moves from "applied" to "screen", never straight to "hired"; a deal
    from "proposal" to "negotiation" (or is lost): a stage is not skipped."""
    stages = ("applied", "screen", "interview", "offer", "hired", "rejected")
    moved = forward("stage", stages, list(stages), "applied", "hiring")
    assert "hired" not in moved and "screen" in moved, moved
    assert "hired" in forward("stage", stages, list(stages), "offer", "hiring")
    deal = ("prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost")
    assert set(forward("stage", deal, list(deal), "proposal", "renewal")) == {
        "negotiation", "closed_lost"
    }  # fmt: skip


def test_a_date_the_request_sets_is_a_working_day() -> None:
    """A meeting, a due date or a start the user asks for falls on a working day: never a
    Saturday, Christmas Day or New Year's Day."""
    rng = random.Random(0)
    seen = set()
    for start in range(0, 365, 3):
        now = dt.datetime(2026, 1, 1, 9, tzinfo=dt.UTC) + dt.timedelta(days=start)
        for p in (
            Param("starts_at", True, "string", fmt="date-time"),
            Param("due_date", True, "string", fmt="date"),
        ):
            day = dt.date.fromisoformat(str(literal(p, rng, now))[:10])
            seen.add(day.weekday())
            assert day.weekday() < 5, (p.name, day)
            assert (day.month, day.day) not in {(1, 1), (12, 24), (12, 25), (12, 26), (12, 31)}
    assert seen == {0, 1, 2, 3, 4}, seen


def test_a_channel_found_through_a_colleague_s_message_is_where_they_wrote() -> None:
    """ "the channel where Jessica wrote", not "the channel of the message written by
    Jessica"; a message picked by a rule keeps its rule."""
    email = '"jessica.ray@changfisher.com"'

    def plan(by: list[list[str]]) -> list[dict[str, Any]]:
        return [
            _find("chat.list_messages", "message", by, author_email="jessica.ray@changfisher.com"),
            _step(
                "chat.get_channel",
                {
                    "kind": "fetch",
                    "noun": "channel",
                    "label": "channel",
                    "via": "the channel ID of the message",
                },
            ),
            _step(
                "chat.create_message",
                {
                    "kind": "create",
                    "summary": "add a new message",
                    "for": ["the channel"],
                    "values": [["text", '"On it."']],
                    "label": "new message",
                },
            ),
        ]

    goal = f"Jessica Ray ({email}) is out today."
    text = render_instruction(plan([["author email", email]]), goal=goal, variant=0)
    assert "where Jessica wrote" in text and "message written by" not in text, text
    other = render_instruction(plan([["topic", '"launch"']]), goal="Help out.", variant=0)
    assert "where" not in other and "of the message" in other, other
