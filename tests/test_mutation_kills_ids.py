"""Record ids as the spec declares them (mutants of library/compiler/ids.py that survived the
other tests, bench/mutation.py): which key of a record holds its id (``id`` first, then the
tool's own id parameter, ``<resource>_id``, ``sid``..., a key that names the record, a unique
``name`` last); which ids the compiler can make and how (counted integers, UUIDs, a pattern
drawn within its length, the runtime's own where the pattern takes them), and why not
otherwise."""

from __future__ import annotations

import pytest

from library.compiler.ids import RUNTIME, IdStyle, id_key, id_style, new_id_source

TEXT: dict = {"type": "string"}


@pytest.mark.parametrize(
    ("keys", "resource", "own", "key"),
    [
        (["name", "id", "sid"], "widgets", None, "id"),
        (["Sid", "name"], "calls", "Sid", "Sid"),
        (["changeSetId", "name"], "changes", "change_set_id", "changeSetId"),
        (["widget_id", "name"], "widgets", None, "widget_id"),
        (["widgetId", "name"], "widgets", None, "widgetId"),
        (["name", "sid"], "calls", None, "sid"),
        (["guid", "title"], "pages", None, "guid"),
        (["arn", "title"], "roles", None, "arn"),
        (["title", "name"], "queues", None, "name"),
        (["title", "name"], None, None, None),
        (["title", "count"], "queues", None, None),
    ],
)
def test_the_key_that_holds_a_records_id(
    keys: list[str], resource: str | None, own: str | None, key: str | None
) -> None:
    assert id_key(dict.fromkeys(keys, TEXT), resource, own) == key


@pytest.mark.parametrize(
    ("node", "style"),
    [
        ({"type": "integer"}, IdStyle("int")),
        ({"type": ["integer", "null"]}, IdStyle("int")),
        ({"type": "number"}, IdStyle("int")),
        ({"type": "string", "format": "uuid"}, IdStyle("uuid")),
        ({"type": "string"}, RUNTIME),
        ({}, RUNTIME),
        ({"type": "string", "pattern": "^[a-z]+_[0-9a-f]+$"}, RUNTIME),  # takes the runtime's
        ({"type": "string", "pattern": "^[0-9]{6}$"}, IdStyle("pattern", "^[0-9]{6}$", 0, None)),
        (
            {"type": "string", "pattern": "^C[0-9]+$", "minLength": 4, "maxLength": 9},
            IdStyle("pattern", "^C[0-9]+$", 4, 9),
        ),
        ({"type": "string", "minLength": 24, "maxLength": 24}, IdStyle("pattern", ".+", 24, 24)),
        ({"type": "string", "maxLength": 8}, IdStyle("pattern", ".+", 0, 8)),
        ({"type": "string", "minLength": 14, "maxLength": 14}, RUNTIME),
        ({"type": "string", "minLength": True}, RUNTIME),
    ],
)
def test_ids_the_compiler_can_make(node: dict, style: IdStyle) -> None:
    assert id_style(node) == style


@pytest.mark.parametrize(
    ("node", "why"),
    [
        ({"type": "string", "enum": ["a", "b"]}, "record ids are a fixed set of values"),
        ({"type": "boolean"}, "record ids are boolean"),
        ({"type": ["array", "object"]}, "record ids are array/object"),
        ({"type": "string", "pattern": "(?<=a)b"}, "which cannot be used"),
        ({"type": "string", "pattern": "^[0-9]{400}$"}, "which no id can be drawn for"),
    ],
)
def test_ids_the_compiler_cannot_make_say_why(node: dict, why: str) -> None:
    style = id_style(node)
    assert isinstance(style, str) and why in style


def test_a_new_id_is_made_in_its_style() -> None:
    # integer ids: a sequence per collection (the module's ``_int_id``)
    assert new_id_source(IdStyle("int"), "inv", "invoices") == '_int_id(self, "invoices")'
    assert new_id_source(IdStyle("digits"), "inv", "invoices") == '_int_id(self, "invoices")'
    assert new_id_source(IdStyle("uuid"), "inv", "invoices") == 'uuid_id(self, "inv")'
    assert new_id_source(RUNTIME, "inv", "invoices") == 'self.new_id("inv")'
    assert new_id_source(IdStyle("pattern", "^C[0-9]+$"), "c", "cards") == (
        'pattern_id(self, "c", "^C[0-9]+$", self.state.cards)'
    )
    assert new_id_source(IdStyle("pattern", None, 3, 9), "c", "cards") == (
        'pattern_id(self, "c", ".+", self.state.cards, 3, 9)'
    )
    assert new_id_source(IdStyle("pattern", "x", 2), "c", "cards").endswith("cards, 2)")
    assert new_id_source(IdStyle("pattern", "x", 0, 5), "c", "cards").endswith("cards, 0, 5)")
