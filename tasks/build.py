"""The build stage: ingested specs -> generated services, verified in sandboxed workers.

Per service the tiers are tried in order (``library.verify.build.run_cascade``, the one
cascade, given here a verifier that judges each candidate over what a sandbox worker
answers): the compiler (no model); the coding agent for the tools the compiler could not
express or that failed verification (needs a model, or recorded answers in ``llm_calls``);
then the world model for what still fails (needs a model at run time). Every tool ends in
exactly one of: verified (by which tier), world_model, or rejected with a reason. Results
land in ``services``, ``service_tools`` and ``service_checks``; a service whose inputs and
code were already built is skipped, so reruns add nothing. A service whose model tiers
failed (a model outage after retries) is not written, so the next run builds it again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from library.coding_agent import CodingAgent, CodingAgentSettings
from library.compiler import compile_service
from library.llm import LLMClient, LLMSettings
from library.sandbox import Sandbox, SandboxError, SandboxPolicy, SandboxPool
from library.toolspec import ToolSpec, services_of, spec_from_row
from library.verify.build import (
    CODING_AGENT,
    COMPILER,
    REJECTED,
    VERIFIED,
    WORLD_MODEL,
    ToolFate,
    Verdict,
    run_cascade,
)
from library.verify.conformance import verified_tools
from library.verify.remote import run_remote_conformance
from tasks.batches import batches
from warehouse import Warehouse

# CPython 3.11's ast module is not thread-safe ("AST constructor recursion depth mismatch"
# under concurrent parses), and the compiler parses what it emits: one compile at a time.
_COMPILE_LOCK = threading.Lock()
# Planning compiles every service to learn its id, and the batch that builds it compiles it
# again: remember recent outputs (the compiler is deterministic) so the second is free.
_COMPILED: dict[tuple[str, str], tuple[str, dict[str, str]]] = {}
_COMPILED_MAX = 4096
# Services per build batch: one batch for the bundled corpus, 7 for a 448-service library
# (a batch's fixed cost is its sandbox workers; bench/orchestration.py measures smaller ones).
BUILD_BATCH = 64


def _hash(*parts: Any) -> str:
    payload = orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(payload, digest_size=12).hexdigest()


# -- which specs make up which service ---------------------------------------------------------
def current_specs(
    wh: Warehouse, services: Iterable[str] | None = None
) -> dict[str, list[ToolSpec]]:
    """The tool specs of each service, from the latest ingested version of each source file.

    Two different files that claim one service name (tau-bench's and tau2's ``airline``) are
    kept apart: the later file's service is renamed ``<parent folder>_<service>``.
    """
    rows = wh.query(
        "select * from specs qualify dense_rank() over "
        "(partition by source_file order by ingested_at desc, doc_hash) = 1 "
        "order by source_file, source_pointer"
    ).to_pylist()
    grouped = services_of(spec_from_row(row) for row in rows)
    wanted = set(services) if services is not None else None
    return {k: v for k, v in sorted(grouped.items()) if wanted is None or k in wanted}


def built_service_ids(wh: Warehouse) -> set[str]:
    return set(wh.query("select service_id from services").column("service_id").to_pylist())


# -- one service -------------------------------------------------------------------------------
def compiled_identity(
    service: str, specs: list[ToolSpec], seed: int
) -> tuple[str, str, dict[str, str], str]:
    """(input hash, compiled code, tools the compiler skipped with why, service id).

    A service's id covers its specs, the seed and the compiler's output, so a new compiler
    rebuilds what it now writes differently; compiling is cheap enough to plan with.
    """
    input_hash = _hash(sorted(s.id for s in specs), seed)
    key = (service, input_hash)
    if key not in _COMPILED:
        try:
            with _COMPILE_LOCK:
                compiled = compile_service(specs)
            code, skipped = compiled.source, dict(compiled.skipped)
        except Exception as exc:  # a compiler bug fails this service's compiler tier only
            code = ""
            skipped = {s.name: f"compiler error: {type(exc).__name__}: {exc}" for s in specs}
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        _COMPILED[key] = (code, skipped)
    code, skipped = _COMPILED[key]
    return input_hash, code, dict(skipped), _hash(service, input_hash, _hash(code))


@dataclass(slots=True)
class ServiceResult:
    service: str
    service_id: str
    input_hash: str
    code: str
    code_hash: str
    fates: list[ToolFate]
    checks: list[dict[str, Any]]
    attempts: int
    duration_s: float
    doc_hashes: list[str] = field(default_factory=list)
    skipped: bool = False  # already built: nothing written
    # The model tiers could not run (see ``Cascade.model_failure``): nothing is written, so a
    # rerun tries the service again.
    model_failure: str = ""

    @property
    def tier(self) -> str:
        tiers = {f.tier for f in self.fates if f.status == VERIFIED}
        if not tiers:
            return WORLD_MODEL if any(f.status == WORLD_MODEL for f in self.fates) else "none"
        return tiers.pop() if len(tiers) == 1 else "mixed"

    @property
    def status(self) -> str:
        verified = sum(f.status == VERIFIED for f in self.fates)
        if verified == len(self.fates):
            return VERIFIED
        return "partial" if verified else REJECTED

    def rows(self, now: dt.datetime) -> dict[str, list[dict[str, Any]]]:
        sid = self.service_id
        return {
            "service_tools": [
                {
                    "service_id": sid,
                    "service": self.service,
                    "tool": f.tool,
                    "tool_id": f.tool_id,
                    "tier": f.tier,
                    "status": f.status,
                    "access": f.access,
                    "reason": f.reason or None,
                }
                for f in self.fates
            ],
            "service_checks": [{"service_id": sid, **c} for c in self.checks],
            # Last: a services row marks the build done (see built_service_ids), so a crash
            # before it leaves the service to be rebuilt, never half-written.
            "services": [
                {
                    "service_id": sid,
                    "name": self.service,
                    "code": self.code,
                    "code_hash": self.code_hash,
                    "input_hash": self.input_hash,
                    "tier": self.tier,
                    "status": self.status,
                    "attempts": self.attempts,
                    "tools_total": len(self.fates),
                    "tools_verified": sum(f.status == VERIFIED for f in self.fates),
                    "doc_hashes": self.doc_hashes,
                    "built_at": now,
                    "duration_s": round(self.duration_s, 3),
                }
            ],
        }


def sandbox_verdict(
    sandbox: Sandbox, service: str, code: str, specs: list[ToolSpec], seed: int
) -> Verdict:
    """Load ``code`` in the (fresh) worker and judge it with the conformance suite, run here
    over what the worker answers (``library.verify.remote``): the cascade's production
    ``Verify``. A worker the sandbox had to end is restarted and the code refused."""
    module = f"svc_{service}_{hashlib.blake2b(code.encode(), digest_size=6).hexdigest()}"
    try:
        loaded = sandbox.load(module, code)
        found = next((s for s in loaded if s.service == service), loaded[0] if loaded else None)
        if found is None:
            return Verdict(refused="the code defines no Service subclass")
        # The checks run here, in the parent; the worker only executes the calls.
        results = run_remote_conformance(
            sandbox, found, [s.model_dump(mode="json") for s in specs], seed
        )
    except SandboxError as exc:
        sandbox.restart()
        return Verdict(refused=f"sandbox: {exc.reason}")
    return Verdict(verified_tools(results), results)


def verify_in_sandbox(
    sandbox: Sandbox, service: str, code: str, specs: list[ToolSpec], seed: int
) -> tuple[dict[str, bool], list[dict[str, Any]], str]:
    """``sandbox_verdict`` as (verified per tool, check rows, why the code was refused)."""
    verdict = sandbox_verdict(sandbox, service, code, specs, seed)
    return verdict.verified, verdict.rows(), verdict.refused


@dataclass(slots=True)
class BuildSettings:
    seed: int = 0
    workers: int = 2
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    llm: LLMSettings = field(default_factory=LLMSettings.from_env)
    coding: CodingAgentSettings = field(default_factory=CodingAgentSettings.from_env)


def build_service(
    sandbox: Sandbox,
    service: str,
    specs: list[ToolSpec],
    settings: BuildSettings,
    agent: CodingAgent | None,
    already_built: set[str],
) -> ServiceResult:
    """Run the tiers for one service (``library.verify.build.run_cascade``), every candidate
    judged over what ``sandbox``, a worker of its own, answers."""
    t0 = time.perf_counter()
    input_hash, code, skipped, service_id = compiled_identity(service, specs, settings.seed)
    docs = sorted({s.doc_hash for s in specs})
    if service_id in already_built:
        return ServiceResult(
            service,
            service_id,
            input_hash,
            code,
            _hash(code),
            [],
            [],
            0,
            time.perf_counter() - t0,
            docs,
            skipped=True,
        )

    def verify(candidate: str, judged: list[ToolSpec]) -> Verdict:
        return sandbox_verdict(sandbox, service, candidate, judged, settings.seed)

    cascade = run_cascade(
        service,
        specs,
        code,
        skipped,
        verify,
        agent=agent,
        world_model=settings.llm.configured,
    )
    code_hash = _hash(cascade.code)
    return ServiceResult(
        service,
        _hash(service, input_hash, code_hash),
        input_hash,
        cascade.code,
        code_hash,
        cascade.fates,
        cascade.checks,
        cascade.attempts,
        time.perf_counter() - t0,
        docs,
        model_failure=cascade.model_failure,
    )


# -- many services -----------------------------------------------------------------------------
@dataclass(slots=True)
class BuildSummary:
    services_built: int = 0
    services_skipped: int = 0
    sandbox_failures: int = 0
    # Services whose model tiers failed (an outage after retries): not written, retried by
    # the next run; service -> why.
    model_failures: dict[str, str] = field(default_factory=dict)
    tools: Counter[tuple[str, str]] = field(default_factory=Counter)  # (status, tier) -> n
    services_by_tier: Counter[str] = field(default_factory=Counter)
    agent_ran: bool = False
    wall_s: float = 0.0
    # Sandbox layer -> whether it held in every worker of the build (the kernel decides).
    protections: dict[str, bool] = field(default_factory=dict)

    def note_protections(self, held: dict[str, bool]) -> None:
        for layer, ok in held.items():
            self.protections[layer] = self.protections.get(layer, True) and bool(ok)

    def tiers(self) -> list[dict[str, Any]]:
        """Per tier: tools it verified (or took on), and tools it passed down or rejected."""
        by_tier = Counter(
            {tier: n for (status, tier), n in self.tools.items() if status != REJECTED}
        )
        rejected = sum(n for (status, _), n in self.tools.items() if status == REJECTED)
        total = sum(self.tools.values())
        after_compiler = total - by_tier[COMPILER]
        after_agent = after_compiler - by_tier[CODING_AGENT]
        return [
            {
                "tier": COMPILER,
                "services": self.services_by_tier[COMPILER],
                "verified": by_tier[COMPILER],
                "fell_back": after_compiler,
            },
            {
                "tier": CODING_AGENT,
                "services": self.services_by_tier[CODING_AGENT],
                "verified": by_tier[CODING_AGENT],
                "fell_back": after_agent if self.agent_ran else f"{after_agent} (no model)",
            },
            {
                "tier": WORLD_MODEL,
                "services": self.services_by_tier[WORLD_MODEL],
                "verified": by_tier[WORLD_MODEL],
                "fell_back": rejected,
            },
        ]

    def add(self, other: BuildSummary) -> None:
        """Fold in the summary of another batch of the same stage (wall time excluded)."""
        self.services_built += other.services_built
        self.services_skipped += other.services_skipped
        self.sandbox_failures += other.sandbox_failures
        self.model_failures.update(other.model_failures)
        self.tools.update(other.tools)
        self.services_by_tier.update(other.services_by_tier)
        self.agent_ran = self.agent_ran or other.agent_ran
        self.note_protections(other.protections)

    def to_dict(self) -> dict[str, Any]:
        total = sum(self.tools.values())
        verified = sum(n for (status, _), n in self.tools.items() if status == VERIFIED)
        return {
            "services_built": self.services_built,
            "services_already_built": self.services_skipped,
            "sandbox_failures": self.sandbox_failures,
            "model_failures": dict(sorted(self.model_failures.items())),
            "tools": total,
            "tools_verified": verified,
            "verified_share": round(verified / total, 4) if total else 0.0,
            "tools_by_outcome": {f"{s}/{t or '-'}": n for (s, t), n in sorted(self.tools.items())},
            "services_by_tier": dict(sorted(self.services_by_tier.items())),
            "tiers": self.tiers(),
            "rejected": sum(n for (s, _), n in self.tools.items() if s == REJECTED),
            "sandbox_protections": dict(sorted(self.protections.items())),
            "wall_s": round(self.wall_s, 2),
        }


def plan_build(
    wh: Warehouse, seed: int = 0, batch_size: int = BUILD_BATCH
) -> tuple[list[list[str]], int]:
    """The services that need building, in batches of ``batch_size`` (for a task runner to
    spread over workers), and how many current services are already built."""
    done = built_service_ids(wh)
    current = current_specs(wh)
    todo = [n for n, specs in current.items() if compiled_identity(n, specs, seed)[3] not in done]
    return batches(todo, batch_size), len(current) - len(todo)


def build_services(
    wh: Warehouse,
    settings: BuildSettings | None = None,
    services: Iterable[str] | None = None,
    on_result: Callable[[ServiceResult], None] | None = None,
) -> BuildSummary:
    """Build every current service not built yet; write each service's rows as it finishes."""
    settings = settings or BuildSettings()
    t0 = time.perf_counter()
    todo = current_specs(wh, services)
    done = built_service_ids(wh)
    agent = None
    if settings.llm.configured:
        from tasks.llm_store import WarehouseCallStore

        agent = CodingAgent(LLMClient(settings.llm, WarehouseCallStore(wh)), settings.coding)
    summary = BuildSummary(agent_ran=agent is not None)
    now = dt.datetime.now(dt.UTC)

    def job(sandbox: Sandbox, item: tuple[str, list[ToolSpec]]) -> ServiceResult:
        result = build_service(sandbox, item[0], item[1], settings, agent, done)
        summary.note_protections(sandbox.info.get("protections") or {})
        if not result.skipped and not result.model_failure:
            # One service = one batch per table, keyed by its id: reruns never duplicate.
            for table, rows in result.rows(now).items():
                if rows:
                    wh.append(table, rows, batch_id=result.service_id)
        if on_result is not None:
            on_result(result)
        return result

    items = list(todo.items())
    with SandboxPool(settings.workers, settings.policy) as pool:
        outcomes = pool.map(job, items)
    for i, outcome in enumerate(outcomes):
        if not outcome.ok:  # a worker that failed to start (e.g. a loaded machine): once more
            with SandboxPool(1, settings.policy) as retry:
                outcomes[i] = retry.map(job, [items[i]])[0]
    for specs, outcome in zip(todo.values(), outcomes, strict=True):
        if not outcome.ok or outcome.value is None:
            # A worker that could not even start: count its tools as rejected; a rerun retries.
            summary.sandbox_failures += 1
            summary.tools[(REJECTED, "")] += len(specs)
            continue
        result = outcome.value
        if result.skipped:
            summary.services_skipped += 1
            continue
        if result.model_failure:  # nothing written: counted as rejected, a rerun retries
            summary.model_failures[result.service] = result.model_failure
            summary.tools[(REJECTED, "")] += len(specs)
            continue
        summary.services_built += 1
        summary.services_by_tier[result.tier] += 1
        for f in result.fates:
            summary.tools[(f.status, f.tier or "")] += 1
    summary.wall_s = time.perf_counter() - t0
    return summary
