"""Seeded values a traveller would recognise on a real spec: BFCL's flights go from one
airport to another ("CDG" to "LHR"), not from "inventory-scheduler" to "ledger-reports"."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.seed.vocab import AIRPORTS, meaning
from tests.spec_envs import spec_env

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
TRAVEL = SPECS / "functions" / "bfcl_multi_turn" / "travel_booking.json"


@pytest.mark.parametrize("field", ["travel_from", "travel_to", "departure_airport"])
def test_where_a_trip_leaves_from_is_an_airport(field: str) -> None:
    assert meaning(field, "travel.flights") == "airport"


def test_seeded_flights_fly_between_airports() -> None:
    world, _ = spec_env(TRAVEL).world(0)
    codes = {code for code, _ in AIRPORTS}
    flights = list(world.services["travel_booking"].state.flights.values())
    assert flights
    for flight in flights:
        assert {flight.travel_from, flight.travel_to} <= codes, flight
