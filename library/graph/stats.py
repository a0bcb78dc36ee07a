"""Degree statistics of the tool graph and its service-level summary."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

import networkx as nx


def _summary(values: list[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "p90": 0.0, "max": 0.0}
    ordered = sorted(values)
    return {
        "mean": round(statistics.fmean(ordered), 2),
        "median": float(statistics.median(ordered)),
        "p90": float(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]),
        "max": float(ordered[-1]),
    }


def degree_stats(graph: nx.DiGraph, top: int = 5) -> dict[str, Any]:
    """Counts, in/out degree summaries, isolated tools, hubs and edges per key type."""
    outs = dict(graph.out_degree())
    ins = dict(graph.in_degree())
    cross = sum(1 for *_, c in graph.edges(data="cross_service") if c)
    by_key: Counter[str] = Counter()
    for *_, keys in graph.edges(data="keys"):
        by_key.update({k.split(":", 1)[0] for k in keys})
    services = {s for _, s in graph.nodes(data="service")}

    def hubs(degrees: dict[str, int]) -> list[list[Any]]:
        ranked = sorted(degrees.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        return [[name, deg] for name, deg in ranked]

    return {
        "tools": graph.number_of_nodes(),
        "services": len(services),
        "edges": graph.number_of_edges(),
        "cross_service_edges": cross,
        "out_degree": _summary(list(outs.values())),
        "in_degree": _summary(list(ins.values())),
        "isolated": sum(1 for n in graph if outs[n] == 0 and ins[n] == 0),
        "top_out": hubs(outs),
        "top_in": hubs(ins),
        "edges_by_key_type": dict(sorted(by_key.items())),
    }


def service_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """Services as nodes (``tools``: count), cross-service tool edges summed into
    ``count`` and ``weight``."""
    out = nx.DiGraph()
    tools = Counter(s for _, s in graph.nodes(data="service"))
    for service in sorted(tools):
        out.add_node(service, tools=tools[service])
    for src, dst, attrs in graph.edges(data=True):
        a, b = graph.nodes[src]["service"], graph.nodes[dst]["service"]
        if a == b:
            continue
        if out.has_edge(a, b):
            out[a][b]["count"] += 1
            out[a][b]["weight"] += attrs["weight"]
        else:
            out.add_edge(a, b, count=1, weight=attrs["weight"])
    return out
