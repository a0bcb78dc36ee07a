"""Each fault a service can have fails the conformance check meant for it, with a message
that says what is wrong (mutants of library/verify/conformance.py that survived the other
tests, bench/mutation.py): a signature that differs from the spec, a tool that is missing, a
seed that raises, a read that writes, an answer that differs between two worlds of one seed,
``internal`` for a valid value of an optional parameter, a record read back with another
value after a create or an update, a record still there after its delete, an unknown id
answered as found. And the helpers that compare what was sent with what is read back."""

from __future__ import annotations

import itertools
import random

from library.runtime import tool
from library.seed import SeedPool
from library.verify import run_conformance
from library.verify.conformance import (
    NOTHING,
    CheckResult,
    _failure,
    _fit_id,
    _mismatches,
    _same,
    _wrong,
    _x_ref,
    verified_tools,
)

from .test_mutation_kills_conformance import (
    CREATE,
    GET,
    MEMO,
    OFFSET_LIST,
    TEXT,
    ByOffset,
    Memo,
    MemoId,
    MemoState,
    failed,
    spec,
)

ID = {"memo_id": TEXT}
UPDATE = spec("update_memo", "update", ID | {"title": TEXT}, ["memo_id"], MEMO)
DELETE = spec("delete_memo", "delete", ID, ["memo_id"], MEMO)
SIZES = {
    "size": {"type": "integer", "enum": [1, 2]},
    "top": {"type": "integer", "minimum": 1, "maximum": 9},
}
SIZED = spec("list_memos", "list", SIZES, [], {"type": "array", "items": MEMO})
EVERY = [CREATE, GET, OFFSET_LIST]


class Full(ByOffset):
    """Memos with an update and a delete that do what they say."""

    @tool(write=True)
    def update_memo(self, memo_id: str, title: str | None = None) -> Memo:
        """Update a memo.

        Args:
            memo_id: The memo's id.
            title: A new title.
        """
        return self.update("memos", memo_id, title=title)

    @tool(write=True)
    def delete_memo(self, memo_id: str) -> Memo:
        """Delete a memo.

        Args:
            memo_id: The memo's id.
        """
        return self.delete("memos", memo_id)


FULL = [*EVERY, UPDATE, DELETE]


def _problems(cls: type, specs: list[dict]) -> dict[tuple[str, str], str]:
    return failed(run_conformance(cls, specs))


def test_a_service_that_keeps_its_promises_passes_every_check() -> None:
    results = run_conformance(Full, FULL)
    assert failed(results) == {}
    assert verified_tools(results) == dict.fromkeys(
        ("create_memo", "get_memo", "list_memos", "update_memo", "delete_memo"), True
    )
    ran = {(r.tool, r.check) for r in results}
    for check in ("signature", "valid_call", "output_schema", "round_trip", "determinism"):
        assert ("create_memo", check) in ran
    assert ("get_memo", "read_only") in ran and ("get_memo", "not_found") in ran
    assert ("create_memo", "read_only") not in ran  # a write may change the state
    for name in ("create_memo", "update_memo", "delete_memo"):
        assert (name, "read_after_write") in ran


def test_a_signature_other_than_the_specs_fails_and_says_how() -> None:
    other = spec(
        "create_memo", "create", {"title": TEXT, "colour": TEXT}, ["title", "colour"], MEMO
    )
    problems = _problems(ByOffset, [other, GET, OFFSET_LIST])
    assert problems[("create_memo", "signature")] == (
        "missing parameters ['colour']; parameters not in the spec ['size']; "
        "required ['title'] but the spec requires ['colour', 'title']"
    )


def test_a_tool_the_service_lacks_fails_implemented() -> None:
    results = run_conformance(ByOffset, [*EVERY, UPDATE])
    assert [(r.check, r.passed, r.detail) for r in results if r.tool == "update_memo"] == [
        ("implemented", False, "the service has no tool named 'update_memo'")
    ]


class SeedRaises(ByOffset):
    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> MemoState:
        raise RuntimeError("no memos today")


def test_a_seed_that_raises_fails_every_tool() -> None:
    problems = _problems(SeedRaises, EVERY)
    assert problems == {
        (t, "valid_call"): "seeding raised RuntimeError: no memos today"
        for t in ("create_memo", "get_memo", "list_memos")
    }


class ReadWrites(ByOffset):
    @tool
    def get_memo(self, memo_id: str) -> Memo:
        """Get a memo (and count the reading in its size).

        Args:
            memo_id: The memo's id.
        """
        return self.update("memos", memo_id, size=self.get("memos", memo_id).size + 1)


def test_a_read_that_writes_fails_read_only() -> None:
    problems = _problems(ReadWrites, EVERY)
    assert problems[("get_memo", "read_only")] == "a read tool changed the state"


