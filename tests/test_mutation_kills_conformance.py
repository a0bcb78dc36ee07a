"""The conformance suite's own edges (mutants that survived the other tests,
bench/mutation.py): it finds a created record on any page of a list, whether the list pages
by offset, by page number or by cursor, and says so when it is on none; a refused call must
be refused and change nothing, for a tool with required parameters and one without; range
filters are checked for upper bounds and numbers too; and the helpers that compare a value
with a bound and read a page of results."""

from __future__ import annotations

import random
from typing import Annotated, Any

from pydantic import Field

from library.runtime import ErrorCode, Record, Ref, Service, State, ToolError, tool
from library.seed import SeedPool
from library.verify import CheckResult, run_conformance
from library.verify.conformance import _on_side, _ordered, _page

MemoId = Ref["memos"]
MEMO = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "size": {"type": "integer"},
    },
    "required": ["id", "title", "size"],
}
ID_FIELD = {"side": "input", "path": "memo_id", "type": "string", "semantic": "id", "ref": "memos"}
TEXT = {"type": "string"}
SMALL_LIMIT = {"type": "integer", "minimum": 1, "maximum": 2}  # pages of two records


def spec(name: str, verb: str, inputs: dict, required: list[str], output: dict) -> dict:
    return {
        "service": "memos",
        "name": name,
        "verb": verb,
        "resource": "memos",
        "access": "read" if verb in ("read", "list", "search") else "write",
        "input_schema": {"type": "object", "properties": inputs, "required": required},
        "output_schema": output,
        "fields": [ID_FIELD] if "memo_id" in inputs else [],
    }


CREATE = spec(
    "create_memo", "create", {"title": TEXT, "size": {"type": "integer"}}, ["title"], MEMO
)
GET = spec("get_memo", "read", {"memo_id": TEXT}, ["memo_id"], MEMO)
ARRAY = {"type": "array", "items": MEMO}


def lister(inputs: dict, output: dict = ARRAY) -> dict:
    return spec("list_memos", "list", inputs, [], output)


class Memo(Record):
    title: str
    size: int = 0


class MemoState(State):
    memos: dict[str, Memo] = {}


class Memos(Service):
    """Ten seeded memos of sizes 10, 20 ... 100; a created one comes last in every list."""

    name = "memos"
    State = MemoState
    state: MemoState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> MemoState:
        self.state = MemoState()
        for k, person in enumerate(rng.sample(pool.people, size)):
            memo = Memo(id=self.new_id("memo"), title=f"Call {person.full_name}", size=10 * (k + 1))
            self.put("memos", memo)
        return self.state

    @tool(write=True)
    def create_memo(self, title: str, size: int = 0) -> Memo:
        """Create a memo.

        Args:
            title: Title.
            size: Size.
        """
        return self.put("memos", Memo(id=self.new_id("memo"), title=title, size=size))

    @tool
    def get_memo(self, memo_id: MemoId) -> Memo:
        """Get a memo.

        Args:
            memo_id: The memo's id.
        """
        return self.get("memos", memo_id)

    def every(self) -> list[Memo]:
        return list(self.state.memos.values())


class ByOffset(Memos):
    @tool
    def list_memos(
        self, limit: Annotated[int, Field(ge=1, le=2)] = 2, offset: int = 0
    ) -> list[Memo]:
        """List memos, two at most at a time.

        Args:
            limit: Page size (2 at most).
            offset: Memos to skip.
        """
        return self.every()[offset : offset + limit]


class ByPage(Memos):
    @tool
    def list_memos(
        self, limit: Annotated[int, Field(ge=1, le=2)] = 2, page: Annotated[int, Field(ge=1)] = 1
    ) -> list[Memo]:
        """List memos by page number.

        Args:
            limit: Page size (2 at most).
            page: The page, from 1.
        """
        return self.every()[(page - 1) * limit : page * limit]


class ByCursor(Memos):
    @tool
    def list_memos(
        self, limit: Annotated[int, Field(ge=1, le=2)] = 2, cursor: str | None = None
    ) -> dict[str, Any]:
        """List memos, a cursor to the next page beside each page.

        Args:
            limit: Page size (2 at most).
            cursor: Where the page starts (from the previous page).
        """
        if cursor and not cursor.removeprefix("at-").isdigit():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "cursor: not one this list gave")
        start = int(cursor.removeprefix("at-")) if cursor else 0
        items = self.every()[start : start + limit]
        more = start + limit < len(self.every())
        return {
            "items": [m.model_dump() for m in items],
            "next_cursor": f"at-{start + limit}" if more else "",
        }


