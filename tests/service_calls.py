"""Call helpers shared by the reference-service tests: each checks the envelope and that
reads and failures leave the state exactly as it was."""

from __future__ import annotations

from typing import Any

from library.runtime import World


def fresh_hash(world: World) -> str:
    """The state hash recomputed from scratch (the World caches hashes per state object)."""
    world.invalidate()
    return world.state_hash()


class ServiceCalls:
    """``ok``/``read``/``err`` for the tools of one service."""

    def __init__(self, service: str) -> None:
        self.service = service

    def ok(self, world: World, tool: str, **args: Any) -> Any:
        result = world.call(f"{self.service}__{tool}", args)
        assert result["success"], result
        return result["data"]

    def read(self, world: World, tool: str, **args: Any) -> Any:
        """Call a read tool and check it left the state exactly as it was."""
        before = fresh_hash(world)
        data = self.ok(world, tool, **args)
        assert fresh_hash(world) == before, f"read tool {tool} changed the state"
        return data

    def err(self, world: World, tool: str, code: str, **args: Any) -> str:
        """Call a tool that must fail with ``code`` and check the failure changed nothing."""
        before = fresh_hash(world)
        result = world.call(f"{self.service}__{tool}", args)
        assert not result["success"], result
        assert result["error"]["code"] == code, result
        assert fresh_hash(world) == before, f"failed {tool} changed the state"
        return result["error"]["message"]
