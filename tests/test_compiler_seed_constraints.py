"""Seeded records keep the constraints their schema declares beyond type and range: a list of
``minItems: 2`` holds two items (it held one, whenever the writer drew a non-empty list) and a
number of ``multipleOf: 0.5`` is a multiple of it (66.01 was drawn); before, the list and get
tools of such a resource failed verification on their own seeded records."""

from __future__ import annotations

import orjson

from library.ingest import ingest_document
from library.verify import build_service

READING = {
    "type": "object",
    "required": ["id", "values", "step"],
    "properties": {
        "id": {"type": "string"},
        "values": {"type": "array", "minItems": 2, "maxItems": 5, "items": {"type": "integer"}},
        "step": {"type": "number", "multipleOf": 0.5, "minimum": 0, "maximum": 100},
        "count": {"type": "integer", "multipleOf": 5},
    },
}
LIST = {"type": "array", "items": READING}


def _answer(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


READINGS = {
    "openapi": "3.0.0",
    "info": {"title": "Readings", "version": "1"},
    "paths": {
        "/readings": {"get": {"operationId": "ListReadings", "responses": _answer(LIST)}},
        "/readings/{id}": {"get": {"operationId": "GetReading", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": _answer(READING)}},
    },
}  # fmt: skip


def test_seeded_records_keep_min_items_and_multiple_of() -> None:
    specs, _ = ingest_document(orjson.dumps(READINGS), source_file="readings.json")
    built = build_service(specs)
    for tool in ("ListReadings", "GetReading"):
        assert tool in built.verified, built.outcomes[tool]


def test_a_seeded_place_is_on_earth() -> None:
    """A latitude lies within +-90 and a longitude within +-180 (latitudes were drawn 0-100)."""
    import random

    from library.compiler import compile_service, load_service
    from library.runtime import World
    from library.seed import seed_pool

    place = {
        "type": "object",
        "required": ["id", "latitude", "longitude"],
        "properties": {
            "id": {"type": "string"},
            "latitude": {"type": "number"},
            "longitude": {"type": "number"},
        },
    }
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Places", "version": "1"},
        "paths": {"/places": {"get": {"operationId": "ListPlaces", "responses": _answer(
            {"type": "array", "items": place})}}},
    }  # fmt: skip
    specs, _ = ingest_document(orjson.dumps(doc), source_file="places.json")
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=random.Random(0).randint(0, 9))
    world.seed_states(seed_pool(), size=30)
    places = list(world.services[cls.name].state.places.values())
    assert places and all(-90 <= p.latitude <= 90 for p in places)
    assert all(-180 <= p.longitude <= 180 for p in places)
    assert any(p.latitude < 0 for p in places) or any(p.longitude < 0 for p in places)
