"""What a compiled service seeds for records that refer to others (mutants of
library/compiler/emit_seed.py that survived the other tests, bench/mutation.py): an issue's
key is made of its own project's key and a number (``ENG-142``), never of the key of a record
not seeded yet (here an earlier issue of its own collection, its parent), whichever field
comes first; a parent of the same kind is an issue seeded before it, or none; and a list of
issues it refers to holds ids of issues only (never a null: the seed must load)."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.test_mutation_kills_emit_tools import _body, _ok, _path

TEXT = {"type": "string"}
SIZE = 8


def _collection(path: str, noun: str, record: dict) -> dict:
    fields = {k: v for k, v in record["properties"].items() if k != "id"}
    return {
        f"/{path}": {
            "post": {
                "operationId": f"create{noun}",
                "requestBody": _body({"type": "object", "properties": fields}),
                "responses": _ok(record),
            },
            "get": {
                "operationId": f"list{noun}s",
                "responses": _ok({"type": "array", "items": record}),
            },
        },
        f"/{path}/{{id}}": {
            "get": {
                "operationId": f"get{noun}",
                "parameters": [_path("id")],
                "responses": _ok(record),
            }
        },
    }


PROJECT = {
    "type": "object",
    "required": ["id", "key", "title"],
    "properties": {"id": TEXT, "key": TEXT, "title": TEXT},
}
# The parent issue comes before the project: the first reference to a collection with keys
# is to one not seeded yet.
ISSUE = {
    "type": "object",
    "required": ["id", "key", "summary"],
    "properties": {
        "id": TEXT,
        "key": TEXT,
        "summary": TEXT,
        "parent_issue_id": TEXT,
        "project_id": TEXT,
        "blocking_issue_ids": {"type": "array", "items": TEXT},
    },
}
TRACKER = {
    "openapi": "3.0.0",
    "info": {"title": "Tracker", "version": "1"},
    "paths": {
        **_collection("projects", "Project", PROJECT),
        **_collection("issues", "Issue", ISSUE),
    },
}


@pytest.fixture
def seeded() -> dict[str, list[dict[str, Any]]]:
    specs, errors = ingest_document(orjson.dumps(TRACKER), source_file="tracker.json")
    assert specs, errors
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=SIZE)
    state = world.services[cls.name].state.model_dump(mode="json")
    return {k: list(v.values()) for k, v in state.items() if isinstance(v, dict)}


def test_an_issue_key_is_its_projects_key_and_a_number(seeded: dict) -> None:
    projects = {p["id"]: p for p in seeded["projects"]}
    issues = seeded["issues"]
    assert len(issues) == SIZE
    for issue in issues:
        project = projects[issue["project_id"]]
        assert re.fullmatch(rf"{re.escape(project['key'])}-\d+", issue["key"]), issue
    assert len({i["key"] for i in issues}) == SIZE


def test_a_parent_issue_is_one_seeded_before_it(seeded: dict) -> None:
    seen: set[str] = set()
    for issue in seeded["issues"]:
        parent = issue.get("parent_issue_id")
        assert parent is None or parent in seen, issue
        seen.add(issue["id"])


def test_a_list_of_issues_it_refers_to_holds_issue_ids_only(seeded: dict) -> None:
    ids = {i["id"] for i in seeded["issues"]}
    for issue in seeded["issues"]:
        assert set(issue.get("blocking_issue_ids") or ()) <= ids, issue
