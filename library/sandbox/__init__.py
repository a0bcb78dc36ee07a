"""Run untrusted service code in restricted worker processes.

``Sandbox`` is one worker; ``SandboxPool``/``run_many`` spread independent jobs over several.
The worker (``library.sandbox.worker``) imports this package too, so names are loaded lazily:
it must not pull in the client's subprocess and threading machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from library.sandbox.client import LoadedService, Sandbox, ToolInfo
    from library.sandbox.errors import SandboxError
    from library.sandbox.policy import SandboxPolicy
    from library.sandbox.pool import JobResult, SandboxPool, run_many

_EXPORTS = {
    "JobResult": "library.sandbox.pool",
    "LoadedService": "library.sandbox.client",
    "Sandbox": "library.sandbox.client",
    "SandboxError": "library.sandbox.errors",
    "SandboxPolicy": "library.sandbox.policy",
    "SandboxPool": "library.sandbox.pool",
    "ToolInfo": "library.sandbox.client",
    "run_many": "library.sandbox.pool",
}

__all__ = [
    "JobResult",
    "LoadedService",
    "Sandbox",
    "SandboxError",
    "SandboxPolicy",
    "SandboxPool",
    "ToolInfo",
    "run_many",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'library.sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
