"""Rubric criteria: each kind passes and fails as it should, round-trips through JSON, and
evaluates on exported states (plain dicts or read-only mappings)."""

from __future__ import annotations

import copy
from types import MappingProxyType

import orjson
import pytest

from library.rubric import (
    REGISTRY,
    AnswerContains,
    AnswerOmits,
    CollectionUntouched,
    Criterion,
    FieldUpdated,
    OnlyRequestedChanges,
    OtherServicesUnchanged,
    RecordCreated,
    RecordDeleted,
    RecordUnchanged,
    collections_of,
    completion,
    evaluate,
    from_dict,
    mentions,
    only_requested_changes,
    same,
)

INITIAL = {
    "helpdesk": {
        "seq": 3,
        "tickets": {
            "tic_1": {"id": "tic_1", "subject": "Broken", "status": "open", "total": 12.5},
            "tic_2": {"id": "tic_2", "subject": "Late", "status": "open", "total": 40.0},
        },
        "groups": {"gro_1": {"id": "gro_1", "name": "Returns"}},
    },
    "mail": {"messages": {}},
}


def final_with(change) -> dict:
    state = copy.deepcopy(INITIAL)
    change(state)
    return state


def test_record_created_needs_a_new_record_with_the_fields() -> None:
    c = RecordCreated("mail", "messages", {"subject": "Hello", "to": ["a@b.co"]}, label="message")

    def send(s: dict) -> None:
        s["mail"]["messages"]["msg_1"] = {"id": "msg_1", "subject": "Hello", "to": ["A@b.co"]}

    def send_other(s: dict) -> None:
        s["mail"]["messages"]["msg_1"] = {"id": "msg_1", "subject": "Bye", "to": ["a@b.co"]}

    assert c.check(INITIAL, final_with(send), "")
    assert not c.check(INITIAL, final_with(send_other), "")
    assert not c.check(INITIAL, INITIAL, "")
    # A record that was already there does not count as created.
    existing = RecordCreated("helpdesk", "tickets", {"subject": "Broken"})
    assert not existing.check(INITIAL, INITIAL, "")


def test_field_updated() -> None:
    c = FieldUpdated("helpdesk", "tickets", "tic_1", "status", "closed", label="the ticket")

    def close(s: dict) -> None:
        s["helpdesk"]["tickets"]["tic_1"]["status"] = "closed"

    def close_other(s: dict) -> None:
        s["helpdesk"]["tickets"]["tic_2"]["status"] = "closed"

    def delete(s: dict) -> None:
        del s["helpdesk"]["tickets"]["tic_1"]

    assert c.check(INITIAL, final_with(close), "")
    assert not c.check(INITIAL, final_with(close_other), "")
    assert not c.check(INITIAL, final_with(delete), "")
    assert not c.check(INITIAL, INITIAL, "")


def test_record_deleted() -> None:
    c = RecordDeleted("helpdesk", "tickets", "tic_2")
    assert c.check(INITIAL, final_with(lambda s: s["helpdesk"]["tickets"].pop("tic_2")), "")
    assert not c.check(INITIAL, INITIAL, "")
    assert not RecordDeleted("helpdesk", "tickets", "tic_9").check(INITIAL, INITIAL, "")


def test_record_unchanged_guard() -> None:
    c = RecordUnchanged("helpdesk", "tickets", "tic_2", label="the other ticket")
    assert c.check(INITIAL, INITIAL, "")
    assert c.check(INITIAL, final_with(lambda s: s["helpdesk"]["tickets"]["tic_1"].clear()), "")

    def touch(s: dict) -> None:
        s["helpdesk"]["tickets"]["tic_2"]["status"] = "closed"

    assert not c.check(INITIAL, final_with(touch), "")
    assert not c.check(INITIAL, final_with(lambda s: s["helpdesk"]["tickets"].pop("tic_2")), "")


def test_collection_untouched_guard() -> None:
    c = CollectionUntouched("helpdesk", "groups")
    assert c.check(INITIAL, INITIAL, "")

    def add(s: dict) -> None:
        s["helpdesk"]["groups"]["gro_2"] = {"id": "gro_2", "name": "Billing"}

    def rename(s: dict) -> None:
        s["helpdesk"]["groups"]["gro_1"]["name"] = "Refunds"

    def remove(s: dict) -> None:
        s["helpdesk"]["groups"].clear()

    for change in (add, rename, remove):
        assert not c.check(INITIAL, final_with(change), "")