class FirstPageOnly(ByOffset):
    @tool
    def list_memos(
        self, limit: Annotated[int, Field(ge=1, le=2)] = 2, offset: int = 0
    ) -> list[Memo]:
        """List memos (the offset is ignored: every page is the first).

        Args:
            limit: Page size (2 at most).
            offset: Memos to skip.
        """
        return self.every()[:limit]


class NoIds(Memos):
    @tool
    def list_memos(self, limit: Annotated[int, Field(ge=1, le=2)] = 2) -> list[dict[str, Any]]:
        """The titles of the first memos.

        Args:
            limit: Page size (2 at most).
        """
        return [{"title": m.title} for m in self.every()[:limit]]


class Lenient(ByOffset):
    @tool(write=True)
    def create_memo(self, title: str = "untitled", size: int = 0) -> Memo:
        """Create a memo (a missing title is taken as "untitled").

        Args:
            title: Title.
            size: Size.
        """
        return self.put("memos", Memo(id=self.new_id("memo"), title=title, size=size))


class ListLeaks(ByOffset):
    @tool
    def list_memos(self, limit: object = 2, offset: int = 0) -> list[Memo]:
        """List memos (a limit that is no number empties every memo's title, then is refused).

        Args:
            limit: Page size.
            offset: Memos to skip.
        """
        if not isinstance(limit, int):
            for key, memo in list(self.state.memos.items()):
                self.state.memos[key] = memo.model_copy(update={"title": ""})
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "limit: not a number")
        return self.every()[offset : offset + limit]


class ListTakesAnything(ByOffset):
    @tool
    def list_memos(self, limit: object = 2, offset: int = 0) -> list[Memo]:
        """List memos (a limit that is no number lists two).

        Args:
            limit: Page size.
            offset: Memos to skip.
        """
        size = limit if isinstance(limit, int) else 2
        return self.every()[offset : offset + size]


def _sized(keep: Any) -> Any:
    def list_memos(
        self: Memos, min_size: int | None = None, max_size: int | None = None
    ) -> list[Memo]:
        """List memos by size.

        Args:
            min_size: The smallest size listed.
            max_size: The largest size listed.
        """
        return [m for m in self.every() if keep(m.size, min_size, max_size)]

    return tool(list_memos)


def _within(size: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or size >= lo) and (hi is None or size <= hi)


def _upper_strict(size: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or size >= lo) and (hi is None or size < hi)


def _upper_backwards(size: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or size >= lo) and (hi is None or size >= hi)


Sized = type("Sized", (Memos,), {"list_memos": _sized(_within)})
UpperStrict = type("UpperStrict", (Memos,), {"list_memos": _sized(_upper_strict)})
UpperBackwards = type("UpperBackwards", (Memos,), {"list_memos": _sized(_upper_backwards)})

OFFSET_LIST = lister({"limit": SMALL_LIMIT, "offset": {"type": "integer", "minimum": 0}})
PAGE_LIST = lister({"limit": SMALL_LIMIT, "page": {"type": "integer", "minimum": 1}})
CURSOR_PAGE = {
    "type": "object",
    "properties": {"items": ARRAY, "next_cursor": TEXT},
    "required": ["items", "next_cursor"],
}
CURSOR_LIST = lister({"limit": SMALL_LIMIT, "cursor": TEXT}, CURSOR_PAGE)
TITLES = {"type": "array", "items": {"type": "object", "properties": {"title": TEXT}}}
SIZED_LIST = lister({"min_size": {"type": "integer"}, "max_size": {"type": "integer"}})


def failed(results: list[CheckResult]) -> dict[tuple[str, str], str]:
    return {(r.tool, r.check): r.detail for r in results if not r.passed}


def checks(results: list[CheckResult]) -> set[tuple[str, str]]:
    return {(r.tool, r.check) for r in results}


def test_a_created_record_is_found_on_a_later_page_by_offset() -> None:
    results = run_conformance(ByOffset, [CREATE, GET, OFFSET_LIST])
    assert failed(results) == {}
    assert ("create_memo", "read_after_write") in checks(results)


def test_a_created_record_is_found_on_a_later_page_by_page_number() -> None:
    assert failed(run_conformance(ByPage, [CREATE, GET, PAGE_LIST])) == {}


def test_a_created_record_is_found_on_a_later_page_by_cursor() -> None:
    assert failed(run_conformance(ByCursor, [CREATE, GET, CURSOR_LIST])) == {}