_CALLS = itertools.count()


class Drifting(ByOffset):
    @tool(write=True)
    def create_memo(self, title: str, size: int = 0) -> Memo:
        """Create a memo (its size counts the calls of this process).

        Args:
            title: Title.
            size: Size.
        """
        return self.put("memos", Memo(id=self.new_id("memo"), title=title, size=next(_CALLS)))


class Hidden(ByOffset):
    @tool(write=True)
    def create_memo(self, title: str, size: int = 0) -> Memo:
        """Create a memo (a second memo, unseen in the answer, counts the calls).

        Args:
            title: Title.
            size: Size.
        """
        self.put("memos", Memo(id=f"count_{next(_CALLS)}", title="count"))
        return self.put("memos", Memo(id=self.new_id("memo"), title=title, size=size))


def test_a_call_that_differs_between_two_worlds_of_one_seed_fails_determinism() -> None:
    answer = _problems(Drifting, EVERY)[("create_memo", "determinism")]
    assert answer == "the same call on a second World with the same seed returned another result"
    state = _problems(Hidden, EVERY)[("create_memo", "determinism")]
    assert state == "the same call on a second World with the same seed left another state"


def _sized(broken_size: int = -1, broken_top: int = -1) -> type:
    class Sized(ByOffset):
        @tool
        def list_memos(self, size: int | None = None, top: int | None = None) -> list[Memo]:
            """List memos of a size, the first ``top`` of them.

            Args:
                size: The size (1 or 2).
                top: How many (1 to 9).
            """
            if size == broken_size or top == broken_top:
                raise KeyError("that one")
            return [m for m in self.every() if size is None or m.size == size][:top]

    return Sized


def test_internal_for_a_valid_value_of_an_optional_parameter_fails() -> None:
    specs = [CREATE, GET, SIZED]
    assert ("list_memos", "every_parameter") not in _problems(_sized(), specs)
    for broken, what in [((2, -1), "size=2"), ((-1, 9), "top=9"), ((-1, 1), "top=1")]:
        detail = _problems(_sized(*broken), specs)[("list_memos", "every_parameter")]
        assert detail.startswith(f"with {what}: internal: ") and "KeyError" in detail, detail


class TitleLost(Full):
    @tool(write=True)
    def create_memo(self, title: str, size: int = 0) -> Memo:
        """Create a memo (the title kept is another).

        Args:
            title: Title.
            size: Size.
        """
        self.put("memos", Memo(id=self.new_id("memo"), title="Untitled", size=size))
        return Memo(id=f"memo_{self.state.seq}", title=title, size=size)

    @tool(write=True)
    def update_memo(self, memo_id: str, title: str | None = None) -> Memo:
        """Update a memo (the new title is not kept).

        Args:
            memo_id: The memo's id.
            title: A new title.
        """
        return self.get("memos", memo_id).model_copy(update={"title": title})

    @tool(write=True)
    def delete_memo(self, memo_id: str) -> Memo:
        """Delete a memo (it stays).

        Args:
            memo_id: The memo's id.
        """
        return self.get("memos", memo_id)


def test_a_write_the_record_does_not_show_fails_read_after_write() -> None:
    problems = _problems(TitleLost, FULL)
    assert problems[("update_memo", "read_after_write")].startswith(
        "get after update disagrees on 'title': sent "
    )
    assert problems[("delete_memo", "read_after_write")] == (
        "get after delete gave success, not not_found"
    )
    created = problems[("create_memo", "read_after_write")]
    assert created.startswith("get after ") and "create" in created


class FindsAnything(ByOffset):
    @tool
    def get_memo(self, memo_id: str) -> Memo:
        """Get a memo (any unknown id is the first memo).

        Args:
            memo_id: The memo's id.
        """
        return self.state.memos.get(memo_id) or self.every()[0]


def test_an_unknown_id_answered_as_found_fails_not_found() -> None:
    problems = _problems(FindsAnything, EVERY)
    assert problems[("get_memo", "not_found")] == (
        "an unknown 'memo_id' gave success, not not_found"
    )


class ByRef(ByOffset):
    @tool
    def get_memo(self, ref: MemoId) -> Memo:
        """Get a memo (any unknown reference is the first memo).

        Args:
            ref: The memo's id.
        """
        return self.state.memos.get(ref) or self.every()[0]


def test_an_id_the_service_types_as_a_reference_is_probed_for_not_found() -> None:
    # the spec does not say ``ref`` names a memo, nor does its name: the service's type does
    untyped = spec("get_memo", "read", {"ref": TEXT}, ["ref"], MEMO) | {"fields": []}
    problems = _problems(ByRef, [CREATE, untyped])
    assert problems[("get_memo", "not_found")] == "an unknown 'ref' gave success, not not_found"


