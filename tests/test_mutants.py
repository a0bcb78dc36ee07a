"""The mutation gate: gold plans run dynamically (binds read from this run's outputs), every
mutant kind is generated where it applies, and a rubric without the hole-closing criteria
lets collateral writes, duplicate creates and dumped answers escape while one with them
catches every mutant. On a toy service (exact expectations) and on tasks composed from the
bundled corpus."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import pytest

from library.compose import Task, compose_tasks, make_env, task_world
from library.compose import mutants as mutants_module
from library.compose.corpus import Library
from library.compose.mutants import (
    KINDS,
    MutationReport,
    infer_decoys,
    mutation_report,
    plan_mutants,
    run_plan_dynamic,
    task_mutation_report,
)
from library.compose.verify import canonical, run_plan
from library.compose.views import DumpCache, StateView
from library.rubric import (
    AnswerContains,
    AnswerOmits,
    Criterion,
    FieldUpdated,
    OnlyRequestedChanges,
    RecordCreated,
    RecordUnchanged,
    answer_omits,
    only_requested_changes,
)
from library.runtime import Record, Service, Snapshot, State, World, tool
from tests.libraries import bundled_library

Priority = Literal["low", "normal", "high"]


class Ticket(Record):
    customer: str
    contact: str
    priority: Priority = "normal"
    amount: float = 0.0
    agent: str = ""


class Note(Record):
    ticket_id: str
    text: str


class DeskState(State):
    tickets: dict[str, Ticket] = {}
    notes: dict[str, Note] = {}


class Desk(Service):
    name = "desk"
    State = DeskState

    @tool
    def list_tickets(self, customer: str) -> list[Ticket]:
        """List a customer's tickets.

        Args:
            customer: The customer's name.
        """
        return [t for t in self.state.tickets.values() if t.customer == customer]

    @tool(write=True)
    def update_ticket(
        self, ticket_id: str, priority: Priority | None = None, agent: str | None = None
    ) -> Ticket:
        """Change a ticket.

        Args:
            ticket_id: The ticket.
            priority: Its new priority.
            agent: Who handles it.
        """
        return self.update("tickets", ticket_id, priority=priority, agent=agent)

    @tool(write=True)
    def add_note(self, ticket_id: str, text: str) -> Note:
        """Add a note to a ticket.

        Args:
            ticket_id: The ticket.
            text: What to note.
        """
        self.get("tickets", ticket_id)
        return self.put("notes", Note(id=self.new_id("not"), ticket_id=ticket_id, text=text))


def ticket(rid: str, customer: str, contact: str, amount: float) -> dict[str, Any]:
    return {"id": rid, "customer": customer, "contact": contact, "amount": amount}


INITIAL = {
    "desk": {
        "tickets": {
            "tic_1": ticket("tic_1", "acme", "Ann Ray", 100.0),
            "tic_2": ticket("tic_2", "acme", "Kim Lee", 300.0),
            "tic_3": ticket("tic_3", "beta", "Bo Li", 50.0),
            "tic_4": ticket("tic_4", "beta", "Cy Orr", 70.0),
        },
        "notes": {},
    }
}
# Find acme's tickets, take the largest; set its priority by a threshold on its amount and
# its agent to its contact's first name; note on it; say its amount.
PLAN: list[dict[str, Any]] = [
    {
        "tool": "desk__list_tickets",
        "arguments": {"customer": "acme"},
        "write": False,
        "kind": "lookup",
        "binds": {"customer": {"from": "user"}},
        "text": {},
        "select": {"rule": "largest", "field": "amount"},
    },
    {
        "tool": "desk__update_ticket",
        "arguments": {"ticket_id": "tic_2", "priority": "high", "agent": "Kim"},
        "write": True,
        "kind": "update",
        "binds": {
            "ticket_id": {"from": "step", "step": 0, "path": "[1].id"},
            "priority": {
                "from": "rule",
                "rule": "threshold",
                "step": 0,
                "path": "[1].amount",
                "limit": 200,
                "above": "high",
                "otherwise": "low",
            },
            "agent": {"from": "step", "step": 0, "path": "[1].contact", "part": "first_name"},
        },
        "text": {},
    },
    {
        "tool": "desk__add_note",
        "arguments": {"ticket_id": "tic_2", "text": "Called back"},
        "write": True,
        "kind": "create",
        "binds": {"ticket_id": {"from": "step", "step": 1, "path": "id"}, "text": {"from": "user"}},
        "text": {},
    },
]
ROWS = [
    {
        "label": "amount of the ticket",
        "value": 300.0,
        "step": 0,
        "path": "[1].amount",
        "excludes": [100.0],
    }
]
DECOYS = [
    {"step": 0, "service": "desk", "collection": "tickets", "id": "tic_1", "path": "[0]"},
]
OLD_RUBRIC: list[Criterion] = [
    FieldUpdated("desk", "tickets", "tic_2", "priority", "high"),
    FieldUpdated("desk", "tickets", "tic_2", "agent", "Kim"),
    RecordCreated("desk", "notes", {"ticket_id": "tic_2", "text": "Called back"}),
    RecordUnchanged("desk", "tickets", "tic_1"),
    AnswerContains(300.0, label="the amount of the ticket"),
]
GOLD_ANSWER = Task.gold_answer_for(ROWS)


def desk_world() -> World:
    world = World([Desk()], seed=1)
    world.load_states(INITIAL)
    return world


def desk_report(criteria: Sequence[Criterion]) -> MutationReport:
    world = desk_world()
    cache = DumpCache()

    def view(snap: Snapshot) -> StateView:
        return StateView(snap, ["desk"], cache)

    return mutation_report(criteria, PLAN, ROWS, DECOYS, GOLD_ANSWER, world, world.snapshot(), view)


def new_rubric() -> list[Criterion]:
    world = desk_world()
    cache = DumpCache()
    start = world.snapshot()
    run_plan(world, PLAN)
    initial, final = StateView(start, ["desk"], cache), StateView(world.snapshot(), ["desk"], cache)
    return OLD_RUBRIC + only_requested_changes(initial, final, ["desk"]) + answer_omits(ROWS)


def test_the_gold_plan_runs_dynamically_as_written() -> None:
    dynamic = run_plan_dynamic(desk_world(), PLAN)
    assert canonical(dynamic) == canonical(run_plan(desk_world(), PLAN))
    assert dynamic[1]["data"]["agent"] == "Kim" and dynamic[1]["data"]["priority"] == "high"


def test_binds_follow_what_this_run_read() -> None:
    world = desk_world()
    envelopes = run_plan_dynamic(world, PLAN, overrides={0: {"customer": "beta"}})
    # Beta's second ticket (70 <= 200: "low"; Cy Orr's first name), and the note on it.
    assert envelopes[1]["data"] == {
        **INITIAL["desk"]["tickets"]["tic_4"],
        "priority": "low",
        "agent": "Cy",
    }
    assert envelopes[2]["data"]["ticket_id"] == "tic_4"

    world = desk_world()
    before = world.state_hash()
    stuck = run_plan_dynamic(world, PLAN, overrides={0: {"customer": "nobody"}})
    assert [e["success"] for e in stuck] == [True, False, False]
    assert {e["error"]["code"] for e in stuck[1:]} == {"unresolved"}
    assert world.state_hash() == before  # the agent was stuck: nothing written

    # A step left out: later binds read the stand-in the agent knew anyway.
    gold = run_plan_dynamic(desk_world(), PLAN)
    world = desk_world()
    skipped = run_plan_dynamic(world, PLAN, skip={1: gold[1]})
    assert skipped[2]["data"]["ticket_id"] == "tic_2"
    assert world.services["desk"].state.tickets["tic_2"].priority == "normal"


def test_every_kind_is_generated_on_the_toy_plan() -> None:
    world = desk_world()
    cache = DumpCache()
    initial = StateView(world.snapshot(), ["desk"], cache)
    gold = run_plan_dynamic(world, PLAN)
    made = plan_mutants(PLAN, ROWS, DECOYS, initial, GOLD_ANSWER, gold)
    by_kind = Counter(m.kind for m in made)
    assert set(by_kind) == set(KINDS)
    assert by_kind["drop_write"] == 2 and by_kind["duplicate_create"] == 1
    # ticket_id, the rule and the name part of step 1, ticket_id of step 2.
    assert by_kind["change_binding"] == 4
    collateral = next(m for m in made if m.kind == "collateral_write")
    assert "tic_3" in collateral.note  # the first record neither used nor guarded
    flipped = [m for m in made if m.kind == "change_binding" and "rule flipped" in m.note]
    assert flipped[0].overrides == {1: {"priority": "low"}}
    dump = next(m for m in made if m.kind == "answer_dump")
    assert dump.answer is not None and "100" in dump.answer


def test_a_rubric_without_the_new_criteria_has_holes_that_they_close() -> None:
    old = desk_report(OLD_RUBRIC)
    assert old.gold_passes
    assert set(old.escaped) == {"collateral_write", "duplicate_create", "answer_dump"}
    assert old.by_kind["collateral_write"] == [0, 1]
    assert old.by_kind["duplicate_create"] == [0, 1]
    assert old.by_kind["answer_dump"] == [0, 1]
    # Picking the decoy (tic_1) updates the wrong ticket and reports its amount (100).
    assert old.by_kind["pick_decoy"] == [1, 1]

    new = desk_report(new_rubric())
    assert new.escaped == [] and new.catch_rate == 1.0
    assert new.mutants == old.mutants == sum(total for _, total in new.by_kind.values())
    data = new.to_dict()
    assert data["catch_rate"] == 1.0 and data["by_kind"]["duplicate_create"] == [1, 1]


def test_a_gold_run_that_fails_its_rubric_is_reported() -> None:
    report = desk_report([*OLD_RUBRIC, AnswerContains("something else")])
    assert not report.gold_passes and report.catch_rate == 0.0 and report.mutants == 0


def test_pick_decoy_without_a_later_read_of_the_choice_is_not_a_mutant() -> None:
    plan = [PLAN[0], {**PLAN[2], "arguments": {"ticket_id": "tic_3", "text": "x"}, "binds": {}}]
    world = desk_world()
    gold = run_plan_dynamic(world, plan)
    made = plan_mutants(plan, [], DECOYS, INITIAL, "Done.", gold)
    assert not any(m.kind == "pick_decoy" for m in made)
    assert not any(m.kind in ("wrong_answer", "answer_dump", "no_answer") for m in made)


# -- tasks composed from the bundled corpus ----------------------------------------------
SERVICES = ["crm", "helpdesk", "mail", "calendar", "storefront", "invoicing"]


@pytest.fixture(scope="module")
def corpus() -> tuple[Library, list[Task]]:
    library = bundled_library(SERVICES)
    env = make_env(library.classes, library.nodes)
    tasks, _ = compose_tasks(library.classes, 20, env=env, seed=5)
    assert len(tasks) == 20
    return library, tasks


def _stripped(task: Task) -> list[Criterion]:
    return [c for c in task.criteria() if not isinstance(c, OnlyRequestedChanges | AnswerOmits)]


def _with_new(task: Task, library: Library, criteria: list[Criterion]) -> list[Criterion]:
    """``criteria`` plus the hole-closing kinds, derived from the task's gold run."""
    world = task_world(task, library.classes)
    cache = DumpCache()
    start = world.snapshot()
    run_plan(world, task.gold_plan)
    initial = StateView(start, task.services, cache)
    final = StateView(world.snapshot(), task.services, cache)
    return (
        criteria
        + only_requested_changes(initial, final, task.services)
        + answer_omits(task.answer, task.gold_answer())
    )


