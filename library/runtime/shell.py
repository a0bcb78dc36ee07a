"""A shell's file system: a tree of directories and text files with a working directory, and
the POSIX commands that read and change it (``ls``, ``cd``, ``pwd``, ``cat``, ``mkdir``,
``touch``, ``rm``, ``rmdir``, ``mv``, ``cp``, ``echo``, ``grep``, ``sort``, ``head``,
``tail``, ``wc``, ``diff``, ``du``, ``find``).

A service whose tools are shell commands (BFCL's file system) keeps one ``FileTree`` in its
state; compiled tools call ``run_shell(tree, command, operands)``, which answers the new tree
and the command's result, or refuses with ``ToolError`` (``not_found``: no such file or
directory; ``conflict``: it exists already; ``failed_precondition``: a directory where a file
is wanted, or the reverse, or a directory that is not empty; ``invalid_argument``: a path
where one name is wanted). A tree is never changed in place: each write answers a new one.

Operands are named by role (``path``, ``path2``, ``source``, ``destination``, ``pattern``,
``content``, ``name``, ``lines``, ``mode``, ``all``, ``human``), which ``operand_role``
reads from a parameter's name and type, for the compiler and the conformance suite alike.
"""

from __future__ import annotations

import difflib
import posixpath
from typing import Any

from pydantic import BaseModel, ConfigDict

from library.runtime.errors import ErrorCode, ToolError

# command -> what it gives: text, items (a list of names, paths or lines), count, message
RESULTS: dict[str, str] = {
    "pwd": "text", "cd": "text", "cat": "text", "sort": "text", "head": "text",
    "tail": "text", "diff": "text", "du": "text", "echo": "text",
    "ls": "items", "find": "items", "grep": "items",
    "wc": "count",
    "mkdir": "message", "touch": "message", "rm": "message", "rmdir": "message",
    "mv": "message", "cp": "message",
}  # fmt: skip
COMMANDS = frozenset(RESULTS)
WRITES = frozenset({"cd", "mkdir", "touch", "rm", "rmdir", "mv", "cp", "echo"})
MIN_COMMANDS = 5  # a service with this many shell commands keeps a file tree
_UNITS = {"l": "lines", "w": "words", "c": "characters"}


