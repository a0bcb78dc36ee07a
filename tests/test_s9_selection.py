"""Selection rules and answers a person would state: one of several records picked by what
matters for the work, in their words ("their next reservation", "the one that's due first",
"the larger payment"), never by a bare size ("the issue with the most story points"); a
value asked back with the reason it is wanted ("... so I can keep them posted"), and none
asked that no one needs (an order's subtotal, the address the plan just wrote to)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from library.compose import ComposeConfig, ComposeEnv, make_env
from library.compose.catalog import CollectionInfo, FieldMeta
from library.compose.coherence import set_in_motion
from library.compose.compose import _answer_facts, asked_in_turn
from library.compose.realism import (
    EARLIEST,
    LARGEST,
    LATEST,
    MATCHING,
    SMALLEST,
    Rule,
    answer_purpose,
    answer_use,
    apply_rule,
    picks_by,
    rule_options,
    rule_text,
    rule_words,
    wordings,
)
from library.compose.render import render_instruction, required_literals
from library.compose.walk import Walker
from tests.compose_walks import finished_walks, initial_world
from tests.libraries import bundled_library

NOW = "2026-07-20T09:00:00+00:00"
GOAL = 'Edward Cook ("edward.cook@myers.com.au") got in touch about a travel booking.'


def _info(name: str, **fields: tuple[str | None, str | None]) -> CollectionInfo:
    info = CollectionInfo("svc", name, dict)
    info.fields = {f: FieldMeta(f, t, k) for f, (t, k) in fields.items()}
    return info


# -- which rules a person states, and how ---------------------------------------------------


def test_work_is_picked_by_when_it_is_due_first_never_last() -> None:
    records = [{"id": "a", "due_date": "2026-08-01"}, {"id": "b", "due_date": "2026-08-05"}]
    info = _info("ctas", due_date=("string", "date"))
    assert rule_words(Rule(EARLIEST, "due_date"), records, info, NOW) == ("", "that's due first")
    assert rule_words(Rule(LATEST, "due_date"), records, info, NOW) is None


def test_a_booking_ahead_is_the_next_one_and_a_past_one_is_no_reason() -> None:
    """ "their next reservation" where every one starts after now; the earliest of stays
    already begun is no reason to pick one, nor is the last of them."""
    info = _info("reservations", check_in=("string", "date"))
    ahead = [{"id": "a", "check_in": "2026-08-01"}, {"id": "b", "check_in": "2026-07-25"}]
    assert rule_words(Rule(EARLIEST, "check_in"), ahead, info, NOW) == ("next", "")
    assert rule_words(Rule(LATEST, "check_in"), ahead, info, NOW) is None
    past = [{"id": "a", "check_in": "2026-07-01"}, {"id": "b", "check_in": "2026-07-25"}]
    assert rule_words(Rule(EARLIEST, "check_in"), past, info, NOW) is None
    # a colleague who starts next is no "next employee"
    staff = _info("employees", start_date=("string", "date"))
    hires = [{"id": "a", "start_date": "2026-08-01"}, {"id": "b", "start_date": "2026-09-01"}]
    assert rule_words(Rule(EARLIEST, "start_date"), hires, staff, NOW) is None
    # a billing period's start is bookkeeping
    subs = _info("subscriptions", current_period_start=("string", "date"))
    periods = [{"id": "a", "current_period_start": d} for d in ("2026-08-01", "2026-09-01")]
    assert rule_words(Rule(EARLIEST, "current_period_start"), periods, subs, NOW) is None


def test_renewals_expiries_and_invoices_are_said_by_what_comes_first_or_last() -> None:
    accounts = [
        {"id": "a", "renewal_date": "2026-09-01"},
        {"id": "b", "renewal_date": "2026-10-01"},
    ]
    info = _info("accounts", renewal_date=("string", "date"))
    assert rule_words(Rule(EARLIEST, "renewal_date"), accounts, info, NOW) == (
        "",
        "that's up for renewal first",
    )
    invoices = [{"id": "a", "issue_date": "2026-06-01"}, {"id": "b", "issue_date": "2026-07-01"}]
    info = _info("invoices", issue_date=("string", "date"))
    assert rule_words(Rule(LATEST, "issue_date"), invoices, info, NOW) == (
        "more recently issued",
        "",
    )
    three = [*invoices, {"id": "c", "issue_date": "2026-05-01"}]
    assert rule_words(Rule(LATEST, "issue_date"), three, info, NOW) == ("most recently issued", "")
    assert rule_words(Rule(EARLIEST, "issue_date"), three, info, NOW) is None


def test_sizes_are_no_reason_to_pick_one_though_they_single_it_out() -> None:
    """Seats, story points and guests tell records apart (``rule_options`` offers them) but
    no one says "the subscription with the most seats": no words, so no rule."""
    info = _info("issues", story_points=("integer", None), seats=("integer", None))
    records = [
        {"id": "a", "story_points": 3, "seats": 10},
        {"id": "b", "story_points": 8, "seats": 4},
    ]
    offered = {(r.kind, r.field) for r in rule_options(records, info)}
    assert (LARGEST, "story_points") in offered and (LARGEST, "seats") in offered
    for rule in rule_options(records, info):
        assert rule_words(rule, records, info, NOW) is None, rule
    assert not picks_by("seats", None, 10) and not picks_by("story_points", None, 3)


def test_money_picks_the_largest_matter_or_the_cheapest_price() -> None:
    info = _info(
        "orders", total=("number", "money"), subtotal=("number", "money"), price=("number", "money")
    )
    two = [
        {"id": "a", "total": 120.0, "subtotal": 100.0},
        {"id": "b", "total": 60.0, "subtotal": 50.0},
    ]
    assert rule_words(Rule(LARGEST, "total"), two, info, NOW) == ("larger", "")
    three = [*two, {"id": "c", "total": 30.0, "subtotal": 25.0}]
    assert rule_words(Rule(LARGEST, "total"), three, info, NOW) == ("largest", "")
    # "the smallest order" is no one's pick; a part of the amount says nothing either
    assert rule_words(Rule(SMALLEST, "total"), three, info, NOW) is None
    assert rule_words(Rule(LARGEST, "subtotal"), three, info, NOW) is None
    prices = [{"id": "a", "price": 9.0}, {"id": "b", "price": 4.0}, {"id": "c", "price": 7.0}]
    assert rule_words(Rule(SMALLEST, "price"), prices, info, NOW) == ("cheapest", "")


def test_the_largest_order_is_the_largest_by_every_amount_on_it() -> None:
    """Where the subtotal says another order is larger, "the larger order" could be either:
    no rule."""
    info = _info("orders", total=("number", "money"), subtotal=("number", "money"))
    split = [
        {"id": "a", "total": 120.0, "subtotal": 50.0},
        {"id": "b", "total": 60.0, "subtotal": 55.0},
    ]
    assert rule_words(Rule(LARGEST, "total"), split, info, NOW) is None


def test_a_value_is_said_as_a_person_tells_records_apart() -> None:
    info = _info("tickets", channel=("string", None), status=("string", None))
    records = [{"id": "a", "channel": "phone"}, {"id": "b", "channel": "chat"}]
    assert rule_words(Rule(MATCHING, "channel", "phone"), records, info, NOW) == (
        "",
        "that came in by phone",
    )
    assert rule_words(Rule(MATCHING, "status", "pending"), records, info, NOW) == ("pending", "")
    assert rule_words(Rule(MATCHING, "health", "at_risk"), records, info, NOW) == (
        "",
        "marked at risk",
    )
    assert rule_words(Rule(MATCHING, "priority", "highest"), records, info, NOW) == (
        "",
        "marked highest priority",
    )


def test_the_rule_note_says_the_rule_in_the_same_words() -> None:
    rule = Rule(EARLIEST, "due_date")
    assert rule_text(rule, "CTA", ("", "that's due first")) == (
        "If more than one CTA matches, use the one that's due first."
    )
    assert rule_text(Rule(LARGEST, "total"), "order", ("largest", "")) == (
        "If more than one order matches, use the largest one."
    )


def _lookup(noun: str, by: list[list[str]], select: dict[str, Any], pick: list[str]) -> dict:
    text = {"kind": "lookup", "noun": noun, "nouns": f"{noun}s", "label": noun, "by": by,
            "service": "Hotels", "pick": pick}  # fmt: skip
    return {"tool": "hotels.list", "write": False, "arguments": {}, "binds": {},
            "text": text, "select": select}  # fmt: skip


def _update(noun: str) -> dict[str, Any]:
    note = {"kind": "update", "target": f"the {noun}", "values": [["rooms", "2"]],
            "service": "Hotels"}  # fmt: skip
    return {"tool": "hotels.update", "write": True, "arguments": {"rooms": 2},
            "binds": {"rooms": {"from": "user"}}, "text": note}  # fmt: skip


@pytest.mark.parametrize("variant", range(4))
def test_the_request_names_the_record_as_the_lookup_worded_its_rule(variant: int) -> None:
    """ "their next reservation in Hotels", "(the one that's due first)": never "with the
    earliest check in time"."""
    by = [["guest email", '"edward.cook@myers.com.au"']]
    found = _lookup("reservation", by, {"rule": "earliest", "field": "check_in"}, ["next", ""])
    plan = [found, _update("reservation")]
    text = render_instruction(plan, goal=GOAL, variant=variant)
    assert "next reservation" in text and "earliest" not in text, text
    found = _lookup(
        "reservation", by, {"rule": "earliest", "field": "due_date"}, ["", "that's due first"]
    )
    text = render_instruction([found, _update("reservation")], goal=GOAL, variant=variant)
    assert "that's due first" in text and "earliest" not in text, text
    for lit in required_literals(plan):
        assert lit in text


