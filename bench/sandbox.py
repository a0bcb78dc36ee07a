"""Sandbox costs: worker start-up, loading an 11-tool service from source, one tool call per
round trip, tool calls in a batch, and a pool build over many services. Prints figures;
asserts nothing.

    .venv/bin/python bench/sandbox.py [--services 100]   # 100 x 11 tools ~ a 1,000-tool build
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import time

import library.services.crm as crm_module
from library.runtime import World
from library.sandbox import Sandbox, SandboxPolicy, run_many
from library.seed import seed_pool

CRM_SOURCE = inspect.getsource(crm_module)  # a real service, loaded as untrusted text


def timed(fn, repeat: int) -> list[float]:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return runs


def start_up(policy: SandboxPolicy) -> None:
    def once() -> None:
        with Sandbox(policy):
            pass

    runs = timed(once, 5)
    print(
        f"worker start-up + lockdown        {statistics.median(runs) * 1e3:8.1f} ms (median of 5)"
    )
    with Sandbox(policy) as sb:
        info = sb.info
    mem = info["memory_mb"]
    print(f"worker baseline memory            {mem['VmRSS']:8.1f} MB RSS, {mem['VmSize']} MB VM")
    print(
        f"lockdown layers                   netns={info['network_isolated']} "
        f"landlock_abi={info['landlock_abi']} seccomp={info['seccomp']} "
        f"lockdown={info['lockdown_s'] * 1e3:.0f} ms"
    )


def compare(world: World, sb: Sandbox, label: str, tool: str, args: dict) -> None:
    n = 2000
    inproc = min(timed(lambda: [world.call(tool, args) for _ in range(n)], 3)) / n
    single = min(timed(lambda: [sb.call(tool, args) for _ in range(n)], 3)) / n
    batch = [(tool, args)] * 1000
    batched = min(timed(lambda: sb.calls(batch), 5)) / len(batch)
    print(f"\n== {label} call ({tool}) ==")
    print(f"in-process World.call             {inproc * 1e6:8.1f} us/call")
    print(f"sandbox call (one round trip)     {single * 1e6:8.1f} us/call")
    print(f"sandbox calls (batch of 1,000)    {batched * 1e6:8.1f} us/call")


def calls(policy: SandboxPolicy) -> None:
    with Sandbox(policy) as sb:
        runs = timed(lambda: sb.load("gen_crm", CRM_SOURCE), 5)
        print(f"load an 11-tool service (source)  {statistics.median(runs) * 1e3:8.1f} ms")
        sb.mount(["gen_crm:Crm"], seed=7, size=20)
        world = World([crm_module.Crm()], seed=7)
        world.seed_states(seed_pool(7), 20)
        contact = next(iter(world.services["crm"].state.contacts))
        compare(world, sb, "read", "crm__get_contact", {"contact_id": contact})
        compare(world, sb, "write", "crm__update_contact", {"contact_id": contact, "title": "CTO"})


def build(policy: SandboxPolicy, services: int, workers: int) -> None:
    def job(sb: Sandbox, i: int) -> int:
        (loaded,) = sb.load(f"gen_{i}", CRM_SOURCE)
        sb.mount([loaded.ref], seed=i, size=10)
        sb.invoke("library.sandbox.probes.smoke", {"seed": i, "size": 10})
        return len(loaded.tools)

    t0 = time.perf_counter()
    results = run_many(job, range(services), policy=policy, workers=workers)
    elapsed = time.perf_counter() - t0
    tools = sum(r.value or 0 for r in results)
    failed = sum(not r.ok for r in results)
    print(f"\n== pool build: {services} services, {tools} tools, {workers} workers ==")
    print(f"wall time                         {elapsed:8.2f} s  ({failed} failed)")
    print(f"per service (fresh worker each)   {elapsed / services * 1e3:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--services", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    policy = SandboxPolicy()
    start_up(policy)
    calls(policy)
    build(policy, args.services, args.workers)


if __name__ == "__main__":
    main()
