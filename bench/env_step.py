"""Environment step costs: tool calls per second (direct and gateway), snapshot+restore of a
4-service x 1,000-record World, state_hash, and read / write / reset cost as the written
collection grows (100 / 1,000 / 100,000 records). Prints figures; asserts nothing.

    .venv/bin/python bench/env_step.py            # everything
    .venv/bin/python bench/env_step.py --scaling  # only the per-size table

A write works on a clone of the service's state (rollback and snapshots need the published
state untouched); collections are persistent maps (``library.runtime.collection``), so the
clone shares them and a write costs O(log n) in the collection's size.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable

from library.runtime import Gateway, Service, World
from library.seed import seed_pool
from library.services import reference_services

Clock = Callable[[], float]


def per_call_us(
    fn: Callable[[], object], n: int, repeat: int = 5, clock: Clock = time.perf_counter
) -> float:
    """Best-of-`repeat` mean microseconds per call (best-of filters scheduler noise)."""
    runs = []
    for _ in range(repeat):
        t0 = clock()
        for _ in range(n):
            fn()
        runs.append((clock() - t0) / n * 1e6)
    return min(runs)


def cpu_us(fn: Callable[[], object], n: int, repeat: int = 5) -> float:
    """``per_call_us`` in this process's CPU time: on a busy machine (other processes on the
    same cores) wall time counts their turns too; CPU time counts only ours."""
    return per_call_us(fn, n, repeat, clock=time.process_time)


def build_world(records: int) -> World:
    world = World(reference_services(), seed=7)
    world.seed_states(
        seed_pool(people=max(120, records), companies=max(30, records // 10)), size=records
    )
    return world


def grow(world: World, records: int) -> str:
    """The crm's contacts grown to ``records`` (copies of the seeded ones under new ids, so
    seeding stays fast at 100,000); returns a contact id to read and write."""
    crm: Service = world.services["crm"]
    contacts = list(crm.state.contacts.values())
    grown = {c.id: c for c in contacts[:records]}
    i = 0
    while len(grown) < records:
        c = contacts[i % len(contacts)]
        copy = c.model_copy(update={"id": f"ct_bench{i:07d}"})
        grown[copy.id] = copy
        i += 1
    state = crm.state.clone()
    state.contacts = grown
    crm.load_state(state)
    return next(iter(grown))


def costs(world: World, contact: str, size: int) -> tuple[float, float, float, float]:
    """(read us, write us, reset us, load ms) on ``world``, in CPU time."""
    start = world.snapshot()
    exported = world.export_states()
    read = cpu_us(lambda: world.call("crm__get_contact", {"contact_id": contact}), 5000)
    titles = iter(range(10**9))
    write = cpu_us(
        lambda: world.call(
            "crm__update_contact", {"contact_id": contact, "title": f"VP {next(titles)}"}
        ),
        2000 if size < 100_000 else 300,
    )
    # Reset: back to the episode's initial state (what an RL environment does between
    # episodes); load: the same from exported JSON (a task's initial_state), validated.
    reset = cpu_us(lambda: world.restore(start), 20000)
    load = cpu_us(lambda: world.load_states(exported), 1, repeat=3) / 1000
    return read, write, reset, load


def scaling(sizes: tuple[int, ...] = (100, 1_000, 100_000)) -> None:
    """Read, write and reset as the written collection (crm contacts) grows."""
    print("== cost by collection size (crm contacts; CPU time of one read, write, reset) ==")
    print(f"{'records':>9s} {'read us':>9s} {'write us':>9s} {'reset us':>9s} {'load ms':>9s}")
    for size in sizes:
        world = build_world(100)
        read, write, reset, load = costs(world, grow(world, size), size)
        print(f"{size:>9,d} {read:9.2f} {write:9.2f} {reset:9.2f} {load:9.1f}")


def main() -> None:
    os.environ.setdefault("PYTHONHASHSEED", "0")
    if "--scaling" in sys.argv[1:]:
        scaling()
        return
    small = build_world(20)
    crm_contact = next(iter(small.services["crm"].state.contacts))
    gateway = Gateway(small)
    read_args = {"contact_id": crm_contact}
    write_args = {"contact_id": crm_contact, "title": "Head of Procurement"}
    print("== tool calls (world of 4 reference services, 20 seeded records each) ==")
    direct_read = per_call_us(lambda: small.call("crm__get_contact", read_args), 20000)
    direct_write = per_call_us(lambda: small.call("crm__update_contact", write_args), 20000)
    gw_read = per_call_us(
        lambda: gateway.call(
            "call_tool", {"tool_name": "crm__get_contact", "arguments": read_args}
        ),
        20000,
    )
    gw_write = per_call_us(
        lambda: gateway.call(
            "call_tool", {"tool_name": "crm__update_contact", "arguments": write_args}
        ),
        20000,
    )
    bad = per_call_us(lambda: small.call("crm__get_contact", {"contact_id": 5}), 20000)
    for label, us in [
        ("direct read  (crm__get_contact)", direct_read),
        ("direct write (crm__update_contact)", direct_write),
        ("gateway read  (call_tool -> get_contact)", gw_read),
        ("gateway write (call_tool -> update_contact)", gw_write),
        ("direct invalid argument", bad),
    ]:
        print(f"{label:44s} {us:8.2f} us/call  {1e6 / us:>10,.0f} calls/s")

    print("\n== state (4 services x ~1,000 records each) ==")
    big = build_world(1000)
    sizes = {
        name: sum(len(c) for c in svc.state.collections().values())
        for name, svc in big.services.items()
    }
    print("records per service:", sizes)
    snap = big.snapshot()
    big.call(
        "crm__add_note", {"contact_id": next(iter(big.services["crm"].state.contacts)), "body": "x"}
    )
    snap_restore = per_call_us(lambda: (big.snapshot(), big.restore(snap)), 20000)
    print(f"snapshot + restore                            {snap_restore:8.2f} us")
    contact = next(iter(big.services["crm"].state.contacts))
    big_write = per_call_us(
        lambda: big.call("crm__update_contact", {"contact_id": contact, "title": "CTO"}), 2000
    )
    print(f"write call on the 1,000-record crm            {big_write:8.2f} us/call")

    def cold_hash() -> str:
        big.invalidate()
        return big.state_hash()

    full = statistics.median(per_call_us(cold_hash, 3, repeat=1) for _ in range(5))
    print(f"state_hash, all 4 services rehashed           {full / 1000:8.2f} ms")
    big.state_hash()

    def touched_hash() -> str:
        big.call("crm__update_contact", {"contact_id": contact, "title": "CFO"})
        return big.state_hash()

    after_write = per_call_us(touched_hash, 20, repeat=3)
    print(f"write + state_hash (only crm rehashed)        {after_write / 1000:8.2f} ms")
    unchanged = per_call_us(big.state_hash, 20000)
    print(f"state_hash, nothing touched since last hash   {unchanged:8.2f} us")
    print()
    scaling()


if __name__ == "__main__":
    main()
