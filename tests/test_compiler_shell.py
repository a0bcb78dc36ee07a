"""Shell-shaped services: tools named for shell commands (``ls``, ``cd``, ``cat``, ``mkdir``...)
run on a file tree with a working directory (``library.runtime.shell``) kept in the service's
state; conformance calls them on the names the tree holds and checks each answer and the tree
it leaves against the command itself."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.errors import ToolError
from library.runtime.shell import FileTree, run_shell
from library.runtime.world import qualified
from library.sandbox import Sandbox, SandboxPolicy
from library.seed.pool import seed_pool
from library.verify import build_service
from library.verify.conformance import run_conformance
from tasks.build import verify_in_sandbox

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
TEXT = {"type": "string", "description": "A name in the current directory."}


def _command(name: str, params: dict, required: list[str], answer: dict) -> dict:
    return {
        "name": name,
        "description": f"The shell's {name}.",
        "parameters": {"type": "dict", "properties": params, "required": required},
        "response": {"type": "dict", "properties": answer},
    }


COMMANDS = [
    _command("ls", {"a": {"type": "boolean", "default": False}}, [],
             {"entries": {"type": "array", "items": {"type": "string"}}}),
    _command("pwd", {}, [], {"cwd": {"type": "string"}}),
    _command("cd", {"folder": TEXT}, ["folder"], {"cwd": {"type": "string"}}),
    _command("cat", {"file_name": TEXT}, ["file_name"], {"content": {"type": "string"}}),
    _command("mkdir", {"dir_name": TEXT}, ["dir_name"], {}),
    _command("touch", {"file_name": TEXT}, ["file_name"], {}),
    _command("head", {"file_name": TEXT, "lines": {"type": "integer", "default": 10}},
             ["file_name"], {"first_lines": {"type": "string"}}),
    _command("wc", {"file_name": TEXT, "mode": {"type": "string", "default": "l"}},
             ["file_name"], {"count": {"type": "integer"}, "type": {"type": "string"}}),
]  # fmt: skip
JSONL = b"\n".join(orjson.dumps(c) for c in COMMANDS)


def _specs() -> list:
    specs, _ = ingest_document(JSONL, source_file="shell.json")
    return specs


def test_shell_commands_are_planned_on_the_file_tree() -> None:
    plan = plan_service(_specs())
    tools = {t.name: t for t in plan.tools}
    assert set(tools) == {c["name"] for c in COMMANDS}
    assert tools["cat"].shell == {
        "command": "cat",
        "roles": {"file_name": "path"},
        "answer": {"content": "text"},
    }
    assert tools["mkdir"].write and not tools["cat"].write


def test_commands_change_and_read_the_tree() -> None:
    cls = load_service(compile_service(_specs()).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)

    def call(tool: str, **args: object) -> dict:
        return world.call(qualified(cls.name, tool), args)

    assert call("mkdir", dir_name="docs")["success"]
    assert call("mkdir", dir_name="docs")["error"]["code"] == "conflict"
    assert call("cd", folder="docs")["data"] == {"cwd": "/workspace/docs"}
    assert call("touch", file_name="a.txt")["success"]
    assert call("ls")["data"] == {"entries": ["a.txt"]}
    assert call("pwd")["data"] == {"cwd": "/workspace/docs"}
    assert call("cat", file_name="b.txt")["error"]["code"] == "not_found"
    assert call("cd", folder="..")["success"]
    assert call("cat", file_name="docs")["error"]["code"] == "failed_precondition"
    assert call("head", file_name="notes.txt", lines=1)["data"] == {"first_lines": "meeting at ten"}
    assert call("wc", file_name="notes.txt", mode="w")["data"] == {"count": 8, "type": "words"}
    assert ".settings" in call("ls", a=True)["data"]["entries"]
    assert ".settings" not in call("ls")["data"]["entries"]


def test_the_runtime_moves_copies_and_refuses() -> None:
    tree = FileTree.sample()
    tree, _ = run_shell(tree, "mv", {"source": "todo.txt", "destination": "archive"})
    assert "/workspace/archive/todo.txt" in tree.entries
    assert "/workspace/todo.txt" not in tree.entries
    tree, _ = run_shell(tree, "cp", {"source": "reports", "destination": "copy"})
    assert tree.entries["/workspace/copy/q1.csv"] == tree.entries["/workspace/reports/q1.csv"]
    with pytest.raises(ToolError) as refused:
        run_shell(tree, "rmdir", {"path": "reports"})
    assert refused.value.code == "failed_precondition"
    with pytest.raises(ToolError) as refused:
        run_shell(tree, "cat", {"path": "reports/q1.csv"})
    assert refused.value.code == "invalid_argument"


def test_shell_commands_verify() -> None:
    built = build_service(_specs())
    for name in ("ls", "pwd", "cat", "mkdir", "touch", "head", "wc"):
        assert name in built.verified, built.outcomes[name]


def test_conformance_checks_the_answer_against_the_command() -> None:
    specs = _specs()
    source = compile_service(specs).source
    wrong = source.replace(
        'run_shell(self.state.shell, "cat"', 'run_shell(self.state.shell, "sort"'
    )
    assert wrong != source
    results = run_conformance(load_service(wrong), specs, seed=0)
    failed = {(r.tool, r.check) for r in results if not r.passed}
    assert ("cat", "shell") in failed


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_bfcl_file_system_verifies() -> None:
    specs, _ = ingest_document(SPECS / "functions/bfcl_multi_turn/gorilla_file_system.json")
    built = build_service(specs)
    for name in ("cat", "cp", "diff", "find", "grep", "ls", "mkdir", "mv", "rm", "rmdir", "wc"):
        assert name in built.verified, built.outcomes[name]
    # the spec reads ``cd`` as read-only, yet it moves the working directory: not verified
    assert built.outcomes["cd"].outcome == "failed"


def test_shell_commands_verify_in_a_sandbox_worker() -> None:
    """In production the suite runs in the parent over the states a worker reports (the tree
    as a dict): the commands verify there as in process."""
    specs = _specs()
    source = compile_service(specs).source
    with Sandbox(SandboxPolicy(wall_timeout_s=60, cpu_seconds=30)) as sandbox:
        verified, _, reason = verify_in_sandbox(sandbox, specs[0].service, source, specs, 0)
    assert reason == ""
    assert {name for name, ok in verified.items() if ok} == set(build_service(specs).verified)
