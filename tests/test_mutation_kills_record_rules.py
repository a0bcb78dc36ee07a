"""The record planner's small rules, as tables through its functions (library/compiler/
records.py, the third-largest module the mutation bench samples, bench/mutation.py): where a
tool's output holds its records (the record, an array, a page's one array, an envelope's one
object) and under which id key; a read's answer without an id; which required parameter names
the record; what a range filter bounds; ids listed instead of records; a field called unique;
an id's prefix from its example; why the runtime's ids cannot stand for a spec's; and the
small names (initials, order, collection attributes)."""

from __future__ import annotations

from typing import Any

import pytest

from library.compiler.model import FieldPlan, Kind, TypeSpec
from library.compiler.records import (
    _deepest_first,
    _id_prefix,
    _id_unfit,
    _initials,
    _last_path_param,
    _nullable,
    _order,
    _sets_values,
    _singleton,
    _unique,
    answer_source,
    deref,
    jaccard,
    keys_answer,
    lookup_keys,
    names_record,
    own_id_param,
    range_parts,
    range_target,
    record_source,
    resource_key,
)
from library.toolspec import ToolSpec
from tests.test_mutation_kills_compiler_rules import NOTES, _specs

TEXT = {"type": "string"}
NOTE = {"type": "object", "properties": {"id": TEXT, "title": TEXT}}
KEYED = {"type": "object", "properties": {"noteId": TEXT, "title": TEXT}}


def _base() -> ToolSpec:
    return {s.name: s for s in _specs(NOTES)}["getNote"]


def _with(**update: Any) -> ToolSpec:
    return _base().model_copy(update=update)


# output -> (container, prefix, items_key, id_key) or None
SOURCES: list[tuple[Any, tuple[str, str, str | None, str] | None]] = [
    (NOTE, ("record", "", None, "id")),
    (KEYED, ("record", "", None, "noteId")),
    ({"type": "array", "items": NOTE}, ("list", "[].", None, "id")),
    ({"type": "array", "items": {"type": "string"}}, None),
    (
        {"type": "object", "properties": {"items": {"type": "array", "items": NOTE}, "next": TEXT}},
        ("page", "items[].", "items", "id"),
    ),
    (
        {
            "type": "object",
            "properties": {
                "a": {"type": "array", "items": NOTE},
                "b": {"type": "array", "items": NOTE},
            },
        },
        None,
    ),
    ({"type": "object", "properties": {"data": NOTE}}, ("envelope", "data.", "data", "id")),
    ({"type": "object", "properties": {"data": NOTE, "record": NOTE}}, None),  # which one?
    (
        {"type": "object", "properties": {"note": NOTE, "meta": {"type": "object"}}},
        ("envelope", "note.", "note", "id"),
    ),
    ({"type": "object", "properties": {"thing": NOTE, "other": {"type": "object"}}}, None),
    (
        {
            "type": "object",
            "properties": {"status": TEXT, "code": {"type": "integer"}, "response": NOTE},
        },
        ("envelope", "response.", "response", "id"),
    ),
    ({"type": "object", "properties": {"title": TEXT}}, None),
    ({"type": "string"}, None),
    (None, None),
    (
        {"$ref": "#/$defs/Note", "$defs": {"Note": NOTE}},
        ("record", "", None, "id"),
    ),
    (
        {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/N"}}},
            "$defs": {"N": NOTE},
        },
        ("page", "items[].", "items", "id"),
    ),
]


@pytest.mark.parametrize(("output", "want"), SOURCES)
def test_where_a_tools_output_holds_its_records(output: Any, want: tuple | None) -> None:
    found = record_source(_with(output_schema=output))
    got = None if found is None else (found.container, found.prefix, found.items_key, found.id_key)
    assert got == want


def test_a_preferred_key_names_records_that_show_no_id() -> None:
    named = {"type": "object", "properties": {"name": TEXT, "slug": TEXT}}
    assert record_source(_with(output_schema=named)).id_key == "name"
    assert record_source(_with(output_schema=named), prefer="slug").id_key == "slug"
    assert record_source(_with(output_schema=NOTE), prefer="title").id_key == "id"


