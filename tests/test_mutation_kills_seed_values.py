"""The value the seed writer draws for a field, by its name, type and bounds (library/compiler/
emit_seed.py, the largest module the mutation bench samples, bench/mutation.py): a table of
field -> the expression a generated ``_seed_<collection>`` assigns. Counts start at one,
declared bounds (exclusive ones a step inside) hold, prices are the product's, money and
ages and durations have their own ranges, years sit around now (an expiry ahead), epoch
stamps are past or future by their word; flags lean to their default; people's details are
the record's person's (or a nested owner's, or the organisation's); a pattern is drawn; a
length bound fits the text; a status is mostly an open one; a currency is the company's;
a reference is a record seeded before, the record itself, an earlier one of its own kind,
or another service's id shaped as its example or pattern says."""

from __future__ import annotations

import json

import pytest

from library.compiler import plan_service
from library.compiler.emit_seed import SeedWriter, _RecordWriter
from library.compiler.model import Kind, TypeSpec
from library.compiler.source import Call
from tests.test_mutation_kills_compiler_rules import NOTES, _specs

MONEY = TypeSpec(Kind.FLOAT, "Money", semantic="money")


def I(**schema: object) -> TypeSpec:  # noqa: E743 - a table's short names
    return TypeSpec(Kind.INT, "int", schema=schema)


def F(**schema: object) -> TypeSpec:
    return TypeSpec(Kind.FLOAT, "float", schema=schema)


def B(**schema: object) -> TypeSpec:
    return TypeSpec(Kind.BOOL, "bool", schema=schema)


def S(semantic: str | None = None, **schema: object) -> TypeSpec:
    return TypeSpec(Kind.STR, "str", semantic=semantic, schema=schema)


def _writer() -> _RecordWriter:
    plan = plan_service(_specs(NOTES))
    return _RecordWriter(SeedWriter(plan), plan.records["notes"])


def _drawn(
    name: str, spec: TypeSpec, required: bool = True, depth: int = 0, who: str = ""
) -> str | None:
    value = _writer().value(name, spec, required, False, depth, who)
    return value.flat() if isinstance(value, Call) else value


VALUES: list[tuple[str, TypeSpec, str]] = [
    ("count", I(), "rng.randint(1, 21)"),
    ("quantity", I(), "rng.randint(1, 20)"),
    ("quantity", I(minimum=2, maximum=9), "rng.randint(2, 9)"),
    ("retries", I(exclusiveMinimum=0, exclusiveMaximum=5), "rng.randint(1, 4)"),
    ("price", F(), "round(product.price, 2)"),
    ("unit_price", I(), "round(product.price)"),
    ("amount", F(), "round(rng.uniform(200.0, 60000.0), 2)"),
    ("amount", MONEY, "round(rng.uniform(200.0, 60000.0), 2)"),
    ("discount_percent", F(), "5.0 + 5.0 * rng.randint(0, 5)"),  # 5-30%, not 0-100
    ("rating", I(minimum=1, maximum=5), "rng.randint(1, 5)"),
    ("age", I(), "rng.randint(21, 68)"),
    ("year", I(), "rng.randint(now.year - 1, now.year + 1)"),
    ("expiry_year", I(), "rng.randint(now.year, now.year + 5)"),
    ("story_points", I(), "rng.choice((1, 2, 3, 5, 8, 13))"),
    ("estimate", I(), "rng.choice((1, 2, 3, 5, 8, 13))"),
    ("fiscal_year", I(), "rng.randint(now.year - 1, now.year + 1)"),
    ("completed_timestamp", I(), 'pool.epoch("past", rng, now, created)'),
    ("start_time", I(), 'pool.epoch("past", rng, now, created)'),
    ("compare_at_price", F(), "round(product.price * 1.2, 2)"),
    ("list_price", F(minimum=10), "round(rng.uniform(10.0, 2500.0), 2)"),
    ("price", F(minimum=100), "round(rng.uniform(100.0, 2500.0), 2)"),
    ("unit_price", MONEY, "round(product.price, 2)"),
    ("balance", F(minimum=0, maximum=50), "round(rng.uniform(0.0, 50.0), 2)"),
    ("created_at", I(), 'pool.epoch("past", rng, now, created)'),
    ("expires_at", I(), 'pool.epoch("future", rng, now, created)'),
    ("updated_timestamp", I(maximum=100), "rng.randint(0, 100)"),
    ("score", F(minimum=0, maximum=1), "round(rng.uniform(0.0, 1.0), 2)"),
    ("weight", F(), "round(rng.uniform(0.0, 100.0), 2)"),
    ("duration_minutes", I(), "rng.randrange(15, 121, 15)"),
    ("page_count", I(), "rng.randint(1, 21)"),
    ("total", F(), "round(rng.uniform(20.0, 8000.0), 2)"),
    ("is_active", B(), "rng.random() < 0.5"),
    ("enabled", B(default=True), "rng.random() < 0.8"),
    ("archived", B(), "rng.random() < 0.5"),
    ("verified", B(default=False), "rng.random() < 0.2"),
    ("title", S(), 'pool.text("note_title", rng, person)'),
    ("description", S(), 'pool.text("body:document", rng)'),
    ("notes", S(), 'pool.text("body:document", rng)'),
    ("subject", S(), 'pool.text("note_title", rng, person)'),
    ("city", S(), "person.city"),
    ("sku", S(), "product.sku"),
    ("color", S(), 'pool.text("color", rng)'),
    ("language", S(), 'pool.text("locale", rng)'),
    ("timezone", S(), "company.timezone"),
    ("file_name", S(), 'pool.text("file_name", rng, person, now)'),
    ("mime_type", S(), 'pool.text("mime_type", rng)'),
    ("code", S(pattern="^[A-Z]{3}-[0-9]{2}$"), 'pattern_text(rng, "^[A-Z]{3}-[0-9]{2}$")'),
    ("code", S(pattern="^[A-Z]{3}$", maxLength=3), 'pattern_text(rng, "^[A-Z]{3}$", 0, 3)'),
    ("token", S(format="uuid"), "uuid_text(rng)"),
    ("website", S("url"), "company.website"),
    ("email", S("email"), "person.email"),
    ("phone", S("phone"), "person.phone"),
    ("first_name", S("person_name"), "person.first_name"),
    ("company", S("company"), "person.company"),
    ("country", S("country"), "person.country"),
    ("currency", S("currency"), "company.currency"),
    ("street", S("address"), "person.street"),
    ("short", S(maxLength=4), 'fit_text("stan", 0, 4)'),
    ("long_text", S(minLength=30), 'fit_text(pool.text("body:document", rng), 30)'),
    ("zip_code", S(), "person.postal_code"),
    ("postal_code", S(), "person.postal_code"),
    ("hex_color", S(), 'pool.text("hex_color", rng)'),
    ("username", S(), "person.username"),
    ("password", S(), 'pool.text("password", rng)'),
    ("label", S(), 'pool.text("note_title", rng, person)'),
    ("name", S(), 'pool.text("note_title", rng, person)'),
]


