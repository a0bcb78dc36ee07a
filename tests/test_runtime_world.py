"""World: envelopes, atomic failures, snapshots, hashes and diffs, in direct and gateway mode."""

from __future__ import annotations

import subprocess
import sys

import pytest

from library.runtime import ErrorCode, Gateway, Record, Service, State, ToolError, World, tool
from library.seed import seed_pool
from library.services.crm import Crm

from .conftest import ROOT


class Counter(Record):
    value: int


class FlakyState(State):
    counters: dict[str, Counter] = {}


class Flaky(Service):
    """A service whose tools fail after changing state, to prove rollback."""

    name = "flaky"
    State = FlakyState

    @tool(write=True)
    def bump_then_crash(self, counter_id: str) -> Counter:
        """Increment a counter, then hit an unexpected bug.

        Args:
            counter_id: Which counter.
        """
        self.put("counters", Counter(id=counter_id, value=1))
        raise KeyError("boom")

    @tool(write=True)
    def bump_then_refuse(self, counter_id: str) -> Counter:
        """Increment a counter, then refuse.

        Args:
            counter_id: Which counter.
        """
        self.put("counters", Counter(id=counter_id, value=1))
        raise ToolError(ErrorCode.FAILED_PRECONDITION, "counter is frozen")

    @tool
    def wrong_return(self) -> Counter:
        """Return something that is not a Counter."""
        return {"nope": 1}  # type: ignore[return-value]


def make_world(seed: int = 3) -> World:
    world = World([Crm(), Flaky()], seed=seed)
    world.seed_states(seed_pool(), size=15)
    return world


def a_contact(world: World) -> str:
    return next(iter(world.services["crm"].state.contacts))


BAD_CALLS = [
    ("crm__get_contact", {"contact_id": 42}, ErrorCode.INVALID_ARGUMENT, "contact_id"),
    ("crm__get_contact", {}, ErrorCode.INVALID_ARGUMENT, "contact_id: Field required"),
    ("crm__get_contact", {"contact_id": "x", "colour": 1}, ErrorCode.INVALID_ARGUMENT, "colour"),
    (
        "crm__create_contact",
        {"name": "Ann", "email": "not-an-email"},
        ErrorCode.INVALID_ARGUMENT,
        "email",
    ),
    ("crm__get_contact", '{"contact_id": ', ErrorCode.INVALID_ARGUMENT, "not valid JSON"),
    ("crm__get_contact", "[1, 2]", ErrorCode.INVALID_ARGUMENT, "must be a JSON object"),
    ("crm__no_such_tool", {}, ErrorCode.NOT_FOUND, "unknown tool 'crm__no_such_tool'"),
    ("crm__get_contact", {"contact_id": "ct_missing"}, ErrorCode.NOT_FOUND, "ct_missing"),
    ("flaky__bump_then_crash", {"counter_id": "c1"}, ErrorCode.INTERNAL, "KeyError"),
    ("flaky__bump_then_refuse", {"counter_id": "c1"}, ErrorCode.FAILED_PRECONDITION, "frozen"),
    ("flaky__wrong_return", {}, ErrorCode.INTERNAL, "flaky__wrong_return"),
]


CASES = [("direct", *c) for c in BAD_CALLS] + [
    ("gateway", *c)
    for c in BAD_CALLS
    if not isinstance(c[1], str)  # gateway args arrive parsed
]


@pytest.mark.parametrize(("mode", "name", "args", "code", "needle"), CASES)
def test_bad_calls_return_an_error_envelope_and_change_nothing(
    mode: str, name: str, args: object, code: ErrorCode, needle: str
) -> None:
    world = make_world()
    before = world.state_hash()
    snap = world.snapshot()
    if mode == "direct":
        result = world.call(name, args)  # type: ignore[arg-type]
    else:
        result = Gateway(world).call("call_tool", {"tool_name": name, "arguments": args})
    assert result["success"] is False
    assert result["error"]["code"] == code
    assert needle in result["error"]["message"]
    assert world.state_hash() == before
    assert not world.diff(snap)


def test_gateway_rejects_bad_meta_calls() -> None:
    gw = Gateway(make_world())
    assert gw.call("teleport")["error"]["code"] == "not_found"
    missing = gw.call("call_tool", {"arguments": {}})
    assert missing["error"]["code"] == "invalid_argument"
    assert "tool_name" in missing["error"]["message"]
    unknown = gw.call("list_tools", {"service": "erp"})
    assert unknown["error"]["code"] == "not_found"
    assert "crm" in unknown["error"]["message"]


def test_gateway_discovery_then_call() -> None:
    world = make_world()
    gw = Gateway(world)
    services = gw.call("list_services")["data"]
    assert {s["name"] for s in services} == {"crm", "flaky"}
    tools = gw.call("list_tools", {"service": "crm"})["data"]
    assert {"name", "description"} == set(tools[0])
    assert "crm__get_contact" in {t["name"] for t in tools}
    desc = gw.call("describe_tool", {"tool_name": "crm__get_contact"})["data"]
    assert desc["input_schema"]["required"] == ["contact_id"]
    assert desc["read_only"] is True
    direct = world.call("crm__get_contact", {"contact_id": a_contact(world)})
    via_gw = gw.call(
        "call_tool",
        {"tool_name": "crm__get_contact", "arguments": {"contact_id": a_contact(world)}},
    )
    assert via_gw == direct
    assert [t["function"]["name"] for t in gw.tool_schemas()] == list(Gateway.META_TOOLS)


