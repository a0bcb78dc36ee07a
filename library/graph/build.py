"""The tool dependency graph: an edge A -> B when an output of A can fill an input of B.

Edges are found through an index by semantic key, never by comparing all pairs. Within a
service every link is kept (services are small). Across services a producer's edges are
capped (``max_cross_out``): a shared email links thousands of tools at the scale of a real
corpus, and a walk needs a varied sample of consumers, not all of them. The cap takes the
most informative keys first and, within a key, a window of consumers that starts at a
position hashed from the producer, so different producers reach different consumers and
the result does not depend on input order.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import zip_longest
from typing import Any

import networkx as nx

from library.graph.keys import TYPE_WEIGHTS, WEAK, is_weak, key_type, link_weight
from library.graph.nodes import ToolNode

DEFAULT_MAX_CROSS_OUT = 24


def _stable(*parts: str) -> int:
    return zlib.crc32("\x1f".join(parts).encode())


def link(producer: ToolNode, consumer: ToolNode) -> dict[str, Any] | None:
    """The edge attributes for producer -> consumer, or None when nothing links them.

    The one definition of an edge: the index and the brute-force check both use it.
    """
    if producer.id == consumer.id:
        return None
    return _link(producer.service != consumer.service, producer.out_keys(), consumer.in_keys())


def _link(cross: bool, offers: frozenset[str], needs: dict[str, bool]) -> dict[str, Any] | None:
    keys, best = [], 0.0
    for key in sorted(offers & needs.keys()):
        w = link_weight(key, cross, needs[key])
        if w is not None:
            keys.append(key)
            best = max(best, w)
    if not keys or all(is_weak(k) for k in keys):
        return None  # a shared timestamp, link or amount alone is no dependency
    return {"weight": round(best, 4), "keys": keys, "cross_service": cross}


def _add_node(graph: nx.DiGraph, node: ToolNode) -> None:
    graph.add_node(
        node.id, service=node.service, tool=node.name, verb=node.verb, access=node.access
    )


def build_graph(
    nodes: Sequence[ToolNode], max_cross_out: int | None = DEFAULT_MAX_CROSS_OUT
) -> nx.DiGraph:
    """The dependency graph over ``nodes``; ``max_cross_out=None`` keeps every cross edge."""
    ordered = sorted(nodes, key=lambda n: n.id)
    graph = nx.DiGraph()
    for node in ordered:
        _add_node(graph, node)
    # key -> consumers, split by whether the consumer requires the key (those come first:
    # a required input is a real dependency, an optional one is usually a filter).
    required: dict[str, list[ToolNode]] = defaultdict(list)
    optional: dict[str, list[ToolNode]] = defaultdict(list)
    local: dict[tuple[str, str], list[ToolNode]] = defaultdict(list)
    needs = {node.id: node.in_keys() for node in ordered}
    for node in ordered:
        for key, req in sorted(needs[node.id].items()):
            (required if req else optional)[key].append(node)
            local[(node.service, key)].append(node)
    edges: list[tuple[str, str, dict[str, Any]]] = []
    for producer in ordered:
        out_keys = producer.out_keys()
        targets: dict[str, ToolNode] = {}
        for key in sorted(out_keys):
            for consumer in local.get((producer.service, key), ()):
                targets.setdefault(consumer.id, consumer)
        budget = max_cross_out
        ranked = sorted(out_keys, key=lambda k: (-TYPE_WEIGHTS.get(key_type(k), 0.1), k))
        for key in ranked:
            kind = key_type(key)
            if kind == "id" or kind in WEAK:
                continue  # ids stay local; weak keys make no edge alone (spent budget else)
            if budget is not None and budget <= 0:
                break
            # Consumers that need the value (writes, mostly) and consumers that filter by it
            # (lookups) take turns, so a capped producer still reaches both.
            needs_it = _window(producer, key, required.get(key, ()))
            filters = _window(producer, key, optional.get(key, ()))
            budget = _take(producer, _interleave(needs_it, filters), targets, budget)
        for cid in sorted(targets):
            if cid == producer.id:
                continue
            consumer = targets[cid]
            attrs = _link(consumer.service != producer.service, out_keys, needs[cid])
            if attrs is not None:
                edges.append((producer.id, cid, attrs))
    graph.add_edges_from(edges)
    return graph


def _window(producer: ToolNode, key: str, pool: Sequence[ToolNode]) -> Iterator[ToolNode]:
    """``pool`` read from a position hashed from the producer and key, wrapping around."""
    if not pool:
        return iter(())
    start = _stable(producer.id, key) % len(pool)
    return (pool[(start + i) % len(pool)] for i in range(len(pool)))


def _interleave(a: Iterator[ToolNode], b: Iterator[ToolNode]) -> Iterator[ToolNode]:
    for pair in zip_longest(a, b):
        yield from (x for x in pair if x is not None)


def _take(
    producer: ToolNode,
    candidates: Iterable[ToolNode],
    targets: dict[str, ToolNode],
    budget: int | None,
) -> int | None:
    """Add cross-service consumers, in order, until the budget is spent."""
    for consumer in candidates:
        if budget is not None and budget <= 0:
            break
        if consumer.service == producer.service or consumer.id in targets:
            continue
        targets[consumer.id] = consumer
        if budget is not None:
            budget -= 1
    return budget


def brute_force_graph(nodes: Iterable[ToolNode]) -> nx.DiGraph:
    """Every pair compared: the reference the index is tested against (uncapped)."""
    ordered = sorted(nodes, key=lambda n: n.id)
    graph = nx.DiGraph()
    for node in ordered:
        _add_node(graph, node)
    for a in ordered:
        for b in ordered:
            attrs = link(a, b)
            if attrs is not None:
                graph.add_edge(a.id, b.id, **attrs)
    return graph


def edge_rows(graph: nx.DiGraph) -> list[dict[str, Any]]:
    """Rows of the ``graph_edges`` table."""
    rows = []
    for src, dst, attrs in graph.edges(data=True):
        a, b = graph.nodes[src], graph.nodes[dst]
        rows.append(
            {
                "source": src,
                "target": dst,
                "source_service": a["service"],
                "source_tool": a["tool"],
                "target_service": b["service"],
                "target_tool": b["tool"],
                "weight": float(attrs["weight"]),
                "keys": list(attrs["keys"]),
                "cross_service": bool(attrs["cross_service"]),
            }
        )
    return rows
