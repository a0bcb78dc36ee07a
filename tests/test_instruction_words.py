"""How an instruction says a field: a unit the name ends in is said as one
("duration in seconds", not "duration seconds"), and a plural field takes "are" ("its
seats are 19", not "its seats is 19")."""

from __future__ import annotations

import pytest

from library.compose.context import be, field_words
from library.compose.referring import _rule_words
from library.compose.render import _threshold


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
        # a range's ends and a tally, as a person says them (not "salary max")
        ("salary_max", "maximum salary"),
        ("salary_min", "minimum salary"),
        ("employee_count", "number of employees"),
        ("count", "count"),
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


def test_a_rule_and_a_threshold_say_the_field_as_a_person_does() -> None:
    """ "the meeting with the largest duration in minutes", not "... duration minutes"; "if
    its story points are above 8", not "is above"."""
    rule = _rule_words({"rule": "largest", "field": "duration_minutes"})
    assert rule == ("", "with the largest duration in minutes")
    assert _rule_words({"rule": "smallest", "field": "salary_max"})[1].endswith("maximum salary")
    said = _threshold(
        {"field": "story points", "of": "the issue", "limit": "8", "param": "priority",
         "above": '"high"', "otherwise": '"low"'}
    )  # fmt: skip
    assert "story points of the issue are above 8" in said, said