@pytest.mark.parametrize(("name", "spec", "want"), VALUES)
def test_the_value_drawn_for_a_required_field(name: str, spec: TypeSpec, want: str) -> None:
    assert _drawn(name, spec) == want


ENUM = TypeSpec(Kind.ENUM, "Priority", enum=("low", "high"))
STATUS = TypeSpec(Kind.ENUM, "Status", enum=("open", "closed", "archived"))
FINAL = TypeSpec(Kind.ENUM, "Final", enum=("closed", "archived"))
USER = TypeSpec(Kind.STR, "str", semantic="id", ref="users")
PARENT = TypeSpec(Kind.STR, "str", semantic="id", ref="notes")
# (name, spec, required, depth, who) -> the expression
IN_CONTEXT: list[tuple[str, TypeSpec, bool, int, str, str | None]] = [
    ("priority", ENUM, True, 0, "", "rng.choice(get_args(Priority))"),
    ("status", STATUS, True, 0, "", '_pick_state(rng, ("open",), get_args(Status))'),
    ("status", FINAL, True, 0, "", "rng.choice(get_args(Final))"),
    (
        "currency",
        TypeSpec(Kind.ENUM, "Cur", enum=("USD", "EUR")),
        True,
        0,
        "",
        "pool.currency(get_args(Cur), company)",
    ),
    (
        "billing_currency",
        TypeSpec(Kind.ENUM, "Cur", enum=("USD", "EUR"), semantic="currency"),
        True,
        0,
        "",
        "pool.currency(get_args(Cur), company)",
    ),
    # the organisation has no e-mail of its own: a nullable one is null, not made up
    ("email", TypeSpec(Kind.STR, "Email", semantic="email", nullable=True), True, 1, "org", "None"),
    ("kind", S(enum=["a", "b", "c"]), True, 0, "", 'rng.choice(["a", "b", "c"])'),
    (
        "birth_date",
        TypeSpec(Kind.DATE, "Date"),
        True,
        1,
        "",
        "person.born.date()",  # one birth date per person
    ),
    (
        "seen_at",
        TypeSpec(Kind.DATETIME, "DateTime"),
        True,
        1,
        "",
        'pool.moment("past", rng, now, created)',
    ),
    (
        "due",
        TypeSpec(Kind.DATE, "Date"),
        True,
        1,
        "",
        'pool.moment("past", rng, now, created).date()',
    ),
    ("phone", S("phone"), True, 1, "org", "pool.org.phone"),
    ("company", S("company"), True, 1, "org", "pool.org.name"),
    ("country", S("country"), True, 1, "org", "pool.org.country"),
    ("email", S("email"), True, 1, "owner", "owner.email"),
    ("city", S(), True, 1, "owner", "owner.city"),
    ("meta", TypeSpec(Kind.DICT, "dict[str, Any]"), True, 0, "", "{}"),
    ("meta", TypeSpec(Kind.DICT, "dict[str, Any]"), False, 0, "", None),
    ("anything", TypeSpec(Kind.ANY, "Any"), True, 0, "", "None"),
    ("anything", TypeSpec(Kind.ANY, "Any"), False, 0, "", None),
    ("owner_id", USER, True, 0, "", 'pool.external_id("user_", rng)'),
    ("owner_id", USER, False, 0, "", None),
    ("parent_id", PARENT, True, 0, "", "record_id"),
    ("parent_id", PARENT, False, 0, "", "pool.parent(rng, earlier_note_ids)"),
    ("parent_id", PARENT, False, 1, "", None),
    (
        "vendor_id",
        TypeSpec(Kind.STR, "str", semantic="id", ref="vendors", schema={"example": "ven_12ab34cd"}),
        True,
        0,
        "",
        'pool.external_id("ven_", rng)',
    ),
    (
        "vendor_id",
        TypeSpec(Kind.STR, "str", semantic="id", ref="vendors", schema={"pattern": "^v-[0-9]{4}$"}),
        True,
        0,
        "",
        'pattern_text(rng, "^v-[0-9]{4}$", 1, 200)',
    ),
]


