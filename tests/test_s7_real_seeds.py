"""Seeded worlds of real specs (``../shared/specs``) that a strict reviewer finds coherent,
each rule read from the spec's structure, names and descriptions, never from one service:

- a record under a parent that hangs under an ancestor the record names too agrees with
  it (a zone's crypto key is on the zone's server);
- DNS names held in a record named by a domain fall under that domain;
- what a write is told (an update's change set, a body's renamed copy of a field) is no
  stored field of a seeded record.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.conftest import SHARED_SPECS

POWERDNS = SHARED_SPECS / "openapi" / "powerdns.local.json"
TICKETS = SHARED_SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="../shared/specs is not present")


@functools.cache
def _cls(path: Path) -> Any:
    specs, _ = ingest_document(path)
    return load_service(compile_service(specs).source)


def _state(path: Path, seed: int = 0, size: int = 8) -> Any:
    cls = _cls(path)
    world = World([cls()], seed=seed)
    world.seed_states(seed_pool(), size=size)
    return world.services[cls.name].state


# -- 1. ancestors agree ------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_record_names_its_parents_own_ancestor(seed: int) -> None:
    """A crypto key (metadata) of a zone names the zone and the server: the zone's own
    server, never another one (9 of 10 keys named a zone of another server)."""
    state = _state(POWERDNS, seed)
    checked = 0
    for collection in ("cryptokeys", "metadata"):
        for record in getattr(state, collection).values():
            zone = state.zones[record.zone_id]
            assert record.server_id == zone.server_id, (collection, record, zone.server_id)
            checked += 1
    assert checked >= 10


def test_listing_by_parent_answers_the_records_stored_under_it() -> None:
    """What ``listCryptokeys(server_id, zone_id)`` answers is every key stored under that
    zone: once keys agree with their zones, none is lost to a server mismatch."""
    cls = _cls(POWERDNS)
    world = World([cls()], seed=3)
    world.seed_states(seed_pool(), size=8)
    service = world.services[cls.name]
    for zone in service.state.zones.values():
        listed = service.listCryptokeys(server_id=zone.server_id, zone_id=zone.id)
        stored = [k for k in service.state.cryptokeys.values() if k.zone_id == zone.id]
        assert len(listed) == len(stored), (zone.id, listed, stored)


# -- 2. names under their zone -----------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dns_names_held_in_a_zone_fall_under_it(seed: int) -> None:
    """``blog.acme.com`` holds ``blog.acme.com`` and ``www.blog.acme.com``, never
    ``careers.acme.com``; a CNAME never sits at the apex."""
    state = _state(POWERDNS, seed)
    sets = 0
    for zone in state.zones.values():
        for rrset in zone.rrsets or ():
            assert rrset.name == zone.name or rrset.name.endswith("." + zone.name), (
                zone.name,
                rrset.name,
            )
            if rrset.type_ == "CNAME":
                assert rrset.name != zone.name
            sets += 1
    assert sets >= 5


# -- 3. what a write is told is not stored -----------------------------------------------------
def test_no_seeded_record_holds_a_change_set() -> None:
    """Ticket API's ``edit_ticket(ticket_id, updates: {title, description, status,
    priority})``: ``updates`` is the change, not a field of a ticket; PowerDNS's
    ``createZone`` body ``rrsets`` (renamed ``body_rrsets`` beside the query's ``rrsets``)
    is the zone's ``rrsets``, which the seed fills once."""
    tickets = _state(TICKETS).tickets.values()
    assert tickets and all(getattr(t, "updates", None) is None for t in tickets)
    zones = _state(POWERDNS).zones.values()
    assert zones and all(getattr(z, "body_rrsets", None) is None for z in zones)
    assert all(z.rrsets for z in zones)


# -- 4. prose only where a field is free text --------------------------------------------------
PROSE_FREE = {"description", "body", "comment", "note", "notes", "message", "content", "text",
              "summary", "reason", "memo", "details", "request", "html", "css"}  # fmt: skip


def _strings(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(field name, text) of every text in a dumped state, nested ones included."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, (*path, str(k)))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, path)]
    return [(path[-1] if path else "", value)] if isinstance(value, str) else []


def _prose(text: str) -> bool:
    return len(text.split()) >= 3 and text.rstrip().endswith((".", "!", "?"))


SPECS_WITH_NAMES = [
    SHARED_SPECS / "mcp" / "docker" / "kubectl-mcp-server.json",
    SHARED_SPECS / "openapi" / "mailscript.com.json",
    SHARED_SPECS / "openapi" / "amazonaws.com__applicationcostprofiler.json",
    SHARED_SPECS / "openapi" / "hubapi.com__files.json",
    SHARED_SPECS / "functions" / "tau2" / "telecom_user.json",
    SHARED_SPECS / "functions" / "bfcl_multi_turn" / "memory_kv.json",
]


@pytest.mark.parametrize("path", SPECS_WITH_NAMES, ids=lambda p: p.stem)
def test_prose_goes_only_in_free_text_fields(path: Path) -> None:
    """A ``pod_name``, a helm ``namespace`` or ``chart``, a workflow's ``trigger``, a
    ``type``, a ``key``, an S3 ``bucket`` are identifiers, never "Following up on our last
    conversation."; sentences stay in descriptions, comments, notes, messages."""
    from library.ingest.naming import tokens

    state = _state(path).model_dump(mode="json")
    wrong = [
        (name, text)
        for name, text in _strings(state)
        if _prose(text) and not set(tokens(name)) & PROSE_FREE
    ]
    assert not wrong, wrong[:5]


def test_a_declared_pattern_holds_for_a_name_of_no_known_meaning() -> None:
    """An S3 ``bucket`` declares its pattern (with lookaheads no sampler draws): the seed's
    value fits it (the tool was rejected for "bucket: 'Checked with finance; ...' does not
    match pattern")."""
    import re

    path = SHARED_SPECS / "openapi" / "amazonaws.com__applicationcostprofiler.json"
    import json

    pattern = json.loads(path.read_text())["components"]["schemas"]["S3Bucket"]["pattern"]
    buckets = [t for n, t in _strings(_state(path).model_dump(mode="json")) if n == "bucket"]
    assert buckets and all(re.search(pattern, b) for b in buckets), buckets


def test_a_field_naming_a_record_holds_one_of_their_names() -> None:
    """A helm chart's ``namespace`` is the name of one of the service's namespaces."""
    state = _state(SPECS_WITH_NAMES[0])
    names = {n.name for n in state.namespaces.values()}
    charts = list(state.helm_charts.values())
    assert charts and names and all(c.namespace in names for c in charts)


# -- 5. names by meaning, not the noun and a city ----------------------------------------------
@pytest.mark.parametrize(
    ("path", "collection"),
    [
        (SPECS_WITH_NAMES[0], "cluster_roles"),
        (SPECS_WITH_NAMES[0], "api_resources"),
        (SHARED_SPECS / "functions" / "tau2" / "retail.json", "product_types"),
        (SHARED_SPECS / "functions" / "tau_bench" / "retail.json", "product_types"),
        (SPECS_WITH_NAMES[1], "workflows"),
    ],
    ids=lambda v: v.stem if isinstance(v, Path) else v,
)
def test_names_are_distinct_and_never_the_noun_with_a_city(path: Path, collection: str) -> None:
    """ "Cluster role (Montreal)", "Product type (Cologne)", "Workflow (Brisbane)": the
    collection's noun plus a place is no name anyone gives; names are distinct words."""
    import re

    records = list(getattr(_state(path, size=10), collection).values())
    names = [r.name for r in records]
    assert len(names) == 10 and len(set(names)) == 10, names
    noun = collection.removesuffix("s").replace("_", " ")
    for name in names:
        assert not re.search(r"\([A-Z][a-z]+\)$", name), name
        assert noun not in name.lower(), name


# -- 7. a field's meaning by its service -------------------------------------------------------
def test_a_mail_services_address_is_a_mailbox() -> None:
    """MailScript's ``address`` (of an address, an input, a key) is an e-mail address,
    not "350 avenue Victor Hugo"; an input's address is one of the addresses kept."""
    state = _state(SPECS_WITH_NAMES[1])
    kept = {a.address for a in state.addresses.values()}
    assert kept and all("@" in a for a in kept)
    inputs = [i.address for i in state.inputs.values()]
    assert inputs and all(a in kept for a in inputs)
    keys = [k.address for k in state.keys.values() if k.address]
    assert all("@" in a for a in keys)


# -- 6. numbers and endpoints by meaning -------------------------------------------------------
def test_a_key_size_is_a_key_size_and_an_endpoint_is_the_records_own() -> None:
    """A crypto key's ``bits`` ("The size of the key") is 2048/3072/4096 or 256/384, not
    9; a server's ``url``, ``config_url``, ``zones_url`` ("The API endpoint for this
    server's zones") hold the server's own id and the resource path."""
    state = _state(POWERDNS)
    bits = [k.bits for k in state.cryptokeys.values() if k.bits is not None]
    assert bits and set(bits) <= {2048, 3072, 4096, 256, 384}, bits
    for sid, server in state.servers.items():
        assert str(server.url).endswith(f"/servers/{sid}"), server.url
        assert str(server.config_url).endswith(f"/servers/{sid}/config"), server.config_url
        assert str(server.zones_url).endswith(f"/servers/{sid}/zones"), server.zones_url


# -- 8. what a description keeps for one kind of record ----------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_a_list_kept_for_one_kind_is_held_by_that_kind_alone(seed: int) -> None:
    """``masters``: "List of IP addresses configured as a master for this zone ("Slave"
    type zones only)": a Slave zone has masters (IP addresses), a Native or Master zone
    none."""
    import ipaddress

    zones = list(_state(POWERDNS, seed, size=12).zones.values())
    assert {z.kind for z in zones} >= {"Slave"}
    for zone in zones:
        if zone.kind == "Slave":
            assert zone.masters, zone
            for ip in zone.masters:
                ipaddress.ip_address(ip)
        else:
            assert not zone.masters, zone


# -- 9. an order holds items -------------------------------------------------------------------
def test_ids_of_records_the_service_keeps_none_of_are_drawn_as_described() -> None:
    """tau-bench retail keeps no items, yet an order's ``item_ids`` ("each such as
    '1008292230'") is never empty: 1-3 ids in that form."""
    orders = _state(SHARED_SPECS / "functions" / "tau_bench" / "retail.json").orders.values()
    assert orders
    for order in orders:
        assert 1 <= len(order.item_ids) <= 3, order
        assert all(i.isdigit() and len(i) == 10 for i in order.item_ids), order
