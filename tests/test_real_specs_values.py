"""Numbers a task states for a real API's fields fit what the field means (a latitude within
+-90, a port a registered one) and the bounds the spec declares."""

from __future__ import annotations

import random

import pytest

from library.compose.catalog import Param
from library.compose.literals import number
from library.seed.numbers import numeric_range, snake, within


@pytest.mark.parametrize(
    ("name", "low", "high", "integer"),
    [
        ("latitude", -90, 90, False),
        ("longitude", -180, 180, False),
        ("startLatitude", -90, 90, False),  # camelCase, as real specs write it
        ("lng", -180, 180, False),
        ("batteryLevel", 0, 100, True),
        ("port", 1024, 65535, True),
        ("heading", 0, 359, False),
        ("model_year", 1990, 2026, True),
        ("odometer_km", 5000, 150000, True),  # a car returned "with odometer km 12": no
        ("story_points", 1, 13, True),  # an estimate, not a loyalty balance of 1,100
    ],
)
def test_stated_numbers_fit_the_fields_meaning(
    name: str, low: float, high: float, integer: bool
) -> None:
    rng = random.Random(7)
    param = Param(name=name, required=True, type="integer" if integer else "number")
    values = [number(param, rng, integer) for _ in range(200)]
    assert all(v is not None and low <= v <= high for v in values), (name, max(values))


def test_declared_bounds_narrow_the_meaning() -> None:
    rng = random.Random(3)
    param = Param(name="latitude", required=True, type="number", minimum=40.0, maximum=50.0)
    assert all(40 <= number(param, rng, False) <= 50 for _ in range(100))
    assert within("latitude", None, None) == (-90.0, 90.0)
    assert within("percent", 10, None) == (10, 100.0)
    assert within("nothing_known", 0, 5) is None


def test_names_without_meaning_get_none() -> None:
    assert snake("maxResults") == "max_results"
    assert numeric_range("amount") is None  # amounts are the compose vocabulary's business
    assert numeric_range("latitude_ref") is None
