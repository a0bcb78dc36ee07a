"""Reads that answer an id alone, on the real tau-bench specs: tau's retail finds a user's
id by their e-mail (``find_user_id_by_email``), then reads the user (``get_user_details``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from library.compose import make_env
from library.compose.corpus import Library
from library.compose.env import ComposeEnv
from library.compose.spec_library import spec_library
from tests.test_compose_real_specs import _opened

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs" / "functions" / "tau_bench"
RETAIL = SPECS / "retail.json"
pytestmark = pytest.mark.skipif(not RETAIL.is_file(), reason="../shared/specs not present")


@pytest.fixture(scope="module")
def lib() -> Library:
    return spec_library([RETAIL])


@pytest.fixture(scope="module")
def env(lib: Library) -> ComposeEnv:
    return make_env(lib.classes, lib.nodes)


def test_a_read_answering_an_id_alone(lib: Library, env: ComposeEnv) -> None:
    """``find_user_id_by_email`` answers ``{user_id}`` (not user records with their
    orders): a lookup of users whose record is known once ``get_user_details`` fetches it,
    and that fetch is the next step's to make."""
    [retail] = [c for c in lib.classes if c.name == "retail"]
    spec = next(s for s in lib.specs if s.name == "find_user_id_by_email")
    assert set(spec.output_schema["properties"]) == {"user_id"}, spec.output_schema
    assert str(spec.verb) == "read"
    find = env.catalog.tools["retail__find_user_id_by_email"]
    assert (find.kind, find.collection, find.id_only) == ("lookup", "users", True)
    details = env.catalog.tools["retail__get_user_details"]
    assert details.qualified in env.graph.succ[find.qualified]  # what it answers feeds it
    fetched = 0
    for _, walker in _opened(env, find, 8):
        step = walker.steps[0]
        user = step.entity
        assert user is not None and set(user.record) == {"id"}  # nothing known but its id
        held = {("retail", "users")}
        assert walker._plausible(details, "local_read", held, held)
        follow = walker._attempt(details)
        assert follow is not None and follow.entity is user
        assert follow.args == {"user_id": user.id}
        assert follow.binds["user_id"] == {"from": "step", "step": 0, "path": "user_id"}
        assert "order_ids" in user.record and user.step == 1  # read in full, by the fetch
        assert not walker._plausible(details, "local_read", held, held)  # once
        fetched += 1
    assert fetched >= 4
    assert retail.tools["find_user_id_by_email"]


def test_work_found_by_email_reads_the_user_before_their_orders() -> None:
    """A retail request opening with the customer's e-mail composes: the id found, the
    user fetched, then their order; nothing but the id is read off the id lookup."""
    from library.compose.compose import candidate

    mail = SPECS.parents[1] / "mcp" / "docker" / "gmail-mcp.json"
    tickets = SPECS.parent / "bfcl_multi_turn" / "ticket_api.json"
    lib = spec_library([RETAIL, mail, tickets])
    env = make_env(lib.classes, lib.nodes)
    plans = [t.gold_plan for j in range(4) if not isinstance(t := candidate(env, 0, j), str)]
    opened = [p for p in plans if p[0]["tool"] == "retail__find_user_id_by_email"]
    assert opened, plans
    for plan in opened:
        assert plan[1]["tool"] == "retail__get_user_details"
        from_find = [b for s in plan[1:] for b in s["binds"].values() if b.get("step") == 0]
        assert from_find and all(b["path"] == "user_id" for b in from_find), plan


def test_the_fetch_after_an_id_lookup_is_on_the_way_to_the_work(env: ComposeEnv) -> None:
    """A walk out of steps that miss its work (``ComposeConfig.max_core_misses``) is
    dropped, but not for the step after a lookup that found a user's id alone: nothing can
    be cancelled before the user's details list their orders, and fetching them is the
    way to the work, so the walk fetches them and has missed no more."""
    find = env.catalog.tools["retail__find_user_id_by_email"]
    refund = next(m for m, _ in env.workflows if m.name == "refund")
    assert env.core_tools(refund) == {"retail__cancel_pending_order"}
    walks = 0
    for _, walker in _opened(env, find, 8):
        walker.motif, walker.allowed = refund, env.motif_tools(refund)
        walker.core_misses = walker.cfg.max_core_misses  # one more miss drops the walk
        step = walker._next(1, 5)
        assert step is not None and step.tool.name == "get_user_details"
        assert walker.core_misses == walker.cfg.max_core_misses
        walks += 1
    assert walks >= 4


def test_a_user_an_id_lookup_does_not_find_is_seeded() -> None:
    """``find_user_id_by_email`` of an e-mail no user has fails ("not found") where a
    search lists nothing: a request by mail from someone the shop does not hold seeds the
    user the sender is, as it does for a search, and the walk goes on from their id."""
    from library.compose.walk import Walker

    mail = SPECS.parents[1] / "mcp" / "docker" / "gmail-mcp.json"
    lib = spec_library([RETAIL, mail])
    env = make_env(lib.classes, lib.nodes)
    find = env.catalog.tools["retail__find_user_id_by_email"]
    opener = env.catalog.tools["gmail_mcp__findMessage"]
    seeded = 0
    for j in range(16):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(j))
        if walker._attempt_start(opener) is None:
            continue
        users = world.services["retail"].state.users
        held = {u.email for u in users.values()}
        step = walker._attempt(find)
        if step is None or step.args["email"] in held:
            continue
        found = world.call(find.qualified, {"email": step.args["email"]})
        assert found["data"] == {"user_id": step.entity.id}
        seeded += 1
    assert seeded >= 3
