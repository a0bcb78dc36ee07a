"""Writes that name their record by a natural key (``replace(key, value)``, ``edit_file(path)``,
``uninstall(name, namespace)``) and deletes that clear a whole collection (``memory_clear()``),
compiled from real specs in ../shared/specs and verified."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Role
from library.ingest import ingest_document
from library.runtime import Service, World
from library.runtime.world import qualified
from library.toolspec import ToolSpec
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


@pytest.fixture(scope="module")
def memory_kv() -> list[ToolSpec]:
    specs, _ = ingest_document(SPECS / "functions/bfcl_multi_turn/memory_kv.json")
    return specs


def _call(world: World, cls: type[Service], name: str, **arguments: object) -> dict:
    return world.call(qualified(cls.name, name), arguments)


def test_key_value_writes_find_their_record_by_its_key(memory_kv: list[ToolSpec]) -> None:
    plan = plan_service(memory_kv)
    replace = next(t for t in plan.tools if t.name == "core_memory_replace")
    assert [(p.name, p.role) for p in replace.params] == [("key", Role.KEY), ("value", Role.FIELD)]
    cls = load_service(compile_service(memory_kv).source)
    world = World([cls()], seed=0)
    _call(world, cls, "core_memory_add", key="favourite_city", value="Lisbon")
    _call(world, cls, "core_memory_add", key="pet", value="a cat")
    assert _call(world, cls, "core_memory_replace", key="favourite_city", value="Porto")["success"]
    stored = {r.key: r.value for r in world.services[cls.name].state.core_memory.values()}
    assert stored == {"favourite_city": "Porto", "pet": "a cat"}
    missing = _call(world, cls, "core_memory_remove", key="no_such_key")
    assert missing["error"]["code"] == "not_found"
    assert _call(world, cls, "core_memory_remove", key="pet")["success"]
    assert [r.key for r in world.services[cls.name].state.core_memory.values()] == [
        "favourite_city"
    ]
    assert _call(world, cls, "core_memory_clear") == {"success": True, "data": {}}
    assert not world.services[cls.name].state.core_memory


def test_natural_key_writes_and_clears_are_verified(memory_kv: list[ToolSpec]) -> None:
    build = build_service(memory_kv)
    for name in ("core_memory_replace", "core_memory_remove", "core_memory_clear"):
        assert name in build.verified, build.outcomes[name]
        assert name.replace("core", "archival") in build.verified


def test_a_delete_names_its_record_by_every_key_it_takes() -> None:
    # ``uninstall_helm_chart(name, namespace)``: two charts may share a name across namespaces
    specs, _ = ingest_document(SPECS / "mcp/docker/kubectl-mcp-server.json")
    plan = plan_service(specs)
    uninstall = next(t for t in plan.tools if t.name == "uninstall_helm_chart")
    assert {p.name for p in uninstall.by_role(Role.KEY)} == {"name", "namespace"}
    build = build_service(specs)
    assert {"uninstall_helm_chart", "upgrade_helm_chart", "scale_deployment"} <= set(build.verified)


PIPELINES = {
    "openapi": "3.0.0",
    "info": {"title": "Pipelines", "version": "1"},
    "paths": {
        "/CreateImagePipeline": {
            "put": {
                "operationId": "CreateImagePipeline",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}},
                                "required": ["name"],
                            }
                        }
                    }
                },
                "responses": {"200": {"content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/ImagePipeline"}}}}},
            }
        },
        "/GetImagePipeline": {
            "get": {
                "operationId": "GetImagePipeline",
                "parameters": [{"name": "imagePipelineArn", "in": "query", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/ImagePipeline"}}}}},
            }
        },
        "/DeleteImagePipeline": {
            "delete": {
                "operationId": "DeleteImagePipeline",
                "parameters": [{"name": "imagePipelineArn", "in": "query", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"content": {"application/json": {"schema": {
                    "type": "object", "properties": {"imagePipelineArn": {"type": "string"}}}}}}},
            }
        },
    },
    "components": {
        "schemas": {
            "ImagePipeline": {
                "type": "object",
                "properties": {"arn": {"type": "string"}, "name": {"type": "string"}},
                "required": ["arn", "name"],
            }
        }
    },
}  # fmt: skip


def test_a_parameter_named_for_the_records_key_names_that_field() -> None:
    """``DeleteImagePipeline(imagePipelineArn)``: the image pipeline whose ``arn`` it is."""
    specs, _ = ingest_document(orjson.dumps(PIPELINES), source_file="pipelines.json")
    plan = plan_service(specs)
    delete = next(t for t in plan.tools if t.name == "DeleteImagePipeline")
    # ``arn`` is the pipeline's id (AWS names records by their ARN), so the parameter names it
    assert [(p.name, p.role) for p in delete.params] == [("imagePipelineArn", Role.ID)]
    build = build_service(specs)
    for name in ("GetImagePipeline", "DeleteImagePipeline"):
        assert name in build.verified, build.outcomes[name]


def test_a_keyed_field_is_seeded_and_a_lone_value_is_no_key() -> None:
    """``delete_project(project_name)``: projects, which nothing creates, are found by a name
    every seeded project holds. ``setHeadlights(mode)``: the one value is what the call sets,
    not which headlight, so it is no key: the car's one headlight record is set (a record
    only ever set, never listed, created or named, is the service's one such record)."""
    specs, _ = ingest_document(SPECS / "mcp/livemcp/basic-memory.json")
    plan = plan_service(specs)
    delete = next(t for t in plan.tools if t.name == "delete_project")
    assert [p.role for p in delete.params] == [Role.KEY]
    projects = plan.records[delete.resource]
    assert projects.fields["project_name"].required
    assert "delete_project" in build_service(specs).verified
    car, _ = ingest_document(SPECS / "functions/bfcl_multi_turn/vehicle_control.json")
    plan = plan_service(car)
    headlights = next(t for t in plan.tools if t.name == "setHeadlights")
    assert [(p.name, p.role) for p in headlights.params] == [("mode", Role.FIELD)]
    assert plan.records[headlights.resource].singleton
    built = build_service(car)
    for name in ("setHeadlights", "pressBrakePedal", "fillFuelTank", "lockDoors"):
        assert name in built.verified, built.outcomes[name]
    # ``enable_roaming(customer_id, line_id)`` acts on a line it names: no one roaming record
    telecom, _ = ingest_document(SPECS / "functions/tau2/telecom.json")
    skipped = plan_service(telecom).skipped
    assert skipped["enable_roaming"] == "no parameter identifies the roaming"


