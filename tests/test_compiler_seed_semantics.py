"""Seeds follow a field's semantic type over its name: Twilio TaskRouter's reservation ``To``
is "the Contact URI of the worker" (a URL), not the phone number a ``To`` usually is; before,
its seed drew a phone number the URL type refused, and every tool of the service failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed.pool import seed_pool

TASKROUTER = (
    Path(__file__).resolve().parents[1].parent
    / "shared/corpora/openapi-more/twilio.com__twilio_taskrouter_v1.json"
)


@pytest.mark.skipif(not TASKROUTER.is_file(), reason="../shared/corpora is not present")
def test_a_field_typed_as_a_url_is_seeded_with_a_url_whatever_its_name() -> None:
    specs, _ = ingest_document(TASKROUTER)
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=4)  # raised ValidationError on Reservation.To
    records = world.services[cls.name].state.reservations.values()
    urls = [r.To for r in records if r.To is not None]
    assert records and all(u.startswith(("http://", "https://")) for u in urls)
