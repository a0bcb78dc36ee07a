"""The seed writer's per-record rules, read from a ``_RecordWriter`` of a planned service
(mutants of library/compiler/emit_seed.py that survived the other tests, bench/mutation.py,
seed 10): a local variable's name is the snake-cased word, stripped of underscores at its
ends, never a keyword or a name taken; a person role that names a kind of contact detail
(``home``, ``work``) is the record's own person whatever the description says; an issue key
made from its project's key counts from a ``first_number`` drawn once; a list the spec says
is never empty gets items only of a type the writer can draw; and a comprehension too wide
for one line puts its item one level in."""

from __future__ import annotations

import ast

import orjson

from library.compiler import compile_service, plan_service
from library.compiler.emit_seed import SeedWriter, _comprehension, _RecordWriter
from library.compiler.model import Kind, ServicePlan, TypeSpec
from library.compiler.source import Call
from library.ingest import ingest_document
from tests.test_mutation_kills_compiler_rules import NOTES, _specs
from tests.test_mutation_kills_seed_refs import TRACKER


def _writer(plan: ServicePlan, resource: str) -> _RecordWriter:
    return _RecordWriter(SeedWriter(plan), plan.records[resource])


def _notes() -> _RecordWriter:
    return _writer(plan_service(_specs(NOTES)), "notes")


def test_a_local_name_is_the_snake_cased_word_stripped_at_its_ends() -> None:
    w = _notes()
    assert w._local("__Due Date__") == "due_date"
    assert w._local("-weird name-") == "weird_name"
    assert w._local("due date") == "due_date_"  # taken by the first
    assert w._local("2nd step") == "v_2nd_step"
    assert w._local("class") == "class_"  # a keyword
    assert w._local("***") == "value"
    assert w._local("rng") == "rng_"  # the method's own locals are taken


def test_a_contact_detail_role_is_the_records_own_person_whatever_the_description() -> None:
    w = _notes()
    staff = "the employee who handles it"
    for role in ("personal", "home", "work", "private", "primary", "secondary", "alternate"):
        assert w._side(role, staff) == "subject", role
    assert w._side("colleague", staff) == "staff"  # no role of its own: the description says
    assert w._side("", staff) == "subject"
    assert w._side("cc") == "staff"
    assert w._side("owner") == "staff"
    assert w._side("customer") == "subject"


def test_an_issue_key_counts_from_a_first_number_drawn_once() -> None:
    specs, errors = ingest_document(orjson.dumps(TRACKER), source_file="tracker.json")
    assert specs, errors
    plan = plan_service(specs)
    w = _writer(plan, "issues")
    made = w._parent_key([plan.records["issues"].fields["project_id"]])
    assert made == 'f"{project.key}-{first_number + i}"'
    assert w.pre == ["first_number = rng.randint(20, 400)"]
    assert w.forced == {"project_id": "project.id"}
    source = compile_service(specs).source
    assert "first_number = rng.randint(20, 400)" in source


def test_a_never_empty_list_gets_items_only_of_a_type_the_writer_can_draw() -> None:
    w = _notes()
    anything = TypeSpec(
        Kind.LIST, "list[Any]", item=TypeSpec(Kind.ANY, "Any"), schema={"minItems": 2}
    )
    assert w._list("extras", anything, 0, "") == "[]"
    ref = TypeSpec(Kind.STR, "str", semantic="id", ref="vendors")  # another service's ids
    ids = TypeSpec(Kind.LIST, "list[str]", item=ref, schema={"minItems": 2})
    made = w._list("vendor_ids", ids, 0, "")
    assert isinstance(made, Call) and made.brackets == "[]", made
    assert made.flat() == '[pool.external_id("vendor_", rng), pool.external_id("vendor_", rng)]'
    assert w._list("vendor_ids", TypeSpec(Kind.LIST, "list[str]", item=ref), 0, "") == "[]"


def test_a_comprehension_too_wide_for_a_line_puts_its_item_one_level_in() -> None:
    item = Call("Contact", [("name", "p.full_name" + " " * 0), ("email", "p.email")])
    assert _comprehension("contacts", item, "people", 2) == [
        "        contacts = [Contact(name=p.full_name, email=p.email) for p in people]"
    ]
    wide = Call("Contact", [(f"field_{i}", f"p.attribute_number_{i}") for i in range(4)])
    lines = _comprehension("contacts", wide, "people", 2)
    assert lines == [
        "        contacts = [",
        "            Contact(",
        "                field_0=p.attribute_number_0,",
        "                field_1=p.attribute_number_1,",
        "                field_2=p.attribute_number_2,",
        "                field_3=p.attribute_number_3,",
        "            )",
        "            for p in people",
        "        ]",
    ]
    ast.parse("\n".join(line[8:] for line in lines))
