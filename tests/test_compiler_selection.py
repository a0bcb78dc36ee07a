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


# -- moving a pointer is not creating: ``checkout`` ------------------------------------------
TEXT = {"type": "string"}
BRANCHES = {
    "tools": [
        _tool("create_branch", "Create a branch.", {"branch_name": TEXT, "base": TEXT},
              ["branch_name"], False),
        _tool("checkout_branch", "Check out an existing branch.", {"branch_name": TEXT},
              ["branch_name"], False),
        _tool("list_branches", "List the branches.", {}, [], True),
        _tool("get_current_branch", "Show the current branch.", {}, [], True),
    ]
}  # fmt: skip
# as the git MCP server declares them: ingestion names no resource for ``git_checkout``, the
# compiler finds branches only by its parameters (those of ``git_create_branch``)
REPO = {"repo_path": TEXT}
GIT = {
    "tools": [
        _tool("git_create_branch", "Creates a new branch from an optional base branch",
              {**REPO, "branch_name": TEXT, "base_branch": TEXT}, ["repo_path", "branch_name"],
              False),
        _tool("git_checkout", "Switches branches", {**REPO, "branch_name": TEXT},
              ["repo_path", "branch_name"], False),
        _tool("git_branch", "List Git branches", {**REPO, "branch_type": TEXT},
              ["repo_path", "branch_type"], True),
    ]
}  # fmt: skip
CONTEXTS = {
    "tools": [
        _tool("get_current_context", "Get current kubeconfig context.", {}, [], True),
        _tool("switch_context", "Switch current kubeconfig context.",
              {"context_name": TEXT}, ["context_name"], False),
    ]
}  # fmt: skip


def _ingested(doc: dict, name: str) -> list:
    specs, _ = ingest_document(orjson.dumps(doc), source_file=name)
    return specs


def test_a_checkout_selects_an_existing_branch_and_creates_none() -> None:
    specs = _ingested(BRANCHES, "branches.json")
    tools = {t.name: t for t in plan_service(specs).tools}
    assert tools["checkout_branch"].verb == "action"
    assert tools["checkout_branch"].action is not None
    assert tools["checkout_branch"].action.selects
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)

    def call(tool: str, args: dict) -> dict:
        return world.call(qualified(cls.name, tool), args)

    before = dict(world.services[cls.name].state.branches)
    name = list(before.values())[-1].branch_name
    assert call("checkout_branch", {"branch_name": name})["success"]
    assert call("get_current_branch", {})["data"]["branch_name"] == name
    missing = call("checkout_branch", {"branch_name": "no-such-branch"})
    assert missing["error"]["code"] == "not_found"
    assert dict(world.services[cls.name].state.branches) == before  # none made, none changed
    built = build_service(specs)
    assert "checkout_branch" in built.verified, built.outcomes["checkout_branch"]


def test_a_checkout_known_only_by_its_parameters_is_rejected_not_a_create() -> None:
    compiled = compile_service(_ingested(GIT, "git.json"))
    assert "git_checkout" not in compiled.compiled_tools
    reason = compiled.skipped["git_checkout"]
    assert reason.startswith("'checkout' moves the current branch to an existing one"), reason
    assert "git_create_branch" in compiled.compiled_tools  # the create is still a create


def test_switching_the_one_record_is_not_renaming_it() -> None:
    compiled = compile_service(_ingested(CONTEXTS, "contexts.json"))
    assert "switch_context" not in compiled.compiled_tools
    assert "moves the current context" in compiled.skipped["switch_context"]


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_git_checkout_of_the_git_server_is_not_verified_as_a_create() -> None:
    specs, _ = ingest_document(SPECS / "mcp/livemcp/git.json")
    built = build_service(specs)
    assert "git_checkout" not in built.verified
    assert "moves the current branch" in built.outcomes["git_checkout"].reason
    assert "git_create_branch" in built.verified
