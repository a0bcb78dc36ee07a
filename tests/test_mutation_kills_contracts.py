"""What the conformance suite reads of a spec (mutants of library/verify/contracts.py that
survived the other tests, bench/mutation.py): a ToolSpec, its JSON form and a warehouse row
give one contract; input ids name what they refer to (top-level ones only), semantics are
kept by path, output fields are not inputs; path parameters, deepest first; a stateless
computation only when it names its operation; and the defaults of a sparse row."""

from __future__ import annotations

from library.toolspec import SpecFormat, ToolSpec
from library.verify.contracts import ToolContract, contract

FIELDS = [
    {"side": "input", "path": "org_id", "type": "string", "semantic": "id", "ref": "orgs"},
    {"side": "input", "path": "training_id", "type": "string", "semantic": "id", "ref": None},
    {"side": "input", "path": "owner.id", "type": "string", "semantic": "id", "ref": "users"},
    {"side": "input", "path": "items[].sku", "type": "string", "semantic": "id", "ref": "skus"},
    {"side": "input", "path": "email", "type": "string", "semantic": "email"},
    {"side": "input", "path": "note", "type": "string"},
    {"side": "output", "path": "id", "type": "string", "semantic": "id", "ref": "trainings"},
]
INPUT = {
    "type": "object",
    "properties": {"org_id": {}, "training_id": {}, "email": {}, "note": {}},
    "required": ["org_id", "training_id", "gone"],
}


def _spec(**more: object) -> ToolSpec:
    data = {
        "id": "t1", "service": "train", "name": "get_training", "input_schema": INPUT,
        "output_schema": {"type": "object"}, "format": SpecFormat.OPENAPI3,
        "source_file": "t.json", "source_pointer": "/paths", "doc_hash": "h",
        "resource": "trainings", "verb": "read", "access": "read", "fields": FIELDS,
        "http": {
            "method": "GET", "path": "/orgs/{org_id}/trainings/{training_id}",
            "params": {"org_id": "path", "training_id": "path", "email": "query"},
        },
    }  # fmt: skip
    return ToolSpec.model_validate(data | more)


def test_a_spec_its_json_and_its_row_give_one_contract() -> None:
    spec = _spec()
    c = contract(spec)
    assert contract(spec.model_dump(mode="json")) == c
    assert (c.service, c.name, c.verb, c.resource, c.access) == (
        "train", "get_training", "read", "trainings", "read",
    )  # fmt: skip
    assert c.input_schema == INPUT and c.output_schema == {"type": "object"}
    assert c.reads and not contract(_spec(access="write")).reads


def test_input_ids_refer_top_level_and_semantics_are_kept_by_path() -> None:
    c = contract(_spec())
    assert c.refs == {"org_id": "orgs", "training_id": None}
    assert c.semantics == {
        "org_id": "id", "training_id": "id", "owner.id": "id", "items[].sku": "id",
        "email": "email",
    }  # fmt: skip


def test_path_parameters_deepest_first() -> None:
    c = contract(_spec())
    assert c.path_params == frozenset({"org_id", "training_id"})
    assert c.nested == ("training_id", "org_id")
    flat = contract(_spec(http=None))
    assert (flat.path_params, flat.nested) == (frozenset(), ())


def test_properties_and_required_are_those_the_schema_has() -> None:
    c = contract(_spec())
    assert list(c.properties) == ["org_id", "training_id", "email", "note"]
    assert c.required == ["org_id", "training_id"]  # "gone" is not a property
    odd = ToolContract("s", "t", None, None, "write", {"properties": [1]}, None)
    assert odd.properties == {} and odd.required == []


def test_a_computation_is_kept_only_when_it_names_its_operation() -> None:
    marking = {"operation": "add", "inputs": ["a", "b"]}
    assert contract(_spec(vendor={"stateless": marking})).computation == marking
    assert contract(_spec(vendor={"stateless": {"inputs": ["a"]}})).computation is None
    assert contract(_spec(vendor={"stateless": True})).computation is None
    assert contract(_spec()).computation is None


def test_a_sparse_row_gets_the_defaults() -> None:
    fields = ["junk", {"side": "output", "path": "y"}, {"path": "x", "semantic": "id", "ref": "xs"}]
    c = contract({"name": "ping", "fields": [*fields, {"path": "tags[]", "semantic": "id"}]})
    assert (c.service, c.verb, c.resource, c.access) == ("", None, None, "write")
    assert c.input_schema == {"type": "object", "properties": {}} and c.output_schema is None
    assert c.refs == {"x": "xs"}  # a field with no side is an input; a list's items no ref
    assert c.semantics == {"x": "id", "tags[]": "id"}
    assert contract({"name": "ping", "http": "GET /ping", "vendor": "x"}).nested == ()
