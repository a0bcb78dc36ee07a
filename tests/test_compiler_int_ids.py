"""Integer ids as a database keeps them: each collection counts its own (1, 2, 3 ... per
collection, continuing after the seeded records, never giving an id twice), deterministically
under replay; a deletion confirmation shows the id in the type the spec declares
(``{deleted: true, id: 4}``, not ``"4"``); and the emitted module is laid out as ``ruff format``
would and passes ``ruff check``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed import seed_pool
from library.verify import build_service

ROOT = Path(__file__).resolve().parents[1]
SIZE = 3
DELETED = {
    "type": "object",
    "properties": {"deleted": {"type": "boolean"}, "id": {"type": "integer"}},
    "required": ["deleted", "id"],
}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _record(fields: dict[str, Any]) -> dict[str, Any]:
    props = {"id": {"type": "integer"}, **fields}
    return {"type": "object", "properties": props, "required": list(props)}


CUSTOMER = _record({"name": {"type": "string"}, "email": {"type": "string", "format": "email"}})
INVOICE = _record({"customer_id": {"type": "integer"}, "amount": {"type": "number"}})


def _crud(
    plural: str, one: str, schema: dict[str, Any], id_type: str = "integer"
) -> dict[str, Any]:
    fields = {k: v for k, v in schema["properties"].items() if k != "id"}
    body = {"type": "object", "properties": fields, "required": list(fields)}
    by_id = [{"name": f"{one}_id", "in": "path", "required": True, "schema": {"type": id_type}}]
    return {
        f"/{plural}": {
            "post": {
                "operationId": f"create_{one}",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body}},
                },
                "responses": _ok(schema),
            },
            "get": {
                "operationId": f"list_{plural}",
                "responses": _ok({"type": "array", "items": schema}),
            },
        },
        f"/{plural}/{{{one}_id}}": {
            "get": {"operationId": f"get_{one}", "parameters": by_id, "responses": _ok(schema)},
            "delete": {
                "operationId": f"delete_{one}",
                "parameters": by_id,
                "responses": _ok(DELETED),
            },
        },
    }


LEDGER = {
    "openapi": "3.0.3",
    "info": {"title": "Ledger", "version": "1"},
    "paths": {**_crud("customers", "customer", CUSTOMER), **_crud("invoices", "invoice", INVOICE)},
}


def _specs(doc: dict[str, Any] = LEDGER, name: str = "ledger.json") -> list:
    specs, errors = ingest_document(json.dumps(doc).encode(), source_file=name)
    assert specs, errors
    return specs


def _world(seed: int = 1) -> tuple[World, Any]:
    cls = load_service(compile_service(_specs()).source)
    world = World([cls()], seed=seed)
    world.seed_states(seed_pool(seed), SIZE)
    return world, cls


def _call(world: World, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    envelope = world.call(qualified("ledger", tool), args)
    assert envelope["success"], envelope
    return envelope["data"]


def _new_customer(world: World) -> int:
    return _call(world, "create_customer", {"name": "Ann Lee", "email": "ann@example.com"})["id"]


def _new_invoice(world: World) -> int:
    return _call(world, "create_invoice", {"customer_id": 1, "amount": 12.5})["id"]


def test_each_collection_counts_its_own_ids() -> None:
    world, cls = _world()
    state = world.services[cls.name].state
    expected = [str(n) for n in range(1, SIZE + 1)]
    assert list(state.customers) == expected
    assert list(state.invoices) == expected  # not 4, 5, 6 after the customers
    assert _new_customer(world) == SIZE + 1  # after the seeded records, as numbers
    assert _new_invoice(world) == SIZE + 1
    assert _new_invoice(world) == SIZE + 2
    assert _new_customer(world) == SIZE + 2


def test_an_id_is_never_given_twice() -> None:
    world, _ = _world()
    last = _new_invoice(world)
    assert _call(world, "delete_invoice", {"invoice_id": last})["deleted"] is True
    assert _new_invoice(world) == last + 1  # the deleted one's id is not reused


def test_ids_a_loaded_state_holds_are_passed_over() -> None:
    world, cls = _world()
    service = world.services[cls.name]
    data = service.state.model_dump(mode="json")
    data.pop("int_ids")  # a state saved before the counters, or written by hand
    service.load_state(data)
    assert _new_invoice(world) == SIZE + 1


def test_integer_ids_replay() -> None:
    one, _ = _world(seed=7)
    other, _ = _world(seed=7)
    assert one.state_hash() == other.state_hash()
    before = one.snapshot()
    first = [_new_invoice(one), _new_customer(one), _new_invoice(one)]
    one.restore(before)
    assert [_new_invoice(one), _new_customer(one), _new_invoice(one)] == first
    assert [_new_invoice(other), _new_customer(other), _new_invoice(other)] == first


def test_a_deletion_answers_the_id_in_its_declared_type() -> None:
    world, _ = _world()
    answer = _call(world, "delete_invoice", {"invoice_id": 2})
    assert answer == {"deleted": True, "id": 2}
    assert _call(world, "delete_customer", {"customer_id": 3}) == {"deleted": True, "id": 3}


def test_the_ledger_verifies() -> None:
    built = build_service(_specs())
    for tool in ("delete_customer", "delete_invoice", "create_customer", "create_invoice"):
        assert tool in built.verified, built.outcomes[tool]


def test_a_numbered_deletion_of_text_ids_says_why() -> None:
    text_ids = {**INVOICE, "properties": {**INVOICE["properties"], "id": {"type": "string"}}}
    doc = {**LEDGER, "paths": _crud("invoices", "invoice", text_ids, id_type="string")}
    skipped = compile_service(_specs(doc)).skipped
    assert "'id' is a number, invoice ids are text" in skipped.get("delete_invoice", ""), skipped


# -- the emitted module, as ruff lays it out -----------------------------------------------
TEXT = {"type": "string"}


def _mcp(name: str, description: str, params: dict[str, Any], required: list[str]) -> dict:
    schema = {"type": "object", "properties": params, "required": required}
    return {"name": name, "description": description, "inputSchema": schema}


RELEASES = {
    "tools": [
        _mcp("install_release", "Install a chart release.",
             {"release_name": TEXT, "target_namespace": TEXT, "chart": TEXT},
             ["release_name", "target_namespace", "chart"]),
        _mcp("uninstall_release", "Uninstall a chart release.",
             {"release_name": TEXT, "target_namespace": TEXT},
             ["release_name", "target_namespace"]),
        _mcp("list_releases", "List the releases.", {"query": TEXT}, []),
    ]
}  # fmt: skip
# a search over many long text fields, and a filter: the query's test does not fit a line
ARTICLE = {
    "headline_text": TEXT,
    "summary_paragraph": TEXT,
    "body_markdown": TEXT,
    "author_display_name": TEXT,
    "category_label": TEXT,
}
ARTICLES = {
    "tools": [
        _mcp("create_article", "Create an article.", ARTICLE, list(ARTICLE)),
        _mcp("search_articles", "Search the articles whose text mentions the query.",
             {"query": TEXT, "category_label": TEXT}, []),
    ]
}  # fmt: skip
RUFF = ROOT / ".venv" / "bin" / "ruff"
RUFF = RUFF if RUFF.exists() else Path(shutil.which("ruff") or RUFF)


def _ruff(*args: str, source: str) -> subprocess.CompletedProcess[str]:
    # a file name inside the repository: the project's ruff settings apply
    command = [str(RUFF), *args, "--stdin-filename", "library/generated_module.py", "-"]
    return subprocess.run(command, input=source, capture_output=True, text=True, cwd=ROOT)


@pytest.mark.skipif(not RUFF.exists(), reason="ruff is not installed")
@pytest.mark.parametrize(
    ("doc", "name"),
    [(LEDGER, "ledger.json"), (RELEASES, "releases.json"), (ARTICLES, "articles.json")],
    ids=["ledger", "mcp", "search"],
)
def test_the_emitted_module_is_ruff_clean(doc: dict[str, Any], name: str) -> None:
    source = compile_service(_specs(doc, name)).source
    formatted = _ruff("format", "--diff", source=source)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    checked = _ruff("check", "--output-format", "concise", source=source)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_optional_search_too_long_for_a_line_still_filters() -> None:
    specs = _specs(ARTICLES, "articles.json")
    source = compile_service(specs).source
    assert "not q\n" in source  # laid out over lines: ``(not q or _mentions(...))``
    cls = load_service(source)
    world = World([cls()], seed=3)
    world.seed_states(seed_pool(3), SIZE)

    def search(**args: Any) -> list[dict[str, Any]]:
        envelope = world.call(qualified(cls.name, "search_articles"), args)
        assert envelope["success"], envelope
        return envelope["data"]

    every = search()
    assert len(every) == SIZE
    assert search(query="no article says this") == []
    first = every[0]["headline_text"]
    assert first in [a["headline_text"] for a in search(query=first)]


def test_a_parameter_named_like_pydantic_s_own_still_builds() -> None:
    """A spec parameter called ``model_config`` (or any ``model_`` name) is a parameter like
    any other: the service loads and the tool takes it by its spec name."""
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Models", "version": "1"},
        "paths": {
            "/runs": {
                "post": {
                    "operationId": "create_run",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {
                            "type": "object",
                            "properties": {"model_config": {"type": "string"},
                                           "model_name": {"type": "string"}},
                            "required": ["model_config", "model_name"],
                        }}},
                    },
                    "responses": _ok(_record({"model_config": {"type": "string"},
                                              "model_name": {"type": "string"}})),
                },
            },
        },
    }  # fmt: skip
    cls = load_service(compile_service(_specs(doc, "models.json")).source)
    world = World([cls()], seed=1)
    world.seed_states(seed_pool(1), SIZE)
    envelope = world.call(
        qualified(cls.name, "create_run"), {"model_config": "small", "model_name": "m1"}
    )
    assert envelope["success"], envelope
    assert envelope["data"]["model_config"] == "small"


UUID = {
    "type": "string",
    "format": "uuid",
    "minLength": 36,
    "maxLength": 36,
    "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
}
CLIP = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "uuid": UUID,
        "shortUUID": {"type": "string", "description": "a shorter form of the uuid"},
        "title": {"type": "string"},
    },
    "required": ["id", "uuid", "title"],
}
# the path takes the integer id, the uuid or the short uuid
CLIP_KEY = {"oneOf": [{"type": "integer", "minimum": 1}, UUID, {"type": "string"}]}
CLIPS = {
    "openapi": "3.0.0",
    "info": {"title": "Clips", "version": "1"},
    "paths": {
        "/clips": {
            "get": {
                "operationId": "listClips",
                "responses": _ok({"type": "array", "items": CLIP}),
            },
            "post": {
                "operationId": "addClip",
                "requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "required": ["title"],
                    "properties": {"title": {"type": "string"}}}}}},
                "responses": _ok(CLIP),
            },
        },
        "/clips/{id}": {
            "get": {
                "operationId": "getClip",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": CLIP_KEY}],
                "responses": _ok(CLIP),
            }
        },
    },
}  # fmt: skip


def test_a_uuid_beside_the_id_is_the_records_other_name_and_either_id_form_is_taken() -> None:
    """``uuid`` next to an integer ``id`` names the record itself: each record gets its own
    value of the declared format (it was taken for a pointer to another clip and seeded with
    that clip's number, ``'6'``, which fails ``minLength: 36``); and an id parameter that
    takes an integer or a text takes the number the spec allows."""
    specs, _ = ingest_document(json.dumps(CLIPS).encode(), source_file="clips.json")
    build = build_service(specs)
    assert set(build.verified) == {"listClips", "addClip", "getClip"}, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=SIZE)
    clips = world.call(qualified(cls.name, "listClips"), {})["data"]
    uuids = [c["uuid"] for c in clips]
    assert len(set(uuids)) == len(clips) and all(len(u) == 36 for u in uuids), uuids
    one = world.call(qualified(cls.name, "getClip"), {"id": int(clips[0]["id"])})
    assert one["success"] and one["data"]["uuid"] == uuids[0], one
