"""A read that answers a record's id alone, found by what it takes (``get_user_id(user) ->
{user_id}``): the record holds what the read takes, so the read looks it up by that; before,
nothing was known of the records but their id and the read was skipped."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service, plan_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

NAME = {"type": "string", "description": "The member's name."}
MEMBER_ID = {"type": "string", "description": "The member's id."}
FUNCTIONS = [
    {
        "name": "get_member_id",
        "description": "Get a member's id from their name.",
        "parameters": {"type": "dict", "properties": {"member_name": NAME},
                       "required": ["member_name"]},
        "response": {"type": "dict", "properties": {"member_id": MEMBER_ID}},
    },
    {
        "name": "list_members",
        "description": "List the ids of every member.",
        "parameters": {"type": "dict", "properties": {}, "required": []},
        "response": {"type": "dict", "properties": {"member_ids": {"type": "array",
                     "items": {"type": "string"}}}},
    },
]  # fmt: skip
JSONL = b"\n".join(orjson.dumps(f) for f in FUNCTIONS)


def _specs() -> list:
    specs, _ = ingest_document(JSONL, source_file="members.json")
    return specs


def test_the_record_holds_what_the_id_lookup_takes() -> None:
    plan = plan_service(_specs())
    tools = {t.name: t for t in plan.tools}
    record = plan.records[tools["get_member_id"].resource]
    assert record.fields["member_name"].required


def test_the_id_lookup_answers_the_named_record() -> None:
    cls = load_service(compile_service(_specs()).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    for rid, member in world.services[cls.name].state.members.items():
        args = {"member_name": member.member_name}
        assert world.call(qualified(cls.name, "get_member_id"), args)["data"] == {"member_id": rid}
    missing = world.call(qualified(cls.name, "get_member_id"), {"member_name": "Nobody Here"})
    assert missing["error"]["code"] == "not_found"


def test_the_id_lookup_verifies() -> None:
    built = build_service(_specs())
    assert "get_member_id" in built.verified, built.outcomes["get_member_id"]
