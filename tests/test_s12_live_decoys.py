"""Selection rules a competent agent must read to apply: a status rule's decoys hold other
live states where the state machine has them (an issue "in_review" beside the "in_progress"
one), not only finished ones; an order (due first, the largest) is as likely a reason to
pick as a state or kind; and the rule that common sense applies (the one live record
among finished ones) is the least chosen."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from library.compiler.actions import STATUS_FIELDS
from library.compose import ComposeConfig, ComposeEnv, lookups, make_env
from library.compose.catalog import CollectionInfo, FieldMeta
from library.compose.coherence import FINAL
from library.compose.corpus import bundled_library
from library.compose.lookups import _reading_weights, moved_with
from library.compose.realism import EARLIEST, MATCHING, Rule
from library.compose.walk import Walker

SERVICES = ["identity", "helpdesk", "issue_tracker", "todo", "calendar", "docs", "mail"]


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    return make_env(library.classes, library.nodes, config=ComposeConfig())


def _decoys_of(
    env: ComposeEnv, service: str, coll: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, list[Any], set[str]]:
    """(the chosen record, the decoys ``_add_decoys`` made beside it as they now stand, the
    fields it moved them in), for a lookup of a seeded record's assignee's ``coll``."""
    world, base = env.world(seed % env.config.worlds)
    walker = Walker(env, world, base, random.Random(seed))
    info = walker._coll(service, coll)
    assert info is not None
    state = getattr(world.services[service].state, coll)
    chosen = state[sorted(state)[seed % len(state)]]
    moved: set[str] = set()

    def recording(base: Any, name: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        moved.add(name)
        return moved_with(base, name, *args, **kwargs)

    monkeypatch.setattr(lookups, "moved_with", recording)
    walker._add_decoys(service, coll, chosen, info, ["assignee_email"])
    state = getattr(world.services[service].state, coll)
    made = {i.record.id for i in walker.injections}
    return chosen, [state[r] for r in sorted(made)], moved


@pytest.mark.parametrize(
    ("service", "coll"), [("issue_tracker", "issues"), ("helpdesk", "tickets")]
)
def test_a_status_rules_decoys_hold_another_live_state(
    env: ComposeEnv, service: str, coll: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where decoys differ from the chosen record in its status, one of them at least is in
    another live state (an issue in review beside the one in progress, a pending ticket
    beside the open one): finished ones alone would let common sense pick."""
    by_status = 0
    for seed in range(60):
        chosen, decoys, moved = _decoys_of(env, service, coll, seed, monkeypatch)
        if not decoys or moved != {"status"}:
            continue  # they differ in an order or another kind, not in the state
        by_status += 1
        states = [str(d.status).lower() for d in decoys]
        assert any(s not in FINAL for s in states), (seed, chosen.status, states)
    assert by_status >= 8, by_status


def test_an_order_is_as_likely_a_reason_to_pick_as_a_kind(
    env: ComposeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An issue has several fields of kinds (status, priority, type ...) and one order (its
    due date): decoys differ in the due date about as often as in any kind at all."""
    differs: Counter[str] = Counter()
    for seed in range(80):
        _, decoys, moved = _decoys_of(env, "issue_tracker", "issues", seed, monkeypatch)
        if decoys and moved:
            differs["order" if moved == {"due_date"} else "kind"] += 1
    total = sum(differs.values())
    assert total >= 30, differs
    assert differs["order"] >= 0.35 * total, differs  # (0.29 with decoy fields drawn evenly)


def _info() -> CollectionInfo:
    info = CollectionInfo("helpdesk", "tickets", dict)
    info.fields = {
        "status": FieldMeta("status", "string", None, enum=("open", "pending", "closed")),
        "due_at": FieldMeta("due_at", "string", "datetime"),
    }
    return info


def test_the_rule_common_sense_applies_is_the_least_worth_choosing() -> None:
    open_, pending, closed = (
        {"id": "a", "status": "open", "due_at": "2026-08-01T09:00:00Z"},
        {"id": "b", "status": "pending", "due_at": "2026-08-03T09:00:00Z"},
        {"id": "c", "status": "closed", "due_at": "2026-08-05T09:00:00Z"},
    )
    (trivial,) = _reading_weights([Rule(MATCHING, "status", "open")], [open_, closed])
    live, order = _reading_weights(
        [Rule(MATCHING, "status", "open"), Rule(EARLIEST, "due_at")], [open_, pending]
    )
    assert trivial < live <= order


def test_a_field_of_many_values_is_no_likelier_than_one_order(env: ComposeEnv) -> None:
    """Three open tickets of three priorities give three rules by priority and one by the
    due date: the due date is picked about as often as the priority, not a quarter of the
    time."""
    world, base = env.world(0)
    info = _info()
    info.fields["priority"] = FieldMeta("priority", "string", None, enum=("low", "normal", "high"))
    records = [
        {"id": r, "status": "open", "priority": p, "due_at": f"2026-08-0{d}T09:00:00Z"}
        for r, p, d in (("a", "low", 3), ("b", "normal", 1), ("c", "high", 5))
    ]
    picked: Counter[str] = Counter()
    for seed in range(300):
        walker = Walker(env, world, base, random.Random(seed))
        rule, _ = walker._choose(
            "helpdesk", info, [(f"data[{i}]", r) for i, r in enumerate(records)], {}
        )
        picked[rule.kind] += 1
    assert picked[EARLIEST] >= 0.4 * sum(picked.values()), picked


def test_a_choice_is_by_an_order_more_often_than_a_uniform_draw(env: ComposeEnv) -> None:
    """Between an open ticket due first and a closed one, "the one that's due first" is
    chosen more often than "the open one" (which no one needs telling)."""
    world, base = env.world(0)
    picked: Counter[str] = Counter()
    records = [
        {"id": "a", "status": "open", "due_at": "2026-08-01T09:00:00Z"},
        {"id": "b", "status": "closed", "due_at": "2026-08-05T09:00:00Z"},
    ]
    for seed in range(200):
        walker = Walker(env, world, base, random.Random(seed))
        rule, _ = walker._choose(
            "helpdesk", _info(), [(f"data[{i}]", r) for i, r in enumerate(records)], {}
        )
        picked[rule.kind if rule.field not in STATUS_FIELDS else f"status:{rule.value}"] += 1
    assert picked[EARLIEST] > 1.5 * picked["status:open"], picked
