"""The rules a compiled list keeps, checked on the emitted code itself: a range filter
includes its bound (``>=``/``<=``, never ``>``/``<``), and the pages of a list (by offset,
page number or cursor) partition it, the first page starting at the first record."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool

INVOICE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "customer": {"type": "string"},
        "amount": {"type": "number"},
        "created_at": {"type": "string", "format": "date-time"},
    },
    "required": ["id", "customer", "amount", "created_at"],
}
SIZE = 10


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _document() -> dict[str, Any]:
    moment = {"type": "string", "format": "date-time"}
    number = {"type": "number"}
    limit = {"type": "integer", "minimum": 1, "maximum": 100}
    body = {k: v for k, v in INVOICE["properties"].items() if k in ("customer", "amount")}
    create = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": body, "required": ["customer"]}
            }
        },
    }
    cursor_page = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": INVOICE},
            "next_cursor": {"type": ["string", "null"]},
        },
        "required": ["items"],
    }
    by_id = [{"name": "invoice_id", "in": "path", "required": True, "schema": {"type": "string"}}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Billing", "version": "1"},
        "paths": {
            "/invoices": {
                "post": {
                    "operationId": "create_invoice",
                    "requestBody": create,
                    "responses": _ok(INVOICE),
                },
                "get": {
                    "operationId": "list_invoices",
                    "parameters": [
                        _query("created_after", moment),
                        _query("created_before", moment),
                        _query("min_amount", number),
                        _query("max_amount", number),
                        _query("limit", limit),
                        _query("offset", {"type": "integer", "minimum": 0}),
                    ],
                    "responses": _ok({"type": "array", "items": INVOICE}),
                },
            },
            "/invoices/{invoice_id}": {
                "get": {
                    "operationId": "get_invoice",
                    "parameters": by_id,
                    "responses": _ok(INVOICE),
                }
            },
            "/invoice-pages": {
                "get": {
                    "operationId": "list_invoice_pages",
                    "parameters": [
                        _query("page", {"type": "integer", "minimum": 1}),
                        _query("limit", limit),
                    ],
                    "responses": _ok({"type": "array", "items": INVOICE}),
                }
            },
            "/invoice-cursor": {
                "get": {
                    "operationId": "list_invoice_cursor",
                    "parameters": [_query("cursor", {"type": "string"}), _query("limit", limit)],
                    "responses": _ok(cursor_page),
                }
            },
        },
    }


@pytest.fixture(scope="module")
def billing() -> World:
    specs, errors = ingest_document(json.dumps(_document()).encode(), source_file="billing.json")
    assert specs, errors
    compiled = compile_service(specs)
    wanted = {"list_invoices", "list_invoice_pages", "list_invoice_cursor", "create_invoice"}
    assert wanted <= set(compiled.compiled_tools), compiled.skipped
    world = World([load_service(compiled.source)()], seed=5)
    world.seed_states(seed_pool(5), SIZE)
    return world


def _list(world: World, tool: str, **args: Any) -> Any:
    envelope = world.call(f"billing__{tool}", args)
    assert envelope["success"], envelope
    return envelope["data"]


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


def test_range_filters_include_their_bound(billing: World) -> None:
    every = _list(billing, "list_invoices", limit=100)
    assert len(every) == SIZE
    for invoice in every:
        moment, amount = invoice["created_at"], invoice["amount"]
        assert invoice["id"] in _ids(_list(billing, "list_invoices", created_after=moment))
        assert invoice["id"] in _ids(_list(billing, "list_invoices", created_before=moment))
        assert invoice["id"] in _ids(_list(billing, "list_invoices", min_amount=amount))
        assert invoice["id"] in _ids(_list(billing, "list_invoices", max_amount=amount))


def test_range_filters_exclude_what_is_past_their_bound(billing: World) -> None:
    every = _list(billing, "list_invoices", limit=100)
    top = max(every, key=lambda r: r["amount"])
    above = _list(billing, "list_invoices", min_amount=top["amount"] + 0.01, limit=100)
    assert above == []
    last = max(dt.datetime.fromisoformat(r["created_at"]) for r in every)
    later = (last + dt.timedelta(seconds=1)).isoformat()
    assert _list(billing, "list_invoices", created_after=later, limit=100) == []
    kept = _list(billing, "list_invoices", min_amount=top["amount"], limit=100)
    assert all(r["amount"] >= top["amount"] for r in kept)


def test_offset_pages_partition_the_list(billing: World) -> None:
    every = _ids(_list(billing, "list_invoices", limit=100))
    pages = [_ids(_list(billing, "list_invoices", limit=3, offset=k)) for k in range(0, SIZE, 3)]
    assert pages[0] == every[:3]
    assert [i for page in pages for i in page] == every


def test_numbered_pages_partition_the_list(billing: World) -> None:
    every = _ids(_list(billing, "list_invoices", limit=100))
    pages = [_ids(_list(billing, "list_invoice_pages", page=n, limit=3)) for n in (1, 2, 3, 4)]
    assert pages[0] == every[:3]  # page 1 is the first page, not the second
    assert [i for page in pages for i in page] == every
    assert _list(billing, "list_invoice_pages", page=5, limit=3) == []


def test_cursor_pages_partition_the_list(billing: World) -> None:
    every = _ids(_list(billing, "list_invoices", limit=100))
    seen: list[str] = []
    args: dict[str, Any] = {"limit": 4}
    for _ in range(SIZE):
        page = _list(billing, "list_invoice_cursor", **args)
        seen += _ids(page["items"])
        if not page.get("next_cursor"):
            break
        args["cursor"] = page["next_cursor"]
    assert seen == every


def test_a_created_invoice_is_listed_and_found_by_its_bounds(billing: World) -> None:
    snap = billing.snapshot()
    made = billing.call("billing__create_invoice", {"customer": "Ada Lovelace", "amount": 12.5})
    assert made["success"], made
    invoice = made["data"]
    listed = _list(billing, "list_invoices", min_amount=12.5, max_amount=12.5, limit=100)
    assert invoice["id"] in _ids(listed)
    billing.restore(snap)
