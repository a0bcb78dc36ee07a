"""How an instruction says a field: a unit the name ends in is said as one
("duration in seconds", not "duration seconds"), and a plural field takes "are" ("its
seats are 19", not "its seats is 19")."""

from __future__ import annotations

import pytest

from library.compose.context import be, field_words


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("duration_seconds", "duration in seconds"),
        ("weight_grams", "weight in grams"),
        ("odometer_km", "odometer in km"),
        ("discount_pct", "discount in percent"),
        ("customer_email", "customer email"),
        ("seconds", "seconds"),  # a unit alone is the field's own name
        ("to", "recipient"),
    ],
)
def test_a_field_is_said_with_its_unit(name: str, said: str) -> None:
    assert field_words(name) == said


@pytest.mark.parametrize(
    ("label", "verb"),
    [("seats", "are"), ("tags", "are"), ("status", "is"), ("address", "is"),
     ("duration in seconds", "is"), ("weight in grams", "is"), ("title", "is")],
)  # fmt: skip
def test_a_plural_field_takes_are(label: str, verb: str) -> None:
    assert be(label) == verb
