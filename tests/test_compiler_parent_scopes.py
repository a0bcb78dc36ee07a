"""Reads that take the id of a parent, or of the one record they read, under names and paths
that look like listings of the parent:

- ``GET /networks/{networkId}/accessPolicies`` lists access policies of one network; its
  ``networkId`` names the parent, not one access policy (before: planned as a listing of
  networks by one network's id, "lists by the id of one network");
- an answer declared ``[{"type": "object"}]`` is a list of records of any shape;
- ``get_cards_by_list_id(listId)`` and ``get_card_comments(cardId)`` read cards and comments,
  not the list or the card;
- ``woo_products_get(productId)`` (no output) and ``GET /findingsfilters/{id}`` named
  ``GetFindingsFilter`` (one record answered) read one record by its id;
- ``GET``/``PUT /networks/{networkId}/bluetoothSettings`` read and change the one record a
  network holds, found by the network's id (before: "no parameter identifies the bluetooth
  setting"), and ``metadata`` under devices and under networks are two kinds of record.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Role
from library.compiler.records import parent_key, split_by_parent
from library.ingest import ingest_document
from library.ingest.verbs import name_verb_resource
from library.runtime import World
from library.seed.pool import seed_pool
from library.toolspec import Verb
from library.verify import build_service

TEXT = {"type": "string"}
NETWORK = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": TEXT, "name": TEXT, "timeZone": TEXT},
}


def _path_key(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": TEXT}


def _answer(schema: dict[str, Any] | None) -> dict[str, Any]:
    if schema is None:
        return {"200": {"description": "ok"}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _crud(
    path: str, key: str, noun: str, record: dict[str, Any], fields: dict[str, Any],
    listed: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """``POST`` (and ``GET``) ``path`` and ``GET path/{key}``: the records' create (list) and
    read; a create takes a ``name`` and ``fields``."""
    body = {"type": "object", "required": ["name"], "properties": {"name": TEXT, **fields}}
    collection = {"post": {"operationId": f"create{noun}", "requestBody": _body(body),
                           "responses": _answer(record)}}  # fmt: skip
    if listed:
        many = {"type": "array", "items": record}
        collection["get"] = {"operationId": f"get{noun}s", "responses": _answer(many)}
    item = {"get": {"operationId": f"get{noun}", "parameters": [_path_key(key)],
                    "responses": _answer(record)}}  # fmt: skip
    return {path: collection, f"{path}/{{{key}}}": item}


def _networks(extra: dict[str, Any]) -> list:
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Networks", "version": "1"},
        "paths": {
            **_crud("/networks", "networkId", "Network", NETWORK, {"timeZone": TEXT}),
            **extra,
        },
    }  # fmt: skip
    specs, _ = ingest_document(orjson.dumps(doc), source_file="networks.json")
    return specs


def _verified(specs: list, tool: str) -> None:
    built = build_service(specs)
    assert tool in built.verified, built.outcomes[tool]


def test_a_nested_listing_lists_its_own_records_under_the_parent() -> None:
    """No answer declared: planned on the records the path names, scoped by the network."""
    specs = _networks(
        {
            "/networks/{networkId}/accessPolicies": {
                "get": {"operationId": "getNetworkAccessPolicies",
                        "parameters": [_path_key("networkId")], "responses": _answer(None)},
            }
        }
    )  # fmt: skip
    plan = plan_service(specs)
    tool = next(t for t in plan.tools if t.name == "getNetworkAccessPolicies")
    assert tool.resource == "access_policies"
    assert tool.verb == "list"
    _verified(specs, "getNetworkAccessPolicies")


def test_a_list_of_any_objects_lists_records() -> None:
    any_objects = {"type": "array", "items": {"type": "object"}}
    kind = {"name": "kind", "in": "query", "schema": {"enum": ["indoor", "outdoor"]}}
    specs = _networks(
        {
            "/zones": {"get": {"operationId": "getZones", "parameters": [kind],
                               "responses": _answer(any_objects)}}
        }
    )  # fmt: skip
    _verified(specs, "getZones")


def test_a_listing_answering_one_record_by_its_id_reads_it() -> None:
    """AWS Macie's ``GetFindingsFilter``: ingestion reads "filter" as a search; the path and
    the answer say one findings filter, by its id."""
    record = {"type": "object", "properties": {"id": TEXT, "name": TEXT, "action": TEXT}}
    specs = _networks(
        _crud("/findingsfilters", "id", "FindingsFilter", record, {"action": TEXT}, listed=False)
    )  # fmt: skip
    assert next(s for s in specs if s.name == "getFindingsFilter").verb == Verb.SEARCH
    _verified(specs, "getFindingsFilter")


@pytest.mark.parametrize(
    ("name", "ids", "verb", "resource"),
    [
        ("get_cards_by_list_id", ["lists"], Verb.LIST, "cards"),
        ("list_boards_in_workspace", ["workspaces"], Verb.LIST, "boards"),
        ("get_card_comments", ["cards"], Verb.LIST, "card_comments"),
        ("get_card", ["cards"], Verb.READ, "cards"),  # the id names what is read
        ("list_tasks", ["task_lists"], Verb.LIST, "tasks"),
        ("get_campaign_metrics", ["campaigns"], Verb.LIST, "campaigns"),  # one state of it
    ],
)
def test_an_id_naming_a_parent_does_not_make_the_parent_the_resource(
    name: str, ids: list[str], verb: Verb, resource: str
) -> None:
    assert name_verb_resource(name, "trello", ids)[:2] == (verb, resource)


def _tool(name: str, description: str, props: dict, required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "required": required}
    return {"name": name, "description": description, "inputSchema": schema}


TRELLO = {
    "tools": [
        _tool("add_card", "Add a card to a list.", {"listId": TEXT, "name": TEXT,
              "description": TEXT}, ["listId", "name"]),
        _tool("get_card", "Get one card.", {"cardId": TEXT}, ["cardId"]),
        _tool("update_card", "Change a card.", {"cardId": TEXT, "name": TEXT,
              "description": TEXT}, ["cardId"]),
        _tool("get_cards_by_list_id", "Fetch the cards of a list.", {"listId": TEXT},
              ["listId"]),
    ]
}  # fmt: skip


def test_the_cards_of_a_list_are_listed_by_the_list_id() -> None:
    specs, _ = ingest_document(orjson.dumps(TRELLO), source_file="trello.json")
    plan = plan_service(specs)
    tool = next(t for t in plan.tools if t.name == "get_cards_by_list_id")
    assert (tool.resource, tool.verb) == ("cards", "list")
    _verified(specs, "get_cards_by_list_id")


WOO = {
    "tools": [
        _tool("woo_products_create", "Create a product.", {"name": TEXT, "sku": TEXT},
              ["name"]),
        _tool("woo_products_list", "List products.", {}, []),
        _tool("woo_products_get", "Get a specific product by ID",
              {"productId": {"type": "integer", "description": "Product ID"}}, ["productId"]),
    ]
}  # fmt: skip


def test_a_plural_read_by_the_records_own_id_reads_one() -> None:
    specs, _ = ingest_document(orjson.dumps(WOO), source_file="woo.json")
    plan = plan_service(specs)
    assert next(t for t in plan.tools if t.name == "woo_products_get").verb == "read"
    _verified(specs, "woo_products_get")


BLUETOOTH = {
    "type": "object",
    "properties": {
        "advertisingEnabled": {"type": "boolean"},
        "major": {"type": "integer"},
        "mode": {"type": "string", "enum": ["Unique", "Non-unique"]},
    },
}
METADATA = {"type": "object", "properties": {"label": TEXT, "notes": TEXT}}
DEVICE = {"type": "object", "required": ["id"], "properties": {"id": TEXT, "serial": TEXT}}


def _under(path: str, key: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``GET`` and ``PUT`` of the one ``schema`` record under a parent."""
    return {
        path: {
            "get": {"operationId": f"get{name}", "parameters": [_path_key(key)],
                    "responses": _answer(schema)},
            "put": {"operationId": f"update{name}", "parameters": [_path_key(key)],
                    "requestBody": _body(schema), "responses": _answer(schema)},
        }
    }  # fmt: skip


