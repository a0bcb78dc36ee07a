"""Lists that answer the ids of the records they list, not the records (``{"order_history":
[12, 13]}``, ``["a", "b"]``), compiled from real specs in ../shared/specs: the ids come from
the state, as integers when the spec lists integers."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Shape
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed import seed_pool
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


def test_a_list_of_integer_ids_answers_the_stored_records_ids() -> None:
    specs, _ = ingest_document(SPECS / "functions/bfcl_multi_turn/trading_bot.json")
    plan = plan_service(specs)
    history = next(t for t in plan.tools if t.name == "get_order_history")
    assert history.output.shape is Shape.KEYS
    assert plan.records[history.resource].id_style.kind == "int"
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 4)
    stored = getattr(world.services[cls.name].state, history.resource)
    answer = world.call(qualified(cls.name, "get_order_history"), {})
    assert answer["data"] == {"order_history": [int(i) for i in stored]}
    assert len(stored) == 4
    build = build_service(specs)
    assert {"get_order_history", "get_available_stocks"} <= set(build.verified)


def test_a_bare_array_of_names_lists_the_records_ids() -> None:
    specs, _ = ingest_document(SPECS / "openapi/pinecone.io.json")
    plan = plan_service(specs)
    listing = next(t for t in plan.tools if t.name == "list_collections")
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 3)
    answer = world.call(qualified(cls.name, "list_collections"), {})
    stored = getattr(world.services[cls.name].state, listing.resource)
    assert answer["data"] == list(stored) and len(stored) == 3
    assert "list_collections" in build_service(specs).verified
