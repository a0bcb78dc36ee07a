"""Composition spends less on walks it would throw away: openings that never lead to the
workflow's work are tried less, and a walk whose plan the run already has varies its last
write instead of ending as a near-duplicate."""

from __future__ import annotations

import contextlib
import random
from types import SimpleNamespace

import pytest

from library.compose import ComposeConfig, make_env
from library.compose.compose import Balance
from library.compose.prune import purposeful
from library.compose.walk import Walker
from library.compose.walk_state import Reject
from tests.compose_walks import forced
from tests.libraries import bundled_library

SERVICES = ["storefront", "payments", "helpdesk", "mail", "crm", "returns", "shipping"]


@pytest.fixture(scope="module")
def env():
    library = bundled_library(SERVICES)
    return make_env(library.classes, library.nodes, config=ComposeConfig())


def _walk_outcome(motif: str, opening: str, did_work: bool) -> SimpleNamespace:
    tool = SimpleNamespace(qualified=opening)
    return SimpleNamespace(
        motif=SimpleNamespace(name=motif),
        steps=[SimpleNamespace(tool=tool)],
        _did_core_work=lambda: did_work,
    )


def test_an_opening_that_never_leads_to_the_work_is_tried_less() -> None:
    balance = Balance(SimpleNamespace(config=ComposeConfig()))
    for _ in range(Balance.LEARN - 1):
        balance.opened(_walk_outcome("refund", "backups__list", False))
    assert balance.opening_odds("refund", "backups__list") == 1.0  # still learning
    for _ in range(30):
        balance.opened(_walk_outcome("refund", "backups__list", False))
        balance.opened(_walk_outcome("refund", "orders__list", True))
    assert balance.opening_odds("refund", "backups__list") < 0.1
    assert balance.opening_odds("refund", "orders__list") == 1.0
    # what one workflow learned says nothing of another's openings
    assert balance.opening_odds("billing", "backups__list") == 1.0


def _plan(walker: Walker) -> tuple[str, ...]:
    return tuple(walker.steps[i].tool.qualified for i in purposeful(walker.steps, ()))


def _walked(env, j: int, taken=None, opening_odds=None) -> Walker | None:
    world, base = env.world(j % env.config.worlds)
    walker = forced("refund", "escalation")(env, world, base, random.Random(f"vary:{j}"))
    walker.taken, walker.opening_odds = taken, opening_odds
    try:
        walker.walk()
    except Reject:
        return None
    return walker


def test_walks_skip_the_openings_the_run_gave_up_on(env) -> None:
    """With every opening but the shop's order search given up on, every walk that opens
    at all opens there."""
    kept = "storefront__search_orders"
    odds = lambda _workflow, tool: 1.0 if tool == kept else 0.0  # noqa: E731
    openings = set()
    for j in range(40):
        world, base = env.world(j % env.config.worlds)
        walker = forced("refund")(env, world, base, random.Random(f"odds:{j}"))
        walker.opening_odds = odds
        with contextlib.suppress(Reject):
            walker.walk()
        if walker.steps:
            openings.add(walker.steps[0].tool.qualified)
    assert openings == {kept}


def test_a_walk_whose_plan_the_run_has_ends_in_another_plan(env) -> None:
    varied = same = 0
    for j in range(60):
        first = _walked(env, j)
        if first is None:
            continue
        plan = _plan(first)
        last = max(i for i, s in enumerate(first.steps) if s.write)
        if first.core_work(first.steps[last].tool):
            continue  # the workflow's own work is never given up for variety
        second = _walked(env, j, taken=lambda p, plan=plan: p == plan)
        if second is None:
            continue
        if _plan(second) == plan:
            same += 1  # no other write could take the last one's place
        else:
            varied += 1
            assert any(s.write for s in second.steps)
    assert varied >= 5, (varied, same)  # 11 of 23 on these seeds
