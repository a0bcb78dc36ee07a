"""Trusted ``invoke`` targets that ship with the sandbox. Each is ``fn(ctx: InvokeContext,
payload) -> JSON``. They run beside untrusted code, so what they return is data, never a
verdict (conformance is judged in the parent: ``library.verify.remote``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from library.runtime import World
from library.runtime.world import hash_state
from library.seed import seed_pool

if TYPE_CHECKING:
    from library.sandbox.worker import InvokeContext


def smoke(ctx: InvokeContext, payload: Any) -> dict[str, Any]:
    """Seed each loaded service alone and check its state survives a JSON round trip.

    payload: ``{"services": [ref, ...] | None (all), "seed": int, "size": int}``.
    Returns ``{ref: {"service", "tools", "records", "hash", "round_trip"}}``.
    """
    payload = payload or {}
    seed, size = int(payload.get("seed", 0)), int(payload.get("size", 10))
    report: dict[str, Any] = {}
    for ref in payload.get("services") or sorted(ctx.services):
        cls = ctx.services[ref]
        world = World([cls()], seed=seed)
        world.seed_states(seed_pool(seed), size)
        state = world.services[cls.name].state
        again = type(state).model_validate(state.model_dump(mode="json"))
        report[ref] = {
            "service": cls.name,
            "tools": sorted(cls.tools),
            "records": {name: len(c) for name, c in state.collections().items()},
            "hash": hash_state(state),
            "round_trip": hash_state(again) == hash_state(state),
        }
    return report