@pytest.mark.parametrize(("name", "spec", "required", "depth", "who", "want"), IN_CONTEXT)
def test_the_value_drawn_in_its_context(
    name: str, spec: TypeSpec, required: bool, depth: int, who: str, want: str | None
) -> None:
    assert _drawn(name, spec, required, depth, who) == want


# A field whose meaning nothing names (``zorg``): the spec's examples, else an identifier
# (prose only where a field is free text: ``zorg_note``).
UNKNOWN: list[tuple[str, TypeSpec, bool, str | None]] = [
    ("zorg", S(examples=["AB-1234"]), True, 'pool.vary("AB-1234", rng)'),
    ("zorg", S(examples=["alpha", "beta"]), True, 'rng.choice(("alpha", "beta"))'),
    ("zorg", S(example="alpha"), True, '"alpha"'),
    ("zorg", S(examples=["alpha"], example="gamma"), True, '"alpha"'),
    ("zorg", S(examples=["x" * 40 + "1"]), True, json.dumps("x" * 40 + "1")),  # too long a code
    ("zorg", S(format="date", examples=["2024-01-01"]), True, '"2024-01-01"'),
    ("zorg", S(maxLength=5), True, 'fit_text("stand", 0, 5)'),
    ("zorg", S(), True, 'pool.token("zorg", rng)'),
    ("zorg_note", S(), True, 'pool.text("body:document", rng)'),
    ("zorg", S(), False, None),
    ("created_by", S(), True, "staff[0].username"),
]


@pytest.mark.parametrize(("name", "spec", "required", "want"), UNKNOWN)
def test_the_value_drawn_for_a_field_of_no_known_meaning(
    name: str, spec: TypeSpec, required: bool, want: str | None
) -> None:
    assert _drawn(name, spec, required) == want


@pytest.mark.parametrize(
    ("name", "spec", "want", "drawn_before"),
    [
        ("zorg", S(examples=["AB-1234"]), "zorg_list[i]", 'pool.varied("AB-1234", rng, size)'),
        (
            "zorg",
            S(pattern="^[A-Z]{2}[0-9]{3}$"),
            'pattern_or(zorg_list[i], rng, "^[A-Z]{2}[0-9]{3}$")',
            'pool.patterned("^[A-Z]{2}[0-9]{3}$", rng, size)',
        ),
        ("zorg", S(examples=["alpha"]), "zorg_list[i]", 'pool.variants("alpha", rng, size)'),
        ("zorg", S(), "zorg_list[i]", 'pool.distinct("reference", rng, size)'),
        ("name", S(), "name_list[i]", 'pool.distinct("note_title", rng, size)'),
    ],
)
def test_a_unique_field_is_drawn_distinct_before_the_loop(
    name: str, spec: TypeSpec, want: str, drawn_before: str
) -> None:
    writer = _writer()
    value = writer.value(name, spec, True, True, 0, "")
    assert (value.flat() if isinstance(value, Call) else value) == want
    pre = [
        (target, value.flat() if isinstance(value, Call) else value) for target, value in writer.pre
    ]
    assert pre == [(f"{name}_list", drawn_before)]
