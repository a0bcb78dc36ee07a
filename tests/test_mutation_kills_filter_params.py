"""Which of a list's parameters the conformance suite checks as filters (library/verify/
conformance.py, ``filter_params`` and ``_scalar``, whose mutants survived the other tests,
bench/mutation.py, seed 10): an optional parameter named for an item key is a filter only
when some listed record holds a value the parameter takes (its type, its enum, reached
through ``$defs``, ``allOf`` and a list parameter's items); a free-text query with no key of
its name is a query; required, paging and range parameters are left to their own checks; and
the node of one value a parameter takes is itself, or a list's item, or None for objects."""

from __future__ import annotations

from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.verify.conformance import _scalar, _Suite
from library.verify.contracts import ToolContract
from tests.test_mutation_kills_compiler_rules import NOTES, _specs

STATES = {"type": "string", "enum": ["open", "done"]}
GONE = {"type": "string", "enum": ["archived"]}
ITEMS = [
    {"id": "n1", "status": "open", "priority": "high", "labels": ["red", "blue"]},
    {"id": "n2", "status": "done", "priority": "low", "ownerId": "u1"},
]


@pytest.fixture
def suite() -> _Suite:
    return _Suite(load_service(compile_service(_specs(NOTES)).source), [], 0, 5)


def _contract(
    props: dict[str, Any], defs: dict[str, Any] | None = None, **more: Any
) -> ToolContract:
    schema: dict[str, Any] = {"type": "object", "properties": props, **more}
    if defs:
        schema["$defs"] = defs
    return ToolContract("notes", "listNotes", "list", "notes", "read", schema, None)


def test_a_parameter_named_for_a_key_filters_where_a_record_holds_a_value_it_takes(
    suite: _Suite,
) -> None:
    c = _contract(
        {
            "status": STATES,
            "priority": {"type": "integer"},  # the records hold words: no value it takes
            "labels": {"type": "string"},
            "owner_id": {"type": "string"},
            "q": {"type": "string"},
            "search": {"type": "integer"},  # a query of no text
            "limit": {"type": "integer"},
            "cursor": {"type": "string"},
            "created_after": {"type": "string"},
            "color": {"type": "string"},  # no key of its name
        }
    )
    assert suite.filter_params(c, ITEMS) == {
        "status": "status",
        "labels": "labels",
        "owner_id": "ownerId",
        "q": None,
    }
    assert suite.filter_params(_contract({"status": GONE}), ITEMS) == {}
    required = _contract({"status": STATES}, required=["status"])
    assert suite.filter_params(required, ITEMS) == {}


def test_a_filters_values_are_read_through_defs_all_of_and_list_items(suite: _Suite) -> None:
    defs = {"Gone": GONE, "States": STATES}
    for name in ("Gone", "States"):
        ref = {"$ref": f"#/$defs/{name}"}
        want = {"status": "status"} if name == "States" else {}
        for node in (
            ref,
            {"allOf": [ref], "description": "The state."},
            {"anyOf": [ref, {"type": "null"}]},
            {"type": "array", "items": ref},
            {"type": "array", "items": defs[name]},
        ):
            assert suite.filter_params(_contract({"status": node}, defs), ITEMS) == want, node


def test_a_read_has_its_query_checked_only_where_its_records_are_its_answer(
    suite: _Suite,
) -> None:
    props = {"status": STATES, "q": {"type": "string"}}
    read = ToolContract("notes", "findNotes", "read", "notes", "read", {"properties": props}, None)
    assert suite.filter_params(read, ITEMS) == {"q": None}
    assert suite.filter_params(read, {"notes": ITEMS, "total": 2}) == {"q": None}
    assert suite.filter_params(read, {"notes": ITEMS, "tags": []}) == {}  # two lists
    assert suite.filter_params(read, {"note": ITEMS[0], "total": 1}) == {}  # no list
    writes = ToolContract(
        "notes", "findNotes", "read", "notes", "write", {"properties": props}, None
    )
    assert suite.filter_params(writes, ITEMS) == {}


def test_the_node_of_one_value_is_itself_a_lists_item_or_none() -> None:
    root = {"$defs": {"Gone": GONE}}
    assert _scalar(STATES, root) == STATES
    assert _scalar({"type": "array", "items": STATES}, root) == STATES
    assert _scalar({"type": "array", "items": {"$ref": "#/$defs/Gone"}}, root) == GONE
    assert _scalar({"items": {"type": "integer"}}, root) == {"type": "integer"}
    assert _scalar({"type": "object", "properties": {}}, root) is None
    assert _scalar({"type": "array", "items": {"type": "object"}}, root) is None
    assert _scalar({"type": "array", "items": {"type": "array", "items": STATES}}, root) is None
