"""Seeded records of real operations APIs (``../shared/specs``) read as what they are.

- A number's range stated only in words ("Priority of the ticket, from 1 to 5") is its
  ``minimum``/``maximum``: the tool refuses a priority of 9, and seeded tickets hold 1-5 even
  where the record's own schema (a read's answer) says nothing of it (before: 0-20).
- What names a record (``name``, ``title``, ``displayName``; a server's host name) is never
  shared by two records of its collection; a workload's container ``image`` is an image
  reference (``registry.<our domain>/<its name>:1.14.2``), not prose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.spec_library import spec_files
from library.ingest import ingest_document
from library.ingest.stated_values import stated_range, with_stated_values
from library.runtime import World
from library.seed import seed_pool

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"
needs_shared = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


def _world(path: Path, seed: int = 0, size: int = 6) -> tuple[World, Any]:
    specs, _ = ingest_document(path)
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=seed)
    world.seed_states(seed_pool(), size=size)
    return world, world.services[cls.name].state


# -- stated ranges ----------------------------------------------------------------------------
RANGES = [
    ("Priority of the ticket, from 1 to 5. Defaults to 1. 5 is the highest priority. ", (1, 5)),
    ("Priority, 1 (highest) to 5 (lowest).", (1, 5)),
    ("A rating between 1 and 5.", (1, 5)),
    ("Rating 1-5.", (1, 5)),
    ("Results per page (1-100, default 20)", (1, 100)),
    ("On a scale of 1 to 10.", (1, 10)),
    ("Position of the pedal, between 0 (not pressed) and 1 (fully pressed).", (0, 1)),
    ("A score, e.g. 1-5.", None),  # an example
    ("Pages 1-5 or 7-9.", None),  # two ranges: which?
    ("The date, as 2020-01-05.", None),
    ("Version 2.0-3", None),
    ("ISO 8601-1 timestamp", None),
    ("from 5 to 1", None),  # no low below its high
]


@pytest.mark.parametrize(("description", "want"), RANGES)
def test_a_range_stated_in_words_is_read_and_nothing_else_is(
    description: str, want: tuple[int, int] | None
) -> None:
    assert stated_range(description) == want


def test_a_stated_range_bounds_a_number_that_declares_none() -> None:
    schema = {
        "type": "object",
        "properties": {
            "priority": {"type": "integer", "description": "From 1 to 5."},
            "declared": {"type": "integer", "minimum": 0, "description": "From 1 to 5."},
            "defaults_outside": {"type": "integer", "default": 0, "description": "From 1 to 5."},
            "text": {"type": "string", "description": "From 1 to 5."},
        },
    }
    props = with_stated_values(schema)["properties"]
    assert (props["priority"]["minimum"], props["priority"]["maximum"]) == (1, 5)
    assert props["declared"] == schema["properties"]["declared"]  # declared bounds win
    assert "maximum" not in props["defaults_outside"]  # "Defaults to 0": not the range
    assert "minimum" not in props["text"]


@needs_shared
def test_ranges_stated_across_the_shared_specs_bound_their_parameters() -> None:
    """Every number the shared specs bound only in words is bounded (the ticket priority,
    a car's fan speed and pedal position...)."""
    found = []
    for path in spec_files([SPECS / "functions"]):
        specs, _ = ingest_document(path)
        for spec in specs:
            for name, node in (spec.input_schema.get("properties") or {}).items():
                if stated_range(node.get("description")) and node.get("type") in (
                    "integer",
                    "number",
                ):
                    found.append((spec.name, name))
                    assert "minimum" in node and "maximum" in node, (spec.name, name, node)
    assert len(found) >= 4, found


@needs_shared
def test_ticket_priorities_are_seeded_and_taken_within_the_stated_range() -> None:
    priorities = []
    for seed in range(8):
        world, state = _world(TICKETS, seed=seed)
        priorities += [t.priority for t in state.tickets.values() if t.priority is not None]
    assert len(priorities) >= 30 and all(1 <= p <= 5 for p in priorities), priorities
    world, _ = _world(TICKETS)
    refused = world.call("ticket_api__create_ticket", {"title": "VPN down", "priority": 9})
    assert not refused["success"] and "priority" in refused["error"]["message"], refused
    taken = world.call("ticket_api__create_ticket", {"title": "VPN down", "priority": 5})
    assert taken["success"], taken


# -- names and container images -----------------------------------------------------------------
KUBECTL = SPECS / "mcp" / "docker" / "kubectl-mcp-server.json"
POWERDNS = SPECS / "openapi" / "powerdns.local.json"
NAMES = ("name", "title", "label", "display_name", "displayName")


@needs_shared
def test_records_of_one_collection_never_share_a_name() -> None:
    """What names a record (its ``name``, ``title``; a server's host name; a domain's
    ``domain``) differs from record to record of its collection, in every service of the
    shared specs (before: three deployments called "admin-portal", ns3 three times in
    PowerDNS's servers, a 1Password vault holding two items named after one product)."""
    import re

    from library.compose.spec_library import specs_by_service
    from library.seed.vocab import meaning

    checked = []
    for service, specs in specs_by_service([SPECS]).items():
        cls = load_service(compile_service(specs).source)
        world = World([cls()], seed=0)
        world.seed_states(seed_pool(), size=10)
        state = world.services[cls.name].state
        for collection in type(state).collection_types:
            records = list(getattr(state, collection).values())
            for name in type(records[0]).model_fields if len(records) > 1 else ():
                where = f"{service}.{collection}"
                own = name in NAMES or meaning(name, where) == "hostname"
                values = [getattr(r, name) for r in records]
                if not own or not all(isinstance(v, str) for v in values):
                    continue
                checked.append((service, collection, name))
                assert len(set(values)) == len(values), (service, collection, name, values)
                if meaning(name, where) in ("hostname", "domain"):  # never "ns1.x.com (EMEA)"
                    assert all(re.fullmatch(r"[a-z0-9.-]+", v) for v in values), values
    assert len(checked) >= 40, checked
    assert ("powerdns_local", "servers", "domain") in checked
    assert ("kubectl_mcp_server", "deployments", "name") in checked


@needs_shared
def test_a_deployment_runs_a_container_image_of_its_own_name() -> None:
    """A workload's ``image`` is an image reference, its own build in our registry
    (``registry.<our domain>/<its name>:<version>``), not prose ("Following up on our last
    conversation.")."""
    import re

    from library.seed.vocab import meaning

    org = seed_pool().org
    assert org is not None
    deployments = []
    for seed in range(4):
        _, state = _world(KUBECTL, seed=seed)
        deployments += list(state.deployments.values())
    assert len(deployments) >= 20
    for d in deployments:
        want = rf"registry\.{re.escape(org.domain)}/{re.escape(d.name)}:\d+\.\d+\.\d+"
        assert re.fullmatch(want, d.image), (d.name, d.image)
    assert meaning("containerImage") == meaning("image", "k8s.pods") == "container_image"
    assert meaning("image", "shop.products") is None  # a product's image is a picture
