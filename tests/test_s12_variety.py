"""Variety of a run over real specs: the work of teams on their own tools (a task board, a
user directory) is recognised as workflows of its own, no one set of services fills the
run, and a workflow whose walks never become tasks stops taking the run's candidates."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from library.compose import ComposeConfig, compose_tasks
from library.compose.compose import SERVICE_SET_CAP, Balance
from library.compose.domains import TEAM_WORK
from library.compose.motifs import BY_NAME, MOTIFS, SEQUELS, motif_of, part_of
from tests.spec_envs import spec_env

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
CHECKLIST = SPECS / "mcp" / "docker" / "simplechecklist.json"
SCIM = SPECS / "openapi" / "citrixonline.com__scim.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"


def _balance(**kw: object) -> Balance:
    return Balance(SimpleNamespace(config=ComposeConfig(**kw)))  # type: ignore[arg-type]


def _task(services: list[str], motif: str = "refund") -> SimpleNamespace:
    return SimpleNamespace(
        motif=motif, capabilities=[], difficulty="medium", services=services, domain="x"
    )


@pytest.mark.parametrize(
    ("tool", "collection", "motif"),
    [
        ("toggle_task_completion", "tasks", "task update"),
        ("complete_task", "tasks", "task update"),
        ("reopen_task", "tasks", "task update"),
        ("updateUser", "users", "account change"),
        ("replaceGroup", "groups", "account change"),
        ("add_group_member", "groups", "account change"),
        # what was theirs stays theirs
        ("deleteUser", "users", "offboarding"),
        ("createZone", "zones", "domain setup"),
    ],
)
def test_the_work_of_a_task_board_and_a_directory_has_a_workflow(
    tool: str, collection: str, motif: str
) -> None:
    found = motif_of(tool, collection)
    assert found is not None and found.name == motif


def test_an_account_change_keeps_the_account() -> None:
    """Changing someone's account edits it or its groups; deleting or suspending it is
    someone leaving, never part of the change."""
    change = BY_NAME["account change"]
    assert part_of(change, "updateUser", "users") and part_of(change, "add_group_member", "groups")
    for tool in ("deleteUser", "deactivate_user", "suspend_user"):
        assert not part_of(change, tool, "users"), tool


def test_a_team_s_own_workflows_report_to_a_colleague() -> None:
    """A task board's or a directory's work is the team's own (what it reports goes to a
    colleague), and every workflow says what may follow it in a long request."""
    assert {"task update", "account change"} <= TEAM_WORK
    assert set(SEQUELS) == {m.name for m in MOTIFS}


def test_no_set_of_services_fills_the_run_while_others_are_found() -> None:
    """Once the run has found several sets of services, one more task of a set holding its
    share (``Balance.SET_SHARE``) is over the cap, even while the run starves and the other
    caps are lifted; a run that has found a single set is not held to it."""
    balance = _balance(max_service_share=1.0, max_domain_share=1.0)
    sets = [[f"svc{i}", "mail"] for i in range(6)]
    for k in range(24):
        balance.add(_task(sets[k % 6]))
    assert balance.over(["svc0", "mail"], "x") is None
    for _ in range(40):  # (bounded: without the cap it would never be reached)
        if balance.over(["svc0", "mail"], "x") is not None:
            break
        balance.add(_task(["svc0", "mail"]))
    share = balance.sets[frozenset({"svc0", "mail"})] / balance.total
    assert balance.over(["svc0", "mail"], "x") == SERVICE_SET_CAP
    assert share <= Balance.SET_SHARE + 1 / balance.total
    assert balance.over(["mail", "svc1"], "x") is None  # another set may still come
    balance.lifted = True
    assert balance.over(["svc0", "mail"], "x") == SERVICE_SET_CAP
    # a library with one set of services makes all its tasks there
    alone = _balance(max_service_share=1.0, max_domain_share=1.0)
    for _ in range(40):
        assert alone.over(["a", "b"], "x") is None
        alone.add(_task(["a", "b"]))


def test_a_workflow_whose_walks_never_become_tasks_is_drawn_less() -> None:
    """After ``DEAD_AFTER`` walks without a task a workflow is drawn ``DEAD_ODDS`` as often as
    the least favoured workflow that gives tasks; before that, and once it gives one, it
    keeps its weight."""
    balance = _balance()
    for k in range(Balance.DEAD_AFTER):
        balance.drew("travel")
        balance.drew("refund")
        if k % 3 == 0:
            balance.completed()
    odds = balance.workflow_odds()
    assert odds is not None and set(odds) == {"travel"}
    assert odds["travel"] == pytest.approx(Balance.DEAD_ODDS)
    balance.drew("travel")
    balance.completed()
    assert balance.workflow_odds() is None


def test_a_task_board_and_a_user_directory_give_tasks_of_their_own() -> None:
    """Over a checklist app, a SCIM user directory and a mailbox, the run has tasks updating
    tasks and changing accounts (each with the mailbox: two sets of services)."""
    env = spec_env(CHECKLIST, SCIM, GMAIL)
    tasks = compose_tasks([], 24, env=env, seed=0, max_candidates=1500).tasks
    motifs = Counter(t.motif for t in tasks)
    assert motifs["task update"] and motifs["account change"], motifs
    for task in tasks:
        if task.motif == "account change":
            assert any(s["tool"].startswith("citrixonline_com_scim__") for s in task.gold_plan)
    sets = Counter(frozenset(t.services) for t in tasks)
    assert len(sets) >= 2, sets
