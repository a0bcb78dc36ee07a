"""The rubric kinds that close the reward's holes: ``only_requested_changes`` fails any
change the gold plan did not make (a collateral write, a duplicate or extra create, an
extra delete, a write to a service the plan only reads) and ``answer_omits`` fails a reply
that states a decoy's value (an answer that dumps everything it saw); ``says`` matches
whole words and whole numbers only."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import orjson
import pytest

from library.rubric import (
    REGISTRY,
    AnswerOmits,
    Criterion,
    OnlyRequestedChanges,
    answer_omits,
    from_dict,
    mentions,
    only_requested_changes,
    says,
)

INITIAL: dict[str, Any] = {
    "helpdesk": {
        "seq": 4,
        "tickets": {
            "tic_1": {"id": "tic_1", "subject": "Broken", "status": "open", "updated_at": "t0"},
            "tic_2": {"id": "tic_2", "subject": "Late", "status": "open", "updated_at": "t0"},
            "tic_3": {"id": "tic_3", "subject": "Lost", "status": "open", "updated_at": "t0"},
        },
        "notes": {},
    },
    "mail": {"seq": 0, "messages": {"msg_1": {"id": "msg_1", "subject": "Hi", "unread": True}}},
}


def changed(*changes: Callable[[dict], None], base: dict | None = None) -> dict:
    state = copy.deepcopy(base if base is not None else INITIAL)
    for change in changes:
        change(state)
    return state


def close_1(s: dict) -> None:
    s["helpdesk"]["tickets"]["tic_1"].update(status="closed", updated_at="t1")


def note(rid: str) -> Callable[[dict], None]:
    def add(s: dict) -> None:
        s["helpdesk"]["notes"][rid] = {"id": rid, "ticket_id": "tic_1", "text": "Called"}
        s["helpdesk"]["seq"] += 1

    return add


def delete_3(s: dict) -> None:
    del s["helpdesk"]["tickets"]["tic_3"]


GOLD = changed(close_1, note("not_1"), delete_3)


@pytest.fixture
def guards() -> list[Criterion]:
    return only_requested_changes(INITIAL, GOLD, ["helpdesk", "mail"])


def passes(criteria: list[Criterion], final: Mapping[str, Any], answer: str = "") -> bool:
    return all(c.check(INITIAL, final, answer) for c in criteria)


def test_the_builder_allows_exactly_what_the_gold_run_changed(
    guards: list[Criterion],
) -> None:
    helpdesk, mail = guards
    assert helpdesk == OnlyRequestedChanges(
        "helpdesk",
        added={"notes": 1},
        updated={"tickets": {"tic_1": ["status"]}},  # updated_at is bookkeeping
        deleted={"tickets": ["tic_3"]},
    )
    assert mail == OnlyRequestedChanges("mail")  # read only: nothing may change
    assert passes(guards, GOLD)
    # The new record's id and the id counter are not compared: another agent's ids differ.
    assert passes(guards, changed(close_1, note("not_other"), delete_3))


@pytest.mark.parametrize(
    "mutant",
    [
        pytest.param(
            lambda s: s["helpdesk"]["tickets"]["tic_2"].update(status="closed"), id="collateral"
        ),
        pytest.param(note("not_2"), id="duplicate_create"),
        pytest.param(lambda s: s["helpdesk"]["tickets"].pop("tic_2"), id="extra_delete"),
        pytest.param(
            lambda s: s["helpdesk"]["tickets"]["tic_1"].update(subject="Fixed"),
            id="unrequested_field",
        ),
        pytest.param(
            lambda s: s["helpdesk"]["tickets"]["tic_2"].update(updated_at="t1"),
            id="touched_other_record",
        ),
        pytest.param(
            lambda s: s["mail"]["messages"]["msg_1"].update(unread=False), id="read_only_service"
        ),
        pytest.param(
            lambda s: s["mail"]["messages"].update(msg_2={"id": "msg_2", "subject": "x"}),
            id="create_in_read_only_service",
        ),
    ],
)
def test_changes_outside_the_request_fail(
    guards: list[Criterion], mutant: Callable[[dict], None]
) -> None:
    assert passes(guards, GOLD)
    assert not passes(guards, changed(mutant, base=GOLD))


def test_a_missing_create_fails_and_bookkeeping_of_updated_records_is_free(
    guards: list[Criterion],
) -> None:
    assert not passes(guards, changed(close_1, delete_3))  # created nothing
    bumped = changed(lambda s: s["helpdesk"]["tickets"]["tic_1"].update(updated_at="t9"), base=GOLD)
    assert passes(guards, bumped)


class Viewed(Mapping[str, Any]):
    """A read-only collection exposing its records as ``source``, like a StateView."""

    def __init__(self, records: dict[str, Any]) -> None:
        self.source = records

    def __getitem__(self, rid: str) -> Any:
        return self.source[rid]

    def __iter__(self) -> Iterator[str]:
        return iter(self.source)

    def __len__(self) -> int:
        return len(self.source)


def viewed(states: dict) -> Mapping[str, Any]:
    return MappingProxyType(
        {
            svc: MappingProxyType(
                {n: Viewed(c) if isinstance(c, dict) else c for n, c in colls.items()}
            )
            for svc, colls in states.items()
        }
    )


def test_read_only_views_and_identity_shortcuts(guards: list[Criterion]) -> None:
    # Views of the same record objects: identity says "unchanged" without comparing.
    initial = viewed(INITIAL)
    gold = copy.copy(INITIAL["helpdesk"]["tickets"])  # same record objects, one replaced
    gold["tic_1"] = {**gold["tic_1"], "status": "closed"}
    final = viewed({**INITIAL, "helpdesk": {**INITIAL["helpdesk"], "tickets": gold}})
    [guard] = only_requested_changes(initial, final, ["helpdesk"])
    assert guard.updated == {"tickets": {"tic_1": ["status"]}}
    assert guard.check(initial, final, "")
    other = dict(gold, tic_2={**gold["tic_2"], "status": "closed"})
    collateral = viewed({**INITIAL, "helpdesk": {**INITIAL["helpdesk"], "tickets": other}})
    assert not guard.check(initial, collateral, "")


def test_says_matches_whole_words_and_whole_numbers() -> None:
    assert not says("Tagged it follow-up.", "low")  # "low" is not said inside "follow-up"
    assert mentions("Tagged it follow-up.", "low")  # ... though it is a substring
    assert says("Priority: low.", "low") and says("It is LOW-risk", "low")
    assert says("status is on hold", "on_hold") and says("status on_hold", "on hold")
    assert says("Write to ann@x.io.", "ann@x.io")
    assert says("Total: $1,200.50.", 1200.5) and says("(30%)", 30)
    assert not says("due 2030-01-01", 30) and not says("room A30", 30)
    assert not says("call +12918896644", 1291)
    assert says("ids 3,4", 4) and says("x is true", True) and not says("x", None)
    assert says("a or b", ["c", "b"]) and not says("a", [])


def test_answer_omits_fails_a_dump_and_passes_the_gold_reply() -> None:
    rows = [
        {"label": "phone of the lead", "value": "+1-555-0100", "excludes": ["+1-555-0199"]},
        {"label": "amount of the deal", "value": 300, "excludes": [100, 300.0, 1200.5]},
        {"label": "name of the contact", "value": "Ann Lee", "excludes": ["Ann", "Bo Li"]},
    ]
    gold = 'The phone is "+1-555-0100". The amount is 300. The name is "Ann Lee".'
    criteria = answer_omits(rows, gold)
    # The asked value itself and words of it cannot be left out.
    assert [c.values for c in criteria] == [["+1-555-0199"], [100, 1200.5], ["Bo Li"]]
    assert all(c.check({}, {}, gold) for c in criteria)
    dump = gold + " Everything I saw: +1-555-0199; 100; 1,200.50; Bo Li."
    assert [c.check({}, {}, dump) for c in criteria] == [False, False, False]
    assert not AnswerOmits(["low"]).touches_state
    assert AnswerOmits(["low"]).check({}, {}, "Tagged follow-up")


ALL_NEW = [
    OnlyRequestedChanges(
        "helpdesk",
        added={"notes": 1, "tickets": 0},
        updated={"tickets": {"tic_1": ("status", "priority")}},
        deleted={"tickets": ("tic_3",)},
    ),
    OnlyRequestedChanges("mail"),
    AnswerOmits(("+1-555-0199", 100), label="phone of the lead"),
    AnswerOmits([None, True, ["a", "b"]]),
]


@pytest.mark.parametrize("criterion", ALL_NEW, ids=lambda c: c.kind)
def test_round_trip_and_description(criterion: Criterion) -> None:
    data = orjson.loads(orjson.dumps(criterion.to_dict()))
    assert data["kind"] == criterion.kind
    again = from_dict(data)
    assert again == criterion and again.to_dict() == criterion.to_dict() == data
    # JSON shapes after construction already: no tuples, no sets, no zero counts.
    assert orjson.loads(orjson.dumps(criterion.to_dict())) == criterion.to_dict()
    text = criterion.describe()
    assert text.endswith(".") and text.count(". ") == 0 and len(text) < 300


def test_the_new_kinds_are_registered() -> None:
    assert REGISTRY["only_requested_changes"] is OnlyRequestedChanges
    assert REGISTRY["answer_omits"] is AnswerOmits


def test_only_requested_changes_on_plain_json_states():
    """Judges compare exported JSON: equal collections pass only when nothing was to be
    added, and an equal copy of a record is unchanged while an edit is still caught."""
    record = {"id": "t1", "status": "open", "tags": ["a"]}
    states = {"helpdesk": {"tickets": {"t1": record}}}
    same = {"helpdesk": {"tickets": {"t1": dict(record, tags=["a"])}}}
    edited = {"helpdesk": {"tickets": {"t1": dict(record, status="closed")}}}
    assert OnlyRequestedChanges("helpdesk").check(states, same, "")
    assert not OnlyRequestedChanges("helpdesk", added={"tickets": 1}).check(states, same, "")
    assert not OnlyRequestedChanges("helpdesk").check(states, edited, "")
    allowed = OnlyRequestedChanges("helpdesk", updated={"tickets": {"t1": ["status"]}})
    assert allowed.check(states, edited, "")