def test_gold_plans_replay_dynamically(corpus: tuple[Library, list[Task]]) -> None:
    library, tasks = corpus
    for task in tasks:
        dynamic = run_plan_dynamic(task_world(task, library.classes), task.gold_plan)
        static = run_plan(task_world(task, library.classes), task.gold_plan)
        assert canonical(dynamic) == canonical(static), task.task_id
        recorded = {
            (d["step"], d["path"], d["id"]) for d in task.decoys if d.get("why") == "matched"
        }
        inferred = {(d["step"], d["path"], d["id"]) for d in infer_decoys(task.gold_plan, static)}
        assert inferred <= recorded, task.task_id


def test_every_applicable_kind_is_generated(corpus: tuple[Library, list[Task]]) -> None:
    library, tasks = corpus
    seen: Counter[str] = Counter()
    for task in tasks:
        world = task_world(task, library.classes)
        start = StateView(world.snapshot(), task.services, DumpCache())
        gold = run_plan_dynamic(world, task.gold_plan)
        kinds = Counter(
            m.kind
            for m in plan_mutants(
                task.gold_plan, task.answer, task.decoys, start, task.gold_answer(), gold
            )
        )
        seen.update(kinds)
        plan = task.gold_plan
        assert kinds["drop_write"] == sum(1 for s in plan if s["write"])
        assert kinds["duplicate_create"] == sum(1 for s in plan if s["kind"] == "create")
        for kind in ("wrong_answer", "answer_dump", "no_answer"):
            assert (kinds[kind] > 0) == bool(task.answer), (task.task_id, kind)
        if any(b.get("from") == "step" for s in plan for b in s["binds"].values()):
            assert kinds["change_binding"] > 0
    assert set(seen) == set(KINDS), seen


