"""Shell tools: a service whose tools are shell commands (``ls``, ``cd``, ``cat``, ``mkdir``,
``mv``... BFCL's file system) keeps a file tree with a working directory
(``library.runtime.shell.FileTree``, a small sample home to start from), and each command's
body runs it: ``tree, result = run_shell(self.state.shell, "cat", {"path": file_name})``.

A parameter's role comes from its name and type (``file_name`` -> the path, ``pattern``,
``lines``, ``a`` -> show hidden files); the declared answer's keys take the command's result by
type (a text, a list, a count, a message; ``wc``'s unit besides its count). A command with a
required parameter or an answer key the compiler cannot read is left out with its reason.
"""

from __future__ import annotations

import json
from typing import Any

from library.compiler.model import MISSING, ToolPlan
from library.compiler.source import INDENT, call
from library.compiler.stateless import answering_tool
from library.compiler.tools import Skip, input_params
from library.compiler.types import TypeMapper, json_types
from library.runtime.shell import WRITES, answer_parts, operand_role, shell_command
from library.toolspec import ToolSpec

SHELL_STATE = "shell"  # the State attribute holding the tree
# Locals and module names of the emitted body: parameters with these names are renamed.
_BODY_NAMES = frozenset({"self", "run_shell", "shell_answer", "tree", "result"})


def plan_shell(spec: ToolSpec, mapper: TypeMapper, methods: set[str]) -> ToolPlan:
    """The plan of one shell command (``methods``: method names taken, updated)."""
    command = shell_command(spec.name)
    assert command is not None, spec.name
    props = spec.input_schema.get("properties") or {}
    required = set(spec.input_schema.get("required") or ())
    roles: dict[str, str] = {}
    for name, node in props.items():
        kinds, _ = json_types(node if isinstance(node, dict) else {})
        kind = next(iter(kinds)) if len(kinds) == 1 else None
        role = operand_role(name, kind, command)
        if role is None and name in required:
            raise Skip(f"shell command {command}: parameter {name!r} has no known meaning")
        if role is not None:
            roles[name] = role
    answer = _answer(spec, command)
    params = input_params(spec, mapper, spec.name, _BODY_NAMES)
    for p in params:
        if p.default == "None":  # Python's None written as text (BFCL): no value, no file
            p.default = MISSING
    plan = answering_tool(spec, params, methods, "shell", f"the shell's {command}")
    plan.write = command in WRITES
    plan.shell = {"command": command, "roles": roles, "answer": answer}
    return plan


def _answer(spec: ToolSpec, command: str) -> dict[str, str]:
    """Declared answer key -> the part of the command's result it holds."""
    try:
        return answer_parts(command, spec.output_schema)
    except ValueError as exc:
        raise Skip(f"shell command {command}: {exc}") from None


def shell_body(tool: ToolPlan, marking: dict[str, Any], indent: int) -> list[str]:
    """The body: run the command on the tree, keep the new tree (a write), answer the keys."""
    pad = INDENT * indent
    attrs = {p.name: p.attr for p in tool.params}
    operands = ", ".join(f'"{role}": {attrs[name]}' for name, role in marking["roles"].items())
    command = marking["command"]
    args = [f"self.state.{SHELL_STATE}", f'"{command}"', f"{{{operands}}}"]
    # a read keeps no tree: ``_`` (an unused name, as linters ask)
    lines = call(f"{'tree' if tool.write else '_'}, result = run_shell", args, indent)
    if tool.write:
        lines.append(f"{pad}self.state.{SHELL_STATE} = tree")
    parts = json.dumps(marking["answer"])
    return [*lines, f"{pad}return shell_answer(result, {parts})"]
