"""References between the collections a compiled service seeds (mutants of
library/compiler/emit_seed.py and values.py that survived the other tests,
bench/mutation.py): a comment's required post is a seeded post, though posts and users refer
to each other (a cycle of optional references, broken by leaving one unset) and comments come
first in the spec; and an order's customer is a seeded customer even where the spec gives the
reference a pattern the customers' ids do not follow (the reference is kept, not redrawn)."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import TEXT
from tests.test_mutation_kills_seed_refs import _collection


def _state(title: str, paths: dict) -> dict[str, dict]:
    document = {"openapi": "3.0.0", "info": {"title": title, "version": "1"}, "paths": paths}
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=4)
    return world.services[cls.name].state.model_dump(mode="json")


def _ref(noun: str) -> dict:
    return {"type": "string", "description": f"The {noun}'s id."}


def test_a_required_reference_is_seeded_first_though_others_refer_in_a_cycle() -> None:
    state = _state(
        "Blog",
        {
            **_collection(
                "comments", "Comment", _record(["body", "post_id"], body=TEXT, post_id=_ref("post"))
            ),
            **_collection("posts", "Post", _record(["title"], title=TEXT, user_id=_ref("user"))),
            **_collection(
                "users", "User", _record(["name"], name=TEXT, pinned_post_id=_ref("post"))
            ),
        },
    )
    assert len(state["comments"]) == len(state["posts"]) == 4
    assert {c["post_id"] for c in state["comments"].values()} <= set(state["posts"])


def test_a_reference_is_a_seeded_record_whatever_pattern_the_spec_gives_it() -> None:
    patterned = {"type": "string", "pattern": "^C[0-9]{6}$"}
    state = _state(
        "Shop",
        {
            **_collection("customers", "Customer", _record(["name"], name=TEXT)),
            **_collection(
                "orders",
                "Order",
                _record(["customer_id", "total"], customer_id=patterned, total={"type": "number"}),
            ),
        },
    )
    assert {o["customer_id"] for o in state["orders"].values()} <= set(state["customers"])