def test_answer_contains() -> None:
    assert AnswerContains(1234.5).check({}, {}, "The total is $1,234.50.")
    assert not AnswerContains(1234.5).check({}, {}, "The total is $1,234.")
    assert AnswerContains("on_hold").check({}, {}, "It is on hold")
    assert AnswerContains("SKU-1001").check({}, {}, "that is sku-1001")
    assert not AnswerContains("SKU-1001").check({}, {}, "")
    assert AnswerContains(["a@b.co", "c@d.co"]).check({}, {}, "a@b.co and c@d.co")
    assert not AnswerContains(["a@b.co", "c@d.co"]).check({}, {}, "a@b.co only")


def test_values_normalize_timestamps_and_case() -> None:
    assert same("2026-03-02T09:00:00Z", "2026-03-02T09:00:00+00:00")
    assert same("2026-03-02T10:00:00+01:00", "2026-03-02T09:00:00Z")
    assert same("Jane@Example.com ", "jane@example.com")
    assert same(3, 3.0) and not same(3, 3.5)
    assert not same("2026-03-02", "2026-03-03")
    assert mentions("due 2026-03-02", "2026-03-02")


ALL = [
    RecordCreated("mail", "messages", {"subject": "Hi"}, label="message"),
    FieldUpdated("helpdesk", "tickets", "tic_1", "status", "closed", label="the ticket"),
    RecordDeleted("helpdesk", "tickets", "tic_2", label="the ticket"),
    RecordUnchanged("helpdesk", "tickets", "tic_2", label="the other ticket"),
    CollectionUntouched("helpdesk", "groups"),
    AnswerContains(40.0, label="the total of the ticket"),
    OnlyRequestedChanges("helpdesk", added={"notes": 1}),
    AnswerOmits(["Late"], label="subject of the ticket"),
    OtherServicesUnchanged(["files", "chat"]),
]


@pytest.mark.parametrize("criterion", ALL, ids=lambda c: c.kind)
def test_round_trip_and_description(criterion: Criterion) -> None:
    data = orjson.loads(orjson.dumps(criterion.to_dict()))
    assert data["kind"] == criterion.kind
    assert from_dict(data) == criterion
    text = criterion.describe()
    assert text.endswith(".") and text.count(". ") == 0 and len(text) < 300


def test_every_kind_is_registered_and_unknown_kinds_fail() -> None:
    assert set(REGISTRY) == {c.kind for c in ALL}
    with pytest.raises(ValueError, match="unknown criterion kind"):
        from_dict({"kind": "telepathy"})


def test_evaluate_and_completion_on_read_only_mappings() -> None:
    rubric = [c.to_dict() for c in ALL[:2]]

    def work(s: dict) -> None:
        s["mail"]["messages"]["msg_1"] = {"id": "msg_1", "subject": "Hi"}
        s["helpdesk"]["tickets"]["tic_1"]["status"] = "closed"

    final = MappingProxyType(final_with(work))
    assert evaluate(rubric, INITIAL, final, "") == [True, True]
    assert completion(rubric, INITIAL, final, "")
    assert evaluate(rubric, INITIAL, INITIAL, "") == [False, False]
    assert not completion(rubric, INITIAL, INITIAL, "")
    assert not completion([], INITIAL, final, "")  # an empty rubric never completes


def test_a_services_id_counter_is_bookkeeping_not_a_record() -> None:
    """A service that numbers its records per collection keeps the last id it gave
    (``int_ids``); a new record moves it. It is no record: a faithful run that numbered
    the new ticket differently still passes, and a change to a real record still fails."""

    def state(counter: int, title: str = "Printer jammed", extra: bool = True) -> dict:
        tickets = {"1": {"id": 1, "title": title}}
        if extra:
            tickets["11"] = {"id": 11, "title": "Refund processed"}
        return {"ticket_api": {"tickets": tickets, "int_ids": {"tickets": counter}}}

    initial = {"ticket_api": {"tickets": {"1": {"id": 1, "title": "Printer jammed"}},
                              "int_ids": {"tickets": 10}}}  # fmt: skip
    assert set(collections_of(state(11), "ticket_api")) == {"tickets"}
    rubric = only_requested_changes(initial, state(11), ["ticket_api"])
    assert completion(rubric, initial, state(11))
    assert completion(rubric, initial, state(12))  # the counter moved on further: no change
    assert not completion(rubric, initial, state(11, title="Printer fixed"))
