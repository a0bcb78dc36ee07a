"""Answers wrapped with call metadata (Apideck's ``{status_code, status, service, resource,
operation, data}``, OpenLink's ``{api, method, status, response}``): the record, a part of it
(``data: {id}``) or a page of them under one key, and beside it fixed values that say what
call this was; a closed record node (``additionalProperties: false``) shows only its keys."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Shape
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

META = {
    "status_code": {"type": "integer"},
    "status": {"type": "string"},
    "service": {"type": "string"},
    "resource": {"type": "string"},
    "operation": {"type": "string"},
}
REQUIRED_META = list(META)
BILL = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "number"],
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "number": {"type": "string"},
        "amount": {"type": "number"},
    },
}


def _wrapped(data: dict) -> dict:
    return {
        "type": "object",
        "required": [*REQUIRED_META, "data"],
        "properties": {**META, "data": data},
    }


def _op(op: str, out: dict, body: dict | None = None, path_id: bool = False) -> dict:
    operation: dict = {
        "operationId": op,
        "responses": {"200": {"content": {"application/json": {"schema": out}}}},
    }
    if body is not None:
        operation["requestBody"] = {"content": {"application/json": {"schema": body}}}
    if path_id:
        operation["parameters"] = [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
        ]
    return operation


BODY = {
    "type": "object",
    "required": ["number"],
    "properties": {
        "number": {"type": "string"},
        "amount": {"type": "number"},
        "raw": {"type": "boolean"},
    },
}
UNIFIED_ID = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
BILLS = {
    "openapi": "3.0.0",
    "info": {"title": "Accounting", "version": "1"},
    "paths": {
        "/bills": {
            "post": _op("billsAdd", _wrapped(UNIFIED_ID), BODY),
            "get": _op("billsAll", _wrapped({"type": "array", "items": BILL})),
        },
        "/bills/{id}": {
            "get": _op("billsOne", _wrapped(BILL), path_id=True),
            "patch": _op("billsUpdate", _wrapped(UNIFIED_ID), BODY, path_id=True),
            "delete": _op("billsDelete", _wrapped(UNIFIED_ID), path_id=True),
        },
    },
}


def test_call_metadata_beside_records_parts_and_pages() -> None:
    specs, _ = ingest_document(orjson.dumps(BILLS), source_file="bills.json")
    plan = plan_service(specs)
    shapes = {t.name: (t.output.shape, t.output.shown) for t in plan.tools}
    assert shapes["billsAdd"] == (Shape.ENVELOPE, ("id",))  # ``data: {id}``: a part
    assert shapes["billsAll"][0] is Shape.PAGE
    build = build_service(specs)
    assert set(build.verified) == {s.name for s in specs}, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    created = world.call(qualified(cls.name, "billsAdd"), {"number": "B-1", "raw": True})
    data = created["data"]
    assert set(data["data"]) == {"id"}
    assert (data["resource"], data["operation"], data["service"]) == (
        "bills",
        "create",
        cls.name,
    )
    one = world.call(qualified(cls.name, "billsOne"), {"id": data["data"]["id"]})["data"]
    # ``raw`` is a create option the closed record node does not show
    assert set(one["data"]) <= {"id", "number", "amount"} and one["data"]["number"] == "B-1"
    listed = world.call(qualified(cls.name, "billsAll"), {})["data"]
    assert data["data"]["id"] in {b["id"] for b in listed["data"]}
    assert (listed["status_code"], listed["operation"]) == (200, "list")


ACTIONS = {
    "openapi": "3.0.0",
    "info": {"title": "Actions", "version": "1"},
    "paths": {
        "/actions/{id}": {
            "get": _op(
                "describeAction",
                {
                    "type": "object",
                    "required": ["api", "method", "status", "response"],
                    "properties": {
                        "api": {"type": "string", "description": "The path of the method"},
                        "method": {"type": "string", "description": "The method's name"},
                        "status": {"type": "string"},
                        "response": {
                            "type": "object",
                            "properties": {
                                "id": {"type": "string"},
                                "description": {"type": "string"},
                            },
                        },
                    },
                },
                path_id=True,
            )
        },
        "/actions": {
            "post": _op(
                "createAction",
                {"type": "object", "properties": {
                    "id": {"type": "string"}, "description": {"type": "string"}}},
                {"type": "object", "properties": {"description": {"type": "string"}}},
            )
        },
    },
}  # fmt: skip


def test_the_one_object_beside_scalars_is_the_answer() -> None:
    """``response`` is no envelope key, but beside call metadata it is the record."""
    specs, _ = ingest_document(orjson.dumps(ACTIONS), source_file="actions.json")
    plan = plan_service(specs)
    read = next(t for t in plan.tools if t.name == "describeAction")
    assert (read.output.shape, read.output.items) == (Shape.ENVELOPE, "response")
    build = build_service(specs)
    assert "describeAction" in build.verified, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=2)
    rid = next(iter(world.services[cls.name].state.actions))
    answer = world.call(qualified(cls.name, "describeAction"), {"id": rid})["data"]
    assert (answer["api"], answer["method"]) == ("/actions/{id}", "describeAction")
    assert answer["response"]["id"] == rid


GROUP = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "number": {"type": "integer", "description": "The group's number."},
        "name": {"type": "string"},
    },
}
NUMBER = [{"name": "number", "in": "path", "required": True, "schema": {"type": "integer"}}]
GROUPS = {
    "openapi": "3.0.0",
    "info": {"title": "Groups", "version": "1"},
    "paths": {
        "/groups": {
            "get": _op(
                "GetAllGroups",
                {"type": "object", "properties": {
                    "cursor": {"type": ["string", "null"]},
                    "items": {"type": ["array", "null"], "items": GROUP}}},
            ),
        },
        "/groups/{number}": {
            "get": {**_op("GetGroupById", GROUP), "parameters": NUMBER},
        },
    },
}  # fmt: skip


def test_a_page_whose_items_may_be_null_lists_records_named_as_their_get_names_them() -> None:
    """``items: {"type": ["array", "null"]}`` is a page; its items hold ``name`` and
    ``number``, and the get by ``{number}`` says which one names the record."""
    specs, _ = ingest_document(orjson.dumps(GROUPS), source_file="groups.json")
    plan = plan_service(specs)
    listing = next(t for t in plan.tools if t.name == "GetAllGroups")
    assert listing.output.shape is Shape.PAGE
    assert plan.records["groups"].id_key == "number"
    build = build_service(specs)
    assert set(build.verified) == {"GetAllGroups", "GetGroupById"}, build.outcomes


DOMAIN = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "engine": {"type": "string"},
        "size": {"type": "integer"},
    },
}
ENGINES = {
    "openapi": "3.0.0",
    "info": {"title": "Domains", "version": "1"},
    "paths": {
        "/domains": {
            "post": _op("CreateDomain", DOMAIN, {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "engine": {"type": "string"},
                               "size": {"type": "integer"}}}),
            "get": _op("ListDomainNames", {"type": "object", "properties": {
                "DomainNames": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "engine": {"type": "string"}}}}}}),
        },
        "/domains/{id}": {"get": _op("GetDomain", DOMAIN, path_id=True)},
    },
}  # fmt: skip


def test_a_list_of_parts_without_the_id_shows_those_parts() -> None:
    """``{DomainNames: [{name, engine}]}``: each item is part of a domain, without its id."""
    specs, _ = ingest_document(orjson.dumps(ENGINES), source_file="domains.json")
    plan = plan_service(specs)
    listing = next(t for t in plan.tools if t.name == "ListDomainNames")
    assert (listing.output.shape, set(listing.output.shown)) == (Shape.PAGE, {"name", "engine"})
    build = build_service(specs)
    assert set(build.verified) == {"CreateDomain", "ListDomainNames", "GetDomain"}, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=2)
    world.call(qualified(cls.name, "CreateDomain"), {"name": "search-1", "engine": "OpenSearch"})
    names = world.call(qualified(cls.name, "ListDomainNames"), {})["data"]["DomainNames"]
    assert {"name": "search-1", "engine": "OpenSearch"} in names


def _reported(action: str, payload: dict) -> dict:
    """``{action, result, data: <payload>}``: which call this was, how it went, then what."""
    return {
        "type": "object",
        "required": ["action", "result", "data"],
        "properties": {
            "action": {"type": "string", "enum": [action]},
            "result": {"type": "string", "enum": ["success", "error"]},
            "data": payload,
        },
    }


PROBE = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "name": {"type": "string"},
        "enabled": {"type": "boolean"},
    },
}
PROBES = {"type": "object", "properties": {"probes": {"type": "array", "items": PROBE}}}
PROBE_BODY = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}, "enabled": {"type": "boolean"}},
}
MONITOR = {
    "openapi": "3.0.0",
    "info": {"title": "Monitor", "version": "1"},
    "paths": {
        "/probes": {
            "get": _op("listProbes", _reported("listProbes", PROBES)),
            "put": _op("createProbe", _reported("createProbe", PROBES), PROBE_BODY),
        },
        "/probes/{id}": {
            "get": _op("probeDetails", _reported("probeDetails", PROBES), path_id=True),
            "post": _op("updateProbe", _reported("updateProbe", PROBES), PROBE_BODY, path_id=True),
            "delete": _op("deleteProbe", _reported("deleteProbe", PROBES), path_id=True),
        },
    },
}


def test_an_answer_two_layers_down_is_planned_on_its_payload_and_wrapped_back() -> None:
    """Every answer is ``{action, result, data: {probes: [...]}}``: a list lists under
    ``data.probes``, a read or a write answers the one record there, a list of one; the
    layers' fixed values come from the spec (the one ``action`` its enum allows)."""
    specs, _ = ingest_document(orjson.dumps(MONITOR), source_file="monitor.json")
    build = build_service(specs)
    assert set(build.verified) == {s.name for s in specs}, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    made = world.call(qualified(cls.name, "createProbe"), {"name": "disk", "enabled": True})
    assert (made["data"]["action"], made["data"]["result"]) == ("createProbe", "success")
    (probe,) = made["data"]["data"]["probes"]
    one = world.call(qualified(cls.name, "probeDetails"), {"id": probe["id"]})["data"]
    assert one["action"] == "probeDetails" and one["data"]["probes"] == [probe]
    listed = world.call(qualified(cls.name, "listProbes"), {})["data"]["data"]["probes"]
    assert probe in listed and len(listed) == 4
    world.call(qualified(cls.name, "deleteProbe"), {"id": probe["id"]})
    listed = world.call(qualified(cls.name, "listProbes"), {})["data"]["data"]["probes"]
    assert probe["id"] not in {p["id"] for p in listed}


