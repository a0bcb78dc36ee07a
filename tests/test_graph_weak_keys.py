"""Weak keys (timestamps, links, amounts, countries) make no graph edge on their own, on
hand-made nodes and on real specs from ../shared/specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.graph import brute_force_graph, build_graph, nodes_from_specs
from library.graph.keys import WEAK, is_weak, key_type
from library.graph.nodes import ToolNode
from library.ingest import ingest_document
from tests.test_graph import _node

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
# Real APIs whose tools all stamp records with dates and links (and a few share e-mails).
REAL = (
    "openapi/postmarkapp.com__account.json",
    "openapi/mailscript.com.json",
    "openapi/hubapi.com__files.json",
    "openapi/getgo.com__gototraining.json",
    "openapi/vonage.com__vgis.json",
)


def test_weak_keys_alone_make_no_edge_within_or_across_services() -> None:
    stamped = _node("files", "list_files", outs=(("[].created_at", "datetime"), ("[].url", "url")))
    same = _node("files", "create_share", ins=(("expires_at", "datetime", True),))
    other = _node("chat", "post_link", ins=(("link", "url", True), ("at", "datetime", True)))
    graph = build_graph([stamped, same, other])
    assert graph.number_of_edges() == 0
    assert {"url", "datetime", "date", "money"} <= WEAK


def test_a_weak_key_rides_along_on_a_strong_one() -> None:
    producer = _node(
        "crm", "list_contacts", outs=(("[].email", "email"), ("[].created_at", "datetime"))
    )
    consumer = _node("mail", "send", ins=(("to", "email", True), ("at", "datetime", True)))
    graph = build_graph([producer, consumer])
    assert graph.edges["crm__list_contacts", "mail__send"]["keys"] == ["datetime", "email"]


@pytest.fixture(scope="module")
def real_nodes() -> list[ToolNode]:
    specs = [s for rel in REAL for s in ingest_document(SPECS / rel)[0]]
    return nodes_from_specs(specs)


def test_real_specs_have_no_edge_through_weak_keys_alone(real_nodes: list[ToolNode]) -> None:
    offered = {key_type(k) for n in real_nodes for k in n.out_keys()}
    assert {"datetime", "url"} <= offered  # the specs do carry weak keys
    for graph in (build_graph(real_nodes), brute_force_graph(real_nodes)):
        assert graph.number_of_edges() > 0
        for _, _, attrs in graph.edges(data=True):
            assert not all(is_weak(k) for k in attrs["keys"]), attrs
