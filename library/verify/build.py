"""The tier cascade, the one both production and tests run: compiler -> coding agent -> world
model, every candidate judged by a ``Verify`` function given as an argument.

Production (``tasks/build.py``) passes a verifier that loads the code in a sandbox worker and
judges it here, in the parent, over what the worker answers (``library.verify.remote``);
tests and benches of our own compiler's output pass ``verify_in_process``. Either way the
verdicts come from the conformance suite, never from the code under test: the cascade only
reads ``Verdict``s.

``run_cascade`` gives every tool exactly one fate: ``verified`` (by the compiler or the coding
agent), ``world_model`` (a model is configured and the spec has an output schema to check its
answers against) or ``rejected`` with the reason from each tier.

``build_service`` / ``build_documents`` are the compiler tier alone over the same cascade,
in process (no model): the compiler's tests and benches, with outcomes ``verified``,
``skipped`` (the compiler cannot express the tool; the reason says why) or ``failed``
(compiled, but a check failed; the check says which).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from library.coding_agent import CodingAgent, VerifyOutcome
from library.compiler import CompiledService, compile_service, load_service
from library.ingest import ingest_document
from library.llm import LLMError
from library.redact import redact
from library.toolspec import ToolSpec
from library.verify.conformance import CheckResult, run_conformance, verified_tools

# Fates of a tool at the end of the cascade, and the tiers that verify.
VERIFIED, WORLD_MODEL, REJECTED = "verified", "world_model", "rejected"
COMPILER, CODING_AGENT = "compiler", "coding_agent"
NO_MODEL = (
    "no model configured for the coding-agent and world-model tiers (set COMPOWORLD_LLM_MODEL)"
)
NO_OUTPUT_SCHEMA = "world model: the spec has no output schema"
# Compiler-tier outcomes of ``build_service`` (the compiler tests' vocabulary).
SKIPPED, FAILED = "skipped", "failed"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the conformance suite said about one candidate module, per tool. ``refused`` is
    why the code could not even be judged (it does not load, the sandbox ended it)."""

    verified: dict[str, bool] = field(default_factory=dict)
    results: list[CheckResult] = field(default_factory=list)
    refused: str = ""

    def rows(self) -> list[dict[str, Any]]:
        return [r.to_row() for r in self.results]

    def first_failures(self) -> dict[str, str]:
        """Tool -> its first failing check and the check's detail."""
        first: dict[str, str] = {}
        for r in self.results:
            if not r.passed and r.tool not in first:
                first[r.tool] = f"{r.check}: {r.detail or 'failed'}"
        return first


# (module source, the specs to judge it on) -> the verdict, computed outside the module.
Verify = Callable[[str, list[ToolSpec]], Verdict]


def verify_in_process(seed: int = 0) -> Verify:
    """A verifier that loads the code in this process: for code we trust (our compiler's
    output in tests and benches), never for a model's."""

    def verify(code: str, specs: list[ToolSpec]) -> Verdict:
        try:
            cls = load_service(code)
        except Exception as exc:
            return Verdict(refused=f"load error: {type(exc).__name__}: {exc}")
        results = run_conformance(cls, specs, seed=seed)
        return Verdict(verified_tools(results), results)

    return verify


@dataclass(slots=True)
class ToolFate:
    tool: str
    tool_id: str
    access: str
    status: str  # verified | world_model | rejected
    tier: str | None  # the tier that verified it, world_model, or None when rejected
    reason: str = ""


@dataclass(slots=True)
class Cascade:
    """The outcome of the tiers for one service."""

    code: str  # the adopted module: the compiler's, or the coding agent's when it did better
    fates: list[ToolFate]
    checks: list[dict[str, Any]]  # the check rows of the adopted code, each with its tier
    attempts: int = 0  # coding-agent rounds
    compiler: Verdict | None = None  # the compiler tier's verdict (None: nothing compiled)
    # Why the model tiers could not run (an outage after retries, a replay-only miss): the
    # service's result is incomplete and a rerun should try again.
    model_failure: str = ""

    @property
    def verified(self) -> list[str]:
        return [f.tool for f in self.fates if f.status == VERIFIED]


