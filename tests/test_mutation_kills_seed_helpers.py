"""The seed writer's own small rules (library/compiler/emit_seed.py, its module-level helpers,
whose mutants survived the other tests, bench/mutation.py): a local nothing reads is dropped
wherever it stands, and what reads it keeps it; the creation moment is drawn before the
first step that reads it; a kind of text fits a field's lengths only when every value of it
does; declared bounds (exclusive ones a step inside) clamp the seeded range; a drawn text is
fitted to its declared lengths unless drawn within them; a name is used where it is read, not
where it is a keyword or an attribute; ranges close on their own end field; people roles,
references, meanings and fallbacks resolve as their tables say; and collections are seeded
so that what a record refers to comes before it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from library.compiler import emit_seed as es
from library.compiler.model import Kind, TypeSpec

TEXT = TypeSpec(Kind.STR, "str")


def _names(steps: list[tuple[str, str]]) -> list[str]:
    return [target for target, _ in steps]


def test_a_local_nothing_reads_is_dropped_wherever_it_stands() -> None:
    steps = [
        ("first", "rng.random()"),  # read by nothing
        ("second", "rng.random()"),  # read by nothing
        ("base", "rng.randint(1, 5)"),
        ("chained", "first + 1"),  # reads ``first`` but is itself unread: both go
        ("kept", "base * 2"),
        ("record_id", "self.new_id()"),  # the record's id stays, read or not
        ("last", "rng.random()"),
    ]
    assert _names(es._prune(steps, ["kept"])) == ["base", "kept", "record_id"]
    assert _names(es._prune(steps, ["first", "last"])) == ["first", "record_id", "last"]
    assert es._prune([], ["x"]) == []


def test_the_creation_moment_is_drawn_before_the_first_step_reading_it() -> None:
    steps = [
        ("a", "rng.random()"),
        ("b", "pool.moment('past', rng, now, created)"),
        ("c", "created + span"),
        ("created", "pool.moment('created', rng, now)"),
        ("d", "created"),
    ]
    assert _names(es._created_first(list(steps))) == ["a", "created", "b", "c", "d"]

    def reading(name: str) -> list[tuple[str, str]]:
        return [(t, f"pool.created(rng, now, {name})" if t == "created" else e) for t, e in steps]

    # what ``created`` reads (``a``) stands before its first reader: it may move
    assert _names(es._created_first(reading("a")))[1] == "created"
    # what it reads is drawn after that reader: it stays where it is
    assert _names(es._created_first(reading("c"))) == _names(steps)
    read_late = [("x", "1"), ("created", "now"), ("y", "created")]
    assert es._created_first(list(read_late)) == read_late  # nothing reads it earlier
    assert es._created_first([("x", "1")]) == [("x", "1")]


def test_a_kind_of_text_fits_lengths_only_when_every_value_of_it_does() -> None:
    lengths = [len(v) for v in es._samples("job_title")]
    short, long = min(lengths), max(lengths)
    assert es._kind_fits("job_title", {})  # nothing declared: anything fits
    assert es._kind_fits("job_title", {"minLength": short, "maxLength": long})
    assert not es._kind_fits("job_title", {"minLength": short + 1})
    assert not es._kind_fits("job_title", {"maxLength": long - 1})
    assert not es._kind_fits("job_title", {"pattern": "^[0-9]+$"})
    assert es._kind_fits("job_title", {"pattern": "[A-Za-z]"})
    assert es._kind_fits("job_title", {"minLength": "3", "maxLength": "9", "pattern": 5})


def test_every_listed_value_must_fit_the_pattern_and_the_maximum_length() -> None:
    assert es._fits_all(("abc", "de"), {"pattern": "^[a-z]+$", "maxLength": 3})
    assert not es._fits_all(("abc", "d1"), {"pattern": "^[a-z]+$"})
    assert not es._fits_all(("abcd", "de"), {"maxLength": 3})
    assert es._fits_all(("abcd",), {"maxLength": "3", "pattern": None})
    assert es._fits("[0-9]", "ab1") and not es._fits("^[0-9]", "ab1")  # a search, anchored or not
    assert es._fits("([", "anything")  # a pattern Python cannot read rejects nothing


def test_declared_bounds_clamp_the_range_exclusive_ones_a_step_inside() -> None:
    assert es._bounds({}, True) == (None, None)
    assert es._bounds({"minimum": 2, "maximum": 9}, True) == (2, 9)
    assert es._bounds({"exclusiveMinimum": 2, "exclusiveMaximum": 9}, True) == (3, 8)
    assert es._bounds({"exclusiveMinimum": 2, "exclusiveMaximum": 9}, False) == (2.01, 8.99)
    assert es._bounds({"minimum": True, "maximum": "9"}, True) == (None, None)
    assert es._bounds({"minimum": 9, "maximum": 4}, True) == (9, 9)  # never an empty range
    assert es._clamp(0, 100, None, None) == (0, 100)
    assert es._clamp(0, 100, 10, None) == (10, 100)
    assert es._clamp(0, 100, None, 40) == (0, 40)
    assert es._clamp(0, 100, 150, None) == (150, 150)  # the bound wins over the meaning
    assert es._clamp(50, 100, None, 20) == (20, 20)
    assert es._clamp(0, 100, 30, 40) == (30, 40)


def test_a_text_field_declared_lengths_read_as_given() -> None:
    assert es._length_bounds({}) == (0, None)
    assert es._length_bounds({"minLength": 3, "maxLength": 9}) == (3, 9)
    assert es._length_bounds({"minLength": 0, "maxLength": 0}) == (0, 0)
    assert es._length_bounds({"minLength": -2}) == (0, None)
    assert es._length_bounds({"minLength": True, "maxLength": True}) == (0, None)
    assert es._length_bounds({"minLength": "3", "maxLength": 4.0}) == (0, None)


def test_a_text_drawn_by_meaning_is_fitted_to_its_declared_lengths() -> None:
    drawn = 'pool.text("job_title", rng)'
    bounded = TypeSpec(Kind.STR, "str", schema={"minLength": 3, "maxLength": 9})
    assert es._fitted(drawn, bounded) == f"fit_text({drawn}, 3, 9)"
    at_least = TypeSpec(Kind.STR, "str", schema={"minLength": 12})
    assert es._fitted(es._call("pool.text", '"x"', "rng"), at_least) == (
        'fit_text(pool.text("x", rng), 12)'
    )
    at_most = TypeSpec(Kind.STR, "str", schema={"maxLength": 4})
    assert es._fitted(drawn, at_most) == f"fit_text({drawn}, 0, 4)"
    assert es._fitted(drawn, TEXT) == drawn  # nothing declared
    assert es._fitted(None, bounded) is None
    assert es._fitted("None", bounded) == "None"
    assert es._fitted('pool.pattern("^a+$", rng, 3, 9)', bounded).startswith("pool.pattern(")
    assert es._fitted('pattern_text(x, "^a+$")', bounded).startswith("pattern_text(")
    an_id = TypeSpec(Kind.STR, "str", semantic="id", schema={"maxLength": 4})
    assert es._fitted("rng.choice(ids)", an_id) == "rng.choice(ids)"
    number = TypeSpec(Kind.INT, "int", schema={"maxLength": 4})
    assert es._fitted("rng.randint(1, 5)", number) == "rng.randint(1, 5)"


def test_a_name_is_used_where_it_is_read_not_as_a_keyword_or_an_attribute() -> None:
    assert es._uses("created + 1", "created")
    assert es._uses("f(x, created)", "created")
    assert es._uses("created == now", "created")  # a comparison reads it
    assert es._uses(es._call("f", "rng", "created"), "created")
    assert not es._uses("f(created=now)", "created")
    assert not es._uses("record.created", "created")
    assert not es._uses("recreated", "created")
    assert not es._uses("created_at", "created")


def test_a_range_closes_on_its_own_end_field() -> None:
    assert es._pair_end("starts_at", ["starts_at", "ends_at"]) == "ends_at"
    assert es._pair_end("start_date", ["start_date", "end_date"]) == "end_date"
    assert es._pair_end("startDate", ["startDate", "endDate"]) == "endDate"
    assert es._pair_end("salary_min", ["salary_min", "salary_max"]) == "salary_max"
    assert es._pair_end("check_in", ["check_in", "check_out"]) == "check_out"
    assert es._pair_end("purchase_date", ["purchase_date", "warranty_end"]) == "warranty_end"
    assert es._pair_end("starts_at", ["starts_at", "end_date"]) is None  # not its own end
    assert es._pair_end("ends_at", ["starts_at", "ends_at"]) is None
    assert es._pair_end("title", ["title"]) is None
    integer, text = TypeSpec(Kind.INT, "int"), TEXT
    fields = {
        "minPrice": SimpleNamespace(type=integer),
        "maxPrice": SimpleNamespace(type=integer),
        "from_city": SimpleNamespace(type=text),
        "to_city": SimpleNamespace(type=text),
    }
    assert es._numeric_pairs(fields) == [("min_price", "max_price")]  # numbers only


def test_field_names_compare_in_one_spelling() -> None:
    assert es._snake("createdAt") == "created_at"
    assert es._snake("Created-At") == "created_at"
    assert es._snake("__") == "__"


def test_a_to_or_from_is_a_phone_number_when_its_description_says_so() -> None:
    def spec(description: str) -> TypeSpec:
        return TypeSpec(Kind.STR, "str", schema={"description": description})

    assert es._phone_like("to", spec("The number to call"))
    assert es._phone_like("from", spec("Caller in E.164 format"))
    assert not es._phone_like("to", spec("The recipient"))
    assert not es._phone_like("phone", spec("The number to call"))
    assert not es._phone_like("to", TEXT)


def test_a_role_matches_by_its_name_its_singular_or_its_last_or_first_word() -> None:
    roles = frozenset({"owner", "rep"})
    assert es._matches("owner", roles)
    assert es._matches("owners", roles)
    assert es._matches("account_owner", roles)
    assert es._matches("sales_reps", roles)
    assert es._matches("owner_email", roles)
    assert not es._matches("", roles)
    assert not es._matches("customer", roles)
    assert not es._matches("the_owner_email", roles)


def test_a_reference_names_its_collection_or_the_longest_one_its_name_ends_with() -> None:
    collections = {"folders": 1, "archived_folders": 2, "files": 3}
    assert es.resolve_ref("files", collections) == "files"
    assert es.resolve_ref("parent_folders", collections) == "folders"
    assert es.resolve_ref("old_archived_folders", collections) == "archived_folders"
    assert es.resolve_ref("folderset", collections) is None
    assert es.resolve_ref(None, collections) is None
    assert es.resolve_ref("", collections) is None


def test_a_reference_is_its_ids_kind_or_its_items() -> None:
    ref = TypeSpec(Kind.STR, "str", semantic="id", ref="folders")
    assert es._ref_of(ref) == "folders"
    assert es._ref_of(TypeSpec(Kind.INT, "int", semantic="id", ref="folders")) == "folders"
    assert es._ref_of(TypeSpec(Kind.LIST, "list[str]", item=ref)) == "folders"
    assert es._ref_of(TypeSpec(Kind.STR, "str", ref="folders")) is None  # not an id
    assert es._ref_of(TypeSpec(Kind.LIST, "list[str]")) is None


def _record(**refs: tuple[str, bool]) -> SimpleNamespace:
    fields = {
        name: SimpleNamespace(type=TypeSpec(Kind.STR, "str", semantic="id", ref=ref), required=req)
        for name, (ref, req) in refs.items()
    }
    return SimpleNamespace(fields=fields)


def _order(records: dict[str, SimpleNamespace]) -> list[str]:
    seeded = es.seed_order(records)  # type: ignore[arg-type]
    return [next(n for n, r in records.items() if r is s) for s in seeded]


def test_what_a_record_refers_to_is_seeded_before_it() -> None:
    records = {
        "comments": _record(post_id=("posts", True), author_id=("users", False)),
        "posts": _record(user_id=("users", True), parent_id=("posts", False)),
        "users": _record(),
    }
    assert _order(records) == ["users", "posts", "comments"]
    # a cycle through optional references: the required one decides
    cycle = {
        "posts": _record(author_id=("users", True)),
        "users": _record(pinned_post_id=("posts", False)),
    }
    assert _order(cycle) == ["users", "posts"]
    # a cycle of required references: listed order, every collection still seeded
    knot = {"a": _record(b_id=("b", True)), "b": _record(a_id=("a", True))}
    assert sorted(_order(knot)) == ["a", "b"]
    free = {"x": _record(), "y": _record(), "z": _record()}
    assert _order(free) == ["x", "y", "z"]


def test_a_kind_of_text_needs_what_its_templates_mention() -> None:
    assert es._needs("deal_title") == {"person", "product", "now"}
    assert es._needs("ticket_subject") == {"product"}
    assert es._needs("venue") == set()  # a city of ours, no person
    assert es._needs("fiscal_period") == {"now"}
    assert es._needs("job_posting") >= {"staff"}
    assert es._needs("invoice_number") >= {"now"}
    assert es._needs("username") >= {"person"}
    assert es._needs("file_name") >= {"person", "now"}


@pytest.mark.parametrize(
    ("low", "span"),
    [
        ("story_points", (1, 13, True, 1)),
        ("tax_rate", (5, 25, False, 0.5)),
        ("quantity", (1, 20, True, 1)),
        ("salary", (45_000, 180_000, False, 0.01)),
        ("unit_price", (5, 2_500, False, 0.01)),
        ("subtotal", (20, 8_000, False, 0.01)),
        ("colour", None),
    ],
)
def test_a_number_named_for_its_meaning_takes_the_meanings_range(low: str, span: tuple) -> None:
    assert es._rule(low) == span


def test_a_count_is_named_as_one() -> None:
    assert all(es._counts(n) for n in ("item_count", "quantity", "qty", "seats", "page_size"))
    assert not es._counts("price")
    assert es._money("annual_revenue") == (1_000_000, 500_000_000)
    assert es._money("colour") is None


def test_a_flag_follows_its_default_for_most_records() -> None:
    assert es._bool(TypeSpec(Kind.BOOL, "bool", schema={"default": True})) == "rng.random() < 0.8"
    assert es._bool(TypeSpec(Kind.BOOL, "bool", schema={"default": False})) == (
        "rng.random() < 0.2"
    )
    assert es._bool(TypeSpec(Kind.BOOL, "bool", schema={"default": 1})) == "rng.random() < 0.5"


def test_a_required_value_of_no_meaning_falls_back_to_its_types_empty_value() -> None:
    assert es._fallback(TypeSpec(Kind.INT, "int")) == "0"
    assert es._fallback(TypeSpec(Kind.FLOAT, "float")) == "0.0"
    assert es._fallback(TypeSpec(Kind.BOOL, "bool")) == "False"
    assert es._fallback(TypeSpec(Kind.LIST, "list[str]")) == "[]"
    assert es._fallback(TypeSpec(Kind.DICT, "dict[str, Any]")) == "{}"
    assert es._fallback(TypeSpec(Kind.ANY, "Any")) == "None"
    assert es._fallback(TEXT) not in ("", "None")
