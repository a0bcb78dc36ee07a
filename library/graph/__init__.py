"""The tool dependency graph (networkx): an edge A -> B when an output of A can fill an input
of B, through a shared semantic type across services or an id within a service."""

from library.graph.build import (
    DEFAULT_MAX_CROSS_OUT,
    brute_force_graph,
    build_graph,
    edge_rows,
    link,
)
from library.graph.keys import TYPE_WEIGHTS, field_key, link_weight, natural_key
from library.graph.nodes import (
    FieldRef,
    ToolNode,
    keyed_fields,
    nodes_from_service,
    nodes_from_specs,
    schema_fields,
)
from library.graph.render import render_service_graph_html
from library.graph.stats import degree_stats, service_graph

__all__ = [
    "DEFAULT_MAX_CROSS_OUT",
    "TYPE_WEIGHTS",
    "FieldRef",
    "ToolNode",
    "brute_force_graph",
    "build_graph",
    "degree_stats",
    "edge_rows",
    "field_key",
    "keyed_fields",
    "link",
    "link_weight",
    "natural_key",
    "nodes_from_service",
    "nodes_from_specs",
    "render_service_graph_html",
    "schema_fields",
    "service_graph",
]
