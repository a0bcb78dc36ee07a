"""The dependency graph: the semantic index finds exactly the edges an all-pairs comparison
finds, caps keep it linear, weights favour cross-service and informative links."""

from __future__ import annotations

import random
from collections import Counter

import networkx as nx
import orjson
import pytest

from library.compiler import compile_service, load_service
from library.compose.corpus import bundled_specs
from library.graph import (
    FieldRef,
    ToolNode,
    brute_force_graph,
    build_graph,
    degree_stats,
    edge_rows,
    link,
    natural_key,
    nodes_from_service,
    nodes_from_specs,
    render_service_graph_html,
    service_graph,
)
from library.graph.nodes import keyed_fields, record_ids
from library.services import reference_service_classes


@pytest.fixture(scope="module")
def corpus_nodes() -> list[ToolNode]:
    return nodes_from_specs([s for specs in bundled_specs().values() for s in specs])


def _edges(graph: nx.DiGraph) -> dict[tuple[str, str], dict]:
    return {(a, b): attrs for a, b, attrs in graph.edges(data=True)}


def test_index_equals_brute_force_on_samples(corpus_nodes: list[ToolNode]) -> None:
    rng = random.Random(7)
    for _ in range(3):
        sample = rng.sample(corpus_nodes, 160)
        index = build_graph(sample, max_cross_out=None)
        brute = brute_force_graph(sample)
        assert set(index.nodes) == set(brute.nodes)
        assert _edges(index) == _edges(brute)
        assert index.number_of_edges() > 100


def test_capped_graph_is_a_subgraph_with_bounded_cross_fanout(
    corpus_nodes: list[ToolNode],
) -> None:
    sample = random.Random(3).sample(corpus_nodes, 400)
    capped = build_graph(sample, max_cross_out=8)
    brute = brute_force_graph(sample)
    full = _edges(brute)
    got = _edges(capped)
    assert set(got) <= set(full)
    assert all(got[e] == full[e] for e in got)  # same weights and keys as the reference
    cross = Counter(a for (a, _), attrs in got.items() if attrs["cross_service"])
    assert max(cross.values()) <= 8
    # Within a service nothing is capped.
    local = {e for e, attrs in full.items() if not attrs["cross_service"]}
    assert local <= set(got)
    # Capped producers still reach lookups (filters), not only writes that need the value.
    kinds = Counter(
        capped.nodes[b]["verb"] for (_, b), attrs in got.items() if attrs["cross_service"]
    )
    assert kinds["list"] + kinds["search"] > 0 and kinds["create"] > 0


def _node(service: str, name: str, outs=(), ins=()) -> ToolNode:
    return ToolNode(
        service=service,
        name=name,
        verb="list" if outs else "create",
        access="read" if outs else "write",
        outputs=tuple(FieldRef(p, k) for p, k in outs),
        inputs=tuple(FieldRef(p, k, r) for p, k, r in ins),
    )


def test_weights_prefer_cross_service_and_informative_keys() -> None:
    producer = _node(
        "crm", "list_contacts", outs=[("[].email", "email"), ("[].created_at", "datetime")]
    )
    same = _node("crm", "create_note", ins=[("email", "email", True)])
    other = _node("mail", "send_message", ins=[("to", "email", True)])
    both = _node(
        "calendar", "create_event", ins=[("starts_at", "datetime", True), ("to", "email", True)]
    )
    local = link(producer, same)
    cross = link(producer, other)
    with_weak = link(producer, both)
    assert local and cross and with_weak
    assert cross["weight"] > local["weight"]
    assert cross["cross_service"] and not local["cross_service"]
    # A timestamp rides along on the edge the e-mail makes; it adds no weight of its own.
    assert with_weak["keys"] == ["datetime", "email"]
    assert with_weak["weight"] == cross["weight"]


def test_ids_stay_local_and_weak_keys_never_link_alone() -> None:
    producer = _node("shop", "list_orders", outs=[("[].id", "id:orders"), ("[].total", "money")])
    local = _node("shop", "refund_order", ins=[("order_id", "id:orders", True)])
    foreign = _node("helpdesk", "create_ticket", ins=[("order_id", "id:orders", True)])
    filter_only = _node("billing", "list_invoices", ins=[("amount", "money", False)])
    needs = _node("billing", "create_refund", ins=[("amount", "money", True)])
    assert link(producer, local) is not None
    assert link(producer, foreign) is None
    assert link(producer, filter_only) is None
    # Every order has a total: an amount alone does not say which refund it is for.
    assert link(producer, needs) is None


def test_natural_keys() -> None:
    assert natural_key("product_sku") == natural_key("sku") == "key:sku"
    assert natural_key("invoice_number") == "key:invoice_number"
    assert natural_key("postal_code") is None
    assert natural_key("subject") is None
    assert natural_key("code") is None  # too generic on its own


def test_reference_services_graph_and_outputs() -> None:
    nodes = [n for c in reference_service_classes() for n in nodes_from_service(c)]
    graph = build_graph(nodes)
    stats = degree_stats(graph)
    assert stats["tools"] == len(nodes) and stats["cross_service_edges"] > 0
    assert graph.has_edge("crm__list_contacts", "mail__send_message")
    rows = edge_rows(graph)
    assert len(rows) == graph.number_of_edges()
    orjson.dumps(rows)
    assert {"source", "target", "weight", "keys", "cross_service"} <= set(rows[0])
    services = service_graph(graph)
    assert set(services.nodes) == {c.name for c in reference_service_classes()}
    assert all(attrs["count"] > 0 for *_, attrs in services.edges(data=True))
    html = render_service_graph_html(services, stats=stats)
    assert html.startswith("<!doctype html>") and "<svg" in html
    assert "<script" not in html and "src=" not in html and "href=" not in html


def test_spec_nodes_take_missing_outputs_from_classes() -> None:
    # Function-calling formats have no output schema: ingestion infers one (marked), and the
    # built class's own outputs replace it where the class is given.
    specs = bundled_specs(["returns"])["returns"]
    assert all("output_inferred" in s.vendor for s in specs)
    bare = nodes_from_specs(specs)
    cls = load_service(compile_service(specs).source)
    filled = nodes_from_specs(specs, classes={"returns": cls})
    assert any(n.outputs for n in filled)
    assert [n.inputs for n in filled] == [n.inputs for n in bare]
    built = {n.name: n.outputs for n in filled}
    for name, tool in cls.tools.items():  # the class's outputs, not the inferred ones
        keyed = keyed_fields(tool.output_schema)
        # ... plus the ids of the records they hold, under the record's own id name.
        own = record_ids(cls, tool.output_schema, {f.path for f in keyed})
        assert built[name] == (*keyed, *own)
