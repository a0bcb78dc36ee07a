"""The world-model tier with scripted model answers through litellm: valid answers applied,
invalid ones rejected and retried, persistent failure as an error envelope, the cache."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from library.llm import LLMClient, LLMSettings, MemoryCallStore
from library.llm.testing import ScriptedModel
from library.runtime import DateTime, Record, Ref, Service, State, ToolDef, World, tool
from library.toolspec import SpecFormat, ToolSpec, Verb, tool_id
from library.world_model import (
    InvalidAnswer,
    MemoryAnswerCache,
    WorldModelSettings,
    WorldModelTool,
    simulated_service,
    state_slice,
)
from library.world_model.state import DocumentState, ModelState

NoteId = Ref["notes"]
T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


class Note(Record):
    title: str
    body: str
    pinned: bool = False
    created_at: DateTime


class Tag(Record):
    label: str


class NotesState(State):
    notes: dict[str, Note] = {}
    tags: dict[str, Tag] = {}


class NotesReference(Service):
    """Only here to derive the specs' schemas from code; the tools are never run."""

    name = "notes"
    State = NotesState

    @tool(write=True)
    def create_note(self, title: str, body: str, pinned: bool = False) -> Note:
        """Create a note.

        Args:
            title: The note's title.
            body: The note's text.
            pinned: Whether the note is pinned.
        """
        raise NotImplementedError

    @tool
    def get_note(self, note_id: NoteId) -> Note:
        """Get one note by id.

        Args:
            note_id: The note's id.
        """
        raise NotImplementedError

    @tool(write=True)
    def pin_note(self, note_id: NoteId) -> Note:
        """Pin a note.

        Args:
            note_id: The note's id.
        """
        raise NotImplementedError


def spec_from(td: ToolDef, verb: Verb) -> ToolSpec:
    return ToolSpec(
        id=tool_id("notes", td.name, td.description, td.input_schema, td.output_schema),
        service="notes",
        name=td.name,
        description=td.description,
        input_schema=td.input_schema,
        output_schema=td.output_schema,
        format=SpecFormat.MCP,
        source_file="notes.json",
        source_pointer=f"/tools/{td.name}",
        doc_hash="test",
        resource="notes",
        verb=verb,
        access="write" if td.write else "read",
    )


VERBS = {"create_note": Verb.CREATE, "get_note": Verb.READ, "pin_note": Verb.ACTION}
SPECS = {name: spec_from(NotesReference.tools[name], verb) for name, verb in VERBS.items()}
FIRST = Note(id="note_1", title="Plan", body="Ship it", created_at=T0)
FIRST_JSON = FIRST.model_dump(mode="json")


def initial_state() -> NotesState:
    return NotesState(notes={FIRST.id: FIRST}, tags={"tag_1": Tag(id="tag_1", label="work")})


def answer(result: Any = None, patch: list | None = None, **extra: Any) -> str:
    return orjson.dumps({"result": result, "state_patch": patch or [], **extra}).decode()


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as server:
        yield server


def world_for(model: ScriptedModel, store: MemoryCallStore | None = None, **settings: Any):
    service = simulated_service(
        "notes",
        list(SPECS.values()),
        NotesState,
        LLMClient(model.settings(), store or MemoryCallStore()),
        settings=WorldModelSettings(**settings),
        state=initial_state(),
    )
    return World([service]), service


def test_a_valid_write_answer_is_applied_and_returned(model: ScriptedModel) -> None:
    world, service = world_for(model)
    new = {**FIRST_JSON, "id": "note_2", "title": "Retro", "body": "Friday"}
    model.add(answer(new, [{"op": "add", "path": "/notes/note_2", "value": new}]))
    before = world.snapshot()

    envelope = world.call("notes__create_note", {"title": "Retro", "body": "Friday"})

    assert envelope == {"success": True, "data": new}
    assert isinstance(service.state.notes["note_2"], Note)
    assert service.state.notes["note_2"].title == "Retro"
    assert list(world.diff(before).collection("notes", "notes").added) == ["note_2"]
    prompt = model.prompt_text(0)
    assert '{"title":"Retro","body":"Friday"}' in prompt  # the arguments
    assert '"notes":{"note_1":{"id":"note_1"' in prompt  # the state slice
    assert '"name": "create_note"' in prompt and "2026-03-02T09:00:00" in prompt  # now