def test_snapshot_restore_is_copy_on_write_per_service() -> None:
    world = make_world()
    crm_state, flaky_state = world.services["crm"].state, world.services["flaky"].state
    snap = world.snapshot()
    h0 = world.state_hash()
    created = world.call("crm__create_contact", {"name": "Ann Lee", "email": "ann@lee.io"})
    assert created["success"]
    assert world.services["flaky"].state is flaky_state  # untouched service: never copied
    assert world.services["crm"].state is not crm_state  # written service: a new state object
    assert created["data"]["id"] not in crm_state.contacts  # the snapshot's state is intact
    assert world.state_hash() != h0
    world.restore(snap)
    assert world.services["crm"].state is crm_state
    assert world.state_hash() == h0


def test_restore_brings_back_the_rng_drawn_from_between_snapshots() -> None:
    # Snapshots share the RNG state read last until someone asks for ``world.rng``; every
    # draw goes through that ask, so a restore still undoes it.
    world = make_world()
    snap = world.snapshot()
    assert world.snapshot().rng_state is snap.rng_state  # nothing drew: not read again
    first = [world.rng.random() for _ in range(3)]
    moved = world.snapshot()
    assert moved.rng_state != snap.rng_state
    world.restore(snap)
    assert [world.rng.random() for _ in range(3)] == first
    world.restore(moved)
    world.restore(snap)  # back and forth without a draw in between
    assert [world.rng.random() for _ in range(3)] == first


def test_read_calls_do_not_copy_state() -> None:
    world = make_world()
    state = world.services["crm"].state
    assert world.call("crm__list_contacts", {"limit": 5})["success"]
    assert world.services["crm"].state is state


def test_diff_reports_added_updated_deleted_records() -> None:
    world = make_world()
    snap = world.snapshot()
    new = world.call("crm__create_contact", {"name": "Bo Diaz", "email": "bo@diaz.io"})["data"]
    world.call("crm__update_contact", {"contact_id": new["id"], "title": "CFO"})
    deal_free = next(
        c
        for c in world.services["crm"].state.contacts
        if c != new["id"]
        and not any(d.contact_id == c for d in world.services["crm"].state.deals.values())
    )
    assert world.call("crm__delete_contact", {"contact_id": deal_free})["success"]
    contact_id = next(c for c in world.services["crm"].state.contacts if c != new["id"])
    world.call("crm__update_contact", {"contact_id": contact_id, "title": "VP Sales"})
    d = world.diff(snap).collection("crm", "contacts")
    assert set(d.added) == {new["id"]} and d.added[new["id"]]["title"] == "CFO"
    assert set(d.deleted) == {deal_free}
    assert d.updated[contact_id]["title"][1] == "VP Sales"
    assert "flaky" not in world.diff(snap).services


def test_same_seed_and_calls_give_the_same_hash_and_ids() -> None:
    def episode() -> tuple[str, str]:
        world = make_world(seed=11)
        created = world.call("crm__create_contact", {"name": "Cy Ng", "email": "cy@ng.io"})
        return created["data"]["id"], world.state_hash()

    assert episode() == episode()
    assert make_world(seed=11).state_hash() != make_world(seed=12).state_hash()


def test_replay_after_restore_is_identical() -> None:
    world = make_world()
    snap = world.snapshot()
    first = world.call("crm__create_contact", {"name": "Di Oh", "email": "di@oh.io"})
    h1 = world.state_hash()
    world.restore(snap)
    second = world.call("crm__create_contact", {"name": "Di Oh", "email": "di@oh.io"})
    assert first == second
    assert world.state_hash() == h1


def test_state_hash_is_stable_across_processes_and_hash_seeds() -> None:
    code = (
        "from tests.test_runtime_world import make_world; w = make_world(seed=5);"
        "w.call('crm__create_contact', {'name': 'Ed Po', 'email': 'ed@po.io'});"
        "print(w.state_hash())"
    )
    hashes = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2", "3")
    }
    assert len(hashes) == 1 and len(next(iter(hashes))) == 32


def test_state_round_trips_through_json() -> None:
    world = make_world()
    exported = world.export_states()
    other = World([Crm(), Flaky()], seed=99)
    other.load_states(exported)
    assert other.state_hash() == world.state_hash()
    state = world.services["crm"].state
    assert type(state).model_validate_json(state.model_dump_json()) == state


def test_clock_is_seeded_and_advances() -> None:
    a, b = World([Crm()], seed=1), World([Crm()], seed=2)
    assert a.now() != b.now()
    t0 = a.now()
    a.advance(3600)
    assert (a.now() - t0).total_seconds() == 3600
    created = a.call("crm__create_contact", {"name": "Fay Wu", "email": "fay@wu.io"})["data"]
    assert created["created_at"].startswith(a.now().date().isoformat())


def test_tool_schemas_export_every_mounted_tool() -> None:
    world = make_world()
    names = [s["function"]["name"] for s in world.tool_schemas("openai")]
    assert "crm__create_deal" in names and "flaky__bump_then_crash" in names
    mcp = world.tool_schemas("mcp")
    assert {"name", "description", "inputSchema"} <= set(mcp[0])
    with pytest.raises(ValueError, match="fmt"):
        world.tool_schemas("xml")


def test_mounting_a_service_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="already mounted"):
        World([Crm(), Crm()])
