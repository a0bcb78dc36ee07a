"""Which spec format a loaded document is, judged from its content alone."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from library.ingest.loader import Loaded
from library.toolspec import SpecFormat

# BFCL and Python-flavoured docs use these where JSON Schema says object/number/...
_NON_STANDARD_TYPES = frozenset({"dict", "float", "any", "tuple", "String", "int", "bool", "list"})


@dataclass(slots=True)
class Detected:
    format: SpecFormat
    version: str | None
    doc: Any  # OpenAPI/Swagger: the document; function-style formats: the list of tool entries
    pointer: str  # where ``doc`` sits in the file ("" or "/tools" or "/result/tools")
    service: str | None = None  # a service name the document declares itself


def detect(loaded: Loaded) -> Detected | None:
    value = loaded.value
    if isinstance(value, dict):
        return _detect_object(value, loaded.syntax)
    if isinstance(value, list):
        fmt = _entry_format(value, loaded.syntax)
        return Detected(fmt, None, value, "") if fmt else None
    return None


def _declared_service(doc: dict[str, Any]) -> str | None:
    for holder in (doc, doc.get("info"), doc.get("serverInfo")):
        if isinstance(holder, dict):
            name = holder.get("x-service-name")
            if isinstance(name, str) and name.strip():
                return name
    server = doc.get("serverInfo")
    if isinstance(server, dict) and isinstance(server.get("name"), str):
        return server["name"]
    return None


def _detect_object(doc: dict[str, Any], syntax: str) -> Detected | None:
    service = _declared_service(doc)
    if "openapi" in doc:
        # YAML reads an unquoted `openapi: 3.0` as the float 3.0: compare as text.
        version = str(doc["openapi"])
        return Detected(SpecFormat.OPENAPI3, version, doc, "", service)
    if "swagger" in doc:
        return Detected(SpecFormat.SWAGGER2, str(doc["swagger"]), doc, "", service)
    result = doc.get("result")
    if isinstance(result, dict) and isinstance(result.get("tools"), list):  # a JSON-RPC envelope
        fmt = _entry_format(result["tools"], syntax) or SpecFormat.MCP
        return Detected(fmt, None, result["tools"], "/result/tools", service)
    for key in ("tools", "functions"):
        entries = doc.get(key)
        if isinstance(entries, list):
            default = SpecFormat.MCP if key == "tools" else SpecFormat.OPENAI
            fmt = _entry_format(entries, syntax) or default
            return Detected(fmt, None, entries, "/" + key, service)
    # A single tool on its own.
    fmt = _entry_format([doc], syntax)
    if fmt is not None:
        return Detected(fmt, None, [doc], "", service)
    if isinstance(doc.get("paths"), dict):  # an OpenAPI document that forgot its version
        return Detected(SpecFormat.OPENAPI3, None, doc, "", service)
    return None


_WEAK = "weak"  # only a name and a description: any format's tool without parameters


def _entry_kind(entry: Any, syntax: str) -> SpecFormat | str | None:
    if not isinstance(entry, dict):
        return None
    if isinstance(entry.get("function"), dict):
        return SpecFormat.OPENAI
    if "inputSchema" in entry or "input_schema" in entry:
        return SpecFormat.MCP
    if isinstance(entry.get("arguments"), list):
        return SpecFormat.DOCKER_MCP
    params = entry.get("parameters")
    if isinstance(params, dict) and "name" in entry:
        if syntax == "jsonl" or params.get("type") in _NON_STANDARD_TYPES or "response" in entry:
            return SpecFormat.BFCL
        return SpecFormat.OPENAI
    if isinstance(entry.get("name"), str) and "description" in entry:
        return _WEAK
    return None


def _entry_format(entries: list[Any], syntax: str) -> SpecFormat | None:
    """The format most entries look like (a few broken entries must not hide the rest)."""
    votes = Counter(k for e in entries[:200] if (k := _entry_kind(e, syntax)) is not None)
    weak = votes.pop(_WEAK, 0)
    if not votes:
        # Docker's list form omits `arguments` for tools without any.
        return SpecFormat.DOCKER_MCP if weak else None
    fmt = SpecFormat(votes.most_common(1)[0][0])
    if fmt == SpecFormat.OPENAI and syntax == "jsonl":
        return SpecFormat.BFCL
    return fmt
