"""Environment step costs: tool calls per second (direct and gateway), snapshot+restore of a
4-service x 1,000-record World, and state_hash. Prints figures; asserts nothing.

    .venv/bin/python bench/env_step.py
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

from library.runtime import Gateway, World
from library.seed import seed_pool
from library.services import reference_services


def per_call_us(fn: Callable[[], object], n: int, repeat: int = 5) -> float:
    """Best-of-`repeat` mean microseconds per call (best-of filters scheduler noise)."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return min(runs)


def build_world(records: int) -> World:
    world = World(reference_services(), seed=7)
    world.seed_states(
        seed_pool(people=max(120, records), companies=max(30, records // 10)), size=records
    )
    return world


def main() -> None:
    os.environ.setdefault("PYTHONHASHSEED", "0")
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


if __name__ == "__main__":
    main()
