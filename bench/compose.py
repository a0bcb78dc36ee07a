"""Task composition figures on the bundled corpus. Prints numbers; asserts nothing about time.

    .venv/bin/python bench/compose.py [--n 1000] [--workers 2] [--seed 0] [--sample 20]
                                      [--graph-scale 20000] [--dump tasks.json]

1. the service library: ingest, compile (in-process: our compiler's own output), verify;
2. the dependency graph over the verified tools: build time and degree statistics, and the
   build time at ``--graph-scale`` tools (the corpus replicated under new service names);
3. composition of ``--n`` verified tasks on ``--workers`` processes (shards merged, near-
   duplicates dropped): wall time, CPU seconds summed over the shards (the figure that does
   not depend on how loaded the machine is), verified tasks/s, acceptance rate, rejection
   reasons, and the distribution of services, steps, capabilities, domains, difficulty and
   splits;
4. with ``--sample K``: K instructions as a markdown list (for the README); with ``--dump
   PATH`` every task as JSON (its gold plan, rubric and seeded records, to read one in full).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from library.compose import (  # noqa: E402
    ComposeConfig,
    ComposeEnv,
    Task,
    compose_tasks,
    make_env,
    merge_tasks,
    sample_markdown,
    shard_size,
)
from library.compose.corpus import Library, bundled_library  # noqa: E402
from library.graph import build_graph, degree_stats  # noqa: E402

_ENV: ComposeEnv | None = None  # set before the workers fork, inherited by them


def _shard(args: tuple[int, int, int, int]) -> tuple[list[dict], dict[str, int], float, float]:
    """One worker's share: (tasks, rejections, wall seconds, CPU seconds of the process)."""
    shard, shards, n, seed = args
    assert _ENV is not None
    t0, c0 = time.perf_counter(), time.process_time()
    tasks, rejections = compose_tasks([], n, env=_ENV, seed=seed, shard=shard, shards=shards)
    dumped = [t.model_dump() for t in tasks]
    return dumped, rejections, time.perf_counter() - t0, time.process_time() - c0


def library_figures() -> Library:
    t0 = time.perf_counter()
    lib = bundled_library()
    took = time.perf_counter() - t0
    tools = sum(len(v) for v in lib.verified.values())
    ok = sum(sum(v.values()) for v in lib.verified.values())
    print(
        f"library: {len(lib.classes)} services, {ok}/{tools} tools verified "
        f"(ingest + compile + conformance in {took:.1f} s)"
    )
    return lib


def graph_figures(lib: Library, scale: int) -> None:
    t0 = time.perf_counter()
    graph = build_graph(lib.nodes)
    took = time.perf_counter() - t0
    stats = degree_stats(graph)
    print(
        f"graph: {stats['tools']} tools, {stats['edges']} edges "
        f"({stats['cross_service_edges']} cross-service), built in {took * 1000:.0f} ms"
    )
    print(f"  out-degree {stats['out_degree']}, in-degree {stats['in_degree']}")
    print(f"  isolated tools {stats['isolated']}; edges by key type {stats['edges_by_key_type']}")
    if scale > 0:
        copies = math.ceil(scale / max(1, len(lib.nodes)))
        big = [
            dataclasses.replace(n, service=f"{n.service}_{k}")
            for k in range(copies)
            for n in lib.nodes
        ][:scale]
        t0 = time.perf_counter()
        g = build_graph(big)
        took = time.perf_counter() - t0
        print(
            f"graph at scale: {g.number_of_nodes()} tools, {g.number_of_edges()} edges, "
            f"built in {took:.1f} s"
        )


def _share(counter: Counter, total: int) -> str:
    return ", ".join(f"{k}: {v / total:.0%}" for k, v in sorted(counter.items()))


def config_with(settings: list[str]) -> ComposeConfig:
    """``ComposeConfig`` with ``name=value`` settings (``--set hard_matters=2``), each
    value parsed as its field's type (a tuple as comma-separated numbers)."""
    cfg = ComposeConfig()
    changes: dict[str, object] = {}
    for setting in settings:
        name, _, raw = setting.partition("=")
        if name not in ComposeConfig.__dataclass_fields__ or not raw:
            raise SystemExit(
                f"--set {setting!r}: expected NAME=VALUE with NAME a ComposeConfig field"
            )
        current = getattr(cfg, name)
        if isinstance(current, bool):
            changes[name] = raw.lower() in ("1", "true", "yes", "on")
        elif current is None or isinstance(current, int | float):
            changes[name] = (
                None
                if raw == "None"
                else type(current or 0)(float(raw) if "." in raw else int(raw))
            )
        elif isinstance(current, tuple) and all(isinstance(x, int | float) for x in current):
            changes[name] = tuple(type(x)(v) for x, v in zip(current, raw.split(","), strict=True))
        else:
            raise SystemExit(f"--set {setting!r}: {name} cannot be set from the command line")
    return dataclasses.replace(cfg, **changes)


