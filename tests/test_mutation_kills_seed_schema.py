"""Broad rules of what a compiled service seeds (library/compiler/emit_seed.py, whose mutants
survive in many small places, bench/mutation.py): every seeded record fits the schema its
spec declares (patterns, lengths, enums, formats, bounds, exclusive bounds, fractional bounds
of an integer, list items, nested objects), a field the spec calls unique holds a different
value on every record, a number named for its meaning keeps to that meaning's range and step
(within any bound the spec declares), an expiry year is never past while other years are
about now, and a range's maximum is never below its minimum."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest

from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import _seeded_world

TEXT = {"type": "string"}
INTEGER, NUMBER = {"type": "integer"}, {"type": "number"}
CONSTRAINED: dict[str, Any] = {
    "title": TEXT,
    "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
    "nickname": {"type": "string", "minLength": 12, "maxLength": 20},
    "initials": {"type": "string", "maxLength": 3},
    "label": {"type": "string", "minLength": 30},
    "colour": {"type": "string", "enum": ["red", "green", "blue"]},
    "contact_email": {"type": "string", "format": "email"},
    "homepage": {"type": "string", "format": "uri"},
    "token": {"type": "string", "format": "uuid"},
    "due_on": {"type": "string", "format": "date"},
    "seen_at": {"type": "string", "format": "date-time"},
    "level": {"type": "integer", "minimum": 5, "maximum": 9},
    "grade": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 4},
    "ratio": {"type": "number", "minimum": 0.1, "maximum": 0.9},
    "depth": {"type": "integer", "minimum": -6.5, "maximum": -2.5},
    "width": {"type": "integer", "minimum": 2.5, "maximum": 6.5},
    "flagged": {"type": "boolean"},
    "tags": {"type": "array", "items": TEXT, "minItems": 1, "maxItems": 3},
    "sizes": {"type": "array", "items": {"type": "string", "enum": ["s", "m", "l"]}},
    "part": {
        "type": "object",
        "required": ["label"],
        "properties": {
            "label": {"type": "string", "maxLength": 4},
            "slot": {"type": "integer", "minimum": 10, "maximum": 12},
        },
    },
}


@pytest.mark.parametrize("required", [True, False], ids=["required", "optional"])
def test_every_seeded_record_fits_the_schema_its_spec_declares(required: bool) -> None:
    record = _record(list(CONSTRAINED) if required else ["title"], **CONSTRAINED)
    _, widgets = _seeded_world("widgets", "Widget", record, size=12)
    checker = jsonschema.Draft202012Validator(record, format_checker=jsonschema.FormatChecker())
    shown: set[str] = set()
    for widget in widgets:
        present = {k: v for k, v in widget.items() if v is not None}
        errors = [
            f"{'/'.join(map(str, e.path))}: {e.message}" for e in checker.iter_errors(present)
        ]
        assert not errors, (errors, widget)
        assert re.match(r"^https?://[\w.-]+\.[a-z]{2,}", present.get("homepage", "https://a.io"))
        shown |= set(present)
    if required:
        assert shown == {"id", *CONSTRAINED}
    else:  # an optional field with a declared shape is still seeded somewhere
        assert {"code", "colour", "level", "due_on", "seen_at"} <= shown, shown


def test_a_field_the_spec_calls_unique_differs_on_every_record() -> None:
    serial = {"type": "string", "pattern": "^SN-[0-9]{6}$", "description": "The unique serial."}
    handle = {"type": "string", "description": "The unique reference of the widget."}
    record = _record(["title", "serial"], title=TEXT, serial=serial, handle=handle)
    _, widgets = _seeded_world("widgets", "Widget", record, size=12)
    serials = [w["serial"] for w in widgets]
    assert all(re.fullmatch(r"SN-[0-9]{6}", s) for s in serials), serials
    assert len(set(serials)) == len(serials), serials
    handles = [w["handle"] for w in widgets if w.get("handle") is not None]
    assert len(set(handles)) == len(handles), handles


# name -> (low, high, step): the range and granularity its meaning gives
MEANINGS: dict[str, tuple[tuple[float, float, float], dict]] = {
    "rating": ((1, 5, 1), INTEGER),
    "probability": ((0, 100, 5), INTEGER),
    "quantity": ((1, 20, 1), INTEGER),
    "unit_count": ((1, 21, 1), INTEGER),  # a count: from 1
    "hours": ((0.5, 8, 0.25), NUMBER),
    "salary": ((45_000, 180_000, 0.01), NUMBER),
    "seats": ((5, 200, 5), INTEGER),
    "capacity": ((4, 20, 2), INTEGER),
    "tax_rate": ((5, 25, 0.5), NUMBER),
    "duration_minutes": ((15, 120, 15), INTEGER),
    "age": ((21, 68, 1), INTEGER),
    "weight_kg": ((0.2, 30, 0.01), NUMBER),
    "misc": ((0, 20, 1), INTEGER),  # no meaning: a small count
    "misc_n": ((0, 100, 0.01), NUMBER),
    "capped_rating": ((1, 3, 1), {"type": "integer", "maximum": 3}),
    "bulk_quantity": ((50, 50, 1), {"type": "integer", "minimum": 50}),
    "open_seats": ((10, 10, 1), {"type": "integer", "minimum": 10, "maximum": 10}),
}


def _on_step(value: float, low: float, step: float) -> bool:
    k = (value - low) / step
    return abs(k - round(k)) < 1e-6


def test_a_number_named_for_its_meaning_keeps_to_its_range_and_step() -> None:
    record = _record(list(MEANINGS), **{name: node for name, (_, node) in MEANINGS.items()})
    _, rows = _seeded_world("widgets", "Widget", record, size=20)
    for name, ((low, high, step), node) in MEANINGS.items():
        values = [row[name] for row in rows]
        assert all(low <= v <= high for v in values), (name, values)
        if step >= 0.25:
            assert all(_on_step(v, low, step) for v in values), (name, values)
        if node.get("type") == "integer":
            assert all(isinstance(v, int) for v in values), (name, values)
        if high - low >= 4 * step:
            assert len(set(values)) > 2, (name, values)  # drawn, not one value


def test_an_expiry_year_is_never_past_other_years_are_about_now() -> None:
    names = ["expiry_year", "exp_year", "fiscal_year", "year"]
    world, rows = _seeded_world("cards", "Card", _record(names, **dict.fromkeys(names, INTEGER)))
    now = world.now().year
    for key in ("expiry_year", "exp_year"):
        years = [row[key] for row in rows]
        assert min(years) >= now and max(years) <= now + 5, (key, years)
    for key in ("fiscal_year", "year"):
        years = [row[key] for row in rows]
        assert set(years) <= {now - 1, now, now + 1}, (key, years)


def test_a_ranges_maximum_is_never_below_its_minimum() -> None:
    pairs = {
        "min_guests": INTEGER,
        "max_guests": INTEGER,
        "budget_min": NUMBER,
        "budget_max": NUMBER,
        "low_price": {"type": "number", "maximum": 50},
        "high_price": {"type": "number", "maximum": 60},
    }
    _, rows = _seeded_world("trips", "Trip", _record(list(pairs), **pairs), size=12)
    for row in rows:
        assert row["min_guests"] <= row["max_guests"], row
        assert row["budget_min"] <= row["budget_max"], row
        assert row["low_price"] <= row["high_price"] <= 60, row
    assert any(row["budget_min"] < row["budget_max"] for row in rows), rows
