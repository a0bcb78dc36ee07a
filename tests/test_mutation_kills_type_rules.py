"""The compiler's rules for types and verbs, as tables through its functions (mutants of
library/compiler/tools.py, actions.py and types.py that survived the other tests,
bench/mutation.py, seed 10): the type a parameter takes against a field (``compatible``:
its own, the field's, or none); which fields a free-text query searches; when a read is an
action; which keys a partial view shows; the status field an action moves (free text only
where nothing constrains it); and a ``date-time`` with a pattern stays a moment."""

from __future__ import annotations

from typing import Any

import pytest

from library.compiler import plan_service
from library.compiler.actions import status_field
from library.compiler.model import FieldPlan, Kind, RecordPlan, TypeSpec
from library.compiler.tools import ToolPlanner, _searchable, compatible, effective_verb
from library.compiler.types import TypeMapper
from tests.test_mutation_kills_compiler_rules import NOTES, _specs

TEXT = TypeSpec(Kind.STR, "str", schema={"type": "string"})
NAME = TypeSpec(Kind.STR, "str", semantic="person_name")
EMAIL = TypeSpec(Kind.STR, "Email", semantic="email")
ID = TypeSpec(Kind.STR, 'Ref["users"]', semantic="id", ref="users")
INT = TypeSpec(Kind.INT, "int", schema={"type": "integer", "minimum": 1})
FLOAT = TypeSpec(Kind.FLOAT, "float", schema={"type": "number"})
BOOL = TypeSpec(Kind.BOOL, "bool")
DATE = TypeSpec(Kind.DATE, "Date", semantic="date")
MOMENT = TypeSpec(Kind.DATETIME, "DateTime", semantic="datetime", schema={"format": "date-time"})
LEVEL = TypeSpec(Kind.ENUM, "Level", enum=("low", "high"))
LEVELS = TypeSpec(Kind.ENUM, "Levels", enum=("low", "mid", "high"))
CODES = TypeSpec(Kind.ENUM, "Codes", enum=(1, 2))
ANY = TypeSpec(Kind.ANY, "Any")
DICT = TypeSpec(Kind.DICT, "dict[str, Any]")
ADDRESS = TypeSpec(Kind.MODEL, "Address", model="Address", schema={"properties": {"city": {}}})
PLACE = TypeSpec(Kind.MODEL, "Place", model="Place", schema={"properties": {"city": {}, "zip": {}}})
TAGS = TypeSpec(Kind.LIST, "list[str]", item=TEXT)
NUMBERS = TypeSpec(Kind.LIST, "list[int]", item=INT)
LEVEL_LIST = TypeSpec(Kind.LIST, "list[Level]", item=LEVEL)
BARE_LIST = TypeSpec(Kind.LIST, "list[Any]")

# (parameter, field) -> "param" (its own type), "field" (the field's, with the parameter's
# schema), or None (different things)
COMPATIBLE: list[tuple[TypeSpec, TypeSpec, str | None]] = [
    (TEXT, TEXT, "param"),
    (TEXT, ID, "param"),
    (TEXT, EMAIL, "field"),
    (EMAIL, EMAIL, "param"),
    (NAME, EMAIL, "field"),
    (LEVEL, TEXT, "param"),
    (TEXT, LEVEL, "param"),
    (LEVEL, LEVELS, "param"),
    (LEVELS, LEVEL, None),
    (TEXT, CODES, None),
    (CODES, TEXT, None),
    (TEXT, DATE, "field"),
    (TEXT, MOMENT, "field"),
    (DATE, MOMENT, "param"),
    (MOMENT, DATE, "param"),
    (DATE, TEXT, "field"),
    (FLOAT, INT, "field"),
    (INT, FLOAT, "param"),
    (INT, INT, "field"),
    (BOOL, BOOL, "param"),
    (BOOL, TEXT, None),
    (INT, TEXT, None),
    (ANY, TEXT, "field"),
    (TEXT, ANY, "param"),
    (ADDRESS, ADDRESS, "param"),
    (ADDRESS, PLACE, "field"),
    (PLACE, ADDRESS, None),
    (DICT, DICT, "param"),
    (DICT, ADDRESS, "field"),
    (ADDRESS, DICT, None),
    (TAGS, TAGS, "param"),
    (TAGS, NUMBERS, None),
    (BARE_LIST, TAGS, "param"),
    (TAGS, BARE_LIST, "param"),
]


@pytest.mark.parametrize(("param", "field", "want"), COMPATIBLE)
def test_the_type_a_parameter_takes_against_a_field(
    param: TypeSpec, field: TypeSpec, want: str | None
) -> None:
    got = compatible(param, field)
    if want is None:
        assert got is None
    elif want == "param":
        assert got is param
    else:
        assert got is not param and got is not None
        assert (got.kind, got.annotation, got.semantic, got.enum) == (
            field.kind,
            field.annotation,
            field.semantic,
            field.enum,
        )
        assert got.schema is param.schema and got.nullable == param.nullable