def test_an_invalid_patch_is_rejected_and_retried(model: ScriptedModel) -> None:
    world, service = world_for(model)
    pinned = {**FIRST_JSON, "pinned": True}
    model.add(
        answer(pinned, [{"op": "replace", "path": "/notes/note_1/pinned", "value": "very"}]),
        answer(pinned, [{"op": "replace", "path": "/notes/note_1/pinned", "value": True}]),
    )
    envelope = world.call("notes__pin_note", {"note_id": "note_1"})
    assert envelope == {"success": True, "data": pinned}
    assert service.state.notes["note_1"].pinned is True
    assert model.hits == 2
    retry = model.prompt_text(1)
    assert "That answer was rejected: the patched state is invalid" in retry
    assert "notes.note_1.pinned" in retry


def test_persistent_invalid_answers_end_in_an_error_envelope(model: ScriptedModel) -> None:
    world, service = world_for(model, max_attempts=3)
    bad = answer(FIRST_JSON, [{"op": "remove", "path": "/notes/note_1/title"}])
    model.add(bad, bad, bad)
    before = world.state_hash()
    state = service.state

    envelope = world.call("notes__pin_note", {"note_id": "note_1"})

    assert envelope["success"] is False and envelope["error"]["code"] == "internal"
    message = envelope["error"]["message"]
    assert "no valid answer for pin_note after 3 attempts" in message
    assert "notes.note_1.title: Field required" in message
    assert service.state is state and world.state_hash() == before
    assert model.hits == 3


@pytest.mark.parametrize(
    ("tool_name", "reply", "reason"),
    [
        (
            "pin_note",
            answer(FIRST_JSON, [{"op": "add", "path": "/notes/note_1/colour", "value": "red"}]),
            "notes.note_1.colour: Extra inputs are not permitted",
        ),
        (
            "create_note",
            answer(FIRST_JSON, [{"op": "add", "path": "/notes/x", "value": FIRST_JSON}]),
            "a record's key must equal its id",
        ),
        (
            "pin_note",
            answer(FIRST_JSON, [{"op": "replace", "path": "/notes/nope/pinned", "value": True}]),
            "state_patch cannot be applied",
        ),
        ("pin_note", answer(FIRST_JSON, [{"path": "/seq"}]), "state_patch cannot be applied"),
        ("get_note", answer({"id": "note_1"}), "result: 'title' is a required property"),
        (
            "get_note",
            answer(FIRST_JSON, [{"op": "replace", "path": "/seq", "value": 9}]),
            "get_note is read-only: its state_patch must be []",
        ),
        ("get_note", "Sure! The note is called Plan.", "the answer is not a JSON object"),
        ("get_note", '{"state_patch": []}', 'the answer needs "result"'),
        ("get_note", '{"error": {"code": "oops", "message": "x"}}', "code is one of"),
    ],
)
def test_invalid_answers_are_rejected_with_a_reason(
    model: ScriptedModel, tool_name: str, reply: str, reason: str
) -> None:
    model.add(reply)
    tool_ = WorldModelTool(
        SPECS[tool_name],
        LLMClient(model.settings(), MemoryCallStore()),
        settings=WorldModelSettings(max_attempts=1),
    )
    state = initial_state()
    args = {"title": "T", "body": "B"} if tool_name == "create_note" else {"note_id": "note_1"}
    sim = tool_.call(state, args, now=T0)
    assert sim.envelope["success"] is False and sim.envelope["error"]["code"] == "internal"
    assert reason in sim.envelope["error"]["message"], sim.rejections
    assert sim.state is None and state == initial_state()


