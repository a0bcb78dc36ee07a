"""Small rules of the compiler's words, names and skips (mutants of library/compiler/naming.py,
selection.py, source.py, types.py, emit.py and tools.py that survived the other tests,
bench/mutation.py, seed 9): "an" goes before a vowel; a second class of one name is
numbered 2; a node with ``items`` is an array though it states no type; wrapped prose keeps
one blank line between paragraphs; a service's tools are grouped under a ruled comment
naming their records; a selection word of two words (``set current``) is one
snake-cased word; an id parameter of the wrong type is skipped with a reason naming the
type the record's ids have; and a nested field's description is the spec's, empty (not
None, not made up) where the spec states none."""

from __future__ import annotations

import re

from library.compiler import compile_service, plan_service
from library.compiler.naming import a_or_an
from library.compiler.selection import pointer_word
from library.compiler.source import wrap
from library.compiler.types import TypeMapper, json_types
from tests.test_mutation_kills_compiler_rules import NOTE, NOTES, _ok, _specs


def test_an_goes_before_a_vowel() -> None:
    assert a_or_an("account") == "an account"
    assert a_or_an("Invoice") == "an Invoice"
    assert a_or_an("contact") == "a contact"


def test_a_second_class_of_one_name_is_numbered_two() -> None:
    mapper = TypeMapper({"Notes"})
    assert mapper.claim("Note") == "Note"
    assert mapper.claim("Note") == "Note2"
    assert mapper.claim("Note") == "Note3"
    assert mapper.claim("Notes") == "Notes2"  # reserved from the start


def test_a_node_with_items_is_an_array_though_it_states_no_type() -> None:
    assert json_types({"items": {"type": "string"}}) == ({"array"}, False)
    assert json_types({"properties": {}}) == ({"object"}, False)
    assert json_types({"type": ["string", "null"]}) == ({"string"}, True)


def test_wrapped_prose_keeps_one_blank_line_between_paragraphs() -> None:
    text = "Lists the notes.\n\n\nOnly open ones,\nnewest first."
    assert wrap(text, 40) == ["Lists the notes.", "", "Only open ones,", "newest first."]
    assert wrap("\n\nOne.\n\n", 40) == ["One."]


def test_a_services_tools_are_grouped_under_a_ruled_comment_naming_their_records() -> None:
    source = compile_service(_specs(NOTES)).source
    assert re.search(r"^    # -- notes -{3,}$", source, re.M), source[:2000]
    assert all(len(line) <= 100 for line in source.splitlines())


def test_a_two_word_selection_word_is_one_snake_cased_word() -> None:
    spec = _specs(NOTES)[0]
    assert pointer_word(spec.model_copy(update={"name": "setCurrentTeam", "access": "write"})) == (
        "set_current"
    )
    assert pointer_word(spec.model_copy(update={"name": "switch_team", "access": "write"})) == (
        "switch"
    )
    assert pointer_word(spec.model_copy(update={"name": "setCurrentTeam", "access": "read"})) == ""


def test_an_id_parameter_of_the_wrong_type_is_skipped_naming_the_ids_type() -> None:
    document = {**NOTES, "paths": dict(NOTES["paths"])}
    get = dict(document["paths"]["/notes/{id}"]["get"])
    get["parameters"] = [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "boolean"}}
    ]
    document["paths"]["/notes/{id}"] = {**document["paths"]["/notes/{id}"], "get": get}
    skipped = plan_service(_specs(document)).skipped
    assert skipped["getNote"] == "id parameter 'id' is bool, record ids are strings", skipped


def test_a_nested_fields_description_is_the_specs_and_empty_where_it_states_none() -> None:
    meta = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "description": "B."},
            "c": True,
        },
    }
    note = {**NOTE, "properties": {**NOTE["properties"], "meta": meta}}
    listing = {"operationId": "listNotes", "responses": _ok({"type": "array", "items": note})}
    plan = plan_service(_specs({**NOTES, "paths": {"/notes": {"get": listing}}}))
    fields = {f.name: f.description for m in plan.models for f in m.fields}
    assert fields == {"a": "", "b": "B.", "c": ""}, fields
