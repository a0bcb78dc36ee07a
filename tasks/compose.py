"""The graph and compose stages: built services -> dependency graph -> verified tasks.

Generated service code is untrusted, so both run inside sandbox workers (the code is loaded
there; ``library.compose.sandboxed`` is the trusted entry point). Composition is sharded over
the workers and merged here; tasks and edges land in ``tasks`` and ``graph_edges``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from library.compose import Task, merge_tasks, paraphrase_task, shard_size
from library.llm import LLMClient
from library.llm.settings import LLMSettings
from library.sandbox import Sandbox, SandboxPolicy, SandboxPool
from library.sandbox.policy import DEFAULT_INVOKE_PREFIXES
from library.verify.tasks import recheck_tasks
from tasks.library_view import BuiltService, built_services
from warehouse import Warehouse

GRAPH = "library.compose.sandboxed:graph"
COMPOSE = "library.compose.sandboxed:compose"
# Composition holds up to `worlds` seeded copies of every service in memory.
COMPOSE_POLICY = SandboxPolicy(
    invoke_prefixes=(*DEFAULT_INVOKE_PREFIXES, "library.compose."),
    memory_mb=3072,
    cpu_seconds=600,
    wall_timeout_s=900,
)


def _hash(value: Any, size: int = 12) -> str:
    return hashlib.blake2b(
        orjson.dumps(value, option=orjson.OPT_SORT_KEYS), digest_size=size
    ).hexdigest()


def load_library(sandbox: Sandbox, services: Sequence[BuiltService]) -> dict[str, Any]:
    """Load every service's code in the worker; the common part of a graph/compose payload."""
    refs = {}
    for svc in services:
        loaded = sandbox.load(svc.module, svc.code)
        refs[svc.name] = next(s.ref for s in loaded if s.service == svc.name)
    return {
        "refs": refs,
        "specs": [s.model_dump(mode="json") for svc in services for s in svc.specs],
        "verified": {svc.name: list(svc.verified_tools) for svc in services},
    }


def graph_id(services: Sequence[BuiltService]) -> str:
    return _hash(sorted((s.name, s.code_hash, s.verified_tools) for s in services))


@dataclass(slots=True)
class GraphResult:
    graph_id: str
    stats: dict[str, Any]
    html_path: Path | None
    edges_written: bool


def graph_stage(wh: Warehouse, out_dir: Path | None = None) -> GraphResult:
    """Build the graph over the verified tools, store its edges, write the service picture."""
    services = list(built_services(wh).values())
    if not services:
        raise LookupError("no built services with verified tools: run `compoworld build` first")
    gid = graph_id(services)
    with Sandbox(COMPOSE_POLICY) as sandbox:
        out = sandbox.invoke(GRAPH, load_library(sandbox, services))
    rows = [{"graph_id": gid, **e} for e in out["edges"]]
    written = wh.append("graph_edges", rows, batch_id=f"graph-{gid}") if rows else False
    html_path = None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        html_path = out_dir / "service_graph.html"
        html_path.write_text(out["html"])
    return GraphResult(gid, out["stats"], html_path, written)


