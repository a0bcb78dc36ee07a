"""The story a task tells and the writes its plan makes agree: a workflow is named for work
its plan does (a "refund" gives money back; cancelling a payment only authorised is a void,
not a refund), it acts on records of its kind (an escalation raises a risk CTA, not an
expansion or renewal one), and its words claim nothing the plan did not do."""

from __future__ import annotations

from library.compose import ComposeConfig, compose_tasks, make_env
from library.compose.context import Entity
from library.compose.matters import hung_on
from library.compose.motifs import (
    BY_NAME,
    gives_back_another,
    motif_of,
    name_motif,
    other_kind,
    part_of,
)
from library.compose.topics import INTERNAL_TEXTS, TOPIC_TEXTS
from library.graph.nodes import tool_verb
from tests.compose_walks import finished_walks, forced
from tests.libraries import bundled_library


def test_a_cancelled_payment_is_no_refund() -> None:
    refund = BY_NAME["refund"]
    assert not part_of(refund, "cancel_payment", "payments")
    assert not part_of(refund, "void_charge", "charges")
    assert part_of(refund, "refund_order", "orders")
    assert part_of(refund, "refund_return_request", "return_requests")
    # the first write names no refund, nor does a plan whose only money step is a void
    start = motif_of("cancel_payment", "payments")
    assert start is None or start.name != "refund"
    assert name_motif([("cancel_payment", "payments"), ("send_message", "messages")]) != "refund"
    assert name_motif([("refund_order", "orders"), ("send_message", "messages")]) == "refund"