def test_a_read_answer_leaves_the_state_alone(model: ScriptedModel) -> None:
    world, service = world_for(model)
    model.add(f"```json\n{answer(FIRST_JSON)}\n```")
    state = service.state
    assert world.call("notes__get_note", {"note_id": "note_1"}) == {
        "success": True,
        "data": FIRST_JSON,
    }
    assert service.state is state


def test_an_error_answer_becomes_an_error_envelope(model: ScriptedModel) -> None:
    world, _ = world_for(model)
    model.add('{"error": {"code": "not_found", "message": "no note with id \'note_9\'"}}')
    envelope = world.call("notes__get_note", {"note_id": "note_9"})
    assert envelope == {
        "success": False,
        "error": {"code": "not_found", "message": "no note with id 'note_9'"},
    }


def test_answers_are_cached_by_tool_state_and_arguments(model: ScriptedModel) -> None:
    world, service = world_for(model)
    new = {**FIRST_JSON, "id": "note_2", "title": "Retro"}
    model.add(
        answer(FIRST_JSON), answer(new, [{"op": "add", "path": "/notes/note_2", "value": new}])
    )

    first = world.call("notes__get_note", {"note_id": "note_1"})
    again = world.call("notes__get_note", {"note_id": "note_1"})
    assert first == again and model.hits == 1

    snap = world.snapshot()
    created = world.call("notes__create_note", {"title": "Retro", "body": "Ship it"})
    after = world.state_hash()
    world.restore(snap)
    # Same tool, same state (after restore), same arguments: answered from the cache, and
    # the cached patch is applied again.
    assert world.call("notes__create_note", {"body": "Ship it", "title": "Retro"}) == created
    assert world.state_hash() == after and "note_2" in service.state.notes
    assert model.hits == 2
    # The read on the changed state is a new question.
    model.add(answer(FIRST_JSON))
    world.call("notes__get_note", {"note_id": "note_1"})
    assert model.hits == 3


def test_direct_calls_return_the_new_state_without_touching_the_old(
    model: ScriptedModel,
) -> None:
    pinned = {**FIRST_JSON, "pinned": True}
    model.add(answer(pinned, [{"op": "replace", "path": "/notes/note_1/pinned", "value": True}]))
    cache = MemoryAnswerCache()
    tool_ = WorldModelTool(
        SPECS["pin_note"], LLMClient(model.settings(), MemoryCallStore()), cache=cache
    )
    state = initial_state()
    sim = tool_.call(state, {"note_id": "note_1"}, now=T0)
    assert sim.envelope == {"success": True, "data": pinned} and sim.attempts == 1
    assert sim.state is not None and sim.state.notes["note_1"].pinned
    assert state.notes["note_1"].pinned is False
    cached = tool_.call(state, {"note_id": "note_1"}, now=T0)
    assert cached.cached and cached.state == sim.state and cache.hits == 1


def test_bad_arguments_are_refused_without_a_model(model: ScriptedModel) -> None:
    world, _ = world_for(model)
    wrong_type = world.call("notes__create_note", {"title": 5, "body": "B"})
    assert wrong_type["error"]["code"] == "invalid_argument"
    assert "arguments.title: 5 is not of type 'string'" in wrong_type["error"]["message"]
    missing = world.call("notes__create_note", {"title": "T"})
    assert missing["error"] == {"code": "invalid_argument", "message": "body: Field required"}
    unknown = world.call("notes__get_note", {"note_id": "note_1", "colour": "red"})
    assert unknown["error"]["code"] == "invalid_argument"
    assert model.hits == 0


def test_simulated_tools_publish_the_specs_schemas(model: ScriptedModel) -> None:
    world, _ = world_for(model)
    schemas = {s["name"]: s for s in world.tool_schemas("mcp")}
    assert schemas["notes__create_note"]["inputSchema"] == SPECS["create_note"].input_schema
    assert schemas["notes__get_note"]["outputSchema"] == SPECS["get_note"].output_schema
    assert schemas["notes__get_note"]["annotations"] == {"readOnlyHint": True}
    assert schemas["notes__pin_note"]["annotations"] == {"readOnlyHint": False}