def test_reports_on_composed_tasks(corpus: tuple[Library, list[Task]]) -> None:
    library, tasks = corpus
    holes: Counter[str] = Counter()
    for task in tasks:
        full = task_mutation_report(task, library.classes)
        assert full.gold_passes and full.mutants > 0
        # The composed rubric (with the new kinds) catches every structural mutant.
        for kind in ("collateral_write", "duplicate_create", "answer_dump"):
            caught, total = full.by_kind.get(kind, [0, 0])
            assert caught == total, (task.task_id, kind, full.notes)

        old = task_mutation_report(task, library.classes, criteria=_stripped(task))
        holes.update(
            k for k in ("collateral_write", "duplicate_create", "answer_dump") if k in old.escaped
        )
        if not old.escaped:
            continue
        fixed = task_mutation_report(
            task, library.classes, criteria=_with_new(task, library, _stripped(task))
        )
        for kind in ("collateral_write", "duplicate_create", "answer_dump"):
            caught, total = fixed.by_kind.get(kind, [0, 0])
            assert caught == total, (task.task_id, kind, fixed.notes)
    # Without the new kinds, the holes are there.
    assert holes["collateral_write"] >= 3 and holes["duplicate_create"] >= 1, holes


def test_reusing_gold_calls_changes_no_verdict(
    corpus: tuple[Library, list[Task]], monkeypatch: pytest.MonkeyPatch
) -> None:
    library, tasks = corpus
    fast = [task_mutation_report(t, library.classes).to_dict() for t in tasks[:8]]
    monkeypatch.setattr(mutants_module._Gold, "replay", lambda *args: False)
    slow = [task_mutation_report(t, library.classes).to_dict() for t in tasks[:8]]
    assert fast == slow
