"""The type mapper's rules, as tables (library/compiler/types.py, for bench/mutation.py): the
``Field`` bounds a parameter keeps (an integer's fractional bound rounded inwards, text
lengths and a usable pattern, none for a semantic type); the JSON types a node allows and
whether null is one; ``allOf`` parts merged and ``X | null`` reduced to X; a ``Literal`` of
values; and what ``TypeMapper.map`` makes of a node: the semantic type ingestion inferred,
an id reference, an enum alias shared by equal value sets, a nested model shared by equal
shapes and named by its hint (or its owner's name, or a number), a list of nullable items,
a free dict past the depth limit, a base type for an enum too large for a ``Literal``, and a
recursion through ``$defs`` cut to a dict."""

from __future__ import annotations

from typing import Any

import pytest

from library.compiler.model import Kind, TypeSpec
from library.compiler.types import (
    MAX_DEPTH,
    MAX_ENUM,
    TypeMapper,
    constraints,
    json_types,
    literal,
    merge_all_of,
    single_branch,
)
from library.toolspec import FieldInfo


def _spec(kind: Kind, semantic: str | None = None, **schema: Any) -> TypeSpec:
    return TypeSpec(kind, kind.value, semantic=semantic, schema=schema)


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        (_spec(Kind.INT, minimum=1, maximum=10), ["ge=1", "le=10"]),
        (_spec(Kind.INT, exclusiveMinimum=0, exclusiveMaximum=5), ["gt=0", "lt=5"]),
        (_spec(Kind.INT, minimum=1.5, maximum=6.5), ["ge=2", "le=6"]),
        (_spec(Kind.INT, exclusiveMinimum=0.5, exclusiveMaximum=4.5), ["gt=0", "lt=5"]),
        (_spec(Kind.INT, minimum=0.0, maximum=100.0), ["ge=0", "le=100"]),
        # gsmtasks: int64's limits as floats, the maximum past int64: no bound, and loadable
        (_spec(Kind.INT, minimum=-9.223372036854776e18, maximum=9223372036854776000), []),
        (_spec(Kind.FLOAT, minimum=0.5, maximum=9.75), ["ge=0.5", "le=9.75"]),
        (_spec(Kind.FLOAT, "money", minimum=0), ["ge=0"]),
        (_spec(Kind.FLOAT, "other", minimum=0), []),
        (_spec(Kind.INT, minimum=True), []),
        (_spec(Kind.INT, minimum="1"), []),
        (_spec(Kind.STR, minLength=2, maxLength=8), ["min_length=2", "max_length=8"]),
        (_spec(Kind.STR, minLength=True), []),
        (_spec(Kind.STR, pattern="^[a-z]+$"), ['pattern="^[a-z]+$"']),
        (_spec(Kind.STR, pattern="(?<=a)b+"), ['pattern="(?<=a)b+"']),
        (_spec(Kind.STR, pattern="(unclosed"), []),
        (_spec(Kind.STR, "email", maxLength=8), []),
        (_spec(Kind.BOOL, minimum=1), []),
        (_spec(Kind.ENUM, maxLength=3), []),
    ],
)
def test_the_bounds_a_parameter_keeps(spec: TypeSpec, want: list[str]) -> None:
    got = constraints(spec)
    if spec.schema.get("pattern") == "(?<=a)b+":  # look-behind: Rust's regex refuses it
        assert got == []
    else:
        assert got == want


@pytest.mark.parametrize(
    ("node", "want"),
    [
        ({"type": "string"}, ({"string"}, False)),
        ({"type": ["string", "null"]}, ({"string"}, True)),
        ({"type": "integer", "nullable": True}, ({"integer"}, True)),
        ({"type": "integer", "nullable": "yes"}, ({"integer"}, False)),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, ({"string"}, True)),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, ({"integer", "number"}, False)),
        ({"anyOf": [{"type": ["string", "null"]}]}, ({"string"}, False)),
        ({"properties": {}}, ({"object"}, False)),
        ({"items": {}}, ({"array"}, False)),
        ({"type": "string", "items": {}}, ({"string"}, False)),
        ({}, (set(), False)),
        ({"type": "null"}, (set(), True)),
    ],
)
def test_the_json_types_a_node_allows(node: dict, want: tuple[set[str], bool]) -> None:
    assert json_types(node) == want


