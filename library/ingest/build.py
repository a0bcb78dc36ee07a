"""From a parsed RawTool to a ToolSpec: resource, verb, read/write, semantic types, id."""

from __future__ import annotations

from typing import Any

from library.ingest.naming import resource_name, tokens
from library.ingest.raw import RawTool
from library.ingest.semantics import infer_fields
from library.ingest.stated_values import with_stated_values
from library.ingest.verbs import (
    http_access,
    http_verb,
    name_access,
    name_verb_resource,
    path_shape,
)
from library.toolspec import SpecFormat, ToolSpec, tool_id

_ID_SUFFIXES = frozenset({"id", "ids", "uuid", "guid"})


def id_resources(input_schema: dict[str, Any]) -> list[str]:
    """Resources named by the tool's top-level ``<x>_id`` / ``<x>Id`` parameters, in order."""
    props = input_schema.get("properties")
    if not isinstance(props, dict):
        return []
    found: list[str] = []
    for name in props:
        toks = tokens(name)
        if len(toks) > 1 and toks[-1] in _ID_SUFFIXES:
            resource = resource_name(toks[:-1])
            if resource and resource not in found:
                found.append(resource)
    return found


def build_spec(
    raw: RawTool,
    *,
    service: str,
    fmt: SpecFormat,
    version: str | None,
    source_file: str,
    doc_hash: str,
    foreign: frozenset[tuple[str, str]] = frozenset(),
) -> ToolSpec:
    """``foreign``: (path parameter, collection) pairs where the document shows the parameter
    names no record of the collection it follows (``verbs.foreign_path_params``)."""
    # Values a description states as the only ones allowed are the enum the schema omits.
    input_schema = with_stated_values(raw.input_schema)
    output_schema = with_stated_values(raw.output_schema)
    path_refs: dict[str, str] | None = None
    if raw.http is not None:
        shape = path_shape(raw.http.path)
        verb = http_verb(raw.http.method, shape, raw.name)
        resource = shape.collection
        if resource is None:  # e.g. `/{name}:verify`: fall back to what the name says
            resource = name_verb_resource(raw.name, service, id_resources(input_schema))[1]
        access, access_source = http_access(raw.http.method, verb), "http"
        path_refs = {k: v for k, v in shape.params.items() if (k, v) not in foreign} or None
    else:
        verb, resource, word = name_verb_resource(
            raw.name,
            service,
            id_resources(input_schema),
            takes_arguments=bool(input_schema.get("required")),
            description=raw.description,
        )
        named_access = name_access(verb, word)
        # A tool we cannot classify is assumed to write: the safe side for composition.
        access, access_source = (named_access, "verb") if named_access else ("write", "default")
    if raw.declared_access is not None:
        access, access_source = raw.declared_access
    fields = infer_fields(input_schema, output_schema, resource, path_refs)
    return ToolSpec.model_construct(
        id=tool_id(service, raw.name, raw.description, input_schema, output_schema, raw.http),
        service=service,
        name=raw.name,
        description=raw.description,
        input_schema=input_schema,
        output_schema=output_schema,
        format=fmt,
        format_version=version,
        source_file=source_file,
        source_pointer=raw.pointer,
        doc_hash=doc_hash,
        http=raw.http,
        resource=resource,
        verb=verb,
        access=access,
        access_source=access_source,
        fields=fields,
        vendor=raw.vendor,
    )