def test_a_list_that_never_reaches_the_created_record_fails_read_after_write() -> None:
    problems = failed(run_conformance(FirstPageOnly, [CREATE, GET, OFFSET_LIST]))
    assert problems[("create_memo", "read_after_write")] == "the created record is not in the list"


def test_a_list_whose_items_show_no_id_is_no_failure_to_list() -> None:
    results = run_conformance(NoIds, [CREATE, GET, lister({"limit": SMALL_LIMIT}, TITLES)])
    assert ("create_memo", "read_after_write") not in failed(results)


def test_a_required_parameter_left_out_must_be_refused() -> None:
    problems = failed(run_conformance(Lenient, [CREATE, GET, OFFSET_LIST]))
    assert problems[("create_memo", "invalid_argument")] == (
        "a call without 'title' gave success, not invalid_argument"
    )


def test_a_tool_without_required_parameters_is_probed_with_a_wrong_type() -> None:
    problems = failed(run_conformance(ListTakesAnything, [CREATE, GET, OFFSET_LIST]))
    assert problems[("list_memos", "invalid_argument")] == (
        "a call 'limit' of the wrong type gave success, not invalid_argument"
    )


def test_a_refused_call_of_a_tool_without_required_parameters_changes_nothing() -> None:
    problems = failed(run_conformance(ListLeaks, [CREATE, GET, OFFSET_LIST]))
    assert problems[("list_memos", "invalid_argument")] == (
        "a refused call 'limit' of the wrong type changed the state"
    )


def test_upper_and_numeric_range_filters_are_checked_at_their_bound() -> None:
    results = run_conformance(Sized, [CREATE, GET, SIZED_LIST])
    assert failed(results) == {}
    assert ("list_memos", "range_filter") in checks(results)
    strict = failed(run_conformance(UpperStrict, [CREATE, GET, SIZED_LIST]))
    assert strict[("list_memos", "range_filter")] == (
        "max_size=10 left out the record whose size is that bound"
    )
    backwards = failed(run_conformance(UpperBackwards, [CREATE, GET, SIZED_LIST]))
    assert backwards[("list_memos", "range_filter")] == (
        "max_size=10 listed a record whose size is 20"
    )


def test_on_side_compares_numbers_and_moments_inclusively() -> None:
    assert _on_side(5, 5, "ge") and _on_side(5, 5, "le")
    assert _on_side(6, 5, "ge") and not _on_side(6, 5, "le")
    assert _on_side(4, 5, "le") and not _on_side(4, 5, "ge")
    assert _on_side(5.5, 5, "ge") and not _on_side(4.5, 5, "ge")
    z, utc = "2026-01-02T00:00:00Z", "2026-01-02T00:00:00+00:00"
    assert _on_side(z, utc, "ge") and _on_side(z, utc, "le")
    assert not _on_side("2026-01-01", "2026-01-02", "ge")
    assert _on_side("2026-01-01", "2026-01-02", "le")
    assert not _on_side("2026-01-03T10:00:00Z", "2026-01-02T10:00:00Z", "le")


def test_on_side_lets_values_that_do_not_compare_through() -> None:
    assert _on_side("not a moment", "2026-01-02", "ge")
    assert _on_side("2026-01-02", "not a moment", "le")
    assert _on_side(True, 5, "ge") and _on_side(5, True, "le")
    assert _on_side(5, "2026-01-02", "ge") and _on_side(5, "2026-01-02", "le")
    assert _on_side(None, 5, "ge") and _on_side([1], 5, "le")


def test_ordered_values_are_numbers_and_moments() -> None:
    assert (
        _ordered(0)
        and _ordered(2.5)
        and _ordered("2026-01-02")
        and _ordered("2026-01-02T03:04:05Z")
    )
    assert not _ordered(True) and not _ordered("soon") and not _ordered(None) and not _ordered([1])


def test_page_reads_the_records_and_the_next_cursor_of_any_wrapper() -> None:
    a, b = {"id": "a"}, {"id": "b"}
    assert _page([a, b]) == ([a, b], None)
    assert _page("text") == ([], None) and _page(None) == ([], None)
    assert _page({"total": 2, "tags": ["x"], "results": [a, b], "nextCursor": "c2"}) == (
        [a, b],
        "c2",
    )
    assert _page({"data": [a], "next_page_token": ""}) == ([a], None)
    assert _page({"data": [a], "NextToken": 7}) == ([a], None)
    assert _page({"first": [a], "second": [b]}) == ([a], None)
    assert _page({"count": 0}) == ([], None)