# -- answers with a purpose -----------------------------------------------------------------


def test_a_value_is_asked_for_with_the_reason_it_is_wanted() -> None:
    cases = [
        (("requester_email", "email", "a@x.com", "escalation"), "keep_posted"),
        (("customer_email", "email", "a@x.com", "offboarding"), "handed_over"),
        (("requester_name", "person_name", "Ann Lee", None), "whose"),
        (("assignee_email", "email", "a@x.com", None), "in_charge"),
        (("order_number", "key:order", "1042", "refund"), "reference"),
        (("total", "money", 12.5, "expenses"), "budget"),
        (("total", "money", 12.5, "refund"), "confirm"),
        (("due_date", "date", "2026-08-01", "escalation"), "date_urgent"),
    ]
    for args, use in cases:
        assert answer_use(*args) == use, args
        assert answer_purpose(*args) in wordings(use, args[0]), args


def test_a_value_no_one_needs_back_is_not_asked() -> None:
    """An order's subtotal or shipping beside its total, a subscription's seats, when a
    record was created: nothing in a request needs them."""
    assert answer_purpose("subtotal", "money", 10.0, "refund") is None
    assert answer_purpose("shipping_total", None, 4.0, "fulfilment") is None
    assert answer_purpose("seats", None, 12, "renewal") is None
    assert answer_purpose("created_at", "date", "2026-07-01", None) is None