def test_a_reads_answer_without_an_id_is_a_record_looked_up_by_its_parameters() -> None:
    rate = {"type": "object", "properties": {"rate": {"type": "number"}, "country": TEXT}}
    found = answer_source(_with(output_schema=rate))
    assert found is not None and (found.container, found.prefix) == ("answer", "")
    assert answer_source(_with(output_schema=rate, access="write")) is None
    assert answer_source(_with(output_schema={"type": "object", "properties": {}})) is None
    assert answer_source(_with(output_schema={"type": "array", "items": rate})) is None
    assert (
        answer_source(_with(output_schema={"type": "object", "properties": {"a-b": TEXT}})) is None
    )
    paged = {"type": "object", "properties": {"rows": {"type": "array", "items": rate}}}
    assert answer_source(_with(output_schema=paged)) is not None  # a read: its own answer
    assert answer_source(_with(output_schema=paged, verb="list")) is None


def _params(required: list[str], path: str | None = None, **props: Any) -> ToolSpec:
    base = _base()
    schema = {
        "type": "object",
        "properties": {k: TEXT for k in required} | props,
        "required": required,
    }
    http = None
    if path is not None:
        names = [n for n in required if "{" + n + "}" in path]
        http = base.http.model_copy(update={"path": path, "params": dict.fromkeys(names, "path")})
    return base.model_copy(update={"input_schema": schema, "http": http, "fields": []})


@pytest.mark.parametrize(
    ("spec", "resource", "want"),
    [
        (_params(["note_id"]), "notes", "note_id"),
        (_params(["noteId"]), "notes", "noteId"),
        (_params(["id"]), "notes", "id"),
        (_params(["sid"]), "notes", "sid"),
        (_params(["note_arn"]), "notes", "note_arn"),
        (_params(["user_id"]), "notes", None),
        (_params(["title"]), "notes", None),
        (_params(["policy_id"], "/insurance/{policy_id}"), "insurance_policies", "policy_id"),
        (_params(["stage_name"], "/stages/{stage_name}"), "stages", "stage_name"),
        (_params(["stage_name"]), "stages", None),
        (_params(["name"], "/v1/{name}"), "notes", "name"),
        (_params(["name"], "/v1/{name}/items"), "notes", None),
        (_params(["name"], "/v1/{name}:cancel"), "notes", "name"),
    ],
)
def test_the_required_parameter_that_names_the_record(
    spec: ToolSpec, resource: str, want: str | None
) -> None:
    assert own_id_param(spec, resource) == want


def test_path_parameters_deepest_first_and_the_last_one() -> None:
    spec = _params(["org", "item", "extra"], "/orgs/{org}/items/{item}")
    assert _deepest_first(spec) == ["item", "org", "extra"]
    assert _last_path_param(spec) == "item"
    assert _last_path_param(_params(["org"], "/orgs/{org}/items")) is None
    assert _last_path_param(_params(["org"], "/orgs/{org}:archive")) == "org"
    assert _last_path_param(_params(["org"])) is None
    assert _deepest_first(_params(["b", "a"])) == ["b", "a"]


