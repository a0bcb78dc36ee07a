"""One matter per request: a request is about one piece of business (a customer's order and
what follows from it), or, when it is long, a few; never a chain of unrelated chores."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from library.compose import ComposeConfig, ComposeEnv, make_env
from library.compose.context import Entity, Fact
from library.compose.corpus import bundled_library
from library.compose.matters import counts, hung_on, matters_of, worked_on
from library.compose.motifs import STAFF_WORKFLOWS
from library.compose.prune import purposeful
from library.compose.task import HARD_SERVICES, HARD_STEPS
from library.compose.walk import Walker
from library.compose.walk_state import Reject

SERVICES = [
    "calendar",
    "crm",
    "customer_success",
    "docs",
    "helpdesk",
    "issue_tracker",
    "mail",
    "meetings",
    "payments",
    "returns",
    "shipping",
    "storefront",
    "subscriptions",
    "todo",
]
WALKS = 160


def _entity(collection: str, rid: str, created: bool = False) -> Entity:
    return Entity("shop", collection, rid, {"id": rid}, 0, "", collection, created)


def _none(_: Entity) -> str | None:
    return None


def test_records_tied_by_ids_are_one_matter() -> None:
    order, shipment, ticket = (
        _entity("orders", "o1"),
        _entity("shipments", "s1"),
        _entity("tickets", "t1"),
    )
    shipment.link(order)
    assert matters_of([order, shipment], frozenset(), _none).count == 1
    assert matters_of([order, shipment, ticket], frozenset(), _none).count == 2
    # what a request adds to the matters it has
    so_far = matters_of([order], frozenset(), _none)
    assert so_far.new([shipment], _none) == 0
    assert so_far.new([ticket], _none) == 1


def test_a_shared_reference_record_ties_nothing() -> None:
    plan, first, second = _entity("plans", "p1"), _entity("orders", "o1"), _entity("orders", "o2")
    first.link(plan)
    second.link(plan)
    assert matters_of([first, second], frozenset(), _none).count == 1
    assert matters_of([first, second], frozenset({("shop", "plans")}), _none).count == 2


def test_the_subjects_records_of_one_kind_of_work_are_one_matter() -> None:
    order, payment, job = _entity("orders", "o1"), _entity("payments", "p1"), _entity("jobs", "j1")
    work = {"orders": "refund", "payments": "refund"}
    matters = matters_of([order, payment, job], frozenset(), lambda e: work.get(e.collection))
    assert matters.count == 2


def test_messages_and_new_records_are_no_matter_of_their_own() -> None:
    assert counts(_entity("orders", "o1"))
    assert not counts(_entity("emails", "m1"))
    assert not counts(_entity("tickets", "t9", created=True))
    order, customer, note = (
        _entity("orders", "o1"),
        _entity("customers", "c1"),
        _entity("notes", "n1"),
    )
    facts = [
        Fact(order, "id", "o1", "id:orders", "string"),
        Fact(customer, "id", "c1", "id:customers", "string"),  # a person: no matter
        Fact(note, "id", "n1", "id:notes", "string"),  # a shared reference record
        Fact(order, "status", "paid", None, "string"),  # no tie
    ]
    assert hung_on(facts, frozenset({("shop", "notes")})) == [order]


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    return make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))


def _walks(env: ComposeEnv) -> list[Walker]:
    done = []
    for j in range(WALKS):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(f"matters:{j}"))
        try:
            walker.walk()
        except Reject:
            continue
        done.append(walker)
    return done


def test_a_request_is_about_one_matter_unless_it_is_long(env: ComposeEnv) -> None:
    """Every walk that is not in the hard band's size works on one matter; a long one on
    at most ``hard_matters`` unless it picks up a colleague's plate."""
    cfg = env.config
    seen: Counter[str] = Counter()
    for walker in _walks(env):
        if walker.motif is None or walker.motif.name in STAFF_WORKFLOWS:
            continue
        kept = purposeful(walker.steps, ())
        long = len(kept) >= HARD_STEPS and len(walker.services) >= HARD_SERVICES
        worked = [e for s in walker.steps for e in worked_on(s, env.catalogs)]
        count = matters_of(worked, env.catalogs, walker._work_of).count
        seen["long" if long else "short"] += 1
        seen[f"matters={count}"] += 1
        if not long:
            assert count <= cfg.matters, [s.tool.qualified for s in walker.steps]
        elif not walker._covering():
            assert count <= cfg.hard_matters, [s.tool.qualified for s in walker.steps]
    assert seen["short"] >= 30 and seen["long"] >= 3, seen