def _beyond(size: int, after: int | None, before: int | None) -> bool:
    return (after is None or size > after) and (before is None or size < before)


class Beyond(ByOffset):
    @tool
    def list_memos(
        self, size_after: int | None = None, size_before: int | None = None
    ) -> list[Memo]:
        """List memos larger than one size, smaller than another (each bound left out).

        Args:
            size_after: Memos larger than this.
            size_before: Memos smaller than this.
        """
        return [m for m in self.every() if _beyond(m.size, size_after, size_before)]


def test_a_filter_named_after_or_before_may_leave_its_bound_out() -> None:
    bounds = {"size_after": {"type": "integer"}, "size_before": {"type": "integer"}}
    listing = spec("list_memos", "list", bounds, [], {"type": "array", "items": MEMO})
    results = run_conformance(Beyond, [CREATE, GET, listing])
    assert failed(results) == {}
    assert ("list_memos", "range_filter") in {(r.tool, r.check) for r in results}


def test_verified_means_every_check_of_the_tool_passed() -> None:
    results = [
        CheckResult("s", "a", "one", True),
        CheckResult("s", "a", "two", False),
        CheckResult("s", "b", "one", True),
        CheckResult("s", "c", "one", False),
        CheckResult("s", "c", "two", True),
    ]
    assert verified_tools(results) == {"a": False, "b": True, "c": False}
    assert verified_tools([]) == {}


def test_a_value_read_back_is_the_same_as_the_one_sent() -> None:
    assert _same({"a": 1, "b": None}, {"a": 1.0, "c": 2})  # unsent keys and None are not read
    assert not _same({"a": 1}, {"b": 1}) and not _same({"a": 1}, {"a": 2})
    assert _same([1, "x"], [1, "x"]) and not _same([1], [1, 1]) and not _same([1, 2], [2, 1])
    assert _same(False, False) and not _same(False, True)
    assert not _same(True, 1) and not _same(0, False)  # a flag read back as a number is not it
    assert _same(0.1 + 0.2, 0.3) and not _same(1, 1.001)
    assert _same("2026-01-02T00:00:00Z", "2026-01-02T00:00:00+00:00")
    assert not _same("2026-01-02T00:00:00Z", "2026-01-02T01:00:00Z")
    assert not _same("abc", "abd") and not _same("not a date", "also not")
    assert _same(None, None) and not _same("1", 1)


def test_mismatches_name_the_first_key_read_back_otherwise() -> None:
    sent = {"id": "x", "title": "A", "size": 2, "tags": None, "absent": 1}
    assert _mismatches(sent, {"id": "y", "title": "A", "size": 2}, skip={"id"}) is None
    assert _mismatches(sent, {"title": "B", "size": 3}, skip=set()) == "'title': sent 'A', read 'B'"
    assert _mismatches(sent, ["A"], skip=set()) == "a result that is not an object"


def test_an_id_is_sent_as_its_parameter_takes_it() -> None:
    text, number = {"type": "string"}, {"type": "integer"}
    assert _fit_id(17, text, {}) == "17" and _fit_id("17", number, {}) == 17
    assert _fit_id("17", text, {}) == "17" and _fit_id(True, text, {}) is True
    assert _fit_id("abc", number, {}) == "abc" and _fit_id(17, {}, {}) == 17


def test_a_wrong_value_is_of_another_json_type() -> None:
    wrong = _wrong
    assert wrong({"type": "string"}) == {"unexpected": [1]}
    assert wrong({"type": "integer"}) == wrong({"type": "number"}) == "not-a-number"
    assert wrong({"type": "boolean"}) == "not-a-boolean"
    assert wrong({"type": "array"}) == wrong({"type": "object"}) == 12345
    assert wrong({}) is NOTHING
    # an id taking a number or a text: a text is no wrong type there, an object is
    either = {"oneOf": [{"type": "integer"}, {"type": "string"}]}
    assert _wrong({"type": "integer"}, either) == {"unexpected": [1]}


def test_a_reference_is_found_in_any_branch_of_a_union() -> None:
    assert _x_ref({"x-ref": "memos"}) == "memos"
    assert _x_ref({"anyOf": [{"type": "null"}, {"type": "string", "x-ref": "memos"}]}) == "memos"
    assert _x_ref({"anyOf": [{"type": "null"}]}) is None and _x_ref("memos") is None


def test_a_failure_reads_as_its_code_and_message() -> None:
    assert _failure({"success": True, "data": 1}) is None
    envelope = {"success": False, "error": {"code": "not_found", "message": "x" * 400}}
    assert _failure(envelope) == "not_found: " + "x" * 300
    assert _failure({"success": False}) == "None: None"
