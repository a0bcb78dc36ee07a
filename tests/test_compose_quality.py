"""What a strict reviewer checks of composed tasks: purposeful plans, a coherent world, roles
held by different people, and a rubric that catches the mutants of its gold plan."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from library.compose import compose as compose_module
from library.compose import compose_tasks, make_env
from library.compose.catalog import ToolInfo
from library.compose.coherence import inverted, may_write, range_pairs
from library.compose.corpus import bundled_library
from library.compose.motifs import name_motif
from library.compose.mutants import MutationReport
from library.compose.plan import Step
from library.compose.prune import purposeful, renumber
from library.compose.roles import is_staff_role, role_of
from library.compose.run import task_world

SERVICES = ["crm", "helpdesk", "mail", "calendar", "storefront", "invoicing", "hr", "identity"]


@pytest.fixture(scope="module")
def lib():
    return bundled_library(SERVICES)


@pytest.fixture(scope="module")
def composed(lib):
    env = make_env(lib.classes, lib.nodes)
    return env, compose_tasks([], 30, env=env, seed=11)


def _reads_used(plan: list[dict], answer: list[dict]) -> Iterator[tuple[int, bool]]:
    used = {a.get("step") for a in answer}
    for step in plan:
        used |= {b.get("step") for b in step["binds"].values()}
        used |= set(step.get("uses") or ())
    for i, step in enumerate(plan):
        if not step["write"]:
            yield i, i in used


def test_every_read_feeds_something(composed):
    _, result = composed
    assert result.tasks
    for task in result.tasks:
        for i, used in _reads_used(task.gold_plan, task.answer):
            assert used, f"{task.task_id}: step {i} ({task.gold_plan[i]['tool']}) feeds nothing"


def test_mutation_gate_verdict_is_stored_and_met(composed):
    env, result = composed
    for task in result.tasks:
        assert task.mutation["catch_rate"] >= env.config.min_catch_rate
        assert "pick_decoy" not in task.mutation["escaped"]
        assert task.mutation["by_kind"].get("drop_write", [0, 0])[1] >= 1


def test_rubric_guards_the_whole_service(composed):
    _, result = composed
    for task in result.tasks:
        kinds = [c["kind"] for c in task.rubric]
        assert kinds.count("only_requested_changes") == len(task.services)
        if task.answer:
            assert "answer_omits" in kinds
            assert all(row["excludes"] for row in task.answer)


def test_gold_run_writes_coherent_records_and_no_future_ids(lib, composed):
    _, result = composed
    for task in result.tasks:
        world = task_world(task, lib.classes)
        created = set()
        for step in task.gold_plan:
            envelope = world.call(step["tool"], step["arguments"])
            assert envelope["success"], (task.task_id, step["tool"], envelope)
            data = envelope.get("data")
            if step["write"] and isinstance(data, dict):
                assert not inverted(data), (task.task_id, step["tool"], data)
                if step["kind"] == "create":
                    created.add(data.get("id"))
        text = str(task.initial_state)
        assert not any(rid and f"'{rid}'" in text for rid in created), task.task_id


def test_people_in_different_roles_of_one_call_differ(composed):
    _, result = composed
    for task in result.tasks:
        for step in task.gold_plan:
            seen: dict[str, str] = {}
            for name, value in step["arguments"].items():
                if not isinstance(value, str) or "@" not in value:
                    continue
                role = role_of(name)
                other = seen.get(value.casefold())
                assert other is None or other == role, (task.task_id, step["tool"], name)
                seen[value.casefold()] = role


def test_staff_roles_never_take_a_customer(composed):
    env, result = composed
    assert env.staff, "the pool has no staff"
    for task in result.tasks:
        for step in task.gold_plan:
            for name, value in step["arguments"].items():
                if isinstance(value, str) and "@" in value and is_staff_role(role_of(name)):
                    assert env.is_staff("email", value), (task.task_id, step["tool"], name)


def test_gate_rejects_a_task_whose_mutants_escape(lib, monkeypatch):
    env = make_env(lib.classes, lib.nodes)
    weak = MutationReport(mutants=10, caught=5, by_kind={"collateral_write": [5, 10]})
    weak.escaped.append("collateral_write")
    monkeypatch.setattr(compose_module, "mutation_report", lambda *a, **k: weak)
    result = compose_tasks([], 3, env=env, seed=5, max_candidates=40)
    assert not result.tasks
    assert result.rejections.get(compose_module.MUTANTS_ESCAPE, 0) > 0


def test_gate_rejects_a_selection_rule_no_criterion_can_check(lib, monkeypatch):
    env = make_env(lib.classes, lib.nodes)
    report = MutationReport(mutants=10, caught=9, by_kind={"pick_decoy": [0, 1]})
    report.escaped.append("pick_decoy")
    monkeypatch.setattr(compose_module, "mutation_report", lambda *a, **k: report)
    result = compose_tasks([], 3, env=env, seed=5, max_candidates=40)
    assert not result.tasks
    assert result.rejections.get(compose_module.RULE_UNCHECKABLE, 0) > 0


def _step(write: bool, binds: dict) -> Step:
    tool = ToolInfo("svc", "t", write, "update" if write else "lookup", (), "", None, None, False)
    return Step(tool, {}, binds, {})


def test_pruning_drops_reads_that_feed_nothing_and_renumbers():
    steps = [
        _step(False, {}),  # 0: feeds step 2
        _step(False, {"a": {"from": "step", "step": 0, "path": "x"}}),  # 1: feeds nothing
        _step(True, {"b": {"from": "step", "step": 0, "path": "y"}}),  # 2: write
        _step(False, {}),  # 3: feeds only the answer
    ]
    keep = purposeful(steps, answer_steps=[3])
    assert keep == [0, 2, 3]
    renumber(steps, keep)
    assert steps[2].binds["b"]["step"] == 0
    # A read that feeds only a pruned read goes too.
    chain = [_step(False, {}), _step(False, {"a": {"from": "step", "step": 0}}), _step(True, {})]
    assert purposeful(chain, answer_steps=[]) == [2]


def test_state_machine_and_ranges():
    assert not may_write({"status": "closed"}, "update", "update_ticket")
    assert may_write({"status": "closed"}, "action", "reopen_ticket")
    assert not may_write({"status": "paid"}, "action", "void_invoice")
    assert may_write({"status": "paid"}, "action", "refund_invoice")
    assert may_write({"status": "open"}, "update", "update_ticket")
    assert ("pickup_at", "dropoff_at") in range_pairs(["pickup_at", "dropoff_at", "id"])
    bad = {"starts_at": "2026-03-20T10:00:00Z", "ends_at": "2026-03-19T10:00:00Z"}
    assert inverted(bad) == [("starts_at", "ends_at")]
    assert not inverted({"min_qty": 1, "max_qty": 5})


def test_roles_and_motifs():
    assert role_of("assignee_email") == "assignee"
    assert role_of("to") == "recipient"
    assert role_of("customer_name") == "customer"
    assert is_staff_role("assignee") and not is_staff_role("customer")
    assert name_motif([("suspend_user", "users"), ("send_message", "messages")]) == "offboarding"
    assert name_motif([("update_ticket", "tickets"), ("assign_ticket", "tickets")]) == "escalation"
    assert name_motif([("rename_file", "files")]) == ""


def test_instructions_vary_and_open_with_the_goal(composed):
    _, result = composed
    openings = {" ".join(t.instruction.split()[:3]) for t in result.tasks}
    assert len(openings) >= len(result.tasks) // 3
