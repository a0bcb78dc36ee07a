"""Function-style formats: lists of tools, each a name, a description and an input schema.

OpenAI function calling (``{"type": "function", "function": {...}}`` or bare), BFCL (one
object per line, ``"type": "dict"``, an optional ``response`` schema), MCP ``tools/list``
(``inputSchema``, ``outputSchema``, ``annotations``) and the Docker MCP registry's list
(``arguments: [{name, type, desc, optional}]``). ``$ref``s resolve against the tool's own
schema, which is where ``$defs`` live in these formats.
"""

from __future__ import annotations

from typing import Any

from library.ingest.detect import Detected
from library.ingest.issues import Issues
from library.ingest.naming import renamed_warning, tool_name
from library.ingest.raw import RawTool, declared_access, text, vendor_tags
from library.ingest.refs import child
from library.ingest.schema import SchemaNormalizer
from library.toolspec import ErrorKind, SpecFormat

MAX_TOOLS = 20_000  # per document; more is a generator gone wrong, not an API
_EMPTY_INPUT: dict[str, Any] = {"type": "object", "properties": {}}


def parse_functions(det: Detected, issues: Issues, skip: frozenset[int]) -> list[RawTool]:
    """``skip``: entry indexes already reported (JSON Lines that did not parse)."""
    entries: list[Any] = det.doc
    if not entries:
        issues.add(det.pointer, ErrorKind.EMPTY, "the tool list is empty")
        return []
    if len(entries) > MAX_TOOLS:
        issues.warn(
            det.pointer,
            ErrorKind.TRUNCATED,
            f"{len(entries)} tools in one document; only the first {MAX_TOOLS} were read",
        )
    tools: list[RawTool] = []
    for i, entry in enumerate(entries[:MAX_TOOLS]):
        if i in skip:
            continue
        pointer = child(det.pointer, i)
        try:
            tool = _entry(det.format, entry, pointer, issues)
        except Exception as exc:  # one broken entry must not sink the document
            issues.add(
                pointer, ErrorKind.INTERNAL, f"tool could not be read ({type(exc).__name__}: {exc})"
            )
            continue
        if tool is not None:
            tools.append(tool)
    return tools


def _entry(fmt: SpecFormat, entry: Any, pointer: str, issues: Issues) -> RawTool | None:
    if not isinstance(entry, dict):
        issues.add(
            pointer,
            ErrorKind.INVALID_OPERATION,
            f"a tool must be an object, got {type(entry).__name__}; dropped",
        )
        return None
    fn, fpointer = entry, pointer
    if isinstance(entry.get("function"), dict):
        fn, fpointer = entry["function"], child(pointer, "function")
    raw_name = fn.get("name")
    if not isinstance(raw_name, str) or not raw_name.strip():
        issues.add(
            fpointer,
            ErrorKind.INVALID_OPERATION,
            "the tool has no `name` (a non-empty string); dropped",
        )
        return None
    name = tool_name(raw_name.strip())
    if (renamed := renamed_warning(raw_name, name)) is not None:
        issues.warn(child(fpointer, "name"), ErrorKind.RENAMED, renamed, tool=name)
    vendor = {**vendor_tags(entry), **vendor_tags(fn)}
    if name != raw_name:
        vendor["original_name"] = raw_name[:300]

    if fmt == SpecFormat.DOCKER_MCP and "arguments" in fn:
        schema_node, key = (
            _docker_schema(fn.get("arguments"), child(fpointer, "arguments"), issues, name),
            "arguments",
        )
    else:
        key = next(
            (k for k in ("inputSchema", "input_schema", "parameters") if k in fn), "parameters"
        )
        schema_node = fn.get(key)
    input_schema = _input(schema_node, child(fpointer, key), issues, name)

    output_schema = None
    for out_key in ("outputSchema", "output_schema", "response", "returns"):
        node = fn.get(out_key)
        if isinstance(node, dict) and node:
            norm = SchemaNormalizer(node, issues)
            norm.tool = name
            output_schema = norm.normalize(node, child(fpointer, out_key)) or None
            break

    return RawTool(
        name=name,
        description=text(fn.get("description") or entry.get("description") or fn.get("title")),
        input_schema=input_schema,
        output_schema=output_schema,
        pointer=pointer,
        vendor=vendor,
        declared_access=declared_access(entry, fn),
    )


def _input(node: Any, pointer: str, issues: Issues, tool: str) -> dict[str, Any]:
    """A tool input is always an object schema with ``properties``."""
    if node is None:
        return dict(_EMPTY_INPUT)
    norm = SchemaNormalizer(node, issues)
    norm.tool = tool
    schema = norm.normalize(node, pointer)
    if schema.get("type") in ("object", None) and "properties" in schema:
        return schema
    if not schema or schema.get("type") == "object":
        return {**_EMPTY_INPUT, **schema}
    issues.warn(
        pointer,
        ErrorKind.INVALID_SCHEMA,
        "a tool's input must be an object schema; this one was wrapped as the `input` property",
        tool=tool,
    )
    return {"type": "object", "properties": {"input": schema}, "required": ["input"]}


def _docker_schema(args: Any, pointer: str, issues: Issues, tool: str) -> dict[str, Any]:
    """Docker's ``[{name, type, desc, optional}]`` as a JSON Schema object (not yet normalized:
    the normalizer maps its type names like any other dialect's)."""
    if not isinstance(args, list):
        if args is not None:
            issues.warn(
                pointer, ErrorKind.INVALID_SCHEMA, "`arguments` must be a list; ignored", tool=tool
            )
        return dict(_EMPTY_INPUT)
    props: dict[str, Any] = {}
    required: list[str] = []
    for j, arg in enumerate(args):
        if not isinstance(arg, dict) or not isinstance(arg.get("name"), str) or not arg["name"]:
            issues.warn(
                child(pointer, j),
                ErrorKind.INVALID_SCHEMA,
                "an argument needs a string `name`; this one was dropped",
                tool=tool,
            )
            continue
        schema = {k: arg[k] for k in ("type", "items", "enum", "default", "format") if k in arg}
        description = arg.get("desc", arg.get("description"))
        if isinstance(description, str) and description:
            schema["description"] = description
        props[arg["name"]] = schema
        optional = arg.get("optional") is True or arg.get("required") is False
        if isinstance(description, str) and "(optional" in description.lower():
            optional = True
        if not optional:
            required.append(arg["name"])
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out
