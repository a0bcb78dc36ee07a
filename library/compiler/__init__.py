"""The compiler tier: CRUD-shaped tool specs -> the source of a Service, no model involved.

``plan_service`` decides records, types and tool behaviour (and which tools it cannot
express, with a reason); ``emit_source`` writes the plan as Python; ``compile_service`` does
both and hashes the code; ``load_service`` turns stored source back into a Service class.
"""

from library.compiler.compile import CompiledService, code_hash, compile_service, load_service
from library.compiler.emit import emit_source
from library.compiler.model import ServicePlan
from library.compiler.plan import plan_service

__all__ = [
    "CompiledService",
    "ServicePlan",
    "code_hash",
    "compile_service",
    "emit_source",
    "load_service",
    "plan_service",
]