def test_no_model_configured_is_an_internal_error_naming_the_variables() -> None:
    service = simulated_service(
        "notes", [SPECS["get_note"]], NotesState, LLMClient(LLMSettings()), state=initial_state()
    )
    envelope = World([service]).call("notes__get_note", {"note_id": "note_1"})
    assert envelope["error"]["code"] == "internal"
    assert "COMPOWORLD_LLM_MODEL" in envelope["error"]["message"]


def test_the_state_slice_keeps_the_tools_collections_and_the_records_it_names() -> None:
    notes = {
        f"note_{i}": Note(id=f"note_{i}", title=f"N{i}", body="b", created_at=T0)
        for i in range(1, 9)
    }
    state = NotesState(notes=notes, tags={"tag_1": Tag(id="tag_1", label="x")})
    doc, notes_text = state_slice(
        SPECS["get_note"], state, {"note_id": "note_8"}, max_records=3, max_chars=10_000
    )
    assert list(doc["notes"]) == ["note_8", "note_1", "note_2"]
    assert "tags" not in doc and doc["seq"] == 0
    assert notes_text == ["notes: showing 3 of 8 records", "collections not shown: tags"]
    small, _ = state_slice(SPECS["get_note"], state, {}, max_records=8, max_chars=600)
    assert 1 <= len(small["notes"]) < 8


# -- a sandboxed service's state, checked in the parent ---------------------------------------
def document_state(schema: dict | None = None) -> DocumentState:
    state = initial_state()
    return DocumentState(
        state.model_dump(mode="json", by_alias=True),
        schema or NotesState.model_json_schema(),
        list(NotesState.collection_types),
    )


def test_a_document_state_is_patched_and_checked_here_without_touching_the_original() -> None:
    doc = document_state()
    before = orjson.dumps(doc.doc)
    pinned = doc.patched([{"op": "replace", "path": "/notes/note_1/pinned", "value": True}])
    assert pinned.value["notes"]["note_1"]["pinned"] is True
    assert orjson.dumps(doc.doc) == before
    # Same state, same digest as the typed state: in process and sandboxed share cache keys.
    assert doc.digest() == ModelState(initial_state()).digest()
    refused = {
        "pinned is not a boolean": [
            {"op": "replace", "path": "/notes/note_1/pinned", "value": "yes"}
        ],
        "an unknown field": [{"op": "add", "path": "/notes/note_1/colour", "value": "red"}],
        "a record under another id": [
            {"op": "add", "path": "/notes/note_9", "value": {**FIRST_JSON, "id": "note_8"}}
        ],
        "a missing path": [{"op": "replace", "path": "/notes/note_7/title", "value": "x"}],
    }
    for why, patch in refused.items():
        with pytest.raises(InvalidAnswer, match=r"patched state is invalid|cannot be applied"):
            doc.patched(patch)
            pytest.fail(why)


def test_no_regular_expression_from_a_sandboxed_schema_runs_here() -> None:
    """A pattern built to backtrack would hang the parent: patterns are left to the worker's
    own model, every other constraint is checked here (a field called "pattern" too)."""
    schema = NotesState.model_json_schema()
    note = schema["$defs"]["Note"]["properties"]
    note["title"] = {"type": "string", "pattern": "^(a+)+$"}
    note["pattern"] = {"type": "integer"}
    doc = document_state(schema)
    # A value the pattern does not match is let through: had the pattern run here, it would
    # be refused (and a longer run of "a"s would hang the parent). No clock is needed.
    slow = "a" * 5 + "!"
    titled = doc.patched([{"op": "replace", "path": "/notes/note_1/title", "value": slow}])
    assert titled.value["notes"]["note_1"]["title"] == slow
    with pytest.raises(InvalidAnswer, match="is not of type 'integer'"):
        doc.patched([{"op": "add", "path": "/notes/note_1/pattern", "value": "x"}])