@pytest.mark.parametrize("variant", range(3))
def test_the_question_ends_with_its_reason(variant: int) -> None:
    found = _lookup("reservation", [["guest email", '"e@x.com"']], {}, ["", ""])
    del found["select"]
    answers = [
        {"field": "confirmation number", "of": "the reservation", "why": "so I can pass it on"}
    ]
    text = render_instruction(
        [found, _update("reservation")], (), answers, goal=GOAL, variant=variant
    )
    assert text.endswith("the reservation's confirmation number so I can pass it on."), text
    plan = [found, _update("reservation")]
    steps = render_instruction(plan, (), answers, goal=GOAL, variant=variant, steps=True)
    assert steps.endswith("so I can pass it on."), steps


def test_a_date_is_asked_where_no_identifier_or_amount_can_be() -> None:
    """Identifiers and amounts are looked at first, the others after them, not never: an
    order number with no rival to tell it from leaves the due date to ask for."""
    email = SimpleNamespace(key="email", value="a@x.com")
    number = SimpleNamespace(key="key:order_number", value="#1042")
    amount = SimpleNamespace(key=None, value=12.5)
    due = SimpleNamespace(key="date", value="2026-08-01")
    order = asked_in_turn([due, email, number, amount], random.Random(3))
    assert len(order) == 4 and order[-1] is due, order
    assert {id(f) for f in order[:3]} == {id(email), id(number), id(amount)}