NOTE = {
    "type": "object",
    "required": ["$id", "title"],
    "properties": {"$id": {"type": "string"}, "title": {"type": "string"}},
}
NOTE_PAGE = {
    "type": "object",
    "required": ["sum", "notes"],
    "properties": {
        "sum": {"type": "integer", "description": "Total sum of items in the list."},
        "notes": {"type": "array", "items": NOTE},
    },
}
NOTEBOOK = {
    "openapi": "3.0.0",
    "info": {"title": "Notebook", "version": "1"},
    "paths": {
        "/notes": {
            "get": _op("listNotes", NOTE_PAGE),
            "post": _op("addNote", NOTE, {"type": "object", "required": ["title"],
                                           "properties": {"title": {"type": "string"}}}),
        },
    },
}  # fmt: skip


def test_a_page_count_is_known_by_what_its_description_says_not_only_by_its_key() -> None:
    """Appwrite's pages say how many items there are as ``sum`` ("Total sum of items in the
    list."): a required key the compiler must fill, with the count."""
    specs, _ = ingest_document(orjson.dumps(NOTEBOOK), source_file="notebook.json")
    build = build_service(specs)
    assert set(build.verified) == {"listNotes", "addNote"}, build.outcomes
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    page = world.call(qualified(cls.name, "listNotes"), {})["data"]
    assert page["sum"] == len(page["notes"]) == 3