@pytest.mark.parametrize(
    ("toks", "resource", "path", "want"),
    [
        (("policy", "id"), "insurance_policies", False, True),
        (("insurance", "policy", "arn"), "insurance_policies", False, True),
        (("id",), "policies", False, False),
        (("policy", "name"), "policies", False, False),
        (("policy", "name"), "policies", True, True),
        (("user", "id"), "policies", False, False),
        ((), "policies", False, False),
        (("policy", "id"), None, False, False),
    ],
)
def test_a_key_names_a_record_by_the_resources_noun(
    toks: tuple[str, ...], resource: str | None, path: bool, want: bool
) -> None:
    assert names_record(toks, resource, path=path) is want


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("created_after", (["created", "created_at", "created_date", "created_on"], "ge", True)),
        ("created_before", (["created", "created_at", "created_date", "created_on"], "le", True)),
        ("min_amount", (["amount", "amount_at", "amount_date", "amount_on"], "ge", False)),
        ("max_amount", (["amount", "amount_at", "amount_date", "amount_on"], "le", False)),
        ("amount_gte", (["amount", "amount_at", "amount_date", "amount_on"], "ge", False)),
        ("amount_gt", (["amount", "amount_at", "amount_date", "amount_on"], "ge", True)),
        ("amount_lt", (["amount", "amount_at", "amount_date", "amount_on"], "le", True)),
        ("since_updated", (["updated", "updated_at", "updated_date", "updated_on"], "ge", False)),
        ("due_until", (["due", "due_at", "due_date", "due_on"], "le", False)),
        ("amount", None),
        ("minimum", None),
    ],
)
def test_what_a_range_filter_bounds(name: str, want: tuple | None) -> None:
    assert range_parts(name) == want


def test_a_range_filter_bounds_the_first_number_or_moment_it_names() -> None:
    fields = {
        "created_at": FieldPlan("created_at", "created_at", TypeSpec(Kind.DATETIME, "DateTime")),
        "amount": FieldPlan("amount", "amount", TypeSpec(Kind.FLOAT, "float")),
        "due_date": FieldPlan("due_date", "due_date", TypeSpec(Kind.DATE, "Date")),
        "size": FieldPlan("size", "size", TypeSpec(Kind.INT, "int")),
        "name": FieldPlan("name", "name", TypeSpec(Kind.STR, "str")),
    }
    assert range_target("created_after", fields) == ("created_at", "ge")
    assert range_target("max_amount", fields) == ("amount", "le")
    assert range_target("due_before", fields) == ("due_date", "le")
    assert range_target("size_min", fields) == ("size", "ge")
    assert range_target("name_from", fields) is None  # text has no range
    assert range_target("updated_after", fields) is None
    assert range_target("amount", fields) is None


@pytest.mark.parametrize(
    ("output", "want"),
    [
        ({"type": "array", "items": TEXT}, ("", "string")),
        ({"type": "array", "items": {"type": "integer"}}, ("", "integer")),
        (
            {"type": "object", "properties": {"keys": {"type": "array", "items": TEXT}}},
            ("keys", "string"),
        ),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, None),
        ({"type": "array", "items": NOTE}, None),
        (
            {"type": "object", "properties": {"keys": {"type": "array", "items": TEXT}, "n": TEXT}},
            None,
        ),
        (NOTE, None),
        (None, None),
    ],
)
def test_a_list_of_ids_instead_of_records(output: Any, want: tuple | None) -> None:
    assert keys_answer(_with(output_schema=output)) == want


def test_lookup_keys_are_the_required_parameters_paging_aside() -> None:
    spec = _params(["country", "limit", "bad-name", "year"], missing=TEXT)
    spec.input_schema["required"].append("missing_entirely")
    assert lookup_keys(spec) == ["country", "year"]


@pytest.mark.parametrize(
    ("description", "owner", "want"),
    [
        ("A unique short name.", "projects", True),
        ("Unique among projects.", "projects", True),
        ("The unique identifier.", "projects", False),
        ("The unique name of an index.", "collections", False),
        ("The unique name of a project.", "projects", True),
        ("A short name.", "projects", False),
        ("Not uniquely named.", "projects", False),
    ],
)
def test_a_field_the_description_calls_unique(description: str, owner: str, want: bool) -> None:
    assert _unique(description, owner) is want


def test_an_ids_prefix_comes_from_its_example() -> None:
    assert _id_prefix({"example": "INV_0042"}, "rec") == "inv"
    assert _id_prefix({"examples": ["cus-9f8e7d"], "example": "INV_1"}, "rec") == "cus"
    assert _id_prefix({"example": "12345"}, "rec") == "rec"
    assert _id_prefix({"example": "toolongprefix_1"}, "rec") == "rec"
    assert _id_prefix({"example": 7}, "rec") == "rec"
    assert _id_prefix("x", "cur") == "cur"


