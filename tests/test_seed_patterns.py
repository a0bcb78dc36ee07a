"""Patterned values drawn within their declared length bounds (``rstr`` alone draws up to 100
repeats per ``+``/``*``: an ARN of several ``[^:]+`` parts came out longer than its
``maxLength`` and than a ``Ref`` takes, and every seed of its service failed)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import orjson
import pytest

from library.compiler.model import Kind, TypeSpec
from library.compiler.values import patterned_text
from library.ingest import ingest_document
from library.runtime.ids import draw_pattern, pattern_id, pattern_text
from library.runtime.semantic import REF_MAX_LENGTH
from library.seed.pool import seed_pool
from library.verify import build_service

ARN = r"^arn:aws[^:]*:things:[^:]+:(?:[0-9]{12}|aws):thing/[a-z0-9-_]+/[0-9]+$"


def test_patterned_text_is_drawn_within_its_length_bounds() -> None:
    for k in range(20):
        text = draw_pattern(random.Random(k), ARN, 10, 64)
        assert text is not None and 10 <= len(text) <= 64 and re.search(ARN, text), text
    pool = seed_pool()
    values = pool.patterned(ARN, random.Random(1), 5, 0, 80)
    assert len(set(values)) == 5 and all(len(v) <= 80 and re.search(ARN, v) for v in values)
    assert len(pool.pattern(ARN, random.Random(2), 0, 50)) <= 50


class _Counter:
    def __init__(self) -> None:
        self.n = 0

    def new_id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:010x}"


def test_pattern_ids_fit_what_a_ref_takes() -> None:
    service = _Counter()
    ids = {pattern_id(service, "thing", ARN) for _ in range(20)}  # type: ignore[arg-type]
    assert len(ids) == 20
    assert all(len(i) <= REF_MAX_LENGTH and re.search(ARN, i) for i in ids)


def _op(op: str, schema: dict, **extra: object) -> dict:
    return {"operationId": op, **extra, "responses": {"200": {"content": {
        "application/json": {"schema": schema}}}}}  # fmt: skip


THING = {"$ref": "#/components/schemas/Thing"}
ARN_PARAM = {"name": "thingId", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": ARN, "maxLength": 120}}  # fmt: skip
THINGS = {
    "openapi": "3.0.0",
    "info": {"title": "Things", "version": "1"},
    "paths": {
        "/things": {
            "get": _op("ListThings", {"type": "object", "properties": {
                "things": {"type": "array", "items": THING}}}),
            "post": _op("CreateThing", THING, requestBody={"content": {"application/json": {
                "schema": {"type": "object", "required": ["name", "launchTemplateId"],
                           "properties": {"name": {"type": "string"}, "launchTemplateId": {
                               "type": "string", "pattern": "^lt-[a-z0-9]{17}$"}}}}}}),
        },
        "/things/{thingId}": {
            "get": _op("GetThing", THING, parameters=[ARN_PARAM]),
            "delete": _op("DeleteThing", {"type": "object", "properties": {
                "thingId": {"type": "string", "pattern": ARN}}}, parameters=[ARN_PARAM]),
        },
    },
    "components": {"schemas": {"Thing": {
        "type": "object", "required": ["thingId", "name", "launchTemplateId"],
        "properties": {
            "thingId": {"type": "string", "pattern": ARN, "maxLength": 120},
            "name": {"type": "string"},
            "ownerArn": {"type": "string", "pattern": ARN, "maxLength": 90},
            "launchTemplateId": {"type": "string", "pattern": "^lt-[a-z0-9]{17}$"},
        },
    }}},
}  # fmt: skip


def test_records_keyed_by_long_patterned_ids_are_seeded_and_verified() -> None:
    specs, _ = ingest_document(orjson.dumps(THINGS), source_file="things.json")
    build = build_service(specs)
    for name in ("ListThings", "CreateThing", "GetThing", "DeleteThing"):
        assert name in build.verified, build.outcomes[name]


def test_references_to_records_held_elsewhere_match_their_pattern() -> None:
    """``launchTemplateId`` names a record another service holds: seeded as the spec's
    pattern draws it (``lt-...``), not as a made-up ``launch_template_3f9a1c2e``."""
    plain = orjson.loads(orjson.dumps(THINGS))
    plain["components"]["schemas"]["Thing"]["properties"]["thingId"] = {"type": "string"}
    ARN_PARAM_PLAIN = {**ARN_PARAM, "schema": {"type": "string"}}
    for path in plain["paths"].values():
        for op in path.values():
            if "parameters" in op:
                op["parameters"] = [ARN_PARAM_PLAIN]
    specs, _ = ingest_document(orjson.dumps(plain), source_file="things.json")
    build = build_service(specs)
    assert "GetThing" in build.verified, build.outcomes["GetThing"]
    assert "ListThings" in build.verified, build.outcomes["ListThings"]


def test_a_patterned_address_part_is_drawn_from_its_pattern() -> None:
    """``shipping.state: [A-Z]{2}`` is a code: the holder's region name does not fit it."""
    specs_dir = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
    if not specs_dir.is_dir():
        pytest.skip("../shared/specs is not present")
    specs, _ = ingest_document(specs_dir / "openapi/pay1.de__link.json")
    build = build_service(specs)
    assert "getPaymentLink" in build.verified, build.outcomes["getPaymentLink"]


def test_any_character_is_a_plain_one() -> None:
    """``.`` and ``[^:]`` draw letters, digits and ``-_.``, never tabs or newlines."""
    for k in range(10):
        text = draw_pattern(random.Random(k), r"^arn:aws[^:]*:x:[^:]+:[0-9]{12}:thing/.+$", 0, 120)
        assert text is not None and text.isprintable() and " " not in text, repr(text)
    assert draw_pattern(random.Random(1), r"^[^a-zA-Z0-9]{4}$") is not None


def test_a_drawn_reference_is_never_empty() -> None:
    """``streamingImageIds: [^[a-zA-Z0-9-_]*$]``: the pattern allows ``""``, a ``Ref`` does
    not (every seed of amazonaws nimble failed on it)."""
    ref = TypeSpec(
        Kind.STR,
        'Ref["streaming_images"]',
        semantic="id",
        ref="streaming_images",
        schema={"type": "string", "pattern": "^[a-zA-Z0-9-_]*$", "maxLength": 22},
    )
    source = patterned_text(ref, "rng", ids=True)
    assert source == 'pattern_text(rng, "^[a-zA-Z0-9-_]*$", 1, 22)'
    drawn = pattern_text(random.Random(0), "^[a-zA-Z0-9-_]*$", 1, 22)
    assert 1 <= len(drawn) <= 22
