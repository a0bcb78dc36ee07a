"""The reference World: the hand-written services seeded from the shared pool."""

from __future__ import annotations

from typing import Any

from library.runtime import World
from library.seed import seed_pool
from library.services import reference_services


def describe_reference_world(seed: int = 0, size: int = 20) -> dict[str, Any]:
    """Mount and seed the reference services; report what they hold."""
    world = World(reference_services(), seed=seed)
    world.seed_states(seed_pool(seed), size=size)
    return {
        "services": len(world.services),
        "tools": len(world.tool_names),
        "records": sum(
            len(c) for svc in world.services.values() for c in svc.state.collections().values()
        ),
        "state_hash": world.state_hash(),
    }
