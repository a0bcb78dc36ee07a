"""What the compiled write tools do (mutants of library/compiler/emit_tools.py and tools.py
that survived the other tests, bench/mutation.py): a create fills the spec's defaults and the
server's values and refuses a reference to nothing; a field the spec calls unique refuses a
duplicate, on create and on update, and a refused call changes nothing; an update changes the
fields given and only those, and stamps ``updated_at``; a delete removes the addressed record
and only it; a record under a parent (``/projects/{project_id}/tasks/{id}``) is found, and
deleted, only under its own parent; an action sets its status and stamp once and refuses a
second time; and a list's filters compare as the spec means (an enum exactly, text without
case, a free-text query across the record's text)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.verify import build_service

MOMENT = {"type": "string", "format": "date-time"}
STATUS = {"type": "string", "enum": ["active", "archived"]}
PROJECT = {
    "type": "object",
    "required": ["id", "name", "slug", "status", "budget", "created_at", "updated_at"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "slug": {"type": "string", "description": "A unique short name."},
        "status": STATUS,
        "budget": {"type": "integer"},
        "archived_at": {"type": ["string", "null"], "format": "date-time"},
        "created_at": MOMENT,
        "updated_at": MOMENT,
    },
}
NEW_PROJECT = {
    "type": "object",
    "required": ["name", "slug"],
    "properties": {
        "name": {"type": "string"},
        "slug": {"type": "string"},
        "budget": {"type": "integer", "default": 100},
    },
}
PROJECT_CHANGES = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "slug": {"type": "string"},
        "budget": {"type": "integer"},
    },
}
TASK = {
    "type": "object",
    "required": ["id", "project_id", "title"],
    "properties": {
        "id": {"type": "string"},
        "project_id": {"type": "string"},
        "title": {"type": "string"},
    },
}
NEW_TASK = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}


def _ok(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


def _body(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _path(name: str) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


def _query(name: str, schema: dict) -> dict:
    return {"name": name, "in": "query", "schema": schema}


PROJECTS = {
    "openapi": "3.0.0",
    "info": {"title": "Projects", "version": "1"},
    "paths": {
        "/projects": {
            "post": {
                "operationId": "createProject",
                "requestBody": _body(NEW_PROJECT),
                "responses": _ok(PROJECT),
            },
            "get": {
                "operationId": "listProjects",
                "parameters": [
                    _query("status", STATUS),
                    _query("name", {"type": "string"}),
                    _query("q", {"type": "string"}),
                    _query("limit", {"type": "integer", "minimum": 1, "maximum": 50}),
                ],
                "responses": _ok({"type": "array", "items": PROJECT}),
            },
        },
        "/projects/{id}": {
            "get": {
                "operationId": "getProject",
                "parameters": [_path("id")],
                "responses": _ok(PROJECT),
            },
            "patch": {
                "operationId": "updateProject",
                "parameters": [_path("id")],
                "requestBody": _body(PROJECT_CHANGES),
                "responses": _ok(PROJECT),
            },
            "delete": {
                "operationId": "deleteProject",
                "parameters": [_path("id")],
                "responses": _ok(PROJECT),
            },
        },
        "/projects/{id}/archive": {
            "post": {
                "operationId": "archiveProject",
                "parameters": [_path("id")],
                "responses": _ok(PROJECT),
            }
        },
        "/projects/{project_id}/tasks": {
            "post": {
                "operationId": "createTask",
                "parameters": [_path("project_id")],
                "requestBody": _body(NEW_TASK),
                "responses": _ok(TASK),
            },
            "get": {
                "operationId": "listTasks",
                "parameters": [_path("project_id")],
                "responses": _ok({"type": "array", "items": TASK}),
            },
        },
        "/projects/{project_id}/tasks/{id}": {
            "get": {
                "operationId": "getTask",
                "parameters": [_path("project_id"), _path("id")],
                "responses": _ok(TASK),
            },
            "delete": {
                "operationId": "deleteTask",
                "parameters": [_path("project_id"), _path("id")],
                "responses": {"204": {"description": "deleted"}},
            },
        },
    },
}


class Client:
    """The compiled service in a fresh, unseeded world, called as an agent would."""

    def __init__(self, cls: type) -> None:
        self.world = World([cls()], seed=0)
        self.name = cls.name

    def call(self, tool: str, **args: Any) -> dict:
        return self.world.call(qualified(self.name, tool), args)

    def ok(self, tool: str, **args: Any) -> Any:
        envelope = self.call(tool, **args)
        assert envelope["success"], envelope
        return envelope["data"]

    def refused(self, tool: str, **args: Any) -> str:
        """The error code of a call that must fail, after checking it changed nothing."""
        before = self.world.state_hash()
        envelope = self.call(tool, **args)
        assert not envelope["success"], envelope
        assert self.world.state_hash() == before, f"a refused {tool} changed the state"
        return envelope["error"]["code"]

    def state(self, collection: str) -> dict[str, Any]:
        return dict(getattr(self.world.services[self.name].state, collection))


def verified_service(document: dict) -> type:
    """The compiled service class of an inline OpenAPI document, every tool verified."""
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    build = build_service(specs)
    assert set(build.verified) == {s.name for s in specs}, build.outcomes
    return load_service(compile_service(specs).source)


# Built for each test, not once per module: mutmut gives a mutant only the tests that reach
# its function, and counts a module fixture's calls for the first test alone.
@pytest.fixture
def compiled() -> type:
    return verified_service(PROJECTS)


@pytest.fixture
def client(compiled: type) -> Client:
    return Client(compiled)


def _project(client: Client, name: str, slug: str, **more: Any) -> dict:
    return client.ok("createProject", name=name, slug=slug, **more)


def test_a_create_fills_the_spec_default_and_the_server_values(client: Client) -> None:
    made = _project(client, "Apollo", "apollo")
    assert (made["budget"], made["status"], made.get("archived_at")) == (100, "active", None)
    assert made["created_at"] == made["updated_at"]
    assert _project(client, "Gemini", "gemini", budget=7)["budget"] == 7
    assert client.ok("getProject", id=made["id"]) == made
    assert len(client.state("projects")) == 2


def test_a_reference_to_no_record_is_refused(client: Client) -> None:
    assert client.refused("createTask", project_id="pro_missing", title="Plan") == "not_found"
    assert client.refused("listTasks", project_id="pro_missing") == "not_found"
    assert client.refused("getProject", id="pro_missing") == "not_found"


def test_a_unique_field_refuses_a_duplicate_create(client: Client) -> None:
    _project(client, "Apollo", "apollo")
    assert client.refused("createProject", name="Other", slug="apollo") == "conflict"
    assert client.refused("createProject", name="Other", slug="APOLLO") == "conflict"
    _project(client, "Apollo", "apollo-2")  # the name is not unique, the slug is
    assert len(client.state("projects")) == 2


def test_a_unique_field_refuses_an_update_to_another_records_value(client: Client) -> None:
    a = _project(client, "Apollo", "apollo")
    b = _project(client, "Gemini", "gemini")
    assert client.refused("updateProject", id=b["id"], slug="Apollo") == "conflict"
    # its own value again is no conflict
    assert client.ok("updateProject", id=a["id"], slug="apollo")["slug"] == "apollo"
    assert client.ok("updateProject", id=b["id"], slug="gemini-2")["slug"] == "gemini-2"


def test_an_update_changes_the_given_fields_only_and_stamps_the_change(client: Client) -> None:
    made = _project(client, "Apollo", "apollo", budget=5)
    other = _project(client, "Gemini", "gemini")
    client.world.advance(3600)
    changed = client.ok("updateProject", id=made["id"], budget=9)
    assert changed == made | {"budget": 9, "updated_at": changed["updated_at"]}
    assert changed["updated_at"] > made["updated_at"]
    assert client.ok("getProject", id=other["id"]) == other
    assert client.refused("updateProject", id="pro_missing", budget=1) == "not_found"


def test_a_delete_removes_the_addressed_record_only(client: Client) -> None:
    a = _project(client, "Apollo", "apollo")
    b = _project(client, "Gemini", "gemini")
    assert client.ok("deleteProject", id=a["id"]) == a
    assert set(client.state("projects")) == {b["id"]}
    assert client.refused("getProject", id=a["id"]) == "not_found"
    assert client.refused("deleteProject", id=a["id"]) == "not_found"
    assert client.ok("getProject", id=b["id"]) == b


def test_a_record_under_a_parent_is_found_and_deleted_only_under_it(client: Client) -> None:
    a = _project(client, "Apollo", "apollo")
    b = _project(client, "Gemini", "gemini")
    task = client.ok("createTask", project_id=a["id"], title="Plan")
    other = client.ok("createTask", project_id=b["id"], title="Build")
    assert task["project_id"] == a["id"]
    assert client.ok("listTasks", project_id=a["id"]) == [task]
    assert client.ok("getTask", project_id=a["id"], id=task["id"]) == task
    assert client.refused("getTask", project_id=b["id"], id=task["id"]) == "not_found"
    assert client.refused("deleteTask", project_id=b["id"], id=task["id"]) == "not_found"
    client.ok("deleteTask", project_id=a["id"], id=task["id"])
    assert set(client.state("tasks")) == {other["id"]}
    assert client.refused("deleteTask", project_id=a["id"], id=task["id"]) == "not_found"


def test_an_action_sets_its_status_and_stamp_once(client: Client) -> None:
    made = _project(client, "Apollo", "apollo")
    other = _project(client, "Gemini", "gemini")
    client.world.advance(60)
    done = client.ok("archiveProject", id=made["id"])
    assert done["status"] == "archived"
    assert done["archived_at"] == done["updated_at"] > made["updated_at"]
    assert client.refused("archiveProject", id=made["id"]) == "failed_precondition"
    assert client.refused("archiveProject", id="pro_missing") == "not_found"
    assert client.ok("getProject", id=other["id"]) == other


def test_list_filters_compare_as_the_spec_means(client: Client) -> None:
    a = _project(client, "Apollo Launch", "apollo")
    b = _project(client, "Gemini", "gemini-apollo")
    c = _project(client, "Mercury", "mercury")
    client.ok("archiveProject", id=c["id"])

    def ids(**args: Any) -> list[str]:
        return [r["id"] for r in client.ok("listProjects", **args)]

    assert ids() == [a["id"], b["id"], c["id"]]
    assert ids(status="archived") == [c["id"]]
    assert ids(status="active") == [a["id"], b["id"]]
    assert ids(name="gemini") == [b["id"]]  # text compares without case
    assert ids(name="Gemin") == []  # a filter is no search
    assert ids(q="APOLLO") == [a["id"], b["id"]]  # a query reads the name and the slug
    assert ids(q="launch") == [a["id"]]
    assert ids(q="  ") == [a["id"], b["id"], c["id"]]
    assert ids(q="venus") == []
    assert ids(limit=2) == [a["id"], b["id"]]
    assert ids(status="active", q="launch") == [a["id"]]
