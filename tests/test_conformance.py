"""The conformance suite catches real bugs: a small hand-written service passes every check,
and each deliberately broken variant fails the check named for its bug."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from library.runtime import DateTime, ErrorCode, Record, Ref, Service, State, ToolError, tool
from library.seed import SeedPool
from library.verify import CheckResult, run_conformance, verified_tools
from library.verify.reasons import reason_category

NoteId = Ref["notes"]

NOTE_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "body": {"type": "string"},
        "created_at": {"type": "string", "format": "date-time"},
    },
    "required": ["id", "title", "created_at"],
}
ID_FIELD = {"side": "input", "path": "note_id", "type": "string", "semantic": "id", "ref": "notes"}


def spec(name: str, verb: str, inputs: dict, required: list[str], output: dict | None) -> dict:
    """A spec as the warehouse stores it (a ToolSpec row), for the ``notes`` service."""
    return {
        "service": "notes",
        "name": name,
        "verb": verb,
        "resource": "notes",
        "access": "read" if verb in ("read", "list", "search") else "write",
        "input_schema": {"type": "object", "properties": inputs, "required": required},
        "output_schema": output,
        "fields": [ID_FIELD] if "note_id" in inputs else [],
    }


TEXT = {"type": "string"}
SPECS = [
    spec("create_note", "create", {"title": TEXT, "body": TEXT}, ["title"], NOTE_SCHEMA),
    spec("get_note", "read", {"note_id": TEXT}, ["note_id"], NOTE_SCHEMA),
    spec(
        "list_notes",
        "list",
        {"limit": {"type": "integer", "minimum": 1, "maximum": 100}, "offset": {"type": "integer"}},
        [],
        {"type": "array", "items": NOTE_SCHEMA},
    ),
    spec(
        "update_note",
        "update",
        {"note_id": TEXT, "title": TEXT, "body": TEXT},
        ["note_id"],
        NOTE_SCHEMA,
    ),
    spec("delete_note", "delete", {"note_id": TEXT}, ["note_id"], NOTE_SCHEMA),
]


class Note(Record):
    title: str
    body: str = ""
    created_at: DateTime


class NotesState(State):
    notes: dict[str, Note] = {}


class Notes(Service):
    """A correct notes service, written the way the reference services are."""

    name = "notes"
    State = NotesState
    state: NotesState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> NotesState:
        self.state = NotesState()
        for person in rng.sample(pool.people, size):
            self.put(
                "notes",
                Note(
                    id=self.new_id("note"), title=f"Call {person.full_name}", created_at=self.now()
                ),
            )
        return self.state

    @tool(write=True)
    def create_note(self, title: str, body: str = "") -> Note:
        """Create a note.

        Args:
            title: Title.
            body: Text.
        """
        return self.put(
            "notes", Note(id=self.new_id("note"), title=title, body=body, created_at=self.now())
        )

    @tool
    def get_note(self, note_id: NoteId) -> Note:
        """Get a note.

        Args:
            note_id: The note's id.
        """
        return self.get("notes", note_id)

    @tool
    def list_notes(self, limit: int = 20, offset: int = 0) -> list[Note]:
        """List notes.

        Args:
            limit: Page size.
            offset: Notes to skip.
        """
        return list(self.state.notes.values())[offset : offset + limit]

    @tool(write=True)
    def update_note(
        self, note_id: NoteId, title: str | None = None, body: str | None = None
    ) -> Note:
        """Change a note.

        Args:
            note_id: The note's id.
            title: New title.
            body: New text.
        """
        return self.update("notes", note_id, title=title, body=body)

    @tool(write=True)
    def delete_note(self, note_id: NoteId) -> Note:
        """Delete a note.

        Args:
            note_id: The note's id.
        """
        return self.delete("notes", note_id)


# -- broken variants: each has one bug --------------------------------------------------------
class WrongRecord(Notes):
    @tool
    def get_note(self, note_id: NoteId) -> Note:
        """Get a note (returns the first note, whatever the id).

        Args:
            note_id: The note's id.
        """
        self.get("notes", note_id)
        return next(iter(self.state.notes.values()))


class UpdateLost(Notes):
    @tool(write=True)
    def update_note(
        self, note_id: NoteId, title: str | None = None, body: str | None = None
    ) -> Note:
        """Change a note (but never store the change).

        Args:
            note_id: The note's id.
            title: New title.
            body: New text.
        """
        note = self.get("notes", note_id)
        return note.model_copy(
            update={k: v for k, v in {"title": title, "body": body}.items() if v}
        )


class DeleteKeeps(Notes):
    @tool(write=True)
    def delete_note(self, note_id: NoteId) -> Note:
        """Delete a note (but keep it).

        Args:
            note_id: The note's id.
        """
        return self.get("notes", note_id)


class BadOutput(Notes):
    @tool
    def get_note(self, note_id: NoteId) -> dict:
        """Get a note (with its title as a number, which the schema refuses).

        Args:
            note_id: The note's id.
        """
        note = self.get("notes", note_id)
        return {"id": note.id, "title": 42, "created_at": note.created_at.isoformat()}


class MutatingRead(Notes):
    @tool
    def list_notes(self, limit: int = 20, offset: int = 0) -> list[Note]:
        """List notes (and mark them seen, in place).

        Args:
            limit: Page size.
            offset: Notes to skip.
        """
        for key, note in list(self.state.notes.items()):
            self.state.notes[key] = note.model_copy(update={"body": "seen"})
        return list(self.state.notes.values())[offset : offset + limit]


class RandomIds(Notes):
    @tool(write=True)
    def create_note(self, title: str, body: str = "") -> Note:
        """Create a note with a random id (not from the World's seeded generator).

        Args:
            title: Title.
            body: Text.
        """
        note = Note(
            id=f"note_{uuid.uuid4().hex[:10]}", title=title, body=body, created_at=self.now()
        )
        return self.put("notes", note)


class SilentMiss(Notes):
    @tool
    def get_note(self, note_id: NoteId) -> Note:
        """Get a note (an unknown id returns some note instead of not_found).

        Args:
            note_id: The note's id.
        """
        return self.state.notes.get(note_id) or next(iter(self.state.notes.values()))


class Permissive(Notes):
    @tool
    def get_note(self, note_id: object = None) -> Note:
        """Get a note (accepts anything, even no id).

        Args:
            note_id: The note's id.
        """
        if not isinstance(note_id, str):
            raise ToolError(ErrorCode.NOT_FOUND, "no such note")
        return self.get("notes", note_id)


class CreatedUnlisted(Notes):
    @tool
    def list_notes(self, limit: int = 20, offset: int = 0) -> list[Note]:
        """List notes (only those seeded: a created note never shows).

        Args:
            limit: Page size.
            offset: Notes to skip.
        """
        seeded = [n for n in self.state.notes.values() if n.body == ""]
        return [n for n in seeded if n.title.startswith("Call ")][offset : offset + limit]


class RefusalLeaks(Notes):
    @tool
    def get_note(self, note_id: object) -> Note:
        """Get a note (an id that is not text marks every note seen, then is refused).

        Args:
            note_id: The note's id.
        """
        if not isinstance(note_id, str):
            for key, note in list(self.state.notes.items()):
                self.state.notes[key] = note.model_copy(update={"body": "seen"})
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "note_id: not a note id")
        return self.get("notes", note_id)


class Unreloadable(Notes):
    @tool(write=True)
    def create_note(self, title: str, body: str = "") -> Note:
        """Create a note (its body stored as the text's length: no reload of the state takes it).

        Args:
            title: Title.
            body: Text.
        """
        note = Note(id=self.new_id("note"), title=title, body=body, created_at=self.now())
        self.put("notes", note.model_copy(update={"body": len(body)}))
        return note


def failed(results: list[CheckResult]) -> dict[tuple[str, str], str]:
    return {(r.tool, r.check): r.detail for r in results if not r.passed}


def test_correct_service_passes_every_check() -> None:
    results = run_conformance(Notes, SPECS)
    assert failed(results) == {}
    assert all(verified_tools(results).values())
    checks = {(r.tool, r.check) for r in results}
    for pair in [
        ("create_note", "read_after_write"),
        ("update_note", "read_after_write"),
        ("delete_note", "read_after_write"),
        ("list_notes", "read_only"),
        ("get_note", "not_found"),
        ("create_note", "determinism"),
        ("create_note", "round_trip"),
        ("get_note", "output_schema"),
    ]:
        assert pair in checks


@pytest.mark.parametrize(
    ("broken", "tool", "check"),
    [
        (WrongRecord, "create_note", "read_after_write"),
        (UpdateLost, "update_note", "read_after_write"),
        (DeleteKeeps, "delete_note", "read_after_write"),
        (BadOutput, "get_note", "output_schema"),
        (MutatingRead, "list_notes", "read_only"),
        (RandomIds, "create_note", "determinism"),
        (SilentMiss, "get_note", "not_found"),
        (Permissive, "get_note", "invalid_argument"),
        (CreatedUnlisted, "create_note", "read_after_write"),
        (RefusalLeaks, "get_note", "invalid_argument"),
        pytest.param(  # a state that no longer reloads (pydantic warns as it dumps it)
            Unreloadable,
            "create_note",
            "round_trip",
            marks=pytest.mark.filterwarnings("ignore:Pydantic serializer warnings"),
        ),
    ],
)
def test_each_bug_is_caught_by_its_check(broken: type[Service], tool: str, check: str) -> None:
    problems = failed(run_conformance(broken, SPECS))
    assert (tool, check) in problems, problems
    assert not verified_tools(run_conformance(broken, SPECS))[tool]


def test_the_rule_each_bug_breaks_is_named() -> None:
    """The check fails for the bug's own reason, not a neighbouring one."""
    unlisted = failed(run_conformance(CreatedUnlisted, SPECS))
    assert unlisted[("create_note", "read_after_write")] == "the created record is not in the list"
    leaks = failed(run_conformance(RefusalLeaks, SPECS))
    assert "changed the state" in leaks[("get_note", "invalid_argument")]


def test_missing_tool_and_signature_mismatch() -> None:
    extra = spec("archive_note", "action", {"note_id": TEXT}, ["note_id"], NOTE_SCHEMA)
    renamed = {**SPECS[0], "input_schema": {"type": "object", "properties": {"name": TEXT}}}
    problems = failed(run_conformance(Notes, [extra, renamed]))
    assert problems[("archive_note", "implemented")]
    assert "missing parameters ['name']" in problems[("create_note", "signature")]


def test_results_are_json_rows_and_fast() -> None:
    results = run_conformance(Notes, SPECS)
    row = results[0].to_row()
    assert set(row) == {"service", "tool", "check", "passed", "detail", "duration_s"}
    assert sum(r.duration_s for r in results) < 1.0


RANGE_LIST = spec(
    "list_notes",
    "list",
    {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "offset": {"type": "integer"},
        "created_after": {"type": "string", "description": "Only notes created at or after."},
    },
    [],
    {"type": "array", "items": NOTE_SCHEMA},
)


def _since(svc: Notes, limit: int, offset: int, created_after: object) -> list[Note]:
    found = [
        n
        for n in svc.state.notes.values()
        if created_after is None or n.created_at >= created_after  # type: ignore[operator]
    ]
    return found[offset : offset + limit]


class RangeNotes(Notes):
    """Correct: the bound is parsed as a moment, so any text is refused or compared."""

    @tool
    def list_notes(
        self, limit: int = 20, offset: int = 0, created_after: DateTime | None = None
    ) -> list[Note]:
        """List notes.

        Args:
            limit: Page size.
            offset: Notes to skip.
            created_after: Only notes created at or after this moment.
        """
        return _since(self, limit, offset, created_after)


class RangeCrash(Notes):
    """The bug of issue 12: the record's datetime compared with the text it was given."""

    @tool
    def list_notes(
        self, limit: int = 20, offset: int = 0, created_after: str | None = None
    ) -> list[Note]:
        """List notes created after a moment (given as text, compared as it is)."""
        return _since(self, limit, offset, created_after)  # compares a datetime with text


class LastPageCrash(Notes):
    """Crashes on the largest page the spec allows (an off-by-one in a buffer)."""

    @tool
    def list_notes(self, limit: int = 20, offset: int = 0) -> list[Note]:
        """List notes.

        Args:
            limit: Page size.
            offset: Notes to skip.
        """
        if limit >= 100:
            raise IndexError("page buffer holds 99 notes")
        return list(self.state.notes.values())[offset : offset + limit]


def test_every_optional_parameter_is_exercised() -> None:
    assert failed(run_conformance(RangeNotes, [RANGE_LIST])) == {}
    problems = failed(run_conformance(RangeCrash, [RANGE_LIST]))
    detail = problems[("list_notes", "every_parameter")]
    assert "created_after=" in detail and "internal" in detail and "TypeError" in detail
    problems = failed(run_conformance(LastPageCrash, SPECS))
    assert "limit=100" in problems[("list_notes", "every_parameter")]


SINCE_LIST = spec(
    "list_notes",
    "list",
    {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "offset": {"type": "integer"},
        "created_since": {"type": "string", "format": "date-time"},
    },
    [],
    {"type": "array", "items": NOTE_SCHEMA},
)


def _created(svc: Notes, since: DateTime | None, keep: Callable[[Any, Any], bool]) -> list[Note]:
    notes = list(svc.state.notes.values())
    return [n for n in notes if since is None or keep(n.created_at, since)]


class SinceNotes(Notes):
    """Correct: ``created_since`` keeps the notes created at or after the bound."""

    @tool
    def list_notes(
        self, limit: int = 20, offset: int = 0, created_since: DateTime | None = None
    ) -> list[Note]:
        """List notes.

        Args:
            limit: Page size.
            offset: Notes to skip.
            created_since: Only notes created at or after this moment.
        """
        found = _created(self, created_since, lambda at, bound: at >= bound)
        return found[offset : offset + limit]


class SinceStrict(SinceNotes):
    """``>`` for ``>=``: a note created at the bound is left out."""

    @tool
    def list_notes(
        self, limit: int = 20, offset: int = 0, created_since: DateTime | None = None
    ) -> list[Note]:
        """List notes created after a moment (strictly)."""
        found = _created(self, created_since, lambda at, bound: at > bound)
        return found[offset : offset + limit]


class SinceBackwards(SinceNotes):
    """``<=`` for ``>=``: the bound is read as an upper one."""

    @tool
    def list_notes(
        self, limit: int = 20, offset: int = 0, created_since: DateTime | None = None
    ) -> list[Note]:
        """List notes created up to a moment."""
        found = _created(self, created_since, lambda at, bound: at <= bound)
        return found[offset : offset + limit]


class SpreadNotes(SinceNotes):
    """Notes seeded at different moments (a range filter needs values to tell apart)."""

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> NotesState:
        self.state = NotesState()
        for k, person in enumerate(rng.sample(pool.people, size)):
            at = self.now() - dt.timedelta(days=k)
            note = Note(id=self.new_id("note"), title=f"Call {person.full_name}", created_at=at)
            self.put("notes", note)
        return self.state


def test_range_filters_are_checked_at_their_bound() -> None:
    correct = type("Correct", (SpreadNotes,), {})
    assert failed(run_conformance(correct, [SINCE_LIST])) == {}
    strict = type("Strict", (SpreadNotes,), {"list_notes": SinceStrict.list_notes})
    problems = failed(run_conformance(strict, [SINCE_LIST]))
    assert "left out the record" in problems[("list_notes", "range_filter")]
    backwards = type("Backwards", (SpreadNotes,), {"list_notes": SinceBackwards.list_notes})
    problems = failed(run_conformance(backwards, [SINCE_LIST]))
    assert "listed a record whose created_at" in problems[("list_notes", "range_filter")]


def test_rejection_reasons_group_into_categories() -> None:
    assert reason_category("output is not a template record") == (
        "output is not a <resource> record"
    )
    assert reason_category("compiler: valid_call: not_found: no tag with id 'x'") == (
        "valid_call: not_found"
    )
    assert reason_category(
        "compiler: every_parameter: with created_after='x': internal: t raised TypeError: no"
    ) == ("every_parameter: internal (TypeError)")
    assert reason_category("no output schema, and nothing is known about usage but their id") == (
        "no output schema, and nothing is known about <x> but their id"
    )
    assert reason_category("no resource recognised; no model configured for the tiers") == (
        "no resource recognised"
    )
