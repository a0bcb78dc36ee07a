"""Records the spec shows only through their inputs (mutants of library/compiler/plan.py that
survived the other tests, bench/mutation.py): no tool answers with a note, yet a note has
``pin`` and ``close`` actions, so it gets the state they imply; pinning sets ``pinned`` and is
refused the second time, closing sets its status, and a refused action changes nothing."""

from __future__ import annotations

import pytest

from tests.test_mutation_kills_emit_tools import Client, _body, _ok, _path, verified_service

NEW_NOTE = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
ACK = {"type": "object", "properties": {"ok": {"type": "boolean"}}}  # never the note itself


def _action(word: str) -> dict:
    return {
        "post": {
            "operationId": f"{word}Note",
            "parameters": [_path("id")],
            "responses": _ok(ACK),
        }
    }


NOTES = {
    "openapi": "3.0.0",
    "info": {"title": "Notes", "version": "1"},
    "paths": {
        "/notes": {
            "post": {
                "operationId": "createNote",
                "requestBody": _body(NEW_NOTE),
                "responses": _ok(ACK),
            }
        },
        "/notes/{id}/pin": _action("pin"),
        "/notes/{id}/close": _action("close"),
    },
}


# Built for each test, not once per module (see test_mutation_kills_emit_tools).
@pytest.fixture
def client() -> Client:
    return Client(verified_service(NOTES))


def _only_note(client: Client) -> tuple[str, dict]:
    notes = client.state("notes")
    assert len(notes) == 1, notes
    ((note_id, note),) = notes.items()
    return note_id, note.model_dump(mode="json")


def test_pinning_a_note_known_only_from_inputs_pins_it_once(client: Client) -> None:
    client.ok("createNote", title="Agenda")
    note_id, note = _only_note(client)
    assert not note.get("pinned")
    client.ok("pinNote", id=note_id)
    assert _only_note(client)[1]["pinned"] is True
    assert client.refused("pinNote", id=note_id) == "failed_precondition"


def test_closing_a_note_known_only_from_inputs_sets_its_status(client: Client) -> None:
    client.ok("createNote", title="Agenda")
    note_id, _ = _only_note(client)
    client.ok("closeNote", id=note_id)
    assert _only_note(client)[1]["status"] == "closed"