def test_a_key_every_create_sets_is_held_by_every_record() -> None:
    """``delete_message(receiver_id)``: ``send_message(receiver_id, message)`` always sets the
    receiver, so every seeded message has one too, and the delete finds its message."""
    specs, _ = ingest_document(SPECS / "functions/bfcl_multi_turn/message_api.json")
    plan = plan_service(specs)
    assert plan.records["messages"].fields["receiver_id"].required
    build = build_service(specs)
    assert "delete_message" in build.verified, build.outcomes["delete_message"]


def test_a_retrieve_by_key_is_a_read_of_that_record(memory_kv: list[ToolSpec]) -> None:
    """``core_memory_retrieve(key) -> {value}`` (a "list" by its name) answers the value of the
    record made by ``core_memory_add(key, value)``; not_found for a key no record holds."""
    plan = plan_service(memory_kv)
    retrieve = next(t for t in plan.tools if t.name == "core_memory_retrieve")
    assert retrieve.verb == "read"
    assert [(p.name, p.role) for p in retrieve.params] == [("key", Role.KEY)]
    cls = load_service(compile_service(memory_kv).source)
    world = World([cls()], seed=0)
    _call(world, cls, "core_memory_add", key="pet", value="a cat")
    assert _call(world, cls, "core_memory_retrieve", key="pet")["data"] == {"value": "a cat"}
    assert _call(world, cls, "core_memory_retrieve", key="car")["error"]["code"] == "not_found"
    build = build_service(memory_kv)
    for name in ("core_memory_retrieve", "archival_memory_retrieve"):
        assert name in build.verified, build.outcomes[name]


def test_a_collection_named_as_a_state_attribute_is_found_by_its_id() -> None:
    """Pinecone's ``collections`` are kept as ``collections_`` (``collections`` is a State
    attribute); ``delete_collection(collectionName)`` still names one of them."""
    specs, _ = ingest_document(SPECS / "openapi/pinecone.io.json")
    plan = plan_service(specs)
    assert "collections_" in plan.records
    describe = next(t for t in plan.tools if t.name == "describe_collection")
    assert [(p.name, p.role) for p in describe.params] == [("collectionName", Role.ID)]
    build = build_service(specs)
    for name in ("describe_collection", "delete_collection"):
        assert name in build.verified, build.outcomes[name]


def test_the_unique_name_of_another_thing_is_no_natural_key() -> None:
    """A collection's ``source`` is "The unique name of an index.": the index is unique, not
    the collection's source, so two collections of one index do not conflict."""
    specs, _ = ingest_document(SPECS / "openapi/pinecone.io.json")
    plan = plan_service(specs)
    assert not plan.records["collections_"].fields["source"].unique
    build = build_service(specs)
    for name in ("create_collection", "create_index"):
        assert name in build.verified, build.outcomes[name]