@pytest.mark.parametrize(
    ("node", "want"),
    [
        ({"type": "string"}, None),
        ({}, None),
        ({"type": "integer"}, "record ids are integer, the runtime's are strings"),
        (
            {"type": ["integer", "number"]},
            "record ids are integer/number, the runtime's are strings",
        ),
        (
            {"type": "string", "maxLength": 13},
            "record ids have a length the runtime's ids (14 characters) do not",
        ),
        (
            {"type": "string", "minLength": 15},
            "record ids have a length the runtime's ids (14 characters) do not",
        ),
        ({"type": "string", "minLength": 14, "maxLength": 14}, None),
        (
            {"type": "string", "pattern": "^[0-9]+$"},
            "record ids must match '^[0-9]+$', which runtime ids do not",
        ),
        ({"type": "string", "pattern": "^[a-z]+_[0-9a-f]+$"}, None),
        (
            {"type": "string", "pattern": "(("},
            "record ids must match '((', which runtime ids do not",
        ),
    ],
)
def test_why_the_runtimes_ids_cannot_stand_for_a_specs(node: dict, want: str | None) -> None:
    assert _id_unfit(node) == want


def test_small_names_initials_order_and_collection_attributes() -> None:
    assert _initials("payment_links") == "pl"
    assert _initials("invoices") == "inv"
    assert _initials("") == "rec"
    listing = _with(name="listNotes", description="Lists the notes, newest first.")
    assert _order([(listing, "list")]) == "newest"
    assert _order([(listing, "read")]) == "oldest"
    assert _order([(_with(description="Most recent first."), "list")]) == "newest"
    assert _order([]) == "oldest"
    assert resource_key("notes") == "notes"
    assert resource_key("copy") == "copy_"  # a State attribute is taken
    assert resource_key("collections") == "collections_"
    assert _nullable({"type": ["string", "null"]}) and not _nullable({"type": "string"})
    assert not _nullable(None)
    assert jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_deref_follows_defs_and_drops_a_null_branch() -> None:
    root = {"$defs": {"N": NOTE}}
    assert deref({"$ref": "#/$defs/N"}, root) == NOTE
    assert deref({"$ref": "#/$defs/Missing"}, root) == {"$ref": "#/$defs/Missing"}
    assert deref({"$ref": "#/$defs/N"}, None) == {"$ref": "#/$defs/N"}
    assert deref({"anyOf": [NOTE, {"type": "null"}]}, root)["properties"] == NOTE["properties"]
    assert deref("x", root) == {}


def test_a_tool_that_sets_plain_values_only() -> None:
    assert _sets_values(_params(["mode"], level={"type": "integer"}))
    assert not _sets_values(_params(["line_id"]))
    assert not _sets_values(_params(["mode"], tag_ids={"type": "array", "items": TEXT}))
    assert not _sets_values(_params(["mode"], items={"type": "array", "items": NOTE}))
    assert not _sets_values(_params(["mode"], where=NOTE))


def test_one_record_per_service_is_read_without_naming_one() -> None:
    me = _params([])
    assert _singleton("accounts", [(me, "read")], False)
    assert _singleton("accounts", [(me, "read"), (_params(["theme"]), "update")], False)
    assert not _singleton("accounts", [(me, "read"), (me, "create")], False)
    assert not _singleton("accounts", [(_params(["account_id"]), "read")], False)
    assert not _singleton("accounts", [(_params(["region"]), "read")], False)
    assert _singleton("cars", [(_params(["mode"]), "action")], False)
    assert not _singleton("cars", [(_params(["car_id"]), "action")], False)
    assert _singleton("rates", [(me, "read")], True)
    assert not _singleton("rates", [(_params(["country"]), "read")], True)
