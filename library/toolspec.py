"""ToolSpec: one tool as ingestion understood it, whatever format it was published in.

A ToolSpec carries the tool's normalized JSON schemas, where it came from (file + JSON pointer),
and what inference made of it: the resource it acts on, the verb, whether it reads or writes,
and the semantic type of each parameter and output field. SpecError is the other half of
ingestion's output: every operation that was dropped, or ingested with a loss, says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from enum import StrEnum
from pathlib import PurePath
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from library.runtime.semantic import ID


class Verb(StrEnum):
    CREATE = "create"
    READ = "read"
    LIST = "list"
    UPDATE = "update"
    DELETE = "delete"
    SEARCH = "search"
    ACTION = "action"


WRITE_VERBS = frozenset({Verb.CREATE, Verb.UPDATE, Verb.DELETE, Verb.ACTION})


class SpecFormat(StrEnum):
    OPENAPI3 = "openapi3"
    SWAGGER2 = "swagger2"
    MCP = "mcp"
    OPENAI = "openai"
    BFCL = "bfcl"
    DOCKER_MCP = "docker_mcp"


class ErrorKind(StrEnum):
    UNREADABLE = "unreadable"  # the file could not be read at all
    TOO_LARGE = "too_large"  # over the size limit; not parsed
    PARSE_ERROR = "parse_error"  # not JSON, JSON Lines or YAML
    UNKNOWN_FORMAT = "unknown_format"  # parsed, but no known spec format
    EMPTY = "empty"  # a known format without a single operation
    INVALID_DOCUMENT = "invalid_document"  # a top-level part of the document has the wrong shape
    INVALID_OPERATION = "invalid_operation"  # one operation/tool dropped
    INVALID_SCHEMA = "invalid_schema"  # a schema node of the wrong shape, replaced by {}
    BAD_REF = "bad_ref"  # a $ref that does not resolve (or points outside the document)
    DUPLICATE = "duplicate"  # two tools with one name (renamed) or identical tools (dropped)
    RENAMED = "renamed"  # a tool name model APIs refuse (characters, length), made acceptable
    UNSUPPORTED = "unsupported"  # valid, but not a tool (OPTIONS/TRACE operations)
    TRUNCATED = "truncated"  # nesting or size cut to a limit
    INTERNAL = "internal"  # an ingester bug, caught so the rest of the input still ingests
    TIMEOUT = "timeout"  # parsing took longer than the per-document limit; not ingested


Severity = Literal["error", "warning"]
Access = Literal["read", "write"]
Side = Literal["input", "output"]


class SpecError(BaseModel):
    """A dropped operation (severity ``error``) or a loss in one that was kept (``warning``)."""

    model_config = ConfigDict(frozen=True)

    source_file: str
    pointer: str = Field(description="JSON pointer into the document ('' = whole document)")
    kind: ErrorKind
    severity: Severity = "error"
    message: str
    doc_hash: str = ""
    service: str | None = None
    tool: str | None = None

    def to_row(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class FieldInfo(BaseModel):
    """One parameter or output field and its inferred semantic type.

    ``path`` is dotted from the schema root, ``[]`` marking array items: ``customer.email``,
    ``items[].product_id``, ``[].id`` for ids in a top-level array.
    """

    model_config = ConfigDict(frozen=True)

    side: Side
    path: str
    type: str | None = None  # the JSON type ("string", "integer", "object", ...)
    required: bool = False
    semantic: str | None = None  # a name from library.runtime.semantic (REGISTRY or ID)
    ref: str | None = None  # for ids: the resource (plural collection name) referenced
    source: str | None = None  # how the semantic type was inferred (explicit, format, name, ...)


class HttpBinding(BaseModel):
    """How a tool's input maps back onto an HTTP request (OpenAPI and Swagger only)."""

    model_config = ConfigDict(frozen=True)

    method: str
    path: str
    params: dict[str, str] = Field(default_factory=dict)  # input property -> path|query|body
    body: str | None = None  # "merged" (object body spread into the input) or the property name
    content_type: str | None = None


