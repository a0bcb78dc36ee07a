"""The compiler's literal values (mutants of library/compiler/values.py that survived the
other tests, bench/mutation.py): a JSON scalar becomes its Python source and nothing else
does; a date and a date-time are told apart; an acknowledgement's fixed value is the spec's
default when it fits, a neutral one for a status-like key or a flag, and nothing the
compiler would have to make up; a fallback text satisfies its format and length; a field's
default is kept only when its type can hold it."""

from __future__ import annotations

import json

import pytest

from library.compiler.model import FieldPlan, Kind, TypeSpec
from library.compiler.values import (
    answer_constant,
    default_source,
    example_of,
    fallback_text,
    json_literal,
    of_format,
)


def test_a_json_scalar_becomes_its_source_and_nothing_else_does() -> None:
    assert [json_literal(v) for v in (True, None, 3, 2.5, "a\"b")] == [
        "True", "None", "3", "2.5", '"a\\"b"',
    ]  # fmt: skip
    assert json_literal([1]) is None and json_literal({"a": 1}) is None


@pytest.mark.parametrize(
    ("text", "fmt", "fits"),
    [
        ("2026-01-02", "date", True),
        ("2026-01-02T10:00:00Z", "date", False),
        ("2026-1-2", "date", False),
        ("2026-02-30", "date", False),
        ("2026-01-02T10:00:00Z", "date-time", True),
        ("2026-01-02t10:00:00+02:00", "date-time", True),
        ("2026-01-02", "date-time", False),
        ("soon", "date-time", False),
    ],
)
def test_a_date_and_a_date_time_are_told_apart(text: str, fmt: str, fits: bool) -> None:
    assert of_format(text, fmt) is fits


@pytest.mark.parametrize(
    ("name", "node", "source"),
    [
        ("status", {"type": "integer", "default": 201}, "201"),
        ("code", {"type": "string", "default": "done"}, '"done"'),
        ("status", {"type": "string", "default": 5}, '"ok"'),  # a default of another type
        ("state", {"type": "string", "enum": ["x", "y"], "default": "z"}, '"x"'),
        ("queued", {"type": "boolean"}, "False"),
        ("success", {"type": "boolean"}, "True"),
        ("ok", {"type": ["null", "boolean"]}, "True"),
        ("status", {"type": "integer"}, "200"),
        ("status", {"type": "number"}, "200.0"),
        ("status", {"type": "integer", "maximum": 100}, None),
        ("status", {"type": "integer", "minimum": 300}, None),
        ("status", {"type": "integer", "minimum": 200, "maximum": 200}, "200"),
        ("status", {"type": "string", "enum": [None, "queued"]}, '"queued"'),
        ("status", {"type": "integer", "enum": ["queued"]}, None),
        ("message", {"type": "string"}, '"ok"'),
        ("message", {"type": "string", "minLength": 3}, None),
        ("message", {"type": "string", "minLength": 2}, '"ok"'),
        ("message", {"type": "string", "format": "uuid"}, None),
        ("message", {"type": "string", "pattern": "^a"}, None),
        ("message", {"type": "object"}, None),
        ("amount", {"type": "integer"}, None),  # content the compiler would make up
        ("record_id", {"type": "string"}, None),
    ],
)
def test_an_acknowledgement_holds_a_fixed_value_only_when_one_is_right(
    name: str, node: dict, source: str | None
) -> None:
    assert answer_constant(name, node) == source


@pytest.mark.parametrize(
    ("schema", "literal"),
    [
        ({"format": "date-time"}, "2026-01-01T00:00:00Z"),
        ({"format": "date"}, "2026-01-01"),
        ({"format": "email"}, "someone@example.com"),
        ({}, "n/a"),
        ({"minLength": 5}, "n/axx"),
        ({"maxLength": 2}, "n/"),
        ({"minLength": 3, "maxLength": 3}, "n/a"),
    ],
)
def test_a_fallback_text_satisfies_its_format_and_length(schema: dict, literal: str) -> None:
    assert json.loads(fallback_text(TypeSpec(Kind.STR, "str", schema=schema))) == literal


def _field(kind: Kind, schema: dict, enum: tuple = ()) -> FieldPlan:
    return FieldPlan("f", "f", TypeSpec(kind, "x", enum=enum, schema=schema))


def test_a_fields_default_is_kept_only_when_its_type_can_hold_it() -> None:
    assert default_source(_field(Kind.INT, {"default": 3})) == "3"
    assert default_source(_field(Kind.STR, {"default": "a"})) == '"a"'
    assert default_source(_field(Kind.STR, {})) is None
    assert default_source(_field(Kind.ENUM, {"default": "b"}, ("a", "b"))) == '"b"'
    assert default_source(_field(Kind.ENUM, {"default": "c"}, ("a", "b"))) is None
    for kind in (Kind.DATE, Kind.DATETIME, Kind.MODEL, Kind.LIST, Kind.DICT):
        assert default_source(_field(kind, {"default": "2026-01-01"})) is None


def test_the_first_example_is_the_example() -> None:
    assert example_of({"examples": ["a", "b"], "example": "c"}) == "a"
    assert example_of({"examples": [], "example": "c"}) == "c"
    assert example_of({}) is None
