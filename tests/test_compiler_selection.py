"""Current selections: ``switch_project(project_name)`` makes a project the service's selected
one (changing none of its fields) and ``get_current_project()`` answers the selected project,
the first one before any switch; an unknown name is ``not_found``. Conformance reads a switch
back through the current read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
NAME = {"type": "string", "description": "The workspace's name."}


def _tool(name: str, description: str, params: dict, required: list[str], read: bool) -> dict:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": params, "required": required},
        "annotations": {"readOnlyHint": read},
    }


WORKSPACES = {
    "tools": [
        _tool("create_workspace", "Create a workspace.", {"workspace_name": NAME,
              "owner": {"type": "string"}}, ["workspace_name", "owner"], False),
        _tool("delete_workspace", "Delete a workspace by name.", {"workspace_name": NAME},
              ["workspace_name"], False),
        _tool("switch_workspace", "Make a workspace the current one.", {"workspace_name": NAME},
              ["workspace_name"], False),
        _tool("get_current_workspace", "Show the current workspace.", {}, [], True),
    ]
}  # fmt: skip


def _specs() -> list:
    specs, _ = ingest_document(orjson.dumps(WORKSPACES), source_file="workspaces.json")
    return specs


def test_a_selection_and_the_current_read_are_planned() -> None:
    plan = plan_service(_specs())
    tools = {t.name: t for t in plan.tools}
    assert tools["switch_workspace"].action is not None
    assert tools["switch_workspace"].action.selects
    assert tools["get_current_workspace"].current


def test_the_current_read_answers_the_selected_record() -> None:
    cls = load_service(compile_service(_specs()).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)

    def call(tool: str, args: dict) -> dict:
        return world.call(qualified(cls.name, tool), args)

    names = [w.workspace_name for w in world.services[cls.name].state.workspaces.values()]
    assert call("get_current_workspace", {})["data"]["workspace_name"] == names[0]  # the default
    before = world.services[cls.name].state.workspaces
    for name in (names[-1], names[1]):
        assert call("switch_workspace", {"workspace_name": name})["success"]
        assert call("get_current_workspace", {})["data"]["workspace_name"] == name
    assert world.services[cls.name].state.workspaces == before  # no field changed
    missing = call("switch_workspace", {"workspace_name": "no such workspace"})
    assert missing["error"]["code"] == "not_found"
    assert call("delete_workspace", {"workspace_name": names[1]})["success"]
    assert call("get_current_workspace", {})["error"]["code"] == "not_found"


def test_selection_tools_verify() -> None:
    built = build_service(_specs())
    for name in ("switch_workspace", "get_current_workspace"):
        assert name in built.verified, built.outcomes[name]


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_basic_memory_projects_switch() -> None:
    specs, _ = ingest_document(SPECS / "mcp/livemcp/basic-memory.json")
    built = build_service(specs)
    for name in ("switch_project", "get_current_project"):
        assert name in built.verified, built.outcomes[name]
