"""A required field of any type (``value: {}``) may hold null: it is kept when the state is
dumped, or the dump does not load back (every tool of webflow.com failed ``round_trip``)."""

from __future__ import annotations

import orjson

from library.ingest import ingest_document
from library.verify import build_service

DOC = {"$ref": "#/components/schemas/Document"}
DOCS = {
    "openapi": "3.0.0",
    "info": {"title": "Docs", "version": "1"},
    "paths": {
        "/documents": {
            "get": {"operationId": "listDocuments", "responses": {"200": {"content": {
                "application/json": {"schema": {"type": "array", "items": DOC}}}}}},
        },
        "/documents/{documentId}": {
            "get": {"operationId": "getDocument",
                    "parameters": [{"name": "documentId", "in": "path", "required": True,
                                    "schema": {"type": "string"}}],
                    "responses": {"200": {"content": {"application/json": {"schema": DOC}}}}},
        },
    },
    "components": {"schemas": {"Document": {
        "type": "object", "required": ["documentId", "groundTruth"],
        "properties": {
            "documentId": {"type": "string"},
            "groundTruth": {"type": "array", "items": {
                "type": "object", "required": ["label", "value"],
                "properties": {"label": {"type": "string"}, "value": {}}}},
        },
    }}},
}  # fmt: skip


def test_a_required_value_of_any_type_survives_the_round_trip() -> None:
    specs, _ = ingest_document(orjson.dumps(DOCS), source_file="docs.json")
    build = build_service(specs)
    for name in ("listDocuments", "getDocument"):
        assert name in build.verified, build.outcomes[name]
