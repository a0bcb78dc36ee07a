"""Graph building and composition as sandbox ``invoke`` targets: they run inside a locked-down
worker on service classes loaded there from untrusted source, so every gold-plan call stays
in-process. JSON in, JSON out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from library.compose.compose import compose_tasks
from library.compose.config import ComposeConfig
from library.graph import build_graph, degree_stats, edge_rows, nodes_from_specs
from library.graph.render import render_service_graph_html
from library.graph.stats import service_graph
from library.runtime import Service
from library.toolspec import ToolSpec

if TYPE_CHECKING:
    from library.sandbox.worker import InvokeContext


def _inputs(ctx: InvokeContext, payload: dict[str, Any]) -> tuple[dict[str, type[Service]], list]:
    """payload: ``{"refs": {service: "module:Class"}, "specs": [ToolSpec dicts],
    "verified": {service: [tool, ...]}}`` -> classes by service, graph nodes."""
    classes = {name: ctx.services[ref] for name, ref in payload["refs"].items()}
    verified = {s: dict.fromkeys(tools, True) for s, tools in payload["verified"].items()}
    specs = [ToolSpec.model_validate(s) for s in payload["specs"]]
    return classes, nodes_from_specs(specs, verified, classes)


def graph(ctx: InvokeContext, payload: dict[str, Any]) -> dict[str, Any]:
    """The dependency graph: edge rows, degree statistics and the service-level picture."""
    _, nodes = _inputs(ctx, payload)
    g = build_graph(nodes)
    stats = degree_stats(g)
    html = render_service_graph_html(service_graph(g), "CompoWorld service graph", stats)
    return {"edges": edge_rows(g), "stats": stats, "html": html}


def compose(ctx: InvokeContext, payload: dict[str, Any]) -> dict[str, Any]:
    """One shard of composition. Extra payload keys: ``n``, ``seed``, ``shard``, ``shards``,
    ``config`` (``ComposeConfig`` fields), ``require_any`` (services, see ``compose_tasks``)
    and ``max_candidates``."""
    classes, nodes = _inputs(ctx, payload)
    config = ComposeConfig(**payload.get("config", {}))
    verified = {s: dict.fromkeys(tools, True) for s, tools in payload["verified"].items()}
    tasks, rejections = compose_tasks(
        list(classes.values()),
        int(payload["n"]),
        nodes=nodes,
        verified=verified,
        config=config,
        seed=int(payload.get("seed", 0)),
        shard=int(payload.get("shard", 0)),
        shards=int(payload.get("shards", 1)),
        max_candidates=payload.get("max_candidates"),
        require_any=payload.get("require_any"),
    )
    return {"tasks": [t.model_dump(mode="json") for t in tasks], "rejections": dict(rejections)}
