"""A tool whose name is a type the module's annotations use (``list`` beside ``list[str]``,
``AddColumn`` beside the model ``AddColumn``) gets another method name and keeps its tool
name: in the class body, every method defined after it would otherwise name the method in
its annotations, and the module fails to load (ClearBlade's 156 tools and GoDaddy Domains'
27 were refused whole, as "sandbox: TypeError")."""

from __future__ import annotations

from typing import Any

import orjson

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.verify import run_conformance, verified_tools


def _answer(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


NOTE = {"$ref": "#/components/schemas/Note"}
DOC = {
    "openapi": "3.0.0",
    "info": {"title": "Notes", "version": "1"},
    "paths": {
        "/notes": {
            "get": {"operationId": "list", "responses": _answer({"type": "array", "items": NOTE})},
            "post": {
                "operationId": "AddNote",
                "requestBody": _body({"$ref": "#/components/schemas/AddNote"}),
                "responses": _answer(NOTE),
            },
        },
        "/notes/{noteId}": {
            "get": {
                "operationId": "getNote",
                "parameters": [{"name": "noteId", "in": "path", "required": True, "schema": {}}],
                "responses": _answer(NOTE),
            },
            "patch": {
                "operationId": "tagNote",
                "parameters": [{"name": "noteId", "in": "path", "required": True, "schema": {}}],
                "requestBody": _body(
                    {
                        "type": "object",
                        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
                    }
                ),
                "responses": _answer(NOTE),
            },
        },
    },
    "components": {
        "schemas": {
            "Note": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
            },
            "AddNote": {
                "type": "object",
                "required": ["title"],
                "properties": {
                    "title": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}


def test_a_tool_named_as_a_type_loads_and_keeps_its_name() -> None:
    specs, errors = ingest_document(orjson.dumps(DOC), source_file="notes.json")
    assert specs, errors
    compiled = compile_service(specs)
    cls = load_service(compiled.source)  # a TypeError here before
    assert {"list", "AddNote", "getNote", "tagNote"} <= set(cls.tools)
    assert "def list(" not in compiled.source
    verified = verified_tools(run_conformance(cls, [s for s in specs if s.name in cls.tools]))
    assert verified["list"] and verified["tagNote"], verified
