"""Which collection a tool of no collection of its own reads (mutants of
library/compiler/records.py that survived the other tests, bench/mutation.py): a list whose
records look like two collections' records (``listHighlights`` answering note-shaped records,
as notes and drafts are) reads the one a client can list and read (notes: create, list, get),
not the one with more tools that cannot be listed (drafts: create, get, replace, delete)."""

from __future__ import annotations

from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, verified_service

TEXT = {"type": "string"}
NOTE = {
    "type": "object",
    "required": ["id", "title", "body"],
    "properties": {"id": TEXT, "title": TEXT, "body": TEXT, "pinned": {"type": "boolean"}},
}
NEW = _body(
    {"type": "object", "required": ["title", "body"], "properties": {"title": TEXT, "body": TEXT}}
)
ID = [_path("id")]
NOTEBOOK = {
    "openapi": "3.0.0",
    "info": {"title": "Notebook", "version": "1"},
    "paths": {
        "/notes": {
            "post": {"operationId": "createNote", "requestBody": NEW, "responses": _ok(NOTE)},
            "get": {"operationId": "listNotes", "responses": _ok({"type": "array", "items": NOTE})},
        },
        "/notes/{id}": {
            "get": {"operationId": "getNote", "parameters": ID, "responses": _ok(NOTE)}
        },
        "/drafts": {
            "post": {"operationId": "createDraft", "requestBody": NEW, "responses": _ok(NOTE)}
        },
        "/drafts/{id}": {
            "get": {"operationId": "getDraft", "parameters": ID, "responses": _ok(NOTE)},
            "put": {
                "operationId": "replaceDraft",
                "parameters": ID,
                "requestBody": NEW,
                "responses": _ok(NOTE),
            },
            "delete": {"operationId": "deleteDraft", "parameters": ID, "responses": _ok(NOTE)},
        },
        "/highlights": {
            "get": {
                "operationId": "listHighlights",
                "responses": _ok({"type": "array", "items": NOTE}),
            }
        },
    },
}


def test_a_list_of_no_collection_reads_the_listable_collection_it_looks_like() -> None:
    client = Client(verified_service(NOTEBOOK))
    note = client.ok("createNote", title="Standup", body="Ship it")
    client.ok("createDraft", title="Retro", body="Later")
    assert client.ok("listHighlights") == [note]