def test_a_list_parameter_takes_the_fields_item_type_where_its_own_is_looser() -> None:
    names = TypeSpec(Kind.LIST, "list[str]", item=NAME, schema={"maxItems": 3})
    emails = TypeSpec(Kind.LIST, "list[Email]", item=EMAIL)
    got = compatible(names, emails)
    assert got is not None and got is not names and got.kind is Kind.LIST
    assert (got.annotation, got.item.semantic, got.schema) == (
        "list[Email]",
        "email",
        {"maxItems": 3},
    )
    assert compatible(TAGS, LEVEL_LIST) is TAGS


def _field(name: str, spec: TypeSpec, required: bool = False) -> FieldPlan:
    return FieldPlan(name, name, spec, required)


def test_a_query_searches_text_and_lists_of_text_but_no_ids() -> None:
    searchable = {
        "title": TEXT,
        "email": EMAIL,
        "tags": TAGS,
    }
    not_searchable = {
        "owner_id": ID,
        "count": INT,
        "price": FLOAT,
        "done": BOOL,
        "level": LEVEL,
        "due": DATE,
        "numbers": NUMBERS,
        "owner_ids": TypeSpec(Kind.LIST, "list[str]", item=ID),
        "anything": BARE_LIST,
        "meta": DICT,
    }
    for name, spec in searchable.items():
        assert _searchable(_field(name, spec)), name
    for name, spec in not_searchable.items():
        assert not _searchable(_field(name, spec)), name


def _record(**fields: FieldPlan) -> RecordPlan:
    return RecordPlan("tickets", "Ticket", "", dict(fields), "tic")


def test_the_status_field_is_an_enum_or_free_text_nothing_constrains() -> None:
    enum = _field("state", LEVEL)
    assert status_field(_record(state=enum)) is enum
    free = _field("status", TEXT)
    assert status_field(_record(status=free)) is free
    for bound in ({"pattern": "^[A-Z]+$"}, {"format": "uuid"}, {"maxLength": 3}, {"minLength": 9}):
        constrained = _field("status", TypeSpec(Kind.STR, "str", schema=bound))
        assert status_field(_record(status=constrained)) is None, bound
        # a constrained status gives way to the next status-like field
        assert status_field(_record(status=constrained, stage=free)) is free, bound
    assert status_field(_record(status=_field("status", INT))) is None
    assert status_field(_record(title=free)) is None


def test_a_read_that_writes_under_an_action_word_is_an_action() -> None:
    specs = {s.name: s for s in _specs(NOTES)}
    plan = plan_service(list(specs.values()))
    record = plan.records["notes"]
    get = specs["getNote"]
    assert effective_verb(get, "notes", record) == "read"
    archive = get.model_copy(update={"name": "archiveNote"})
    assert effective_verb(archive.model_copy(update={"access": "write"}), "notes", record) == (
        "action"
    )
    assert effective_verb(archive.model_copy(update={"access": "read"}), "notes", record) == "read"
    fetch = get.model_copy(update={"name": "fetchNote", "access": "write"})
    assert effective_verb(fetch, "notes", record) == "read"  # no action word


def _planner(record: RecordPlan) -> ToolPlanner:
    return ToolPlanner("desk", {record.resource: record}, TypeMapper(set()))


def _view(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def test_a_view_shows_the_records_keys_every_required_one_a_required_field() -> None:
    record = _record(
        title=_field("title", TEXT, True),
        note=_field("note", TEXT),
        count=_field("count", INT, True),
    )
    known = frozenset({"id", "title", "note", "count"})
    planner = _planner(record)
    s = {"type": "string"}
    assert planner._shown(_view({"title": s}, ["title"]), record, known) == ["title"]
    assert planner._shown(_view({"id": s, "title": s}, ["id", "title"]), record, known) == [
        "id",
        "title",
    ]
    assert planner._shown(_view({"title": s, "note": s}, []), record, known) == ["title", "note"]
    # ``note`` is optional on the record: a view requiring it is not a view of it
    assert planner._shown(_view({"title": s, "note": s}, ["note"]), record, known) is None
    assert planner._shown(_view({"other": s}, []), record, known) is None
    assert planner._shown(_view({"count": s}, []), record, known) is None  # typed apart
    assert planner._shown(_view({"count": {"type": "number"}}, []), record, known) == ["count"]
    assert planner._shown({"type": "object"}, record, known) is None


def test_a_date_time_with_a_pattern_stays_a_moment() -> None:
    mapper = TypeMapper(set())

    def mapped(node: dict[str, Any]) -> tuple[Kind, str | None]:
        spec = mapper.map(node, path="when", infos={}, hint="when")
        return spec.kind, spec.semantic

    pattern = r"^\d{4}-\d{2}-\d{2}T.*Z$"
    assert mapped({"type": "string", "format": "date-time", "pattern": pattern}) == (
        Kind.DATETIME,
        "datetime",
    )
    assert mapped({"type": "string", "format": "date", "pattern": r"^\d{4}"}) == (
        Kind.DATE,
        "date",
    )
    assert mapped({"type": "string", "format": "date-time"}) == (Kind.DATETIME, "datetime")
    assert mapped({"type": "string", "pattern": pattern}) == (Kind.STR, None)
