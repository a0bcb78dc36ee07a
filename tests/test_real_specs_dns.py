"""A real DNS API (PowerDNS, ``../shared/specs``) composed as a team would use it: a zone is
made on a server (``POST /servers/{server_id}/zones`` answers an untyped object, yet it
makes a zone), its pieces (crypto keys, metadata) live under it so it is no shared
reference, a new zone is made with its domain, work that only made records logs what it
made (to a colleague by e-mail: a team's DNS change is no ticket in the customers' queue),
and the seeded records read as DNS (domains of ours, record types, TTLs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compose import ComposeConfig, make_env
from library.compose.catalog import CREATE
from library.compose.corpus import Library
from library.compose.env import ComposeEnv
from library.compose.motifs import BY_NAME, Motif
from library.compose.spec_library import spec_library
from library.compose.walk import Walker
from library.seed import seed_pool
from tests.compose_walks import finished_walks, initial_world

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
POWERDNS = SPECS / "openapi" / "powerdns.local.json"
TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"

pytestmark = pytest.mark.skipif(
    not (POWERDNS.is_file() and TICKETS.is_file() and GMAIL.is_file()),
    reason="../shared/specs not present",
)


@pytest.fixture(scope="module")
def lib() -> Library:
    return spec_library([POWERDNS, GMAIL, TICKETS])


@pytest.fixture(scope="module")
def env(lib: Library) -> ComposeEnv:
    return make_env(lib.classes, lib.nodes, config=ComposeConfig())


class _DnsChange(Walker):
    def _choose_workflow(self) -> Motif | None:
        return BY_NAME["domain setup"]


def test_a_record_made_under_a_parent_is_a_create_of_its_own_kind(env: ComposeEnv) -> None:
    """``createZone`` takes the server's id and answers an untyped object: it makes a zone
    (before, an "action on the server", which nothing could act on)."""
    zone = env.catalog.tools["powerdns_local__createZone"]
    assert (zone.kind, zone.collection) == (CREATE, "zones")
    key = env.catalog.tools["powerdns_local__createCryptokey"]
    assert (key.kind, key.collection) == (CREATE, "cryptokeys")


def test_a_record_with_pieces_under_it_is_no_shared_reference(env: ComposeEnv) -> None:
    """Every tool of a zone's crypto keys takes the zone's id: they are pieces of the zone,
    which is the work itself, not a reference record (a plan, a room) nobody edits; and a
    shared record is still there to be named by the id a create takes."""
    assert ("powerdns_local", "zones") not in env.catalogs
    assert env.reachable(env.catalog.tools["powerdns_local__patchZone"])
    assert BY_NAME["domain setup"] in {m for m, _ in env.workflows}


def test_dns_work_names_what_it_makes_and_logs_it(env: ComposeEnv) -> None:
    """A new zone is made with its domain (one of ours), a new TSIG key with its name; a
    plan that only made records tells a colleague what it made, by name, once it is done
    (nothing is made after the report), never in the customers' ticket queue; no record is
    named by its API address ("the server https://powerdns-local.../servers/c7549137c4")."""
    org = seed_pool().org
    assert org is not None
    walks = finished_walks(env, 40, "dns", _DnsChange)
    zones = logged = 0
    for walker in walks:
        for step in walker.steps:
            if step.tool.name == "createZone":
                zones += 1
                assert str(step.args.get("name", "")).endswith(org.domain), step.args
            if step.tool.name == "createTSIGKey":
                assert step.args.get("name"), step.args
            assert step.tool.name != "create_ticket", walker.steps
            if step.tool.name == "sendMessage":
                # named as a person writes it: the made record's name, never its raw id
                made = [s.entity for s in walker.steps if s.write and s is not step and s.entity]
                names = {v for e in made for v in e.record.values() if isinstance(v, str)}
                described = str(step.args.get("body"))
                assert any(n in described for n in names), step.args
                assert not any(str(e.id) in described for e in made), step.args
                after = walker.steps[walker.steps.index(step) + 1 :]
                assert not any(s.write for s in after), [s.tool.name for s in after]
                logged += 1
            for _, value in step.text.get("by", ()):
                assert "://" not in value, step.text
    assert len(walks) >= 10 and zones >= 5 and logged >= 5, (len(walks), zones, logged)


def test_seeded_dns_records_read_as_dns(lib: Library) -> None:
    """A server is one of our hosts (not a client's domain), a zone is a domain of ours,
    its record sets have DNS types and TTLs of minutes to a day (not prose and "7")."""
    from library.runtime import World

    [cls] = [c for c in lib.classes if c.name == "powerdns_local"]
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=4)
    state = world.services[cls.name].state
    org = seed_pool().org
    assert org is not None
    assert all(str(s.domain).endswith("." + org.domain) for s in state.servers.values())
    sets = [r for z in state.zones.values() for r in (z.rrsets or [])]
    assert state.zones and all(str(z.name).endswith(org.domain) for z in state.zones.values())
    assert sets and all(r.type_ in ("A", "AAAA", "CNAME", "MX", "TXT", "NS") for r in sets)
    assert all(300 <= r.ttl <= 86400 for r in sets if r.ttl is not None)


def test_a_new_zone_or_key_is_named_as_none_that_exists(env: ComposeEnv) -> None:
    """A zone is made for a domain no zone of that collection already serves, a TSIG key
    with a name no key has: a second ``docs.changfisher.com.`` is a conflict the API refuses,
    not work anyone asks for."""
    made = 0
    for walker in finished_walks(env, 40, "dns names", _DnsChange):
        state = initial_world(walker).services["powerdns_local"].state
        for step in walker.steps:
            if step.tool.name not in ("createZone", "createTSIGKey"):
                continue
            made += 1
            records = state.zones if step.tool.name == "createZone" else state.tsigkeys
            taken = {str(r.name).rstrip(".").casefold() for r in records.values()}
            assert str(step.args["name"]).rstrip(".").casefold() not in taken, step.args
    assert made >= 8, made