class ToolSpec(BaseModel):
    id: str = Field(description="content hash of service, name, description, schemas, HTTP route")
    service: str
    name: str
    description: str = ""
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    format: SpecFormat
    format_version: str | None = None
    source_file: str
    source_pointer: str
    doc_hash: str
    http: HttpBinding | None = None
    resource: str | None = None
    verb: Verb | None = None
    access: Access = "write"
    access_source: str = "default"  # x-tool-type | readOnlyHint | http | verb | default
    fields: list[FieldInfo] = Field(default_factory=list)
    vendor: dict[str, Any] = Field(default_factory=dict)  # x-tool-type, annotations, tags, ...

    @property
    def classified(self) -> bool:
        return self.resource is not None and self.verb is not None

    @property
    def id_refs(self) -> dict[str, str]:
        """``{field path: referenced resource}`` for every id field."""
        return {f.side + ":" + f.path: f.ref for f in self.fields if f.semantic == ID and f.ref}

    def semantics(self, side: Side) -> list[str]:
        """Sorted semantic keys on one side; ids carry their resource (``id:contacts``)."""
        keys = {
            f"{f.semantic}:{f.ref}" if f.semantic == ID and f.ref else f.semantic
            for f in self.fields
            if f.side == side and f.semantic
        }
        return sorted(keys)

    def to_row(self) -> dict[str, Any]:
        """A row of the warehouse ``specs`` table (JSON-shaped values stay Python objects)."""
        return {
            "tool_id": self.id,
            "doc_hash": self.doc_hash,
            "service": self.service,
            "name": self.name,
            "description": self.description,
            "format": str(self.format),
            "format_version": self.format_version,
            "source_file": self.source_file,
            "source_pointer": self.source_pointer,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "http_method": self.http.method if self.http else None,
            "http_path": self.http.path if self.http else None,
            "http": self.http.model_dump() if self.http else None,
            "resource": self.resource,
            "verb": str(self.verb) if self.verb else None,
            "access": self.access,
            "access_source": self.access_source,
            "fields": [f.model_dump(exclude_defaults=True) for f in self.fields],
            "id_refs": self.id_refs,
            "input_semantics": self.semantics("input"),
            "output_semantics": self.semantics("output"),
            "vendor": self.vendor,
        }


def _json(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def spec_from_row(row: dict[str, Any]) -> ToolSpec:
    """A ToolSpec back from a ``specs`` table row (the inverse of ``ToolSpec.to_row``)."""
    http = _json(row.get("http"))
    return ToolSpec(
        id=row["tool_id"],
        service=row["service"],
        name=row["name"],
        description=row.get("description") or "",
        input_schema=_json(row["input_schema"]),
        output_schema=_json(row.get("output_schema")),
        format=row["format"],
        format_version=row.get("format_version"),
        source_file=row["source_file"],
        source_pointer=row["source_pointer"],
        doc_hash=row["doc_hash"],
        http=HttpBinding.model_validate(http) if http else None,
        resource=row.get("resource"),
        verb=row.get("verb"),
        access=row["access"],
        access_source=row.get("access_source") or "default",
        fields=[FieldInfo.model_validate(f) for f in _json(row.get("fields")) or []],
        vendor=_json(row.get("vendor")) or {},
    )


def tool_id(
    service: str,
    name: str,
    description: str,
    input_schema: dict[str, Any],
    output_schema: dict[str, Any] | None,
    http: HttpBinding | None = None,
) -> str:
    """The content hash that identifies a tool: same definition, same id, wherever it came from."""
    binding = [http.method, http.path] if http is not None else None
    payload = orjson.dumps(
        [service, name, description, input_schema, output_schema, binding],
        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
    )
    return hashlib.blake2b(payload, digest_size=12).hexdigest()


def services_of(specs: Iterable[ToolSpec]) -> dict[str, list[ToolSpec]]:
    """The tool specs of each service, in order. Two different files that claim one service
    name (tau-bench's and tau2's ``retail``) are two services: the later file's is renamed
    ``<parent folder>_<service>`` (``tau_bench_retail``). The factory and the in-process
    libraries read specs through this one rule, so their services are the same."""
    owner: dict[str, str] = {}  # service name -> the source file that owns it
    grouped: dict[str, list[ToolSpec]] = {}
    for spec in specs:
        name = spec.service
        first = owner.setdefault(name, spec.source_file)
        if first != spec.source_file:
            name = f"{PurePath(spec.source_file).parent.name}_{name}"
            spec = spec.model_copy(update={"service": name})
        grouped.setdefault(name, []).append(spec)
    return grouped
