"""Seeded worlds of the bundled corpus that a strict reviewer finds coherent, each rule read
from a record's fields, states and roles, never from one service:

- a bill's own issue date is not in the future, and its due date follows the terms its
  customer states (due = issued + ``payment_terms_days``);
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.corpus import bundled_specs
from library.runtime import World
from library.seed import seed_pool

SEEDS = (0, 1, 2, 3)


@functools.cache
def _cls(service: str) -> Any:
    return load_service(compile_service(bundled_specs([service])[service]).source)


def _world(services: tuple[str, ...], seed: int, size: int = 12) -> tuple[dt.datetime, dict]:
    """(now, service -> collection -> id -> record as a dict) of bundled services seeded
    together in one world."""
    world = World([_cls(s)() for s in services], seed=seed)
    world.seed_states(seed_pool(seed), size)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name, service in world.services.items():
        state = service.state
        out[name] = {
            c: {rid: r.model_dump(mode="python") for rid, r in getattr(state, c).items()}
            for c in type(state).collection_types
        }
    return world.now(), out


def _day(value: Any) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


# -- dates against the clock and terms ---------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_a_bill_is_issued_by_now_and_due_on_its_customers_terms(seed: int) -> None:
    """No invoice is issued after today (a draft is dated today or before); one whose
    customer states ``payment_terms_days`` falls due that many days after its issue."""
    now, state = _world(("invoicing",), seed)
    invoicing = state["invoicing"]
    checked = 0
    for invoice in invoicing["invoices"].values():
        issued, due = _day(invoice["issue_date"]), _day(invoice["due_date"])
        assert issued <= now.date(), invoice
        terms = invoicing["customers"][invoice["customer_id"]].get("payment_terms_days")
        if terms:
            assert (due - issued).days == terms, (invoice, terms)
            checked += 1
    assert checked >= 6, checked
