"""What the server fills in on create (library/compiler/values.py, ``server_value``, whose
mutants survived the other tests, bench/mutation.py, seed 10), as a table of field -> the
source the compiled create assigns: null for a nullable field, the spec's default where it
fits, the clock for a moment, the first open state for a status, false for a flag, the
lowest allowed number, an empty list or map; for text, a pattern's draw, a link to the new
record, the service's no-reply address, a counted reference (``INV-10001``, or the prefix its
example shows), the example itself, ``Untitled <noun>`` for a name, and the record's id for
the rest; nothing for an id of another record or a person's details."""

from __future__ import annotations

from typing import Any

import pytest

from library.compiler.model import FieldPlan, Kind, RecordPlan, TypeSpec
from library.compiler.values import server_value

RECORD = RecordPlan("invoices", "Invoice", "", {}, "inv")


def _text(semantic: str | None = None, **schema: Any) -> TypeSpec:
    return TypeSpec(Kind.STR, "str", semantic=semantic, schema=schema)


STATUS = TypeSpec(Kind.ENUM, "Status", enum=("paid", "open", "void"))
TABLE: list[tuple[str, TypeSpec, str | None]] = [
    ("note", TypeSpec(Kind.STR, "str", nullable=True), "None"),
    ("count", TypeSpec(Kind.INT, "int", schema={"default": 5}), "5"),
    (
        "status",
        TypeSpec(Kind.ENUM, "Status", enum=("paid", "open"), schema={"default": "paid"}),
        '"paid"',
    ),
    (
        "status",
        TypeSpec(Kind.ENUM, "Status", enum=("paid", "open"), schema={"default": "gone"}),
        '"open"',
    ),
    ("status", STATUS, '"open"'),
    ("stage", TypeSpec(Kind.ENUM, "Stage", enum=("alpha", "beta")), '"alpha"'),
    ("due", TypeSpec(Kind.DATE, "Date", schema={"default": "2026-01-01"}), "now.date()"),
    ("sent_at", TypeSpec(Kind.DATETIME, "DateTime"), "now"),
    ("paid", TypeSpec(Kind.BOOL, "bool"), "False"),
    ("paid", TypeSpec(Kind.BOOL, "bool", schema={"default": True}), "True"),
    ("total", TypeSpec(Kind.INT, "int"), "0"),
    ("total", TypeSpec(Kind.FLOAT, "float"), "0.0"),
    ("seats", TypeSpec(Kind.INT, "int", schema={"minimum": 3}), "3"),
    ("seats", TypeSpec(Kind.INT, "int", schema={"minimum": -3}), "0"),
    ("rate", TypeSpec(Kind.FLOAT, "float", schema={"minimum": 0.5}), "0.5"),
    ("rate", TypeSpec(Kind.FLOAT, "float", schema={"minimum": 0}), "0.0"),
    ("tags", TypeSpec(Kind.LIST, "list[str]"), "[]"),
    ("meta", TypeSpec(Kind.DICT, "dict[str, Any]"), "{}"),
    ("extra", TypeSpec(Kind.ANY, "Any"), "None"),
    ("address", TypeSpec(Kind.MODEL, "Address", model="Address"), None),
    ("customer_id", _text("id"), None),
    ("code", _text(pattern="^[A-Z]{3}$"), 'pattern_text(record_id, "^[A-Z]{3}$")'),
    ("token", _text(format="uuid"), "uuid_text(record_id)"),
    ("link", _text("url"), 'f"https://billing_desk.example.com/invoices/{record_id}"'),
    ("reply_to", _text("email"), '"noreply@billing-desk.example.com"'),
    ("currency", _text("currency"), '"USD"'),
    ("number", _text(), 'f"INV-{10000 + self.state.seq}"'),
    ("invoice_number", _text(example="BILL-0042"), 'f"BILL-{10000 + self.state.seq}"'),
    ("confirmation_code", _text(examples=["X1"]), 'f"INV-{10000 + self.state.seq}"'),
    ("memo", _text(example="Thanks!"), '"Thanks!"'),
    ("memo", _text("email", example="a@b.co"), '"noreply@billing-desk.example.com"'),
    ("contact_name", _text("person_name"), None),
    ("phone", _text("phone"), None),
    ("country", _text("country"), None),
    ("title", _text(), '"Untitled invoice"'),
    ("Name", _text(), '"Untitled invoice"'),
    ("comment", _text(), "record_id"),
]


@pytest.mark.parametrize(("name", "spec", "want"), TABLE)
def test_the_value_the_server_fills_in(name: str, spec: TypeSpec, want: str | None) -> None:
    assert server_value(FieldPlan(name, name, spec), RECORD, "billing_desk") == want


def test_a_unique_name_is_the_records_id_not_a_shared_title() -> None:
    field = FieldPlan("name", "name", _text(), unique=True)
    assert server_value(field, RECORD, "billing") == "record_id"
