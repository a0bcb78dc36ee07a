"""Verified means a tool works on every valid input, paging and writes included, on real
specs (``../shared/specs``) and small ones written here: a list's cursor is one its own
parameter accepts (a base64 pattern takes a zero-padded offset); a page number or an offset
beside a cursor is honoured when no cursor is given; a list of a collection's ids
(``/notes/ids``) lists that collection; and a write that sets a record's value to the one
it holds is no write that changes nothing (other values are tried), while a tool acting on
no record has no state to change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.compose.spec_library import specs_by_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed import seed_pool
from library.toolspec import ToolSpec
from library.verify import run_conformance
from library.verify.conformance import CheckResult

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
OPENAPI = SPECS / "openapi"
FUNCTIONS = SPECS / "functions"


def _checks(specs: list[ToolSpec]) -> dict[tuple[str, str], CheckResult]:
    cls = load_service(compile_service(specs).source)
    return {(r.tool, r.check): r for r in run_conformance(cls, specs)}


def _service(path: Path, service: str) -> list[ToolSpec]:
    if not path.exists():
        pytest.skip(f"{path} not present")
    return specs_by_service([path])[service]


def _notes(list_params: list[dict[str, Any]], extra_paths: dict[str, Any] | None = None) -> Any:
    note = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "title": {"type": "string"}},
    }
    page = {
        "type": "object",
        "properties": {
            "notes": {"type": "array", "items": {"$ref": "#/components/schemas/Note"}},
            "next_token": {"type": "string", "nullable": True},
        },
    }
    body = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}

    def answer(schema: dict[str, Any]) -> dict[str, Any]:
        return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}

    return {
        "openapi": "3.0.0",
        "info": {"title": "Notes", "version": "1"},
        "paths": {
            "/notes": {
                "get": {
                    "operationId": "listNotes",
                    "parameters": list_params,
                    "responses": answer({"$ref": "#/components/schemas/Page"}),
                },
                "post": {
                    "operationId": "createNote",
                    "requestBody": {"content": {"application/json": {"schema": body}}},
                    "responses": answer({"$ref": "#/components/schemas/Note"}),
                },
            },
            "/notes/{noteId}": {
                "get": {
                    "operationId": "getNote",
                    "parameters": [
                        {"name": "noteId", "in": "path", "required": True, "schema": {}}
                    ],
                    "responses": answer({"$ref": "#/components/schemas/Note"}),
                }
            },
            **(extra_paths or {}),
        },
        "components": {"schemas": {"Note": note, "Page": page}},
    }


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema}


def _ingest(doc: Any) -> list[ToolSpec]:
    specs, errors = ingest_document(orjson.dumps(doc), source_file="notes.json")
    assert specs, errors
    return specs


BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


@pytest.mark.parametrize(
    ("cursor", "token"),
    [
        ({"type": "string", "pattern": BASE64}, 'f"{end:08d}"'),  # ``1`` is no base64
        ({"type": "string", "minLength": 3, "maxLength": 64}, 'f"{end:03d}"'),  # AWS's
    ],
)
def test_a_cursor_is_one_the_lists_own_parameter_accepts(
    cursor: dict[str, Any], token: str
) -> None:
    specs = _ingest(
        _notes([_query("limit", {"type": "integer", "maximum": 50}), _query("next_token", cursor)])
    )
    checks = _checks(specs)
    assert checks[("listNotes", "pagination")].passed, checks[("listNotes", "pagination")]
    assert f"next_token={token}" in compile_service(specs).source


def test_a_real_list_with_a_base64_cursor_pages() -> None:
    """AWS Application Cost Profiler's ``nextToken``: the first page's cursor was refused by
    the list's own pattern (``invalid_argument``), yet the list was verified."""
    specs = _service(
        OPENAPI / "amazonaws.com__applicationcostprofiler.json",
        "amazonaws_com_applicationcostprofiler",
    )
    checks = _checks(specs)
    assert checks[("ListReportDefinitions", "pagination")].passed


def test_a_page_number_beside_a_cursor_counts_when_no_cursor_is_given() -> None:
    """Twilio's lists take ``PageSize``, ``Page`` and ``PageToken``: page 2 listed page 1's
    records again while the cursor alone decided where a page starts."""
    specs = _service(
        OPENAPI / "twilio.com__twilio_microvisor_v1.json", "twilio_com_twilio_microvisor_v1"
    )
    checks = _checks(specs)
    for tool in ("ListApp", "ListDevice", "ListAccountConfig", "ListAccountSecret"):
        assert checks[(tool, "pagination")].passed, checks[(tool, "pagination")]


def test_an_offset_beside_a_cursor_counts_when_no_cursor_is_given() -> None:
    specs = _ingest(
        _notes(
            [
                _query("limit", {"type": "integer"}),
                _query("offset", {"type": "integer"}),
                _query("cursor", {"type": "string"}),
            ]
        )
    )
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 10)
    name = qualified(cls.name, "listNotes")
    first = world.call(name, {"limit": 2})["data"]["notes"]
    second = world.call(name, {"limit": 2, "offset": 2})["data"]["notes"]
    assert len(first) == len(second) == 2
    assert not {n["id"] for n in first} & {n["id"] for n in second}
    assert _checks(specs)[("listNotes", "pagination")].passed


def test_a_list_of_a_collections_ids_lists_that_collection() -> None:
    ids = {
        "/notes/ids": {
            "get": {
                "operationId": "listNoteIds",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"type": "string"}}
                            }
                        },
                    }
                },
            }
        }
    }
    specs = _ingest(_notes([], ids))
    assert {s.name: s.resource for s in specs}["listNoteIds"] == "notes"
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 10)
    made = world.call(qualified(cls.name, "createNote"), {"title": "Standup notes"})["data"]
    listed = world.call(qualified(cls.name, "listNoteIds"), {})["data"]
    assert made["id"] in listed and len(listed) == len(world.services[cls.name].state.notes)


def test_an_update_left_at_the_value_held_is_tried_with_others() -> None:
    """MailScript's ``updateUser`` takes an optional display name: the valid call sent none
    (so changed nothing), yet the tool sets the name when given one."""
    specs = _service(OPENAPI / "mailscript.com.json", "mailscript_com")
    assert _checks(specs)[("updateUser", "changes_state")].passed


def test_a_tool_acting_on_no_record_has_no_state_to_change() -> None:
    """A transfer to a human agent answers and keeps nothing: no record for a task to
    check, and no ``changes_state`` to fail."""
    path = next(FUNCTIONS.rglob("*banking*"), None) if FUNCTIONS.exists() else None
    if path is None:
        pytest.skip("no banking functions in ../shared/specs")
    service = next(iter(specs_by_service([path])))
    checks = _checks(_service(path, service))
    assert checks[("request_human_agent_transfer", "valid_call")].passed
    assert ("request_human_agent_transfer", "changes_state") not in checks
