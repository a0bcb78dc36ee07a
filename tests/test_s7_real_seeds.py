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