@dataclass(slots=True)
class ComposeSummary:
    requested: int
    composed: int = 0
    written: int = 0  # new rows (tasks already in the table are not written again)
    rejections: Counter[str] = field(default_factory=Counter)
    near_duplicates: int = 0
    wall_s: float = 0.0
    services: Counter[int] = field(default_factory=Counter)  # services per task
    capabilities: Counter[str] = field(default_factory=Counter)
    domains: Counter[str] = field(default_factory=Counter)
    motifs: Counter[str] = field(default_factory=Counter)
    difficulty: Counter[str] = field(default_factory=Counter)
    # The mutation gate: catch rates of the kept tasks (in bands) and mutants per kind.
    catch_rates: Counter[str] = field(default_factory=Counter)
    mutants: dict[str, list[int]] = field(default_factory=dict)
    paraphrased: int = 0
    notes: list[str] = field(default_factory=list)

    def record(self, task: Task) -> None:
        """Count one kept task into the distributions the summary shows."""
        self.services[len(task.services)] += 1
        self.capabilities.update(task.capabilities)
        self.domains[task.domain] += 1
        self.motifs[task.motif or "(none)"] += 1
        self.difficulty[task.difficulty] += 1
        rate = task.mutation.get("catch_rate")
        if rate is not None:
            band = "1.00" if rate >= 1 else ">=0.97" if rate >= 0.97 else "<0.97"
            self.catch_rates[band] += 1
        for kind, (caught, total) in (task.mutation.get("by_kind") or {}).items():
            counts = self.mutants.setdefault(kind, [0, 0])
            counts[0] += caught
            counts[1] += total

    def to_dict(self) -> dict[str, Any]:
        n = max(self.composed, 1)
        return {
            "requested": self.requested,
            "composed": self.composed,
            "written": self.written,
            "tasks_per_s": round(self.composed / self.wall_s, 1) if self.wall_s else None,
            "acceptance": round(self.composed / (self.composed + sum(self.rejections.values())), 4)
            if self.composed
            else 0.0,
            "rejections": dict(self.rejections.most_common()),
            "near_duplicates_dropped": self.near_duplicates,
            "three_plus_services_share": round(
                sum(c for k, c in self.services.items() if k >= 3) / n, 4
            ),
            "capability_share": {k: round(v / n, 4) for k, v in sorted(self.capabilities.items())},
            "domains": dict(sorted(self.domains.items())),
            "motif_share": round(1 - self.motifs.get("(none)", 0) / n, 4),
            "motifs": dict(self.motifs.most_common()),
            "difficulty": dict(sorted(self.difficulty.items())),
            "mutation_catch_rate": round(
                sum(c for c, _ in self.mutants.values())
                / max(1, sum(t for _, t in self.mutants.values())),
                4,
            ),
            "mutation_by_kind": {
                k: round(c / t, 4) if t else None for k, (c, t) in sorted(self.mutants.items())
            },
            "task_catch_rates": dict(sorted(self.catch_rates.items())),
            "paraphrased": self.paraphrased,
            "notes": list(self.notes),
            "wall_s": round(self.wall_s, 2),
        }


