"""A seeded record's times agree with its state: a meeting that ended began in the past, one
that is live began a little while ago, one scheduled lies ahead; a guest who checked in is
within their stay. Spans of periods (a billing month, a contract) and states that say
nothing of time (confirmed, canceled) are left where they were drawn."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.spec_library import specs_by_service
from library.runtime import World
from library.seed import seed_pool
from library.seed.pool import placed

NOW = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)
SPECS = Path(__file__).resolve().parents[1] / "library" / "specs"
HOUR = dt.timedelta(hours=1)


@pytest.mark.parametrize("shift", [-30, -1, 0, 1, 30])
def test_a_span_lies_where_its_state_says(shift: int) -> None:
    start = NOW + dt.timedelta(days=shift)
    span = (start, start + 2 * HOUR)
    rng = random.Random(shift)
    begun, over = placed(span, "ended", rng, NOW)
    assert over <= NOW and over - begun == 2 * HOUR
    begun, over = placed(span, "in_progress", rng, NOW)
    assert begun <= NOW <= over and over - begun == 2 * HOUR
    begun, over = placed(span, "scheduled", rng, NOW)
    assert begun > NOW and over - begun == 2 * HOUR
    assert placed(span, "confirmed", rng, NOW) == span  # says nothing of time
    assert placed(span, "canceled", rng, NOW) == span


def test_a_lone_start_under_way_began_a_little_while_ago() -> None:
    begun, _ = placed((NOW + 3 * HOUR, NOW + 3 * HOUR), "live", random.Random(0), NOW)
    assert NOW - HOUR <= begun <= NOW


def _records(service: str, collection: str) -> list[dict[str, Any]]:
    specs = specs_by_service(sorted(SPECS.rglob(f"{service}.*")))[service]
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=3)
    world.seed_states(seed_pool(3), 40)
    now = world.now()
    rows = getattr(world.services[service].state, collection).values()
    return [{**r.model_dump(mode="python"), "_now": now} for r in rows]


def test_seeded_meetings_start_where_their_state_says() -> None:
    rows = _records("meetings", "meetings")
    states = {r["status"] for r in rows}
    assert {"ended", "scheduled"} <= states, states
    for r in rows:
        if r["status"] == "ended":
            assert r["starts_at"] < r["_now"], r
        elif r["status"] in ("live",):
            assert r["starts_at"] <= r["_now"], r
        elif r["status"] == "scheduled":
            assert r["starts_at"] > r["_now"], r


def test_a_guest_who_checked_in_is_within_their_stay() -> None:
    rows = _records("hotels", "reservations")
    stays = [r for r in rows if r["status"] == "checked_in"]
    assert stays
    for r in stays:
        start, end = (_day(r[k]) for k in ("check_in", "check_out"))
        assert start <= r["_now"].date() <= end, r


def _day(value: Any) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


@pytest.mark.parametrize(
    ("service", "collection"), [("storefront", "orders"), ("invoicing", "invoices")]
)
def test_money_adds_up_from_the_line_items(service: str, collection: str) -> None:
    """An order's subtotal is what its line items come to (quantity times unit price), and
    an invoice's tax total is the subtotal at the item's tax rate: a threshold on the
    subtotal reads a number a person could check."""
    for r in _records(service, collection):
        items = r["line_items"]
        made = round(sum(i["quantity"] * i["unit_price"] for i in items), 2)
        assert r["subtotal"] == pytest.approx(made, abs=0.01), r
        rate = items[0].get("tax_rate")
        if "tax_total" in r and rate is not None:
            assert r["tax_total"] == pytest.approx(r["subtotal"] * rate / 100, abs=0.01), r


def test_a_short_span_under_way_still_holds_now() -> None:
    """Rounding a live half-hour meeting's start down to the quarter hour must not end it
    before now (one in eight did)."""
    now = NOW + dt.timedelta(minutes=7)
    for seed in range(300):
        start = now + dt.timedelta(days=3)
        begun, over = placed((start, start + HOUR / 2), "live", random.Random(seed), now)
        assert begun <= now <= over and over - begun == HOUR / 2, seed