PER_PARENT = {
    **_under("/networks/{networkId}/bluetoothSettings", "networkId", "NetworkBluetoothSettings",
             BLUETOOTH),
    **_under("/networks/{networkId}/metadata", "networkId", "NetworkMetadata", METADATA),
    # any object: no answer table, the one record the read finds
    **_under("/networks/{networkId}/snmpSettings", "networkId", "NetworkSnmpSettings",
             {"type": "object"}),
    **_under("/devices/{deviceId}/metadata", "deviceId", "DeviceMetadata", METADATA),
    "/devices": {"get": {"operationId": "getDevices",
                         "responses": _answer({"type": "array", "items": DEVICE})},
                 "post": {"operationId": "createDevice",
                          "requestBody": _body({"type": "object", "properties": {"serial": TEXT}}),
                          "responses": _answer(DEVICE)}},
    "/devices/{deviceId}": {"get": {"operationId": "getDevice",
                                    "parameters": [_path_key("deviceId")],
                                    "responses": _answer(DEVICE)}},
}  # fmt: skip


def test_a_record_under_a_parent_is_found_by_the_parents_id() -> None:
    """Meraki's ``/networks/{networkId}/bluetoothSettings``: one record per network, read
    ("settings" read as a listing before) and changed through the network's id (before: "no
    parameter identifies the bluetooth setting")."""
    plan = plan_service(_networks(PER_PARENT))
    tools = {t.name: t for t in plan.tools}
    for name in ("getNetworkBluetoothSettings", "updateNetworkBluetoothSettings"):
        assert tools[name].verb in ("read", "update")
        assert [p.name for p in tools[name].by_role(Role.KEY)] == ["networkId"]
    assert plan.records[tools["getNetworkBluetoothSettings"].resource].parent_key == "networkId"