# -- in composed walks ----------------------------------------------------------------------

SERVICES = ["hotels", "helpdesk", "issue_tracker", "customer_success", "subscriptions", "mail",
            "invoicing", "storefront", "todo", "crm"]  # fmt: skip


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    config = ComposeConfig(p_selection=1.0, p_answer=1.0)
    return make_env(library.classes, library.nodes, config=config)


@pytest.fixture(scope="module")
def walks(env: ComposeEnv) -> list[Walker]:
    return finished_walks(env, 60, "s9-selection")


def test_every_rule_a_walk_picks_by_is_worded_as_a_person_would(walks: list[Walker]) -> None:
    """Each step a rule picked its record for carries the words the request says it in,
    and they are the words ``rule_words`` gives that rule over the records the step found:
    no rule a person would not state got through."""
    ruled = 0
    for walker in walks:
        now = walker.base.clock.isoformat()
        for step in walker.steps:
            if step.rule is None or step.entity is None:
                continue
            records = [r for _, r in _found(walker, step)]
            info = walker.catalog.collection(step.tool.service, step.entity.collection)
            said = rule_words(step.rule, records, info, now)
            assert said is not None, (step.tool.qualified, step.rule)
            assert tuple(step.text["pick"]) == said, (step.text, said)
            assert records[apply_rule(step.rule, records)]["id"] == step.entity.id
            ruled += 1
    assert ruled >= 5, ruled  # the rule was exercised


def _found(walker: Walker, step: Any) -> list[tuple[str, dict[str, Any]]]:
    from library.compose.walk_state import found_records

    info = walker.catalog.collection(step.tool.service, step.entity.collection)
    return found_records(step.envelope["data"], step.tool.many, info.id_key)


def test_no_answer_asks_for_an_address_the_plan_wrote_to(walks: list[Walker]) -> None:
    """ "E-mail the ticket's customer ... and tell me the ticket's customer email" asks for
    what the request already had in hand; every value asked has a reason to be."""
    asked = 0
    for j, walker in enumerate(walks):
        final = walker.world.snapshot()
        world = initial_world(walker)
        diff = world.diff(world.snapshot(), final)
        world.restore(final)
        answers = _answer_facts(walker, diff, [], random.Random(j), 1.0)
        used = {(f.entity.id, f.field) for s in walker.steps if s.write for f in s.sources}
        for fact, _ in answers:
            motif = walker.motif.name if walker.motif is not None else None
            assert answer_purpose(fact.field, fact.key, fact.value, motif) is not None, fact
            if fact.key == "email":
                assert (fact.entity.id, fact.field) not in used, (fact.field, fact.value)
            asked += 1
    assert asked >= 3, asked


# -- a record whose state makes the write pointless -------------------------------------------


def test_a_delivery_note_goes_on_an_order_not_yet_delivered() -> None:
    """ "Call before delivery." on an order already fulfilled or delivered reaches no one;
    on one still to go out it does, and other edits of a fulfilled order stay possible."""
    fulfilled = {"id": "o1", "status": "open", "fulfillment_status": "fulfilled"}
    assert set_in_motion(fulfilled, "note")
    assert set_in_motion({"id": "s1", "status": "delivered"}, "delivery_instructions")
    assert not set_in_motion(dict(fulfilled, fulfillment_status="unfulfilled"), "note")
    assert not set_in_motion(fulfilled, "tags")
    assert set_in_motion({"id": "s2", "status": "in_transit"}, "carrier")  # (as before)
