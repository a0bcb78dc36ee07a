"""The conformance suite's comparisons, as tables (library/verify/conformance.py, its
module-level rules, for bench/mutation.py): what a record showing a value holds for a
filter (text in any case or containing it, a number by value, one moment in two
spellings, a flag exactly); which side of a range bound a value is on; what was sent is
what was read (numbers by value, moments by instant, objects by the keys sent, lists item
by item); a list result's records and next cursor, whatever its wrapper is called; how a
failure names a listed record; when two listed items are one record; an id as the
parameter takes it; a value of the wrong type; and a failing envelope's reason."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from library.verify.conformance import (
    NOTHING,
    _failure,
    _fit_id,
    _fits,
    _holds,
    _mismatches,
    _moment,
    _name,
    _on_side,
    _one,
    _ordered,
    _page,
    _same,
    _values,
    _wrong,
    _x_ref,
)

MOMENT = "2026-03-01T10:00:00Z"
SAME_MOMENT = "2026-03-01T11:00:00+01:00"
LATER = "2026-03-02T00:00:00Z"


@pytest.mark.parametrize(
    ("shown", "value", "want"),
    [
        ("Open", "open", True),
        ("Quarterly report", "REPORT", True),
        ("report", "Quarterly report", False),
        ("x", "", False),
        ("", "", True),
        (3, 3.0, True),
        (3, 4, False),
        (3, "3", True),  # a number as its digits
        ("3", 3, True),
        (True, True, True),
        (True, 2, False),
        (True, "true", False),
        (False, "false", False),
        (MOMENT, SAME_MOMENT, True),
        (MOMENT, LATER, False),
        ("2026-03-01", "2026-03-01T00:00:00Z", True),
        (None, "None", True),
    ],
)
def test_what_a_record_showing_a_value_holds_for_a_filter(
    shown: Any, value: Any, want: bool
) -> None:
    assert _holds(shown, value) is want


@pytest.mark.parametrize(
    ("value", "bound", "op", "want"),
    [
        (5, 3, "ge", True),
        (3, 3, "ge", True),
        (2, 3, "ge", False),
        (2, 3, "le", True),
        (3, 3, "le", True),
        (4, 3, "le", False),
        (2.5, 3, "le", True),
        (LATER, MOMENT, "ge", True),
        (MOMENT, LATER, "ge", False),
        (MOMENT, SAME_MOMENT, "le", True),
        (MOMENT, LATER, "le", True),
        ("soon", MOMENT, "ge", True),  # does not compare: within
        (5, "x", "ge", True),
        (True, 3, "ge", True),
        ("5", 9, "ge", True),
        (5, MOMENT, "le", True),
    ],
)
def test_which_side_of_a_range_bound_a_value_is_on(
    value: Any, bound: Any, op: str, want: bool
) -> None:
    assert _on_side(value, bound, op) is want


def test_a_value_a_range_compares_is_a_number_or_a_moment_in_text() -> None:
    assert _ordered(3) and _ordered(2.5) and _ordered(MOMENT) and _ordered("2026-03-01")
    assert not _ordered(True) and not _ordered("three") and not _ordered(None) and not _ordered([1])


@pytest.mark.parametrize(
    ("sent", "stored", "want"),
    [
        (1, 1.0, True),
        (1, 1.0000000001, True),
        (1, 1.001, False),
        (True, 1.0000000001, False),
        (1.0000000001, True, False),
        (True, True, True),
        ("a", "a", True),
        ("a", "A", False),
        (MOMENT, SAME_MOMENT, True),
        (MOMENT, LATER, False),
        ("x", "y", False),
        ({"a": 1, "b": None}, {"a": 1.0, "c": 2}, True),
        ({"a": 1}, {"b": 1}, False),
        ({"a": 1}, {"a": 2}, False),
        ([1, "a"], [1.0, "a"], True),
        ([1], [1, 2], False),
        ([1, 2], [2, 1], False),
        (None, None, True),
        ("1", 1, False),
    ],
)
def test_what_was_sent_is_what_was_read(sent: Any, stored: Any, want: bool) -> None:
    assert _same(sent, stored) is want


def test_the_first_key_read_otherwise_than_sent_is_named() -> None:
    found = {"a": 1, "b": "x", "c": 3}
    assert _mismatches({"a": 1.0, "b": "x"}, found, set()) is None
    assert _mismatches({"a": 1, "b": "y", "c": 4}, found, set()) == "'b': sent 'y', read 'x'"
    assert _mismatches({"b": "y", "c": 4}, found, {"b"}) == "'c': sent 4, read 3"
    assert _mismatches({"d": 1, "a": None}, found, set()) is None  # not shown, or unset
    assert _mismatches({"a": 1}, [found], set()) == "a result that is not an object"


def test_a_lists_records_and_next_cursor_whatever_the_wrapper() -> None:
    rows = [{"id": "a"}, {"id": "b"}]
    assert _page(rows) == (rows, None)
    assert _page({"total": 2, "items": rows, "next_cursor": "c2"}) == (rows, "c2")
    assert _page({"tags": ["x"], "data": rows}) == (rows, None)  # a list of text is no page
    assert _page({"data": rows, "next_cursor": ""}) == (rows, None)
    assert _page({"data": rows, "next_cursor": 5}) == (rows, None)
    assert _page("text") == ([], None)
    assert _page({"count": 0}) == ([], None)


def test_the_values_a_record_shows_under_a_key() -> None:
    assert _values(["a", None, {"x": 1}, [2], 3]) == ["a", 3]
    assert _values("a") == ["a"]
    assert _values(None) == []
    assert _values({"x": 1}) == []
    assert _values(0) == [0]


def test_a_failure_names_a_listed_record_by_id_and_the_value_it_shows() -> None:
    item = {"id": "n1", "status": "open"}
    assert _name(item, "id", "status") == "the record whose id is 'n1' (status 'open')"
    assert _name(item, "id", "id") == "the record whose id is 'n1'"
    assert _name(item, "id", "color") == "the record whose id is 'n1'"
    assert _name({"title": "T", "n": 2}, "id", "n") == "the record whose title is 'T' (n 2)"
    assert _name({}, "id", "n") == "a record"


def test_two_listed_items_are_one_record_by_id_or_by_every_value() -> None:
    assert _one({"id": 1, "a": 1}, {"id": "1", "a": 2}, "id")
    assert not _one({"id": 1}, {"id": 2}, "id")
    assert not _one({"id": 1, "a": 1}, {"a": 1}, "id")
    assert _one({"a": 1, "b": 2}, {"b": 2, "a": 1}, "id")
    assert not _one({"a": 1}, {"a": 2}, "id")


@pytest.mark.parametrize(
    ("value", "node", "want"),
    [
        (17, {"type": "string"}, "17"),
        ("17", {"type": "integer"}, 17),
        ("17", {"type": "number"}, 17),
        ("x7", {"type": "integer"}, "x7"),
        (True, {"type": "string"}, True),
        (17, {"type": "integer"}, 17),
        ("17", {"type": "string"}, "17"),
        (17, {"$ref": "#/$defs/Id"}, "17"),
        (17, {"anyOf": [{"type": "string"}, {"type": "null"}]}, "17"),
    ],
)
def test_an_id_as_the_parameter_takes_it(value: Any, node: dict, want: Any) -> None:
    got = _fit_id(value, node, {"$defs": {"Id": {"type": "string"}}})
    assert got == want and type(got) is type(want)


def test_a_stored_value_fits_a_parameter_by_its_schema() -> None:
    root = {"$defs": {"Code": {"type": "string", "maxLength": 3}}}
    assert _fits("abc", {"$ref": "#/$defs/Code"}, root)
    assert not _fits("abcd", {"$ref": "#/$defs/Code"}, root)
    assert not _fits(None, {}, root)
    assert _fits(0, {"type": "integer"}, root)
    assert not _fits("0", {"type": "integer"}, root)


def test_a_value_of_the_wrong_type_for_a_node() -> None:
    assert _wrong({"type": "string"}) == {"unexpected": [1]}
    assert _wrong({"type": "integer"}) == "not-a-number"
    assert _wrong({"type": "number"}) == "not-a-number"
    assert _wrong({"type": "boolean"}) == "not-a-boolean"
    assert _wrong({"type": "array"}) == 12345
    assert _wrong({"properties": {}}) == 12345
    assert _wrong({"type": ["null", "integer"]}) == "not-a-number"
    assert _wrong({}) is NOTHING


def test_a_failing_envelopes_reason_and_a_reference_in_a_node() -> None:
    assert _failure({"success": True, "data": 1}) is None
    failed = {"success": False, "error": {"code": "not_found", "message": "x" * 400}}
    assert _failure(failed) == "not_found: " + "x" * 300
    assert _failure({"success": False}) == "None: None"
    assert _x_ref({"x-ref": "users"}) == "users"
    assert _x_ref({"anyOf": [{"type": "null"}, {"x-ref": "teams"}]}) == "teams"
    assert _x_ref({"x-ref": 3}) is None and _x_ref("users") is None and _x_ref({}) is None


def test_a_moment_in_text_compares_by_instant() -> None:
    assert _moment(MOMENT) == _moment(SAME_MOMENT) == dt.datetime(2026, 3, 1, 10, tzinfo=dt.UTC)
    assert _moment("2026-03-01") == dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    assert _moment("soon") is None