def run_cascade(
    service: str,
    specs: list[ToolSpec],
    code: str,
    skipped: dict[str, str],
    verify: Verify,
    *,
    agent: CodingAgent | None = None,
    world_model: bool = False,
) -> Cascade:
    """The tiers for one service. ``code`` and ``skipped`` are the compiler's output (the
    module, and the tools it could not express with why; ``code`` is empty when it compiled
    nothing); ``agent`` runs the coding-agent tier when given; ``world_model`` says whether a
    model is configured to simulate what is left at run time."""
    reasons: dict[str, str] = dict(skipped)
    verified: dict[str, str] = {}  # tool -> tier
    checks: list[dict[str, Any]] = []
    compiled_specs = [s for s in specs if s.name not in skipped]
    compiler: Verdict | None = None
    if code and compiled_specs:
        compiler = verify(code, compiled_specs)
        checks += [r | {"tier": COMPILER} for r in compiler.rows()]
        failures = compiler.first_failures()
        for s in compiled_specs:
            if compiler.verified.get(s.name):
                verified[s.name] = COMPILER
            else:
                # A refusal keeps its own prefix (``sandbox: ...``): reason categories read it.
                reasons[s.name] = compiler.refused or (
                    f"compiler: {failures.get(s.name, 'not verified')}"
                )

    attempts, model_failure = 0, ""
    left = [s for s in specs if s.name not in verified]
    if left and agent is not None:

        def check(candidate: str) -> VerifyOutcome:
            verdict = verify(candidate, specs)
            if verdict.refused:
                return VerifyOutcome(passed=False, failures=[verdict.refused])
            return VerifyOutcome(
                passed=all(verdict.verified.get(s.name) for s in specs),
                failures=[f"{t}: {why}" for t, why in verdict.first_failures().items()],
            )

        try:
            result = agent.repair(service, specs, code or None, check)
        except LLMError as exc:  # an outage after retries, or nothing to replay
            model_failure = redact(f"coding agent: {type(exc).__name__}: {exc}")
            result = None
        candidate = result.code if result is not None else None
        attempts = result.rounds if result is not None else 0
        if result is not None and (not candidate or candidate == code):
            for s in left:
                why = f"coding agent: no candidate verified more in {attempts} rounds"
                reasons[s.name] = _joined(reasons.get(s.name), why)
        elif candidate:
            verdict = verify(candidate, specs)
            # Adopt the agent's code only if it keeps every tool the compiler verified and
            # verifies more.
            gained = sum(map(bool, verdict.verified.values())) > len(verified)
            if all(verdict.verified.get(t) for t in verified) and gained:
                code = candidate
                checks = [r | {"tier": CODING_AGENT} for r in verdict.rows()]
                for s in left:
                    if verdict.verified.get(s.name):
                        verified[s.name] = CODING_AGENT
            failures = verdict.first_failures()
            for s in left:
                if s.name not in verified:
                    why = verdict.refused or failures.get(s.name, "not verified")
                    reasons[s.name] = _joined(reasons.get(s.name), f"coding agent: {why}")

    fates = []
    for s in specs:
        if s.name in verified:
            fates.append(ToolFate(s.name, s.id, s.access, VERIFIED, verified[s.name]))
        elif world_model and s.output_schema is not None:
            why = reasons.get(s.name, "")
            fates.append(ToolFate(s.name, s.id, s.access, WORLD_MODEL, WORLD_MODEL, why))
        else:
            tail = NO_OUTPUT_SCHEMA if world_model else NO_MODEL
            why = _joined(reasons.get(s.name, "not verified"), tail)
            fates.append(ToolFate(s.name, s.id, s.access, REJECTED, None, why))
    return Cascade(code, fates, checks, attempts, compiler, model_failure)


def _joined(first: str | None, more: str) -> str:
    return f"{first}; {more}" if first else more


# -- the compiler tier alone, in process (the compiler's tests and benches) --------------------
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
    """Compile one service's tools (all of one ``service``) and run the cascade on them with
    the in-process verifier and no model: the compiler tier as production runs it."""
    service = specs[0].service if specs else ""
    names = list(dict.fromkeys(s.name for s in specs))
    start = time.perf_counter()
    try:
        compiled = compile_service(specs)
    except Exception as exc:  # a compiler bug must not stop the batch
        reason = f"compiler error: {type(exc).__name__}: {exc}"
        outcomes = {n: ToolOutcome(n, FAILED, reason) for n in names}
        return ServiceBuild(service, None, outcomes, compile_s=time.perf_counter() - start)
    compile_s = time.perf_counter() - start
    verify_s = 0.0
    in_process = verify_in_process(seed)

    def timed(code: str, judged: list[ToolSpec]) -> Verdict:
        nonlocal verify_s
        t0 = time.perf_counter()
        try:
            return in_process(code, judged)
        finally:
            verify_s += time.perf_counter() - t0

    # Planned but not emitted: the compiler says nothing of them, the cascade needs a reason.
    missing = {n: "not planned by the compiler" for n in names}
    missing.update(compiled.skipped)
    for name in compiled.compiled_tools:
        missing.pop(name, None)
    cascade = run_cascade(service, specs, compiled.source, missing, timed)
    if cascade.compiler is not None and cascade.compiler.refused:
        # The compiler's own code does not load: a compiler bug, reported as such.
        reason = f"compiler error: {cascade.compiler.refused}"
        outcomes = {n: ToolOutcome(n, FAILED, reason) for n in names}
        return ServiceBuild(service, compiled, outcomes, [], compile_s, verify_s)
    failures = cascade.compiler.first_failures() if cascade.compiler else {}
    outcomes = {}
    for fate in cascade.fates:
        if fate.status == VERIFIED:
            outcomes[fate.tool] = ToolOutcome(fate.tool, VERIFIED)
        elif fate.tool in missing:
            outcomes[fate.tool] = ToolOutcome(fate.tool, SKIPPED, missing[fate.tool])
        else:
            why = failures.get(fate.tool, "not verified")
            outcomes[fate.tool] = ToolOutcome(fate.tool, FAILED, why)
    results = cascade.compiler.results if cascade.compiler else []
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
    """Conformance from JSON in, JSON out, as a worker would be handed it.

    ``payload``: ``{"source": <service module>, "specs": [ToolSpec dicts or specs rows],
    "seed": 0}``. Loads the source in this process: for trusted code only (production judges
    in the parent over a sandboxed worker's answers, ``library.verify.remote``). Returns
    ``{"service", "results": [CheckResult rows], "verified": {tool: bool}}``.
    """
    cls = load_service(payload["source"])
    results = run_conformance(cls, payload["specs"], seed=int(payload.get("seed", 0)))
    return {
        "service": cls.name,
        "results": [r.to_row() for r in results],
        "verified": verified_tools(results),
    }