def compose_figures(
    lib: Library,
    n: int,
    workers: int,
    seed: int,
    sample: int,
    cfg: ComposeConfig,
    dump: Path | None = None,
) -> None:
    global _ENV
    t0 = time.perf_counter()
    _ENV = make_env(lib.classes, lib.nodes, config=cfg)
    env_s = time.perf_counter() - t0
    per_shard = shard_size(n, workers)
    t0 = time.perf_counter()
    jobs = [(i, workers, per_shard, seed) for i in range(workers)]
    if workers == 1:
        results = [_shard(jobs[0])]
    else:
        with mp.get_context("fork").Pool(workers) as pool:
            results = pool.map(_shard, jobs)
    parts = [[Task.model_validate(t) for t in r[0]] for r in results]
    tasks, dropped = merge_tasks(parts, n)
    wall = time.perf_counter() - t0
    rejections: Counter[str] = Counter()
    for _, rej, _, _ in results:
        rejections.update(rej)
    cpu = sum(r[3] for r in results)
    accepted = sum(len(p) for p in parts)
    candidates = accepted + sum(rejections.values())
    total = len(tasks)
    print(
        f"compose: {total} verified tasks in {wall:.1f} s on {workers} processes "
        f"({total / wall:.1f} tasks/s; environment built in {env_s:.1f} s, seeding "
        "included in the wall time)"
    )
    # CPU seconds do not depend on how loaded the machine is: the figure to compare runs by.
    print(
        f"  CPU {cpu:.1f} s over the {workers} shards ({cpu / max(1, total) * 1000:.1f} s per "
        f"1,000 tasks; shard CPU {', '.join(f'{r[3]:.1f}' for r in results)} s, "
        f"wall {', '.join(f'{r[2]:.1f}' for r in results)} s); load average "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        f"  acceptance {accepted}/{candidates} = {accepted / max(1, candidates):.0%}; "
        f"merge dropped {dropped}; rejections {dict(rejections.most_common())}"
    )
    if not total:
        return
    services = Counter(len(t.services) for t in tasks)
    steps = Counter(len(t.gold_plan) for t in tasks)
    writes = Counter(sum(1 for s in t.gold_plan if s["write"]) for t in tasks)
    caps = Counter(c for t in tasks for c in t.capabilities)
    print(f"  services per task: {_share(services, total)}")
    print(f"  3+ services: {sum(v for k, v in services.items() if k >= 3) / total:.0%}")
    print(f"  steps per task: {_share(steps, total)}")
    print(f"  writes per task: {_share(writes, total)}")
    print(f"  capabilities: {_share(caps, total)}")
    print(f"  domains: {_share(Counter(t.domain for t in tasks), total)}")
    print(f"  difficulty: {_share(Counter(t.difficulty for t in tasks), total)}")
    print(f"  splits: {_share(Counter(t.split for t in tasks), total)}")
    used = Counter(s for t in tasks for s in t.services)
    top = ", ".join(f"{s} {k / total:.0%}" for s, k in used.most_common(10))
    print(f"  services used: {len(used)} of {len(lib.classes)}; in the most tasks: {top}")
    domains = Counter(t.domain for t in tasks)
    print(
        f"  balance: largest service share {max(used.values()) / total:.0%} "
        f"(cap {cfg.max_service_share:.0%}), largest domain share "
        f"{max(domains.values()) / total:.0%} (cap {cfg.max_domain_share:.0%})"
    )
    if sample:
        print()
        print(sample_markdown(tasks, sample))
    if dump is not None:  # every task, for reading one in full (plan, seeded records)
        dump.write_bytes(orjson.dumps([t.model_dump(mode="json") for t in tasks]))
        print(f"\n{total} tasks written to {dump}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--graph-scale", type=int, default=20_000)
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="a ComposeConfig setting"
    )
    parser.add_argument("--dump", type=Path, help="write every task to this JSON file")
    args = parser.parse_args()
    cfg = config_with(args.set)
    lib = library_figures()
    graph_figures(lib, args.graph_scale)
    compose_figures(lib, args.n, args.workers, args.seed, args.sample, cfg, args.dump)


if __name__ == "__main__":
    main()
