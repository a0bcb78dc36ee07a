"""Verification: the conformance suite every generated service passes, whatever its tier."""

from library.verify.build import (
    ServiceBuild,
    ToolOutcome,
    build_documents,
    build_service,
    conformance_job,
)
from library.verify.conformance import CheckResult, run_conformance, verified_tools
from library.verify.contracts import ToolContract, contract

__all__ = [
    "CheckResult",
    "ServiceBuild",
    "ToolContract",
    "ToolOutcome",
    "build_documents",
    "build_service",
    "conformance_job",
    "contract",
    "run_conformance",
    "verified_tools",
]