def test_all_of_parts_are_merged_and_x_or_null_is_x() -> None:
    base = {"type": "object", "properties": {"a": {}}, "required": ["a"]}
    more = {"properties": {"b": {}}, "required": ["b", "a"], "description": "More."}
    merged = merge_all_of({"allOf": [base, more], "title": "T"})
    assert merged == {
        "title": "T",
        "type": "object",
        "description": "More.",
        "properties": {"a": {}, "b": {}},
        "required": ["a", "b"],
    }
    nested = merge_all_of({"allOf": [{"allOf": [base]}, {"properties": {"c": {}}}]})
    assert list(nested["properties"]) == ["a", "c"]
    assert merge_all_of({"type": "string"}) == {"type": "string"}
    assert merge_all_of({"allOf": [{"type": "string"}]}) == {"type": "string"}
    one = single_branch({"oneOf": [{"type": "null"}, {"type": "integer"}], "type": "x", "d": 1})
    assert one == {"type": "integer", "d": 1}
    both = {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert single_branch(both) == both


def test_a_literal_of_values() -> None:
    assert literal(("a", "b")) == 'Literal["a", "b"]'
    assert literal((1, 2)) == "Literal[1, 2]"
    assert literal(('say "hi"',)) == 'Literal["say \\"hi\\""]'


def _map(node: Any, hint: str = "field", **more: Any) -> TypeSpec:
    return TypeMapper(set()).map(node, path=hint, infos={}, hint=hint, **more)


def test_a_semantic_type_and_a_reference_come_from_what_ingestion_inferred() -> None:
    mapper = TypeMapper(set())
    infos = {
        "contact": FieldInfo(side="output", path="contact", semantic="email"),
        "owner": FieldInfo(side="output", path="owner", semantic="id", ref="users"),
        "count": FieldInfo(side="output", path="count", semantic="id", ref="users"),
        "codes": FieldInfo(side="output", path="codes", semantic="id"),
        "site": FieldInfo(side="output", path="site", semantic="url"),
        "price": FieldInfo(side="output", path="price", semantic="money"),
    }

    def mapped(path: str, node: dict) -> tuple:
        spec = mapper.map(node, path=path, infos=infos, hint=path)
        return spec.kind, spec.annotation, spec.semantic, spec.ref

    assert mapped("contact", {"type": "string"}) == (Kind.STR, "Email", "email", None)
    assert mapped("contact", {"type": "string", "format": "uuid"}) == (Kind.STR, "str", None, None)
    assert mapped("contact", {"type": "string", "maxLength": 10}) == (Kind.STR, "str", None, None)
    assert mapped("contact", {"type": "integer"}) == (Kind.INT, "int", "email", None)
    assert mapped("owner", {"type": "string"}) == (Kind.STR, 'Ref["users"]', "id", "users")
    assert mapped("owner", {}) == (Kind.STR, 'Ref["users"]', "id", "users")
    assert mapped("count", {"type": "integer"}) == (Kind.INT, "int", "id", "users")
    assert mapped("codes", {"type": "string"}) == (Kind.STR, "str", "id", None)
    assert mapped("codes", {"type": "string", "enum": ["A", None, "B"]})[:2] == (
        Kind.ENUM,
        "Codes",
    )
    assert mapped("site", {"type": "string", "example": "not a url"}) == (
        Kind.STR,
        "str",
        "url",
        None,
    )
    assert mapped("price", {"type": "number"}) == (Kind.FLOAT, "Money", "money", None)
    assert mapped("price", {"type": "string"}) == (Kind.STR, "str", "money", None)


def test_enum_aliases_are_shared_by_equal_values_and_named_apart_otherwise() -> None:
    mapper = TypeMapper({"Status"})

    def alias(node: dict, hint: str, owner: str | None = None) -> str:
        return mapper.map(node, path=hint, infos={}, hint=hint, owner=owner).annotation

    states = {"type": "string", "enum": ["open", "closed"]}
    assert alias(states, "status", "deal") == "DealStatus"  # ``Status`` is reserved
    assert alias(states, "state") == "DealStatus"  # the same values: the same alias
    assert alias({"enum": ["a", "b"]}, "status", "deal") == "Status2"
    assert alias({"enum": ["x"]}, "kind") == "Kind"
    assert mapper.enums == {
        "DealStatus": ("open", "closed"),
        "Status2": ("a", "b"),
        "Kind": ("x",),
    }
    mixed = mapper.map({"enum": ["a", 1]}, path="m", infos={}, hint="m")
    assert (mixed.kind, mixed.annotation) == (Kind.ANY, "Any")
    many = mapper.map(
        {"type": "string", "enum": [f"v{i}" for i in range(MAX_ENUM + 1)]},
        path="big",
        infos={},
        hint="big",
    )
    assert (many.kind, many.annotation) == (Kind.STR, "str")
    just = mapper.map(
        {"type": "string", "enum": [f"v{i}" for i in range(MAX_ENUM)]}, path="b", infos={}, hint="b"
    )
    assert just.kind is Kind.ENUM


def test_nested_models_are_shared_by_shape_and_named_by_their_hint() -> None:
    mapper = TypeMapper(set())
    address = {
        "type": "object",
        "required": ["city"],
        "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
    }
    billing = mapper.map(address, path="billing", infos={}, hint="billing_address")
    shipping = mapper.map(address, path="shipping", infos={}, hint="shipping_address")
    assert (billing.kind, billing.annotation, billing.model) == (
        Kind.MODEL,
        "BillingAddress",
        "BillingAddress",
    )
    assert shipping.annotation == "BillingAddress"  # one shape, one class
    model = next(iter(mapper.models.values()))
    assert [(f.name, f.attr, f.required, f.type.annotation) for f in model.fields] == [
        ("city", "city", True, "str"),
        ("zip", "zip", False, "str"),
    ]
    other = {"type": "object", "properties": {"line": {"type": "string"}}}
    assert mapper.map(other, path="x", infos={}, hint="billing_address").annotation == (
        "BillingAddress2"
    )
    keyed = {"type": "object", "properties": {"class": {"type": "integer"}}}
    field = mapper.map(keyed, path="k", infos={}, hint="spec", owner="deal")
    assert field.annotation == "Spec"
    made = mapper.models[(("class", "int", False, False, ()),)]
    assert [(f.name, f.attr) for f in made.fields] == [("class", "class_")]
    # one shape under other constraints is another class: a channel's ``id`` is at least 1
    # where an account's may be 0, and sharing one class seeded channels with 0
    counted = {"type": "object", "properties": {"class": {"type": "integer", "minimum": 1}}}
    bounded = mapper.map(counted, path="c", infos={}, hint="channel", owner="deal")
    assert bounded.annotation == "Channel"
    assert mapper.models[(("class", "int", False, False, (("minimum", "1"),)),)].name == "Channel"


def test_lists_free_objects_depth_and_recursion() -> None:
    listed = _map({"type": "array", "items": {"type": ["integer", "null"]}}, "counts")
    assert (listed.kind, listed.annotation, listed.item.nullable) == (
        Kind.LIST,
        "list[int | None]",
        True,
    )
    assert _map({"type": "array"}, "anything").annotation == "list[Any]"
    assert _map({"type": "object"}, "blob").annotation == "dict[str, Any]"
    assert _map({"type": "object", "properties": {}}, "blob").annotation == "dict[str, Any]"
    assert _map({"type": ["string", "integer"]}, "mixed").annotation == "Any"
    assert _map("nonsense", "x").kind is Kind.ANY
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH + 2):
        deep = {"type": "object", "properties": {"inner": deep}}
    mapper = TypeMapper(set())
    spec = mapper.map(deep, path="outer", infos={}, hint="outer")
    models = {m.name: m for m in mapper.models.values()}
    levels = 0
    while spec.kind is Kind.MODEL:
        levels += 1
        spec = models[str(spec.model)].fields[0].type
    assert (levels, spec.kind) == (MAX_DEPTH, Kind.DICT)  # deeper: a plain dict
    node = {"$ref": "#/$defs/Node"}
    defs = {"Node": {"type": "object", "properties": {"next": node, "name": {"type": "string"}}}}
    tree = TypeMapper(set())
    top = tree.map(node, path="n", infos={}, hint="node", defs=defs)
    assert top.kind is Kind.MODEL
    fields = {f.name: f.type for f in next(iter(tree.models.values())).fields}
    assert (fields["next"].kind, fields["next"].annotation) == (Kind.DICT, "dict[str, Any]")
    missing = tree.map({"$ref": "#/$defs/Gone"}, path="g", infos={}, hint="g", defs=defs)
    assert missing.kind is Kind.DICT
    nullable = tree.map({"type": ["string", "null"]}, path="s", infos={}, hint="s")
    assert nullable.nullable and nullable.schema == {"type": ["string", "null"]}
