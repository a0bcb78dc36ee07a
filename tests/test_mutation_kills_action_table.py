"""What an action verb does to a record, as a table (library/compiler/actions.py, for
bench/mutation.py): the status it moves to (the first of its targets the status enum has;
the first target for free text), the flag it sets where no status reads it, the assignee it
sets (and ``assigned`` where the status has it), the terminal states that refuse it (its own
target aside), the moment it stamps (``sent_at``, ``paid_at``, ``closed_at``), reopen-like
verbs, and a verb with no reading (None). And a parameter's values mapped onto statuses
(``won`` onto ``closed_won``) only where each maps onto exactly one."""

from __future__ import annotations

from typing import Any

import pytest

from library.compiler.actions import action_word, plan_action, stamp_field, status_mapping
from library.compiler.model import FieldPlan, Kind, RecordPlan, TypeSpec

MOMENT = TypeSpec(Kind.DATETIME, "DateTime")
FLAG = TypeSpec(Kind.BOOL, "bool")
STATES = ("draft", "sent", "paid", "void", "assigned", "closed", "archived", "open")


def _record(states: tuple[str, ...] | None = STATES, **fields: TypeSpec) -> RecordPlan:
    plans = {name: FieldPlan(name, name, spec) for name, spec in fields.items()}
    if states is not None:
        status = TypeSpec(Kind.ENUM, "Status", enum=states) if states else TypeSpec(Kind.STR, "str")
        plans["status"] = FieldPlan("status", "status", status)
    return RecordPlan("invoices", "Invoice", "", plans, "inv")


def _plan(word: str, record: RecordPlan, **params: str | None) -> tuple[Any, ...] | None:
    fields = {p: (record.fields.get(f) if f else None) for p, f in params.items()}
    plan = plan_action(word, record, fields)
    if plan is None:
        return None
    return (
        plan.status_field,
        plan.target,
        plan.flag_field,
        plan.flag_value,
        plan.assignee,
        plan.blocked,
        plan.stamp_field,
        plan.reopens,
    )


STAMPED = _record(sent_at=MOMENT, paid_at=MOMENT, closed_at=MOMENT, voided_at=MOMENT)
BLOCKED = ("void", "closed", "archived")


@pytest.mark.parametrize(
    ("word", "record", "params", "want"),
    [
        ("send", STAMPED, {}, ("status", "sent", None, True, None, BLOCKED, "sent_at", False)),
        ("pay", STAMPED, {}, ("status", "paid", None, True, None, BLOCKED, "paid_at", False)),
        (
            "void",
            STAMPED,
            {},
            ("status", "void", None, True, None, ("closed", "archived"), "voided_at", False),
        ),
        (
            "cancel",
            STAMPED,
            {},
            ("status", "void", None, True, None, ("closed", "archived"), "voided_at", False),
        ),
        (
            "close",
            STAMPED,
            {},
            ("status", "closed", None, True, None, ("void", "archived"), "closed_at", False),
        ),
        ("reopen", STAMPED, {}, ("status", "open", None, True, None, BLOCKED, None, True)),
        (
            "archive",
            _record(),
            {},
            ("status", "archived", None, True, None, ("void", "closed"), None, False),
        ),
        ("approve", _record(), {}, None),  # no approved state, no flag
        (
            "archive",
            _record(None, archived=FLAG),
            {},
            (None, None, "archived", True, None, (), None, False),
        ),
        (
            "unarchive",
            _record(None, is_archived=FLAG),
            {},
            (None, None, "is_archived", False, None, (), None, True),
        ),
        ("archive", _record(None, archived=TypeSpec(Kind.STR, "str")), {}, None),  # no flag of text
        (
            "pin",
            _record(("open",), pinned=FLAG),
            {},
            (None, None, "pinned", True, None, (), None, False),
        ),
        (
            "complete",
            _record(("open", "done"), completed=FLAG),
            {},
            ("status", "done", None, True, None, (), None, False),
        ),
        (
            "send",
            _record(()),
            {},
            ("status", "sent", None, True, None, (), None, False),
        ),  # free text
        (
            "assign",
            _record(STATES, owner_id=TypeSpec(Kind.STR, "str")),
            {"user": "owner_id"},
            ("status", "assigned", None, True, ("user", "owner_id"), BLOCKED, None, False),
        ),
        (
            "assign",
            _record(("open", "closed"), assignee_email=TypeSpec(Kind.STR, "str")),
            {"note": None, "to": "assignee_email"},
            (None, None, None, True, ("to", "assignee_email"), ("closed",), None, False),
        ),
        ("assign", _record(("open",), title=TypeSpec(Kind.STR, "str")), {"who": "title"}, None),
        ("frobnicate", STAMPED, {}, None),
    ],
)
def test_what_an_action_does_to_a_record(
    word: str, record: RecordPlan, params: dict[str, str | None], want: tuple | None
) -> None:
    assert _plan(word, record, **params) == want


def test_the_moment_an_action_stamps() -> None:
    record = _record(None, sent_at=MOMENT, ended_at=TypeSpec(Kind.DATE, "Date"), paid_at=FLAG)
    assert stamp_field(record, "send", None) == "sent_at"  # its participle
    assert stamp_field(record, "hangup", "completed") == "ended_at"
    assert stamp_field(record, "pay", "paid") is None  # not a moment
    assert stamp_field(record, "frobnicate", "sent") == "sent_at"  # the target's own
    assert stamp_field(record, "frobnicate", None) is None


def test_a_parameters_values_map_onto_statuses_one_each() -> None:
    stage = FieldPlan(
        "stage", "stage", TypeSpec(Kind.ENUM, "Stage", enum=("open", "closed_won", "closed_lost"))
    )
    assert status_mapping(("won", "lost"), stage) == {"won": "closed_won", "lost": "closed_lost"}
    assert status_mapping(("open",), stage) == {"open": "open"}
    assert status_mapping(("closed",), stage) == {}  # two statuses start so
    assert status_mapping(("won", "tied"), stage) == {}
    assert status_mapping((1,), stage) == {}
    starts = FieldPlan("s", "s", TypeSpec(Kind.ENUM, "S", enum=("new_lead", "qualified")))
    assert status_mapping(("new",), starts) == {"new": "new_lead"}
    ends = FieldPlan("s", "s", TypeSpec(Kind.ENUM, "S", enum=("lead_new", "qualified")))
    assert status_mapping(("new",), ends) == {"new": "lead_new"}
    both = FieldPlan("s", "s", TypeSpec(Kind.ENUM, "S", enum=("new_lead", "lead_new")))
    assert status_mapping(("new",), both) == {}


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("check_in_booking", "check_in"),
        ("checkInBooking", "check_in"),
        ("mark_paid_invoice", "mark_paid"),
        ("cancel_order", "cancel"),
        ("opt_out", "opt_out"),
        ("check", "check"),
        ("", ""),
    ],
)
def test_the_verb_of_a_tool_name(name: str, want: str) -> None:
    assert action_word(name) == want
