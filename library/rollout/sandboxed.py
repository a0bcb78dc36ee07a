"""The gateway, run inside a sandbox worker for ``SandboxEnv`` (a trusted ``invoke`` target).

The meta-tools need the mounted World (service descriptions, tool schemas, the calls), which
lives in the worker; running ``Gateway`` there gives gateway mode exactly the answers it has
in-process. Keep this module's imports to the runtime: the worker imports it before it
locks down.
"""

from __future__ import annotations

from typing import Any

from library.runtime import ErrorCode, Gateway, World
from library.runtime.errors import fail

# The gateway of the worker's current World (a worker runs one episode at a time).
_current: list[tuple[World, Gateway]] = []


def gateway(ctx: Any, payload: Any) -> dict[str, Any]:
    """``payload = {"tool": meta-tool name, "arguments": {...}}`` -> the envelope."""
    world = ctx.world
    if world is None:
        return fail(ErrorCode.FAILED_PRECONDITION, "no world is mounted")
    if not isinstance(payload, dict) or not isinstance(payload.get("tool"), str):
        return fail(ErrorCode.INVALID_ARGUMENT, "payload must be {tool, arguments}")
    if not _current or _current[0][0] is not world:
        _current[:] = [(world, Gateway(world))]
    return _current[0][1].call(payload["tool"], payload.get("arguments"))