class FileTree(BaseModel):
    """Directories and text files by absolute path (``None`` for a directory), and the
    working directory."""

    model_config = ConfigDict(frozen=True)

    cwd: str = "/"
    entries: dict[str, str | None] = {}

    @classmethod
    def sample(cls) -> FileTree:
        """A small home for a fresh service: documents, a hidden file, a subdirectory."""
        return cls(
            cwd="/workspace",
            entries={
                "/workspace": None,
                "/workspace/notes.txt": "meeting at ten\nbudget review\nship the report\n",
                "/workspace/todo.txt": "call the bank\nbudget review\nbook the venue\n",
                "/workspace/.settings": "theme=dark\n",
                "/workspace/reports": None,
                "/workspace/reports/q1.csv": "region,total\nnorth,120\nsouth,95\n",
                "/workspace/archive": None,
            },
        )

    def is_dir(self, path: str) -> bool:
        return path == "/" or (path in self.entries and self.entries[path] is None)

    def children(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted(
            p for p in self.entries if p.startswith(prefix) and "/" not in p[len(prefix) :]
        )

    def below(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted(p for p in self.entries if p.startswith(prefix))


def shell_command(tool_name: str) -> str | None:
    """The command a tool is named for (``ls``, ``cat``), if any."""
    name = tool_name.strip().lower()
    return name if name in COMMANDS else None


def is_shell(tool_names: list[str]) -> bool:
    """Whether tools named so are a shell's: enough commands, some that list or move around
    and some that read files."""
    found = {c for n in tool_names if (c := shell_command(n)) is not None}
    return len(found) >= MIN_COMMANDS and bool(found & {"ls", "cd", "pwd"}) and "cat" in found


def operand_role(name: str, json_type: str | None, command: str) -> str | None:
    """The role of a command's parameter, from its name and type (None: no role)."""
    low = name.lower()
    words = set(low.replace("-", "_").split("_"))
    if json_type == "boolean":
        if words & {"human", "readable"}:
            return "human"
        return "all" if low in ("a", "all", "hidden", "show_hidden") else None
    if json_type == "integer":
        return "lines" if words & {"lines", "n", "count", "number"} else None
    if words & {"pattern", "regex", "query"}:
        return "pattern"
    if words & {"content", "text", "data"}:
        return "content"
    if low == "mode":
        return "mode"
    if low == "name" and command == "find":
        return "name"
    if words & {"source", "src"}:
        return "source"
    if words & {"destination", "dest", "target"}:
        return "destination"
    if words & {"file", "dir", "folder", "path", "directory", "name", "filename"} or low in (
        "file_name",
        "dir_name",
    ):
        return "path2" if low.endswith("2") else "path"
    return None


def answer_parts(command: str, output_schema: dict[str, Any] | None) -> dict[str, str]:
    """Which part of the command's result each key of its declared answer holds (a text, a
    list, a count, ``wc``'s unit, a message), by the key's JSON type; ``ValueError`` names a
    key no part fits."""
    kind = RESULTS[command]
    parts: dict[str, str] = {}
    for key, node in ((output_schema or {}).get("properties") or {}).items():
        declared = node.get("type") if isinstance(node, dict) else None
        if declared == "string" and kind in ("text", "message") and kind not in parts.values():
            parts[key] = kind
        elif declared == "string" and kind == "count":
            parts[key] = "unit"
        elif declared == "array" and kind == "items":
            parts[key] = "items"
        elif declared == "integer" and kind == "count":
            parts[key] = "count"
        else:
            raise ValueError(f"answer key {key!r} has no known meaning")
    return parts


def shell_answer(result: dict[str, Any], parts: dict[str, str]) -> dict[str, Any]:
    """The declared answer: each key's part of the result; a part with no value (``echo``
    into a file has no output) is left out."""
    return {key: result[part] for key, part in parts.items() if result.get(part) is not None}


def run_shell(tree: FileTree, command: str, operands: dict[str, Any]) -> tuple[FileTree, dict]:
    """Run ``command`` on ``tree``: (the tree after it, the result by kind: ``text``,
    ``items``, ``count`` and ``unit``, or ``message``)."""
    handler = _HANDLERS.get(command)
    if handler is None:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{command}: not a command of this shell")
    return handler(tree, {k: v for k, v in operands.items() if v is not None})


# -- paths ---------------------------------------------------------------------------------
def _local(tree: FileTree, name: Any, what: str = "name") -> str:
    """The absolute path of a name in the working directory (no path allowed)."""
    if not isinstance(name, str) or not name.strip() or name in (".", ".."):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{what}: a file or directory name")
    if "/" in name.strip("/"):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{what}: {name!r} is a path, not a name")
    return posixpath.join(tree.cwd, name.strip("/"))


def _existing(tree: FileTree, name: Any, what: str = "name") -> str:
    path = _local(tree, name, what)
    if path not in tree.entries:
        raise ToolError(ErrorCode.NOT_FOUND, f"no such file or directory: {name!r}")
    return path


def _file(tree: FileTree, name: Any, what: str = "name") -> tuple[str, str]:
    path = _existing(tree, name, what)
    content = tree.entries[path]
    if content is None:
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{name!r} is a directory")
    return path, content


def _with(tree: FileTree, entries: dict[str, str | None], cwd: str | None = None) -> FileTree:
    return FileTree(cwd=cwd or tree.cwd, entries=entries)


def _moved(entries: dict[str, str | None], source: str, target: str) -> dict[str, str | None]:
    """The entries with ``source`` (and all below it) at ``target``."""
    out: dict[str, str | None] = {}
    for path, content in entries.items():
        if path == source or path.startswith(source + "/"):
            out[target + path[len(source) :]] = content
        else:
            out[path] = content
    return out


def _copied(entries: dict[str, str | None], source: str, target: str) -> dict[str, str | None]:
    out = dict(entries)
    for path, content in entries.items():
        if path == source or path.startswith(source + "/"):
            out[target + path[len(source) :]] = content
    return out


def _lines(content: str) -> list[str]:
    return content.splitlines()


# -- commands ------------------------------------------------------------------------------
def _pwd(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    return tree, {"text": tree.cwd}


def _cd(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    name = ops.get("path")
    if name == "..":
        cwd = posixpath.dirname(tree.cwd) or "/"
    elif name == "/":
        cwd = "/"
    else:
        cwd = _existing(tree, name, "folder")
        if not tree.is_dir(cwd):
            raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{name!r} is not a directory")
    return _with(tree, tree.entries, cwd), {"text": cwd}


def _ls(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    names = [posixpath.basename(p) for p in tree.children(tree.cwd)]
    if not ops.get("all"):
        names = [n for n in names if not n.startswith(".")]
    return tree, {"items": names}


def _cat(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    return tree, {"text": _file(tree, ops.get("path"))[1]}


def _mkdir(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    path = _local(tree, ops.get("path"), "directory")
    if path in tree.entries:
        raise ToolError(ErrorCode.CONFLICT, f"{ops['path']!r} exists already")
    return _with(tree, {**tree.entries, path: None}), {"message": f"created {ops['path']}"}


def _touch(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    path = _local(tree, ops.get("path"), "file")
    if path in tree.entries:
        if tree.entries[path] is None:
            raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{ops['path']!r} is a directory")
        return tree, {"message": f"{ops['path']} exists"}
    return _with(tree, {**tree.entries, path: ""}), {"message": f"created {ops['path']}"}


def _echo(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    content = str(ops.get("content", ""))
    if ops.get("path") is None:
        return tree, {"text": content}
    path = _local(tree, ops["path"], "file")
    if tree.is_dir(path):
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{ops['path']!r} is a directory")
    return _with(tree, {**tree.entries, path: content}), {"text": None}


def _rm(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    path = _existing(tree, ops.get("path"))
    kept = {p: c for p, c in tree.entries.items() if p != path and not p.startswith(path + "/")}
    return _with(tree, kept), {"message": f"removed {ops['path']}"}


def _rmdir(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    path = _existing(tree, ops.get("path"), "directory")
    if not tree.is_dir(path):
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{ops['path']!r} is not a directory")
    if tree.children(path):
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{ops['path']!r} is not empty")
    kept = {p: c for p, c in tree.entries.items() if p != path}
    return _with(tree, kept), {"message": f"removed {ops['path']}"}


def _target(tree: FileTree, source: str, ops: dict[str, Any]) -> str:
    """Where ``mv``/``cp`` put the source: into a directory the destination names, else at
    the destination's name; refused where something is there already."""
    dest = _local(tree, ops.get("destination"), "destination")
    if tree.is_dir(dest):
        dest = posixpath.join(dest, posixpath.basename(source))
    if dest in tree.entries:
        raise ToolError(ErrorCode.CONFLICT, f"{dest} exists already")
    if dest == source or dest.startswith(source + "/"):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "cannot put a directory inside itself")
    return dest


def _mv(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    source = _existing(tree, ops.get("source"), "source")
    dest = _target(tree, source, ops)
    return _with(tree, _moved(tree.entries, source, dest)), {"message": f"moved to {dest}"}


def _cp(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    source = _existing(tree, ops.get("source"), "source")
    dest = _target(tree, source, ops)
    return _with(tree, _copied(tree.entries, source, dest)), {"message": f"copied to {dest}"}


def _grep(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    _, content = _file(tree, ops.get("path"))
    pattern = str(ops.get("pattern", ""))
    return tree, {"items": [line for line in _lines(content) if pattern in line]}


def _sort(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    _, content = _file(tree, ops.get("path"))
    return tree, {"text": "\n".join(sorted(_lines(content)))}


def _ends(tree: FileTree, ops: dict[str, Any], last: bool) -> tuple[FileTree, dict]:
    _, content = _file(tree, ops.get("path"))
    count = ops.get("lines", 10)
    if not isinstance(count, int) or count < 0:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "lines: a count of zero or more")
    lines = _lines(content)
    part = (lines[-count:] if count else []) if last else lines[:count]
    return tree, {"text": "\n".join(part)}


def _wc(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    _, content = _file(tree, ops.get("path"))
    mode = str(ops.get("mode", "l"))
    if mode not in _UNITS:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "mode: one of 'l', 'w', 'c'")
    count = {"l": len(_lines(content)), "w": len(content.split()), "c": len(content)}[mode]
    return tree, {"count": count, "unit": _UNITS[mode]}


def _diff(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    _, first = _file(tree, ops.get("path"))
    _, second = _file(tree, ops.get("path2"), "second file")
    changed = [
        line
        for line in difflib.ndiff(_lines(first), _lines(second))
        if line.startswith(("- ", "+ "))
    ]
    return tree, {"text": "\n".join(changed)}


def _du(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    size = sum(len((tree.entries[p] or "").encode()) for p in tree.below(tree.cwd))
    if not ops.get("human"):
        return tree, {"text": f"{size} bytes"}
    for unit in ("B", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return tree, {"text": f"{size:.2f} {unit}" if unit != "B" else f"{size} B"}
        size /= 1024  # type: ignore[assignment]
    raise AssertionError("unreachable")


def _find(tree: FileTree, ops: dict[str, Any]) -> tuple[FileTree, dict]:
    start = str(ops.get("path", "."))
    root = tree.cwd if start in (".", "") else _existing(tree, start, "path")
    if not tree.is_dir(root):
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"{start!r} is not a directory")
    name = ops.get("name")
    found = [
        posixpath.join(start, posixpath.relpath(p, root))
        for p in tree.below(root)
        if name is None or str(name) in posixpath.basename(p)
    ]
    return tree, {"items": found}


_HANDLERS = {
    "pwd": _pwd,
    "cd": _cd,
    "ls": _ls,
    "cat": _cat,
    "mkdir": _mkdir,
    "touch": _touch,
    "echo": _echo,
    "rm": _rm,
    "rmdir": _rmdir,
    "mv": _mv,
    "cp": _cp,
    "grep": _grep,
    "sort": _sort,
    "head": lambda tree, ops: _ends(tree, ops, last=False),
    "tail": lambda tree, ops: _ends(tree, ops, last=True),
    "wc": _wc,
    "diff": _diff,
    "du": _du,
    "find": _find,
}
