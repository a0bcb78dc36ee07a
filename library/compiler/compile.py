"""``compile_service``: specs -> source text (what the ``services`` table stores), and
``load_service``: source text -> a Service class, executed in a fresh module."""

from __future__ import annotations

import hashlib
import sys
import types
from dataclasses import dataclass, field

from library.compiler.emit import emit_source
from library.compiler.plan import plan_service
from library.runtime import Service
from library.toolspec import ToolSpec

MODULE_PREFIX = "compoworld_generated"


@dataclass(frozen=True, slots=True)
class CompiledService:
    name: str
    source: str
    code_hash: str
    compiled_tools: list[str]
    skipped: dict[str, str] = field(default_factory=dict)  # tool -> reason

    def to_row(self) -> dict:
        return {
            "service": self.name,
            "tier": "compiler",
            "source": self.source,
            "code_hash": self.code_hash,
            "compiled_tools": list(self.compiled_tools),
            "skipped": dict(self.skipped),
        }


def code_hash(source: str) -> str:
    return hashlib.blake2b(source.encode(), digest_size=16).hexdigest()


def compile_service(specs: list[ToolSpec]) -> CompiledService:
    """Compile one service's tools; tools the tier cannot express are listed in ``skipped``."""
    plan = plan_service(specs)
    source = emit_source(plan)
    return CompiledService(
        name=plan.service,
        source=source,
        code_hash=code_hash(source),
        compiled_tools=[t.name for t in plan.tools],
        skipped=dict(plan.skipped),
    )


def load_service(source: str, module_name: str | None = None) -> type[Service]:
    """Execute generated source in a fresh module and return its Service subclass.

    The module is registered in ``sys.modules`` under a name derived from the code hash, so
    pydantic can resolve the module's annotations and the same code loads only once.
    Generated code is untrusted: call this inside the sandbox worker, not in the control plane.
    """
    name = module_name or f"{MODULE_PREFIX}.m{code_hash(source)}"
    module = sys.modules.get(name)
    if module is None:
        module = types.ModuleType(name)
        module.__file__ = f"<{name}>"
        sys.modules[name] = module
        try:
            exec(compile(source, module.__file__, "exec"), module.__dict__)
        except BaseException:
            del sys.modules[name]
            raise
    found = [
        v
        for v in vars(module).values()
        if isinstance(v, type)
        and issubclass(v, Service)
        and v is not Service
        and v.__module__ == name
    ]
    if len(found) != 1:
        raise ValueError(f"expected one Service subclass in the source, found {len(found)}")
    return found[0]
