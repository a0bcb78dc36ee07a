"""Plausible ranges of numbers by what the field means: a latitude is within +-90, a
percentage within 0-100, a port a registered one. Values drawn for a field with no declared
bounds (most real specs declare none) come from here, intersected with any bounds the spec
does declare, so a seeded or stated ``latitude`` is never 310.
"""

from __future__ import annotations

import re

# (name pattern over the snake_case field name, low, high); the first match wins, so the
# specific come before the general.
MEANINGS: tuple[tuple[str, float, float], ...] = (
    (r"(^|_)(lat|latitude)$", -90.0, 90.0),
    (r"(^|_)(lng|lon|long|longitude)$", -180.0, 180.0),
    (r"(^|_)(altitude|elevation)(_m)?$", 0.0, 4000.0),
    (r"(^|_)(heading|bearing|course|angle|rotation)(_deg|_degrees)?$", 0.0, 359.0),
    (r"(^|_)(accuracy|radius)(_m|_meters)?$", 5.0, 500.0),
    (r"(^|_)zoom(_level)?$", 1.0, 20.0),
    (r"(^|_)(percent|percentage|pct|ratio_percent)$|_percent$|_pct$", 0.0, 100.0),
    (r"(^|_)(battery|battery_level|humidity|progress|completion)$", 0.0, 100.0),
    (r"(^|_)(temperature|temp)(_c|_celsius)?$", -20.0, 40.0),
    (r"(^|_)(speed|velocity)(_kmh|_kph)?$", 0.0, 130.0),
    # A car's reading: tens of thousands of kilometres (miles), never a dozen.
    (r"(^|_)(odometer|mileage)(_km|_miles|_reading)?$", 5000.0, 150000.0),
    (r"(^|_)(age|age_years)$", 18.0, 80.0),
    (r"(^|_)(year|birth_year|model_year|fiscal_year)$", 1990.0, 2026.0),
    (r"(^|_)month$", 1.0, 12.0),
    (r"(^|_)(day_of_month|day)$", 1.0, 28.0),
    (r"(^|_)(hour|hour_of_day)$", 0.0, 23.0),
    (r"(^|_)(minute|second)$", 0.0, 59.0),
    (r"(^|_)port$", 1024.0, 65535.0),
    (r"(^|_)(ttl|timeout|timeout_seconds|ttl_seconds)$", 60.0, 86400.0),
    (r"(^|_)(priority|severity|level)$", 1.0, 5.0),
    (r"(^|_)(rating|stars|score)$", 1.0, 5.0),
    (r"(^|_)(weight|weight_kg)$", 0.1, 30.0),
    (r"(^|_)(width|height|length|depth)(_cm)?$", 1.0, 200.0),
    (r"(^|_)(page|page_number)$", 1.0, 5.0),
    (r"(^|_)(limit|page_size|per_page|max_results|count|top)$", 1.0, 50.0),
    (r"(^|_)(tax_rate|vat_rate|interest_rate)$", 0.0, 25.0),
    (r"(^|_)(quantity|qty|units|seats|passengers|guests|rooms)$", 1.0, 20.0),
)
_COMPILED = tuple((re.compile(p), lo, hi) for p, lo, hi in MEANINGS)


def snake(name: str) -> str:
    """``startLatitude`` -> ``start_latitude``; ``Max-Results`` -> ``max_results``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[^a-z0-9]+", "_", spaced.lower()).strip("_")


def numeric_range(name: str) -> tuple[float, float] | None:
    """The plausible (low, high) of a number field called ``name``, or None when its name
    says nothing about its range."""
    field = snake(name)
    for pattern, lo, hi in _COMPILED:
        if pattern.search(field):
            return lo, hi
    return None


def within(name: str, minimum: float | None, maximum: float | None) -> tuple[float, float] | None:
    """The plausible range of ``name`` within the bounds a spec declares (either may be
    None); the declared bounds alone when the meaning's range falls outside them."""
    meant = numeric_range(name)
    if meant is None:
        return None
    lo = meant[0] if minimum is None else max(meant[0], minimum)
    hi = meant[1] if maximum is None else min(meant[1], maximum)
    if lo > hi:
        lo = minimum if minimum is not None else hi
        hi = maximum if maximum is not None else lo
    return lo, hi
