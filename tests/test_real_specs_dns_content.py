"""Seeded DNS records of a real DNS API (PowerDNS, ``../shared/specs``) read as DNS.

- Secret key material (a field whose name or description says it is a secret, a base64
  encoded key, a private key, a shared secret, an HMAC key) is never made from the record's
  name: a TSIG key's ``key`` is base64 of 32 random bytes (before: "AT", "BA", initials).
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
POWERDNS = SPECS / "openapi" / "powerdns.local.json"

pytestmark = pytest.mark.skipif(not POWERDNS.is_file(), reason="../shared/specs not present")


@pytest.fixture(scope="module")
def service() -> Any:
    specs, _ = ingest_document(POWERDNS)
    return load_service(compile_service(specs).source)


def _states(service: Any, seeds: int = 4, size: int = 8) -> list[Any]:
    states = []
    for seed in range(seeds):
        world = World([service()], seed=seed)
        world.seed_states(seed_pool(), size=size)
        states.append(world.services[service.name].state)
    return states


def test_a_tsig_key_holds_base64_key_material_not_its_names_initials(service: Any) -> None:
    """ "The Base64 encoded secret key": 32 random bytes in base64, one key each."""
    keys = [k for state in _states(service) for k in state.tsigkeys.values()]
    assert len(keys) >= 20, len(keys)
    for k in keys:
        try:
            raw = base64.b64decode(k.key, validate=True)
        except (binascii.Error, TypeError) as e:
            raise AssertionError((k.name, k.key)) from e
        assert len(raw) == 32, (k.name, k.key)
    assert len({k.key for k in keys}) == len(keys)