def test_records_of_one_name_under_different_parents_are_kept_apart() -> None:
    plan = plan_service(_networks(PER_PARENT))
    tools = {t.name: t for t in plan.tools}
    assert tools["getNetworkMetadata"].resource != tools["getDeviceMetadata"].resource
    assert tools["getNetworkMetadata"].resource == tools["updateNetworkMetadata"].resource


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_records_under_a_parent_verify(seed: int) -> None:
    """The suite calls them with a parent that holds such a record (a network without
    Bluetooth settings rightly answers ``not_found``)."""
    built = build_service(_networks(PER_PARENT), seed=seed)
    names = ("NetworkBluetoothSettings", "NetworkMetadata", "DeviceMetadata", "NetworkSnmpSettings")
    for name in names:
        for tool in (f"get{name}", f"update{name}"):
            assert tool in built.verified, built.outcomes[tool]


def test_a_listing_under_a_parent_answering_an_array_stays_a_listing() -> None:
    """iZettle's ``GET /organizations/{organizationUuid}/images -> {imageUrls: [...]}``: many
    images under the parent, not its one record."""
    urls = {"type": "object", "properties": {"imageUrls": {"type": "array", "items": TEXT}}}
    specs = _networks(
        {
            "/networks/{networkId}/images": {
                "get": {"operationId": "getAllImageUrls", "parameters": [_path_key("networkId")],
                        "responses": _answer(urls)},
            }
        }
    )  # fmt: skip
    _verified(specs, "getAllImageUrls")


def test_one_record_is_seeded_per_parent() -> None:
    """Each network holds at most one Bluetooth settings record: removing it through the
    network leaves none to read (with two, a read after the delete would find the other)."""
    specs = _networks(PER_PARENT)
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=6)
    state = world.services[cls.name].state
    plan = plan_service(specs)
    resource = next(t.resource for t in plan.tools if t.name == "getNetworkBluetoothSettings")
    parents = [r.networkId for r in getattr(state, resource).values()]
    assert parents and len(parents) == len(set(parents))


def _spec(doc_paths: dict[str, Any], name: str) -> Any:
    doc = {"openapi": "3.0.0", "info": {"title": "T", "version": "1"}, "paths": doc_paths}
    specs, _ = ingest_document(orjson.dumps(doc), source_file="t.json")
    return next(s for s in specs if s.name == name)


def test_a_format_suffix_is_not_a_record_under_a_parent() -> None:
    """Jumpseller's ``/custom_fields/{id}/select_options/{option_id}.json`` reads an option by
    its id; ``.json`` names no record under the option."""
    path = "/custom_fields/{id}/select_options/{option_id}.json"
    get = {"operationId": "getOption", "parameters": [_path_key("id"), _path_key("option_id")],
           "responses": _answer(METADATA)}  # fmt: skip
    spec = _spec({path: {"get": get}}, "getOption")
    assert parent_key(spec, str(spec.resource)) is None
    get = {**get, "parameters": [_path_key("networkId")]}
    under = _spec({"/networks/{networkId}/metadata": {"get": get}}, "getOption")
    assert parent_key(under, str(under.resource)) == "networkId"


def test_no_parent_key_where_the_service_keeps_no_such_parent() -> None:
    """``/accounts/{accountId}/profile`` in a service with no accounts: no parent to find it by."""
    paths = _under("/accounts/{accountId}/profile", "accountId", "Profile", BLUETOOTH)
    doc = {"openapi": "3.0.0", "info": {"title": "T", "version": "1"}, "paths": paths}
    specs, _ = ingest_document(orjson.dumps(doc), source_file="profiles.json")
    assert all(r.parent_key is None for r in plan_service(specs).records.values())


def test_records_under_one_kind_of_parent_keep_their_name() -> None:
    """Amazon Lex's ``/bot/{botName}/user/{userId}/session`` and ``.../content`` share one
    resource under users: the spec's name stands (only different kinds of parent split it)."""
    get = {"operationId": "GetSession", "parameters": [_path_key("userId")],
           "responses": _answer(METADATA)}  # fmt: skip
    post = {"operationId": "PostContent", "parameters": [_path_key("userId")],
            "requestBody": _body(METADATA), "responses": _answer(METADATA)}  # fmt: skip
    doc = {"openapi": "3.0.0", "info": {"title": "T", "version": "1"},
           "paths": {"/users/{userId}/session": {"get": get},
                     "/users/{userId}/content": {"post": post}}}  # fmt: skip
    specs, _ = ingest_document(orjson.dumps(doc), source_file="lex.json")
    assert split_by_parent(specs, dict.fromkeys(("GetSession", "PostContent"), "sessions")) == {
        "GetSession": "sessions",
        "PostContent": "sessions",
    }
