"""A self-contained HTML page (inline SVG, no scripts, no network) of the service graph."""

from __future__ import annotations

import html
import math
from typing import Any

import networkx as nx

SIZE = 900
MARGIN = 140


def _layout(names: list[str]) -> dict[str, tuple[float, float]]:
    # A circle in name order: stable between runs and readable for tens of services;
    # force layouts would need numpy and move every time a service is added.
    centre = SIZE / 2
    radius = centre - MARGIN
    n = max(1, len(names))
    return {
        name: (
            centre + radius * math.cos(2 * math.pi * i / n - math.pi / 2),
            centre + radius * math.sin(2 * math.pi * i / n - math.pi / 2),
        )
        for i, name in enumerate(names)
    }


def render_service_graph_html(
    services: nx.DiGraph, title: str = "Service graph", stats: dict[str, Any] | None = None
) -> str:
    """``services`` as returned by ``service_graph``; ``stats`` (``degree_stats``) is shown
    as a table under the picture."""
    names = sorted(services.nodes)
    pos = _layout(names)
    counts = [c for *_, c in services.edges(data="count")] or [1]
    top = max(counts)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" '
        f'viewBox="0 0 {SIZE} {SIZE}">',
        '<g stroke="#3b6ea5" fill="none">',
    ]
    for a, b, attrs in sorted(services.edges(data=True)):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        share = attrs["count"] / top
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke-width="{0.4 + 3 * share:.2f}" stroke-opacity="{0.08 + 0.6 * share:.2f}">'
            f"<title>{html.escape(a)} → {html.escape(b)}: {attrs['count']} tool edges</title>"
            "</line>"
        )
    parts.append("</g>")
    for name in names:
        x, y = pos[name]
        tools = services.nodes[name].get("tools", 1)
        r = 4 + 2.2 * math.sqrt(tools)
        deg = services.in_degree(name) + services.out_degree(name)
        anchor = "start" if x >= SIZE / 2 else "end"
        dx = r + 4 if x >= SIZE / 2 else -(r + 4)
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#f2a541" stroke="#7a4b00">'
            f"<title>{html.escape(name)}: {tools} tools, {deg} linked services</title></circle>"
            f'<text x="{x + dx:.1f}" y="{y + 4:.1f}" text-anchor="{anchor}" '
            f'font-family="sans-serif" font-size="12">{html.escape(name)}</text>'
        )
    parts.append("</svg>")
    table = ""
    if stats:
        rows = "".join(
            f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
            for k, v in stats.items()
        )
        table = f"<table>{rows}</table>"
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;margin:24px}th{text-align:left;padding-right:12px}"
        "td,th{font-size:13px;vertical-align:top}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        f"<p>{services.number_of_nodes()} services, {services.number_of_edges()} service "
        "links (line width: number of tool-level edges).</p>"
        + "".join(parts)
        + table
        + "</body></html>"
    )
