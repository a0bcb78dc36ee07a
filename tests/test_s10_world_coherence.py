"""The records a task touches tell one story: a refund gives money back from a charge that
took it, in the charge's currency, no more than what is left of it, done only where the
charge shows money went back; and a record made another's (an order moved to the customer
a task is about) does not predate the record it now refers to."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.coherence import born_after
from library.compose.corpus import bundled_specs
from library.runtime import World
from library.seed.pool import MONEY_SENT_BACK, MONEY_TAKEN, SeedPool, seed_pool

SEEDS = (0, 1, 2, 3)


@pytest.fixture(scope="module")
def payments() -> type:
    specs = bundled_specs(("payments",))
    return load_service(compile_service(specs["payments"]).source)


def _rows(world: World, collection: str) -> dict[str, dict[str, Any]]:
    items = getattr(world.services["payments"].state, collection)
    return {rid: r.model_dump(mode="json") for rid, r in items.items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seeded_refund_agrees_with_its_payment(payments: type, seed: int) -> None:
    world = World([payments()], seed=seed)
    world.seed_states(seed_pool(seed), 12)
    charges, refunds = _rows(world, "payments"), _rows(world, "refunds")
    assert refunds
    given: dict[str, float] = defaultdict(float)
    done: dict[str, float] = defaultdict(float)
    for refund in refunds.values():
        charge = charges[refund["payment_id"]]
        # money went back only from a payment that took it (not one authorised or failed)
        assert charge["status"] in MONEY_TAKEN, (refund, charge)
        assert refund["currency"] == charge["currency"], (refund, charge)
        assert refund["amount"] <= charge["amount"], (refund, charge)
        if refund["status"] == "succeeded":  # done: the payment shows money went back
            assert charge["status"] in MONEY_SENT_BACK, (refund, charge)
        given[charge["id"]] += refund["amount"]
        done[charge["id"]] += refund["amount"] if refund["status"] == "succeeded" else 0
    over = [pid for pid, total in given.items() if total > charges[pid]["amount"] + 0.005]
    assert len(over) <= 1, over  # (all of a payment went back: at most one more refund)
    # what the payment shows refunded covers its refunds done
    shown = [
        p for p, total in done.items() if total > (charges[p].get("amount_refunded") or 0) + 0.005
    ]
    assert len(shown) <= 1, [(charges[p], done[p]) for p in shown]


def test_refund_helpers() -> None:
    assert SeedPool.given_back(900.0, 1000.0, [300.0]) == 700.0  # the unrefunded rest
    assert SeedPool.given_back(200.0, 1000.0, [300.0, None]) == 200.0
    assert SeedPool.given_back(2000.0, 1000.0, [1000.0]) == 1000.0  # never over the charge
    assert SeedPool.given_back(900.0, 1000.0, [100.0], 400.0) == 300.0  # what it shows back
    assert SeedPool.given_back(900.0, 1000.0, [], None) == 900.0
    options = ("pending", "succeeded", "failed")
    assert SeedPool.back_as_charge("succeeded", "succeeded", options) == "pending"
    assert SeedPool.back_as_charge("succeeded", "partially_refunded", options) == "succeeded"
    assert SeedPool.back_as_charge("failed", "succeeded", options) == "failed"


def test_a_record_made_anothers_comes_after_what_it_refers_to() -> None:
    now = "2026-03-07T12:00:00+00:00"
    order = {"created_at": "2026-01-29T03:34:00Z", "updated_at": "2026-02-15T22:05:42Z"}
    customer = {"created_at": "2026-02-18T08:31:00Z"}
    later = born_after(order, [customer], now)
    assert later and str(later["created_at"]) > "2026-02-18T08:31"
    assert str(later["created_at"]) < str(later["updated_at"])  # updated after it was made
    assert born_after({**order, "created_at": "2026-02-20T00:00:00Z"}, [customer], now) == {}
    assert born_after(order, [{"created_at": "2026-03-08T00:00:00Z"}], now) is None


# -- composition keeps the story -------------------------------------------------------------
def _walks(services: list[str], count: int, tag: str, *motifs: str) -> list[Any]:
    from library.compose import ComposeConfig, make_env
    from tests.compose_walks import finished_walks, forced
    from tests.libraries import bundled_library

    library = bundled_library(services)
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    return finished_walks(env, count, tag, forced(*motifs))


def test_composition_leaves_no_refund_of_a_payment_that_took_no_money() -> None:
    """A payment a request captures or cancels is only authorised: composition never makes
    one so in place while a refund of it stands, nor points a refund at one."""
    from library.compose.coherence import money_taken
    from tests.compose_walks import initial_world

    walks = _walks(["payments", "invoicing", "todo"], 120, "s10pay", "billing", "refund")
    acted = 0
    for walker in walks:
        world = initial_world(walker)
        state = world.services["payments"].state
        for refund in state.refunds.values():
            charge = state.payments[refund.payment_id].model_dump(mode="json")
            assert money_taken(charge), (refund, charge)
        acted += any(s.tool.name in ("capture_payment", "cancel_payment") for s in walker.steps)
    assert acted >= 5, acted


def test_a_record_composition_moves_to_someone_comes_after_what_it_now_names() -> None:
    """An order a walk makes the customer's (in place or as a copy) names their customer
    record, and was placed after that record was made."""
    from library.compose import ComposeConfig, make_env
    from library.compose.catalog import ref_collection
    from tests.compose_walks import finished_walks, forced, initial_world
    from tests.libraries import bundled_library

    library = bundled_library(["storefront", "mail", "crm", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    checked = 0
    for walker in finished_walks(env, 120, "s10time", forced("refund", "fulfilment")):
        world = initial_world(walker)
        for injection in walker.injections:
            state = world.services[injection.service].state
            info = env.catalog.collection(injection.service, injection.collection)
            row = injection.record.model_dump(mode="json")
            for name, meta in sorted(info.fields.items()) if info is not None else ():
                key = str(meta.key or "")
                coll = (
                    ref_collection(key[3:], type(state).collection_types)
                    if key[:3] == "id:"
                    else None
                )
                parent = getattr(state, coll).get(row.get(name)) if coll else None
                if parent is None or not isinstance(row.get("created_at"), str):
                    continue
                checked += 1
                born = parent.model_dump(mode="json").get("created_at")
                assert row["created_at"] >= born, (injection.collection, row, born)
    assert checked >= 20, checked


def test_a_customers_mail_about_the_matter_comes_after_the_matter() -> None:
    """The customer's mail a refund's reply answers ("Please cancel my order") was sent
    after the order the request read before it was placed."""
    from library.compose import ComposeConfig, make_env
    from library.compose.coherence import predates
    from library.compose.topics import matter_texts
    from tests.compose_walks import finished_walks, forced
    from tests.libraries import bundled_library

    library = bundled_library(["storefront", "mail", "crm", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    subjects = {t[0] for t in matter_texts("refund")}
    checked = 0
    for walker in finished_walks(env, 150, "s10mail", forced("refund")):
        for injection in walker.injections:
            row = injection.record.model_dump(mode="json")
            if injection.service != "mail" or row.get("subject") not in subjects:
                continue
            read = [e.step for e in walker.entities if e.id == row["id"]]
            matter = [
                e.record
                for e in walker.entities
                if e.service != "mail" and not e.created and read and e.step < min(read)
            ]
            checked += bool(matter)
            assert not predates(row, matter), (row, [m.get("created_at") for m in matter])
    assert checked >= 5, checked


def test_a_return_request_made_the_customers_names_their_order_the_request_read() -> None:
    """A return request composition makes the customer's names the order of theirs the
    request read (in another service), one that has left the warehouse: no return of order
    A beside a refund of order B, none of an order not sent yet."""
    from library.compose import ComposeConfig, make_env
    from library.compose.coherence import not_yet_sent
    from tests.compose_walks import finished_walks, forced, initial_world
    from tests.libraries import bundled_library

    library = bundled_library(["storefront", "returns", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    tied = 0
    for walker in finished_walks(env, 200, "s10ret", forced("refund", "fulfilment")):
        world = initial_world(walker)
        orders = world.services["storefront"].state.orders
        made = {i.record.id for i in walker.injections if i.collection == "return_requests"}
        for request in world.services["returns"].state.return_requests.values():
            order = orders.get(request.order_id)
            if order is None or request.id not in made:
                continue
            tied += 1
            row = order.model_dump(mode="json")
            assert row["customer_email"] == request.customer_email, (request, row)
            assert not not_yet_sent(row), (request, row)
            assert getattr(request, "currency", None) in (None, row["currency"]), (request, row)
    assert tied >= 3, tied