def compose_stage(
    wh: Warehouse,
    n: int,
    *,
    seed: int = 0,
    min_services: int = 2,
    max_services: int = 5,
    workers: int = 2,
    config: dict[str, Any] | None = None,
    require_any: set[str] | None = None,
    oversample: int = 10,
    paraphrase: bool | None = None,
    paraphrase_with: LLMClient | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> ComposeSummary:
    """Compose ``n`` verified tasks over the built library, sharded over sandbox workers.

    ``require_any``: keep only tasks touching at least one of these services (the nightly
    expansion's new ones); each shard drops the others as they come and may draw up to
    ``oversample`` times as many walks as usual to find them.
    ``paraphrase`` (default: ``COMPOWORLD_PARAPHRASE`` set to 1/true): a model rewrites each
    instruction as a person would, literals kept verbatim (else the template stays), through
    the configured model (``COMPOWORLD_LLM_*``), replayed from ``llm_calls`` on reruns;
    ``paraphrase_with`` gives the client directly (tests). ``on_progress(done, total, note)``
    hears of each step: each shard composed, the recheck, the write (from pool threads).
    """
    t0 = time.perf_counter()
    services = list(built_services(wh).values())
    if not services:
        raise LookupError("no built services with verified tools: run `compoworld build` first")
    shards = max(1, min(workers, n))
    cfg = {"min_services": min_services, "max_services": max_services, **(config or {})}

    steps, finished = [shards + 2], [0]  # the shards, the isolated recheck, the write
    progress_lock = threading.Lock()

    def progress(note: str) -> None:
        if on_progress is not None:
            with progress_lock:
                finished[0] += 1
                on_progress(finished[0], steps[0], note)

    def job(sandbox: Sandbox, work: tuple[int, int, int]) -> dict[str, Any]:
        shard, wanted, round_seed = work
        payload = load_library(sandbox, services)
        limit = (40 * wanted + 200) * (oversample if require_any else 1)  # compose_tasks' bound
        payload |= {"n": wanted, "seed": round_seed, "shard": shard, "shards": shards}
        payload |= {"config": cfg, "require_any": sorted(require_any or ())}
        payload["max_candidates"] = limit
        out = sandbox.invoke(COMPOSE, payload)
        progress(f"shard {shard + 1} of {shards} composed")
        return out

    summary = ComposeSummary(requested=n)
    parts: list[list[Task]] = []
    with SandboxPool(shards, COMPOSE_POLICY, fresh_per_job=False) as pool:
        # Merging drops what two shards both made; a merge that falls short of ``n`` (a
        # small library gives few plan shapes) is topped up once from other seeded worlds.
        for round_seed in (seed, seed + 1):
            short = n - len(merge_tasks(parts, n)[0])
            if short <= 0:
                break
            if parts:
                steps[0] += shards
            wanted = shard_size(short, shards)
            for r in pool.map(job, [(k, wanted, round_seed) for k in range(shards)]):
                if not r.ok or r.value is None:
                    summary.rejections[f"sandbox: {r.reason}"] += 1
                    continue
                parts.append([Task.model_validate(t) for t in r.value["tasks"]])
                summary.rejections.update(r.value["rejections"])
    tasks, dropped = merge_tasks(parts, n)
    # The verdict again, here, with each service in a worker of its own: composition ran
    # beside every service it combines, where one module could tamper with another.
    used = {name for t in tasks for name in t.services}
    mine = [s for s in services if s.name in used]
    sources, homes = {s.module: s.code for s in mine}, {s.name: s.module for s in mine}
    verdicts = recheck_tasks(tasks, sources, homes)
    for t in tasks:
        if verdicts[t.task_id] is not None:
            summary.rejections[f"isolated recheck: {verdicts[t.task_id]}"] += 1
    tasks = [t for t in tasks if verdicts[t.task_id] is None]
    progress(f"{len(tasks)} tasks passed the isolated recheck")
    summary.near_duplicates = dropped
    summary.composed = len(tasks)
    client = paraphrase_with or (paraphrase_client(wh) if wants_paraphrase(paraphrase) else None)
    if client is not None:
        tasks, summary.paraphrased = paraphrase_tasks(tasks, client)
    elif wants_paraphrase(paraphrase):
        summary.notes.append(
            "paraphrase requested but no model is configured (COMPOWORLD_LLM_MODEL): "
            "template instructions kept"
        )
    for t in tasks:
        summary.record(t)
    run = _hash([seed, n, cfg, graph_id(services), sorted(require_any or ())], 8)
    summary.written = write_tasks(wh, tasks, run=run)
    progress(f"{summary.written} new tasks written")
    summary.wall_s = time.perf_counter() - t0
    return summary


def wants_paraphrase(flag: bool | None) -> bool:
    if flag is not None:
        return flag
    return os.environ.get("COMPOWORLD_PARAPHRASE", "").strip().lower() in ("1", "true", "yes")


def paraphrase_client(wh: Warehouse) -> LLMClient | None:
    """The configured model, recording and replaying through ``llm_calls``; None if none."""
    settings = LLMSettings.from_env()
    if not settings.configured:
        return None
    from tasks.llm_store import WarehouseCallStore

    return LLMClient(settings, WarehouseCallStore(wh))


def paraphrase_tasks(tasks: Sequence[Task], client: LLMClient) -> tuple[list[Task], int]:
    """Each task's instruction rewritten by the model where the rewrite keeps every
    literal (``library.compose.paraphrase``); how many were rewritten."""
    out, done = [], 0
    for task in tasks:
        new, ok = paraphrase_task(task, client)
        out.append(new)
        done += ok
    return out, done


def write_tasks(wh: Warehouse, tasks: Sequence[Task], run: str, batch: int = 500) -> int:
    """Append tasks not yet in the table, in batches keyed by their ids: reruns add nothing,
    and concurrent writers never both write one task (the check and the write share the
    table's writer lock)."""
    now = dt.datetime.now(dt.UTC)
    written = 0
    for i in range(0, len(tasks), batch):
        rows = [t.to_row() | {"compose_run": run, "created_at": now} for t in tasks[i : i + batch]]
        written += wh.append_absent("tasks", rows, key="task_id", prefix="tasks")
    return written
