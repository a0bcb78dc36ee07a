"""What the compiled list tools answer at their edges (mutants that survived the other tests,
bench/mutation.py): a range filter keeps the record on its bound (``>=``, not ``>``; a
``min_`` is a lower bound, a ``max_`` an upper one), compares a date with a timestamp's day
and leaves out records without the field; page numbers, offsets and cursors walk the list
one page at a time, from page 1 (no page skipped, none repeated), and a page wrapper's
``total``, ``limit``, ``offset``, ``has_more`` and ``next_cursor`` say where the page is."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.verify import build_service

INVOICE = {
    "type": "object",
    "required": ["id", "number", "amount"],
    "properties": {
        "id": {"type": "string"},
        "number": {"type": "string"},
        "amount": {"type": "integer"},
    },
}
BODY = {
    "type": "object",
    "required": ["number", "amount"],
    "properties": {"number": {"type": "string"}, "amount": {"type": "integer"}},
}
LIMIT = {"type": "integer", "minimum": 1, "maximum": 50}


def _query(name: str, schema: dict) -> dict:
    return {"name": name, "in": "query", "schema": schema}


def _ok(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


def _collection(
    path: str,
    noun: str,
    listing: list[dict],
    answer: dict | None = None,
    record: dict = INVOICE,
    body: dict = BODY,
) -> dict:
    return {
        f"/{path}": {
            "post": {
                "operationId": f"create{noun}",
                "requestBody": {"content": {"application/json": {"schema": body}}},
                "responses": _ok(record),
            },
            "get": {
                "operationId": f"list{noun}s",
                "parameters": listing,
                "responses": _ok(answer or {"type": "array", "items": record}),
            },
        },
        f"/{path}/{{id}}": {
            "get": {
                "operationId": f"get{noun}",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": _ok(record),
            }
        },
    }


BILLING = {
    "openapi": "3.0.0",
    "info": {"title": "Billing", "version": "1"},
    "paths": {
        **_collection(
            "invoices",
            "Invoice",
            [
                _query("min_amount", {"type": "integer"}),
                _query("max_amount", {"type": "integer"}),
                _query("limit", LIMIT),
                _query("page", {"type": "integer", "minimum": 1}),
            ],
        ),
        **_collection(
            "credits",
            "Credit",
            [_query("limit", LIMIT), _query("offset", {"type": "integer", "minimum": 0})],
        ),
    },
}


PAGE = {
    "type": "object",
    "required": ["items", "total", "limit", "offset", "has_more"],
    "properties": {
        "items": {"type": "array", "items": INVOICE},
        "total": {"type": "integer"},
        "limit": {"type": "integer"},
        "offset": {"type": "integer"},
        "has_more": {"type": "boolean"},
    },
}
CURSOR_PAGE = {
    "type": "object",
    "required": ["data", "next_cursor"],
    "properties": {
        "data": {"type": "array", "items": INVOICE},
        "next_cursor": {"type": ["string", "null"]},
    },
}
SHOP = {
    "openapi": "3.0.0",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        **_collection(  # a limit past the runtime's paginate (500): sliced in the tool
            "receipts",
            "Receipt",
            [
                _query("limit", {"type": "integer", "minimum": 1, "maximum": 1000}),
                _query("offset", {"type": "integer", "minimum": 0}),
            ],
            PAGE,
        ),
        **_collection(
            "refunds",
            "Refund",
            [_query("limit", LIMIT), _query("cursor", {"type": "string"})],
            CURSOR_PAGE,
        ),
    },
}
MOMENT, DAY = {"type": "string", "format": "date-time"}, {"type": "string", "format": "date"}
EVENT = {
    "type": "object",
    "required": ["id", "number", "held"],
    "properties": {
        "id": {"type": "string"},
        "number": {"type": "string"},
        "held": MOMENT,
        "due": DAY,
    },
}
EVENT_BODY = {
    "type": "object",
    "required": ["number", "held"],
    "properties": {"number": {"type": "string"}, "held": MOMENT, "due": DAY},
}
CALENDAR = {
    "openapi": "3.0.0",
    "info": {"title": "Calendar", "version": "1"},
    "paths": _collection(  # a day bounds a timestamp field; a timestamp bounds an optional day
        "events", "Event", [_query("held_since", DAY), _query("due_until", MOMENT)],
        record=EVENT, body=EVENT_BODY,
    ),
}  # fmt: skip


def _compiled(document: dict) -> tuple[World, str]:
    """The compiled service of ``document`` (every tool verified), in an unseeded world."""
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    build = build_service(specs)
    assert set(build.verified) == {s.name for s in specs}, build.outcomes
    cls = load_service(compile_service(specs).source)
    return World([cls()], seed=0), cls.name


def _create(service: tuple[World, str], noun: str, amounts: tuple[int, ...]) -> None:
    world, name = service
    for k, amount in enumerate(amounts):
        args = {"number": f"{noun[0]}-{k}", "amount": amount}
        assert world.call(qualified(name, f"create{noun}"), args)["success"]


# Built for each test, not once per module: mutmut gives a mutant only the tests that reach
# its function, and counts a module fixture's calls for the first test alone.
@pytest.fixture
def billing() -> tuple[World, str]:
    """Billing with amounts 10 to 50 in both collections."""
    service = _compiled(BILLING)
    for noun in ("Invoice", "Credit"):
        _create(service, noun, (10, 20, 30, 40, 50))
    return service


@pytest.fixture
def shop() -> tuple[World, str]:
    """The shop with five receipts and five refunds."""
    service = _compiled(SHOP)
    for noun in ("Receipt", "Refund"):
        _create(service, noun, (1, 2, 3, 4, 5))
    return service


def _list(service: tuple[World, str], tool: str, **args: Any) -> Any:
    world, name = service
    envelope = world.call(qualified(name, tool), args)
    assert envelope["success"], envelope
    return envelope["data"]


def _amounts(billing: tuple[World, str], **args: Any) -> list[int]:
    return sorted(r["amount"] for r in _list(billing, "listInvoices", **args))


def test_a_range_filter_keeps_the_record_on_its_bound(billing: tuple[World, str]) -> None:
    assert _amounts(billing, min_amount=30) == [30, 40, 50]
    assert _amounts(billing, max_amount=30) == [10, 20, 30]
    assert _amounts(billing, min_amount=20, max_amount=40) == [20, 30, 40]
    assert _amounts(billing, min_amount=30, max_amount=30) == [30]
    assert _amounts(billing, min_amount=31, max_amount=39) == []
    assert _amounts(billing) == [10, 20, 30, 40, 50]


def test_page_numbers_walk_the_list_one_page_at_a_time(billing: tuple[World, str]) -> None:
    every = _list(billing, "listInvoices")
    assert len(every) == 5
    pages = [_list(billing, "listInvoices", limit=2, page=p) for p in (1, 2, 3, 4)]
    assert pages == [every[0:2], every[2:4], every[4:5], []]
    assert _list(billing, "listInvoices", limit=2) == every[0:2]  # page 1 by default


def test_offsets_skip_that_many_records(billing: tuple[World, str]) -> None:
    every = _list(billing, "listCredits")
    assert sorted(r["amount"] for r in every) == [10, 20, 30, 40, 50]
    assert _list(billing, "listCredits", limit=2) == every[0:2]
    assert _list(billing, "listCredits", limit=2, offset=1) == every[1:3]
    assert _list(billing, "listCredits", limit=2, offset=4) == every[4:5]
    assert _list(billing, "listCredits", offset=3) == every[3:]
    assert _list(billing, "listCredits", limit=3, offset=5) == []


def test_a_page_wrapper_says_where_the_page_is(shop: tuple[World, str]) -> None:
    every = _list(shop, "listReceipts")  # the limit's default: 50, within its maximum (1000)
    assert [r["amount"] for r in every["items"]] == [1, 2, 3, 4, 5]
    assert {k: v for k, v in every.items() if k != "items"} == {
        "total": 5, "limit": 50, "offset": 0, "has_more": False,
    }  # fmt: skip
    page = _list(shop, "listReceipts", limit=2, offset=2)
    assert page == {
        "items": every["items"][2:4], "total": 5, "limit": 2, "offset": 2, "has_more": True,
    }  # fmt: skip
    last = _list(shop, "listReceipts", limit=2, offset=3)
    assert (last["items"], last["has_more"], last["total"]) == (every["items"][3:5], False, 5)
    assert _list(shop, "listReceipts", offset=5)["items"] == []
    assert len(_list(shop, "listReceipts", limit=900)["items"]) == 5


def test_a_cursor_leads_to_the_next_page_and_the_last_page_has_none(
    shop: tuple[World, str],
) -> None:
    every = _list(shop, "listRefunds")
    assert [r["amount"] for r in every["data"]] == [1, 2, 3, 4, 5]
    assert every["next_cursor"] is None
    seen, cursor, pages = [], None, 0
    while True:
        args = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = _list(shop, "listRefunds", **args)
        seen += page["data"]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert isinstance(cursor, str) and pages < 5
    assert (seen, pages) == (every["data"], 3)


def test_a_day_bounds_a_timestamp_and_a_timestamp_bounds_an_optional_day() -> None:
    calendar = _compiled(CALENDAR)
    world, name = calendar
    for number, held, due in [
        ("a", "2026-03-01T10:00:00Z", "2026-04-01"),
        ("b", "2026-03-02T23:30:00Z", None),
        ("c", "2026-03-03T00:00:00Z", "2026-04-03"),
    ]:
        args = {"number": number, "held": held} | ({"due": due} if due else {})
        assert world.call(qualified(name, "createEvent"), args)["success"]

    def numbers(**args: Any) -> list[str]:
        return sorted(e["number"] for e in _list(calendar, "listEvents", **args))

    assert numbers() == ["a", "b", "c"]
    assert numbers(held_since="2026-03-02") == ["b", "c"]  # 23:30 that day is on the day
    assert numbers(held_since="2026-03-04") == []
    assert numbers(due_until="2026-04-01T12:00:00Z") == ["a"]  # no due date: not listed
    assert numbers(due_until="2026-04-03T00:00:00Z") == ["a", "c"]
    assert numbers(held_since="2026-03-02", due_until="2026-05-01T00:00:00Z") == ["c"]
