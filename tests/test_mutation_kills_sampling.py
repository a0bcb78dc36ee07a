"""The argument sampler's rules (mutants of library/verify/sampling.py that survived the other
tests, bench/mutation.py): every value it samples is valid for its schema; it takes a
``const``, then the first enum member, then an example or a default that fits (one of the
wrong type, pattern, length, bounds or date form is passed over), then a value by type, format
and meaning; dates are two weeks after the World's clock; text fits its length bounds and
numbers their bounds, exclusive ones too; lists and maps hold what they must; and a schema
that refers to itself ends."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import jsonschema
import pytest

from library.verify.sampling import (
    FORMAT_SAMPLES,
    MAX_DEPTH,
    SEMANTIC_SAMPLES,
    Sampler,
    main_type,
    simplify,
)

NOW = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.UTC)


def _sample(node: Any, **options: Any) -> Any:
    return Sampler(random.Random(0), NOW).value(node, **options)


SCHEMAS: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "minLength": 12},
    {"type": "string", "maxLength": 3},
    {"type": "string", "minLength": 2, "maxLength": 2},
    {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
    {"type": "string", "format": "date"},
    {"type": "string", "format": "date-time"},
    {"type": "string", "format": "email"},
    {"type": "string", "format": "uuid"},
    {"type": "integer", "minimum": 20},
    {"type": "integer", "maximum": 5},
    {"type": "integer", "exclusiveMinimum": 10},
    {"type": "integer", "exclusiveMaximum": 10},
    {"type": "number", "minimum": 0, "maximum": 1},
    {"type": "boolean"},
    {"type": ["null", "integer"], "minimum": 3},
    {"type": "array", "items": {"type": "integer"}, "minItems": 3},
    {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
    {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2},
    {"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]},
    {"allOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}]},
    {"enum": [None, "b", "c"]},
    {"const": 7},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(s)[:60])
def test_a_sampled_value_is_valid_for_its_schema(schema: dict[str, Any]) -> None:
    value = _sample(schema)
    checker = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    assert not list(checker.iter_errors(value)), value


def test_a_const_then_the_first_member_then_a_fitting_example_or_default() -> None:
    assert _sample({"const": 0, "enum": [1]}) == 0
    assert _sample({"enum": [None, "b", "c"], "example": "c"}) == "b"
    assert _sample({"type": "integer", "examples": [3], "example": 4, "default": 5}) == 3
    assert _sample({"type": "integer", "example": 4, "default": 5}) == 4
    assert _sample({"type": "integer", "default": 5}) == 5
    assert _sample({"type": "integer", "default": None}) == 10


@pytest.mark.parametrize(
    "node",
    [
        {"type": "integer", "example": "4"},  # wrong type
        {"type": "integer", "example": True},
        {"type": "string", "example": "abc", "pattern": "^[0-9]+$"},
        {"type": "string", "example": "abc", "pattern": "("},  # a pattern that does not compile
        {"type": "string", "example": "abcdef", "maxLength": 3},
        {"type": "string", "example": "a", "minLength": 3},
        {"type": "string", "format": "date", "example": "2026-01-02T10:00:00Z"},
        {"type": "integer", "example": 50, "maximum": 20},
        {"type": "integer", "example": 1, "minimum": 2},
        {"type": "array", "example": {"a": 1}, "items": {"type": "integer"}},
        {"type": "object", "example": [1], "properties": {"a": {"type": "integer"}}},
        {"type": "boolean", "example": "yes"},
        {"type": "number", "example": "1.5"},
    ],
    ids=lambda n: str(n)[:60],
)
def test_an_example_that_does_not_fit_is_passed_over(node: dict[str, Any]) -> None:
    assert _sample(node) != node["example"]
    assert _sample({**node, "default": node["example"]}) != node["example"]


def test_an_example_that_fits_is_taken_whatever_its_type() -> None:
    for node in (
        {"type": "string", "example": "2026-01-02", "format": "date"},
        {"type": "string", "example": "AB1", "pattern": "^[A-Z]+[0-9]$", "maxLength": 3},
        {"type": "number", "example": 3},
        {"type": "boolean", "example": False},
        {"type": "array", "example": [1, 2]},
        {"type": "object", "example": {"a": 1}},
        {"example": "anything"},
    ):
        assert _sample(node) == node["example"], node


def test_dates_are_two_weeks_after_the_worlds_clock() -> None:
    assert _sample({"type": "string", "format": "date"}) == "2026-03-15"
    assert _sample({"type": "string", "format": "date-time"}) == "2026-03-15T09:30:00Z"
    semantics = {"due": "date", "at": "datetime"}
    assert _sample({"type": "string"}, path="due", semantics=semantics) == "2026-03-15"
    assert _sample({"type": "string"}, path="at", semantics=semantics) == "2026-03-15T09:30:00Z"
    # a format says more than a meaning
    assert (
        _sample({"type": "string", "format": "email"}, path="due", semantics=semantics)
        == (FORMAT_SAMPLES["email"])
    )


def test_text_by_meaning_and_name_within_its_length() -> None:
    semantics = {"to": "email", "user_id": "id", "x": "phone"}
    assert _sample({"type": "string"}, path="to", semantics=semantics) == SEMANTIC_SAMPLES["email"]
    assert _sample({"type": "string"}, name="user_id", path="user_id", semantics=semantics) == (
        "user_sample01"
    )
    assert _sample({"type": "string"}, name="_id", path="user_id", semantics=semantics) == (
        "rec_sample01"
    )
    assert _sample({}, path="x", semantics=semantics) == SEMANTIC_SAMPLES["phone"]  # no type
    too_long = {"type": "string", "maxLength": 5}
    assert _sample(too_long, path="to", semantics=semantics) == "sampl"
    assert _sample({"type": "string"}, name="title") == "sample title"
    assert _sample({"type": "string"}) == "sample"
    assert _sample({"type": "string", "minLength": 9}) == "samplexxx"
    assert _sample({"type": "string", "maxLength": 0}) == "s"
    assert _sample({"type": "string", "pattern": "^[a-z]{4}$"}) != "sample"
    assert _sample({}) == "sample"


def test_numbers_keep_to_their_bounds_exclusive_ones_too() -> None:
    assert _sample({"type": "integer"}) == 10 and _sample({"type": "number"}) == 10.5
    assert _sample({"type": "number"}, path="p", semantics={"p": "money"}) == 125.5
    assert _sample({"type": "integer", "minimum": 20}) == 20
    assert _sample({"type": "integer", "minimum": 10}) == 10
    assert _sample({"type": "integer", "exclusiveMinimum": 10}) == 11
    assert _sample({"type": "integer", "maximum": 5}) == 5
    assert _sample({"type": "integer", "maximum": 10}) == 10
    assert _sample({"type": "integer", "exclusiveMaximum": 10}) == 9
    assert _sample({"type": "number", "minimum": 1, "maximum": 2}) == 2
    assert _sample({"type": "boolean"}) is True


def test_lists_and_maps_hold_what_they_must() -> None:
    assert _sample({"type": "array", "items": {"type": "integer"}}) == [10]
    assert _sample({"type": "array", "items": {"type": "integer"}, "minItems": 3}) == [10] * 3
    entries = {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2}
    assert _sample(entries) == {"key1": 10, "key2": 10}
    assert _sample({"items": {"type": "boolean"}}) == [True]  # an array by its items
    nested = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {
                "type": "object",
                "required": ["b"],
                "properties": {
                    "b": {"type": "object", "required": ["c"], "properties": {"c": {}, "d": {}}},
                    "e": {"type": "integer"},
                },
            },
            "f": {"type": "integer"},
        },
    }
    # optional parts near the top only: deeper down, the required ones
    assert _sample(nested) == {"a": {"b": {"c": "sample"}, "e": 10}, "f": 10}


def test_a_schema_that_refers_to_itself_ends() -> None:
    root = {
        "$defs": {
            "Node": {
                "type": "object",
                "required": ["name", "children"],
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            }
        }
    }
    tree = _sample({"$ref": "#/$defs/Node"}, root=root)
    depth = 0
    while tree:
        assert tree["name"] == "sample name"
        depth += 1
        tree = tree["children"][0] if tree["children"] else None
    assert 1 < depth <= MAX_DEPTH


def test_simplify_resolves_a_reference_and_drops_null() -> None:
    root = {"$defs": {"Day": {"type": "string", "format": "date"}}}
    assert simplify({"$ref": "#/$defs/Day", "description": "d"}, root) == {
        "type": "string", "format": "date", "description": "d",
    }  # fmt: skip
    assert simplify({"$ref": "#/$defs/Day"}) == {"$ref": "#/$defs/Day"}  # no root to look in
    assert simplify({"$ref": "#/$defs/Gone"}, root) == {"$ref": "#/$defs/Gone"}
    either = {"oneOf": [{"type": "null"}, {"type": "integer"}], "title": "n"}
    assert simplify(either) == {"type": "integer", "title": "n"}
    assert simplify({"anyOf": [{"type": "null"}]}) == {"anyOf": [{"type": "null"}]}
    assert simplify("x") == {}


def test_main_type_reads_the_type_a_node_means() -> None:
    assert main_type({"type": ["null", "integer"]}) == "integer"
    assert main_type({"type": ["null"]}) is None
    assert main_type({"properties": {}}) == "object"
    assert main_type({"items": {}}) == "array"
    assert main_type({"type": "string", "items": {}}) == "string"
    assert main_type({}) is None and main_type({"type": 3}) is None


def test_a_meaning_is_found_by_the_values_path_at_any_depth() -> None:
    email, phone = SEMANTIC_SAMPLES["email"], SEMANTIC_SAMPLES["phone"]
    semantics = {"to[]": "email", "contact.phone": "phone", "tags.*": "phone"}
    listed = {"type": "array", "items": {"type": "string"}}
    assert _sample(listed, name="to", path="to", semantics=semantics) == [email]
    contact = {"type": "object", "properties": {"phone": {"type": "string"}}}
    form = {"type": "object", "properties": {"contact": contact}}
    assert _sample(form, semantics=semantics) == {"contact": {"phone": phone}}
    tags = {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}
    assert _sample(tags, name="tags", path="tags", semantics=semantics) == {"key1": phone}
    assert _sample(tags | {"properties": {"a": {"type": "integer"}}}) == {"a": 10}


def test_a_pattern_is_drawn_within_the_length_and_a_moment_in_utc() -> None:
    for seed in range(5):
        drawn = Sampler(random.Random(seed), NOW).value(
            {"type": "string", "pattern": "^[a-z]+$", "maxLength": 4, "minLength": 2}
        )
        assert 2 <= len(drawn) <= 4 and drawn.isalpha()
    east = dt.datetime(2026, 3, 1, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    moment = Sampler(random.Random(0), east).value({"type": "string", "format": "date-time"})
    assert moment == "2026-03-15T07:30:00Z"
    assert _sample({"type": "string", "format": "made-up"}) == "sample"
