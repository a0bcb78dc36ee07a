"""Seeded DNS records of a real DNS API (PowerDNS, ``../shared/specs``) read as DNS.

- Secret key material (a field whose name or description says it is a secret, a base64
  encoded key, a private key, a shared secret, an HMAC key) is never made from the record's
  name: a TSIG key's ``key`` is base64 of 32 random bytes (before: "AT", "BA", initials).
- A record's content fits its record set's type (``rrsets[].type`` is drawn first and
  passed down to ``rrsets[].records[].content``): A an IPv4 address of the documentation
  ranges, AAAA one in 2001:db8::/32, CNAME/NS a host name of ours ending in a dot (the
  spec's names do), MX "10 mail.<zone>.", TXT an SPF string (before: an IPv4 address for
  an MX).
- A comment on a DNS record set reads as a DNS note ("Added for the CDN migration"), the
  "dns" prose of ``vocab.BODIES``, chosen beneath a record set (before: office chatter,
  "Checked with finance; the figures are correct.").
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
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


def _content_fits(rtype: str, content: str, zone: str) -> bool:
    dot = re.escape(zone) + r"\."
    if rtype == "A":
        ip = ipaddress.ip_address(content)
        return ip.version == 4 and any(
            ip in ipaddress.ip_network(n)
            for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
        )
    if rtype == "AAAA":
        ip = ipaddress.ip_address(content)
        return ip.version == 6 and ip in ipaddress.ip_network("2001:db8::/32")
    if rtype in ("CNAME", "NS"):
        return re.fullmatch(r"[a-z0-9-]+\." + dot, content) is not None
    if rtype == "MX":
        return re.fullmatch(r"\d+ mail\." + dot, content) is not None
    if rtype == "TXT":
        return re.fullmatch(r'"v=spf1 include:_spf\.' + re.escape(zone) + r' ~all"', content)
    if rtype == "SOA":
        return re.fullmatch(rf"ns\d\.{dot} hostmaster\.{dot}( \d+){{5}}", content) is not None
    return False


def test_a_records_content_fits_its_record_sets_type(service: Any) -> None:
    org = seed_pool().org
    assert org is not None
    checked: dict[str, int] = {}
    for state in _states(service):
        for zone in state.zones.values():
            for rrset in [*zone.rrsets, *(getattr(zone, "body_rrsets", None) or [])]:
                assert rrset.records, rrset
                for record in rrset.records:
                    assert _content_fits(rrset.type_, record.content, org.domain), (
                        rrset.type_,
                        record.content,
                    )
                checked[rrset.type_] = checked.get(rrset.type_, 0) + 1
    assert sum(checked.values()) >= 20, checked
    assert {"A", "AAAA", "CNAME", "MX", "TXT", "NS"} <= set(checked), checked


def test_a_comment_on_a_record_set_reads_as_a_dns_note(service: Any) -> None:
    from library.seed.vocab import BODIES

    comments = [
        c.content
        for state in _states(service)
        for zone in state.zones.values()
        for rrset in [*zone.rrsets, *(getattr(zone, "body_rrsets", None) or [])]
        for c in rrset.comments or ()
    ]
    assert len(comments) >= 20, comments
    assert all(c in BODIES["dns"] for c in comments), comments
