"""Compile one service in the compiler tier, load it and run the conformance suite on it.

Every tool ends in exactly one outcome: ``verified``, ``skipped`` (the compiler cannot express
it; the reason says why) or ``failed`` (compiled, but a check failed; the check says which).
Skipped and failed tools go on to the next tier. Nothing raises: a compiler or loader bug
fails the service's tools with the error as the reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from library.compiler import CompiledService, compile_service, load_service
from library.ingest import ingest_document
from library.toolspec import ToolSpec
from library.verify.conformance import CheckResult, run_conformance

VERIFIED, SKIPPED, FAILED = "verified", "skipped", "failed"


@dataclass(slots=True)
class ToolOutcome:
    tool: str
    outcome: str  # verified | skipped | failed
    reason: str = ""  # why skipped, or the first failing check and its detail


@dataclass(slots=True)
class ServiceBuild:
    service: str
    compiled: CompiledService | None
    outcomes: dict[str, ToolOutcome]
    results: list[CheckResult] = field(default_factory=list)
    compile_s: float = 0.0
    verify_s: float = 0.0

    @property
    def verified(self) -> list[str]:
        return [t for t, o in self.outcomes.items() if o.outcome == VERIFIED]

    def rows(self) -> list[dict[str, Any]]:
        return [
            {"service": self.service, "tool": o.tool, "outcome": o.outcome, "reason": o.reason}
            for o in self.outcomes.values()
        ]


def build_service(specs: list[ToolSpec], seed: int = 0) -> ServiceBuild:
    """Compile, load and verify one service's tools (all of one ``service``)."""
    service = specs[0].service if specs else ""
    names = list(dict.fromkeys(s.name for s in specs))
    start = time.perf_counter()
    try:
        compiled = compile_service(specs)
        cls = load_service(compiled.source)
    except Exception as exc:  # a compiler bug must not stop the batch
        reason = f"compiler error: {type(exc).__name__}: {exc}"
        outcomes = {n: ToolOutcome(n, FAILED, reason) for n in names}
        return ServiceBuild(service, None, outcomes, compile_s=time.perf_counter() - start)
    compile_s = time.perf_counter() - start
    compiled_set = set(compiled.compiled_tools)
    start = time.perf_counter()
    results = run_conformance(cls, [s for s in specs if s.name in compiled_set], seed=seed)
    verify_s = time.perf_counter() - start
    first_failure: dict[str, str] = {}
    for r in results:
        if not r.passed and r.tool not in first_failure:
            first_failure[r.tool] = f"{r.check}: {r.detail}"
    outcomes: dict[str, ToolOutcome] = {}
    for name in names:
        if name in compiled.skipped:
            outcomes[name] = ToolOutcome(name, SKIPPED, compiled.skipped[name])
        elif name in first_failure:
            outcomes[name] = ToolOutcome(name, FAILED, first_failure[name])
        elif name in compiled_set:
            outcomes[name] = ToolOutcome(name, VERIFIED)
        else:
            outcomes[name] = ToolOutcome(name, SKIPPED, "not planned by the compiler")
    return ServiceBuild(service, compiled, outcomes, results, compile_s, verify_s)


def build_documents(paths: Iterable[Path], seed: int = 0) -> list[ServiceBuild]:
    """Ingest spec files and build every service in them (one document may hold several)."""
    builds = []
    for path in paths:
        specs, _ = ingest_document(path)
        by_service: dict[str, list[ToolSpec]] = {}
        for spec in specs:
            by_service.setdefault(spec.service, []).append(spec)
        builds += [build_service(group, seed) for group in by_service.values()]
    return builds


def conformance_job(payload: dict[str, Any]) -> dict[str, Any]:
    """The sandbox worker's entry point: JSON in, JSON out.

    ``payload``: ``{"source": <service module>, "specs": [ToolSpec dicts or specs rows],
    "seed": 0}``. Loads the (untrusted) source in this process, which is why it belongs in a
    sandboxed worker, and returns ``{"service", "results": [CheckResult rows], "verified":
    {tool: bool}}``.
    """
    cls = load_service(payload["source"])
    results = run_conformance(cls, payload["specs"], seed=int(payload.get("seed", 0)))
    verified: dict[str, bool] = {}
    for r in results:
        verified[r.tool] = verified.get(r.tool, True) and r.passed
    return {"service": cls.name, "results": [r.to_row() for r in results], "verified": verified}
