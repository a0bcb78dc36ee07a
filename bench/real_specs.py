"""Composition figures on a user's specs (default ``../shared/specs``). Prints numbers only.

    .venv/bin/python bench/real_specs.py [--specs PATH ...] [--n 200] [--workers 1]
                                         [--seed 0] [--sample 20]

1. the library: services built and tools verified (in-process compile + conformance);
2. the graph: edges, cross-service edges, the share of edges whose only keys are weak
   (timestamps, urls, amounts...), and the domain and category inferred per service;
3. composition (as ``bench/compose.py``): tasks, rejections, services per task, domains,
   and ``--sample`` instructions;
4. why walks fail: the start tools (lookups a user can open with), how their first calls
   fail, where walks start and how far they get (``--diagnose N`` walks).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from compose import compose_figures, config_with  # noqa: E402

from library.compose.catalog import title  # noqa: E402
from library.compose.corpus import Library  # noqa: E402
from library.compose.domains import service_profile  # noqa: E402
from library.compose.spec_library import spec_library  # noqa: E402
from library.graph import build_graph, degree_stats  # noqa: E402
from library.graph.keys import is_weak, key_type  # noqa: E402


def library_figures(paths: list[str]) -> Library:
    t0 = time.perf_counter()
    lib = spec_library(paths)
    took = time.perf_counter() - t0
    tools = sum(len(v) for v in lib.verified.values())
    ok = sum(sum(v.values()) for v in lib.verified.values())
    print(f"library: {len(lib.classes)} services built, {ok}/{tools} tools verified ({took:.0f} s)")
    return lib


def _shares(counter: Counter[str], total: int) -> str:
    return ", ".join(f"{k} {v / max(1, total):.0%}" for k, v in counter.most_common(8))


def graph_figures(lib: Library) -> None:
    graph = build_graph(lib.nodes)
    stats = degree_stats(graph)
    kinds: Counter[str] = Counter()
    cross_kinds: Counter[str] = Counter()
    weak_only = 0
    for _, _, attrs in graph.edges(data=True):
        types = "+".join(sorted({key_type(k) for k in attrs["keys"]}))
        kinds[types] += 1
        weak_only += all(is_weak(k) for k in attrs["keys"])
        if attrs["cross_service"]:
            cross_kinds[types] += 1
    total = graph.number_of_edges()
    print(
        f"graph: {stats['tools']} tools, {total} edges ({stats['cross_service_edges']} "
        f"cross-service); through weak keys alone: {weak_only / max(1, total):.0%}"
    )
    print(f"  edges by key types: {_shares(kinds, total)}")
    print(f"  cross edges by key types: {_shares(cross_kinds, sum(cross_kinds.values()))}")
    domains: Counter[str] = Counter()
    for cls in lib.classes:
        profile = service_profile(cls.name)
        domains[profile.domain] += 1
        print(
            f"  {cls.name}: {title(cls.name)!r} {profile.domain}/{profile.category} "
            f"({profile.evidence})"
        )
    print(f"  services per domain: {dict(domains.most_common())}")


def walk_diagnosis(lib: Library, walks: int) -> None:
    import random

    from library.compose import ComposeConfig, make_env
    from library.compose.walk import Walker
    from library.compose.walk_state import Reject

    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    starts = Counter(t.service for t in env.starts)
    print(f"start tools: {len(env.starts)} in {len(starts)} services {dict(starts)}")
    for motif, _ in env.workflows:
        print(f"  workflow {motif.name}: core work in {sorted(env.start_services(motif))}")
    reasons: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    first: Counter[str] = Counter()
    lengths: Counter[int] = Counter()
    near: Counter[tuple[str, ...]] = Counter()  # walks that did their work, and fell short
    for j in range(walks):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(f"0:{j}"))
        try:
            walker.walk()
            reasons["walked"] += 1
        except Reject as exc:
            reasons[exc.reason] += 1
            if exc.reason in ("too_short", "too_few_services"):
                motif = walker.motif.name if walker.motif else "-"
                near[(exc.reason, motif, *(s.tool.qualified for s in walker.steps))] += 1
        failures.update(walker.failures)
        lengths[len(walker.steps)] += 1
        if walker.steps:
            first[walker.steps[0].tool.qualified] += 1
    print(f"walks: {dict(reasons)}; steps {dict(sorted(lengths.items()))}")
    print(f"  failed start calls: {dict(failures.most_common(6))}")
    print(f"  first steps: {dict(first.most_common(5))}")
    # A task is one plan shape per run (``ComposeConfig.max_per_shape``): how many shapes
    # the walks reach, and the work done in one service that no second service joins.
    print(f"  walks that did their work but fell short: {sum(near.values())} in {len(near)} plans")
    for (why, motif, *tools), count in near.most_common(6):
        print(f"    {count} {why} ({motif}): {' -> '.join(tools)}")
    core_reach(env)


def core_reach(env: object) -> None:
    """Why each workflow's core tools are out of reach: per required input, whether some
    record the walk can find holds it (an id some lookup lists, a semantic key some
    output carries) or the user can state it (a literal of known meaning)."""
    import datetime as dt
    import random

    from library.compose.catalog import FETCH, LOOKUP
    from library.compose.literals import literal

    catalog = env.catalog  # type: ignore[attr-defined]
    found = {(t.service, t.collection) for t in catalog.tools.values() if t.kind in (LOOKUP, FETCH)}
    offered = {k for n in env.nodes for k in n.out_keys()}  # type: ignore[attr-defined]
    reasons: Counter[str] = Counter()
    blocked: Counter[str] = Counter()
    rng, now = random.Random(0), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    for motif, _ in env.workflows:  # type: ignore[attr-defined]
        for q in sorted(env.core_tools(motif)):  # type: ignore[attr-defined]
            tool = catalog.tools[q]
            why = []
            for p in tool.params:
                if not p.required:
                    continue
                key = p.key or p.item_key
                if p.name == tool.own:
                    ok = (tool.service, tool.collection) in found
                    why += [] if ok else [f"own record ({tool.collection}) never found"]
                elif key and key.startswith("id:"):
                    coll = key[3:]
                    ok = any(s == tool.service and str(c).startswith(coll[:-1]) for s, c in found)
                    why += [] if ok else [f"an id no lookup lists ({key})"]
                elif key:
                    if key not in offered and key not in ("date", "datetime", "money"):
                        why.append(f"no output holds a {key}")
                elif literal(p, rng, now, where=f"{tool.service}.{tool.collection}") is None:
                    why.append(f"text of unknown meaning ({p.name})")
            for w in why:
                reasons[w.split(" (")[0]] += 1
            if why:
                blocked[f"{q}: {'; '.join(why)}"] += 1
    # A task needs a second service: which services the work can reach from its own over a
    # cross-service edge, and through which keys.
    graph = env.graph  # type: ignore[attr-defined]
    for motif, _ in env.workflows:  # type: ignore[attr-defined]
        core = env.core_tools(motif)  # type: ignore[attr-defined]
        home = {catalog.tools[q].service for q in core}
        out: Counter[str] = Counter()
        for src, dst, attrs in graph.edges(data=True):
            a, b = catalog.tools.get(src), catalog.tools.get(dst)
            touches = a is not None and b is not None and (a.service in home or b.service in home)
            if attrs["cross_service"] and touches:
                out["+".join(sorted(attrs["keys"]))] += 1
        print(f"  {motif.name}: cross-service edges touching its services {dict(out)}")
    print(f"core tools blocked: {len(blocked)}; by reason: {dict(reasons.most_common())}")
    for line in sorted(blocked)[:40]:
        print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--specs", nargs="*", default=[str(ROOT.parent / "shared" / "specs")])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--diagnose", type=int, default=100, help="walks to diagnose (0: none)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    lib = library_figures(args.specs)
    graph_figures(lib)
    compose_figures(lib, args.n, args.workers, args.seed, args.sample, config_with(args.set))
    if args.diagnose:
        walk_diagnosis(lib, args.diagnose)


if __name__ == "__main__":
    main()