def test_refund_walks_give_money_back() -> None:
    # before: 7 of 300 bundled tasks of seed 0 called "refund" cancelled an uncaptured
    # payment (4 of them refunded nothing at all)
    library = bundled_library(["payments", "storefront", "returns", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    walks = finished_walks(env, 80, "s12-refund", forced("refund"))
    assert len(walks) >= 10
    for walker in walks:
        writes = [s.tool for s in walker.steps if s.write]
        voids = [t.name for t in writes if tool_verb(t.name) in ("cancel", "void")]
        assert not [n for n in voids if "payment" in n or "charge" in n], voids
        back = [t.name for t in writes if "refund" in t.name or t.name == "cancel_order"]
        assert back, [t.name for t in writes]
        # the money given back and the records the refund acts on are one matter's: a
        # refund made on a payment is followed by no return of an order it is not for
        first = next(s for s in walker.steps if s.write and walker.core_work(s.tool))
        assert first.entity is not None
        anchor = hung_on(first.sources, env.catalogs) if first.entity.created else [first.entity]
        for step in walker.steps:
            entity = step.entity
            if not step.write or step is first or entity is None or entity.created:
                continue
            if entity.collection in ("orders", "payments", "return_requests"):
                assert any(not gives_back_another(BY_NAME["refund"], a, entity) for a in anchor), (
                    first.tool.name,
                    step.tool.name,
                    entity.record,
                )


def test_a_refund_for_a_record_gives_back_its_money() -> None:
    # before: "process a refund for the payment INV-2026-2268", then a refund of another
    # order of its payer (3 of 300 bundled tasks of seed 0 once voids were no refunds)
    refund = BY_NAME["refund"]
    order = Entity("storefront", "orders", "ord_1", {}, 0, "", "order")
    other = Entity("storefront", "orders", "ord_2", {}, 1, "", "order")
    back = Entity("returns", "return_requests", "rr_1", {}, 1, "", "return request")
    order.link(back)
    assert gives_back_another(refund, order, other)
    assert not gives_back_another(refund, order, order)
    assert not gives_back_another(refund, order, back)
    # a return found on its own is the order's when it names it
    theirs = Entity("returns", "return_requests", "rr_2", {"order_id": "ord_1"}, 2, "", "return")
    another = Entity("returns", "return_requests", "rr_3", {"order_id": "ord_2"}, 2, "", "return")
    assert not gives_back_another(refund, order, theirs)
    assert gives_back_another(refund, order, another)
    person = Entity("crm", "contacts", "con_1", {}, 0, "", "contact")
    assert not gives_back_another(refund, person, other)  # their orders are all theirs
    assert not gives_back_another(BY_NAME["billing"], order, other)
    # without the rule, 4 of 4 walks here that opened on an invoice refunded an order or a
    # return its number has nothing to do with
    library = bundled_library(["storefront", "returns", "invoicing", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    walks = finished_walks(env, 200, "s12-refund-of", forced("refund"))
    assert len(walks) >= 20
    for walker in walks:
        opening = walker.steps[0]
        about = opening.entity
        if about is None or any("@" in str(v) for v in opening.args.values()):
            continue
        if about.collection not in ("payments", "orders", "invoices"):
            continue
        for step in walker.steps:
            if not step.write or not walker.core_work(step.tool) or step.entity is None:
                continue
            # what it acts on, or for a refund it makes, the payment it is made on
            acted = hung_on(step.sources, env.catalogs) if step.entity.created else [step.entity]
            for entity in acted:
                tied = entity is about or any(e is entity for e in about.links)
                assert tied, (about.label, step.tool.name, entity.label)


def test_an_escalation_raises_no_growth_cta() -> None:
    escalation = BY_NAME["escalation"]
    for kind in ("expansion", "lifecycle"):
        assert other_kind(escalation, {"id": "cta_1", "type": kind})
    for kind in ("risk", "renewal"):  # a problem, or a renewal slipping
        assert not other_kind(escalation, {"id": "cta_1", "type": kind})
    assert not other_kind(BY_NAME["offboarding"], {"id": "cta_1", "type": "expansion"})
    # before: 7 of 38 escalations of seed 0 escalated an expansion or lifecycle CTA;
    # here, without the rules, walks act on or add such CTAs
    library = bundled_library(["customer_success", "mail", "notes", "todo", "docs", "crm"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    walks = finished_walks(env, 120, "s12-escalation", forced("escalation"))
    acted = 0
    for walker in walks:
        for step in walker.steps:
            entity = step.entity
            if step.write and entity is not None and entity.collection == "ctas":
                acted += 1  # (a new CTA an escalation adds is a risk one too)
                assert not other_kind(escalation, entity.record), (
                    step.tool.name,
                    entity.record.get("type"),
                )
    assert acted >= 5


def test_workflow_words_claim_no_particular_step() -> None:
    # a renewal may only send a quote, a fulfilment only put an address right, an
    # escalation only raise a priority: their words say none of the steps it may skip
    claims = {
        "renewal": ("set up", "agreed"),
        "fulfilment": ("shipped", "dispatched"),
        "escalation": ("senior engineer",),
        "refund": ("cancelled order",),
    }
    for topic, words in claims.items():
        for bank in (TOPIC_TEXTS[topic], INTERNAL_TEXTS.get(topic, {})):
            for kind, texts in bank.items():
                for text in texts:
                    assert not any(w in text.lower() for w in words), (topic, kind, text)


def test_a_refund_made_on_a_payment_acts_on_no_return_of_another_order() -> None:
    # a payment here names no order: "create a refund for Brandon's payment", then "approve
    # Brandon's return request" (of some order of his) was two matters; without the rule, 2
    # of the 20 tasks below that made a refund on a payment acted on such a return
    lib = bundled_library(["payments", "returns", "mail", "crm", "todo"])
    env = make_env(lib.classes, lib.nodes)
    made = 0
    for seed in (5, 6):
        for task in compose_tasks([], 40, env=env, seed=seed).tasks:
            tools = [s["tool"] for s in task.gold_plan if s["write"]]
            if "payments__create_refund" not in tools:
                continue
            made += 1
            acted = [t for t in tools if t.startswith("returns__") and "create" not in t]
            assert not acted, (task.instruction, tools)
    assert made >= 5
