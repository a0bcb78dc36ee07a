"""A status whose values no list states, read from what the tools say of it.

tau2's retail declares no outputs and no order list filtered by status, so an order's
``status`` was free text: the seed left it None, ``cancel_pending_order`` cancelled any order
not already "canceled" (the description says 'cancelled'), and nothing checked "delivered".
Yet the spec says it all: a tool's name gives the state it requires (``cancel_pending_order``,
``modify_pending_order_items``: pending; ``return_delivered_order_items``: delivered) and a
description quotes the state an action leads to ("the order status will be changed to
'cancelled'"). Ingestion builds the status enum from both, spelled as written
(``infer_output._named_states``), and marks which tool requires and leads to which state; the
compiled tool refuses a record in another state (failed_precondition) and writes the one its
description names; the seed draws statuses from the enum.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from library.compose.catalog import qualified
from library.ingest import ingest_document
from library.ingest.infer_output import STATES_BY
from tests.test_compiler_stated_values import _doc, _world

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
TAU2_RETAIL = SPECS / "functions" / "tau2" / "retail.json"
STATUSES = ["pending", "delivered", "cancelled", "return requested"]
needs_shared = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")

TEXT = {"type": "string"}
# a tiny shop: a state in each action's name, one description quoting where it leads
SHOP = [
    ("create_invoice", "Create an invoice.", {"customer": TEXT, "amount": TEXT}, ["customer"]),
    ("get_invoice", "Get an invoice.", {"invoice_id": TEXT}, ["invoice_id"]),
    (
        "void_draft_invoice",
        "Void a draft invoice. Its status will be changed to 'voided by staff'.",
        {"invoice_id": TEXT},
        ["invoice_id"],
    ),
    (
        "update_draft_invoice",
        "Change the amount of a draft invoice.",
        {"invoice_id": TEXT, "amount": TEXT},
        ["invoice_id"],
    ),
    (
        "refund_paid_invoice",
        "Refund a paid invoice. The invoice status is set to 'refund pending'.",
        {"invoice_id": TEXT},
        ["invoice_id"],
    ),
]


def _status(specs: list[Any], read: str) -> dict[str, Any]:
    spec = next(s for s in specs if s.name == read)
    return spec.output_schema["properties"]["status"]


def _refused(answer: dict[str, Any]) -> bool:
    return not answer.get("success") and "failed_precondition" in orjson.dumps(answer).decode()


# -- the enum ---------------------------------------------------------------------------------


@needs_shared
def test_tau2_order_status_is_the_states_names_require_and_descriptions_quote() -> None:
    specs, _ = ingest_document(TAU2_RETAIL)
    status = _status(specs, "get_order_details")
    assert status["enum"] == STATUSES
    marks = status[STATES_BY]
    assert len(marks["requires"]) >= 6  # cancel, exchange, return, three modifications
    assert marks["requires"]["modify_pending_order_items"] == "pending"
    assert marks["requires"]["return_delivered_order_items"] == "delivered"
    assert marks["leads"] == {
        "cancel_pending_order": "cancelled",
        "return_delivered_order_items": "return requested",
    }


def test_a_small_spec_states_its_status_by_names_and_descriptions() -> None:
    specs, _ = ingest_document(_doc(SHOP), source_file="shop.json")
    status = _status(specs, "get_invoice")
    assert status["enum"] == ["draft", "paid", "voided by staff", "refund pending"]


def test_a_status_action_saying_no_state_leaves_the_status_free_text() -> None:
    """``approve_invoice`` says neither where it starts nor where it leads: an enum of the
    others' states would lose the state its verb writes."""
    tools = [
        *SHOP,
        ("approve_invoice", "Approve an invoice.", {"invoice_id": TEXT}, ["invoice_id"]),
    ]
    specs, _ = ingest_document(_doc(tools), source_file="shop.json")
    assert _status(specs, "get_invoice") == {"type": "string"}


# -- the compiled tools and the seed ------------------------------------------------------------


@needs_shared
def test_tau2_actions_require_the_state_their_names_say_and_write_the_described_one() -> None:
    specs, _ = ingest_document(TAU2_RETAIL)
    world, service, state = _world(specs, size=30)
    orders = list(state.orders.values())
    assert len(orders) >= 20
    seeded = {o.status for o in orders}
    assert "pending" in seeded and seeded <= {*STATUSES}, seeded  # drawn from the enum, no None
    pending = [o.id for o in orders if o.status == "pending"]
    assert len(pending) >= 4
    # the seed seldom draws a state it counts as final (delivered): two orders put there
    delivered = pending[-2:]
    for order_id in delivered:
        order = state.orders[order_id]
        state.orders[order_id] = order.model_copy(update={"status": "delivered"})

    cancel = qualified(service, "cancel_pending_order")
    answer = world.call(cancel, {"order_id": delivered[0], "reason": "no longer needed"})
    assert _refused(answer), answer
    answer = world.call(cancel, {"order_id": pending[0], "reason": "no longer needed"})
    assert answer["success"], answer
    assert world.services[service].state.orders[pending[0]].status == "cancelled"
    answer = world.call(cancel, {"order_id": pending[0], "reason": "no longer needed"})
    assert _refused(answer), answer  # already cancelled

    ret = qualified(service, "return_delivered_order_items")
    order = world.services[service].state.orders[pending[1]]
    args = {"item_ids": order.item_ids[:1], "payment_method_id": "gift_card_0000000"}
    # delivered is a state the seed counts final and seldom draws: not required (yet), no
    # longer refused
    answer = world.call(ret, {"order_id": pending[1], **args})
    assert answer["success"], answer
    order = world.services[service].state.orders[delivered[1]]
    args = {"item_ids": order.item_ids[:1], "payment_method_id": "gift_card_0000000"}
    answer = world.call(ret, {"order_id": delivered[1], **args})
    assert answer["success"], answer
    assert world.services[service].state.orders[delivered[1]].status == "return requested"

    # a modification (an update, not an action) of a pending order only
    modify = qualified(service, "modify_pending_order_payment")
    args = {"payment_method_id": "gift_card_0000000"}
    assert _refused(world.call(modify, {"order_id": delivered[0], **args}))
    assert world.call(modify, {"order_id": pending[2], **args})["success"]


def test_a_small_spec_refuses_other_states_and_writes_the_quoted_one() -> None:
    specs, _ = ingest_document(_doc(SHOP), source_file="shop.json")
    world, service, state = _world(specs, size=20)
    invoices = list(state.invoices.values())
    drafts = [i.id for i in invoices if i.status == "draft"]
    paid = [i.id for i in invoices if i.status == "paid"]
    assert len(drafts) >= 2 and len(paid) >= 2, [i.status for i in invoices]
    void = qualified(service, "void_draft_invoice")
    assert _refused(world.call(void, {"invoice_id": paid[0]}))
    assert world.call(void, {"invoice_id": drafts[0]})["success"]
    assert world.services[service].state.invoices[drafts[0]].status == "voided by staff"
    update = qualified(service, "update_draft_invoice")
    assert _refused(world.call(update, {"invoice_id": paid[0], "amount": "12"}))
    assert world.call(update, {"invoice_id": drafts[1], "amount": "12"})["success"]
    refund = qualified(service, "refund_paid_invoice")
    assert _refused(world.call(refund, {"invoice_id": drafts[1]}))
    assert world.call(refund, {"invoice_id": paid[1]})["success"]
    assert world.services[service].state.invoices[paid[1]].status == "refund pending"
