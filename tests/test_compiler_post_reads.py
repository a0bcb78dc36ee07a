"""APIs that read with POST (AWS: ``POST /list-flows`` named ``ListFlows``) and page with
``nextToken``/``maxResults``: a list is a list, not a create that stores its own paging
arguments as a new record, and its pages are followed by the token it hands out."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Role
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.toolspec import Verb
from library.verify import build_service

FLOW = {"$ref": "#/components/schemas/Flow"}


def _post(op: str, body: dict, out: dict) -> dict:
    request = {"content": {"application/json": {"schema": body}}}
    answer = {"200": {"content": {"application/json": {"schema": out}}}}
    return {"post": {"operationId": op, "requestBody": request, "responses": answer}}


FLOWS = {
    "openapi": "3.0.0",
    "info": {"title": "Flows", "version": "1"},
    "paths": {
        "/create-flow": _post("CreateFlow", {"type": "object", "required": ["flowName"],
            "properties": {"flowName": {"type": "string"}, "description": {"type": "string"}}},
            {"type": "object", "properties": {"flowArn": {"type": "string"}}}),
        "/describe-flow": _post("DescribeFlow", {"type": "object", "required": ["flowArn"],
            "properties": {"flowArn": {"type": "string"}}}, FLOW),
        "/list-flows": _post("ListFlows", {"type": "object", "properties": {
            "maxResults": {"type": "integer", "minimum": 1, "maximum": 100},
            "nextToken": {"type": "string"}}},
            {"type": "object", "required": ["flows", "nextToken"], "properties": {
                "flows": {"type": "array", "items": FLOW}, "nextToken": {"type": "string"}}}),
    },
    "components": {"schemas": {"Flow": {"type": "object", "required": ["flowArn", "flowName"],
        "properties": {"flowArn": {"type": "string"}, "flowName": {"type": "string"},
                       "description": {"type": "string"}}}}},
}  # fmt: skip


def test_posts_named_to_list_or_describe_read() -> None:
    specs, _ = ingest_document(orjson.dumps(FLOWS), source_file="flows.json")
    by = {s.name: s for s in specs}
    assert (by["ListFlows"].verb, by["ListFlows"].access) == (Verb.LIST, "read")
    assert (by["DescribeFlow"].verb, by["DescribeFlow"].access) == (Verb.READ, "read")
    assert by["CreateFlow"].verb == Verb.CREATE


def test_aws_pages_are_followed_by_their_next_token() -> None:
    specs, _ = ingest_document(orjson.dumps(FLOWS), source_file="flows.json")
    plan = plan_service(specs)
    listing = next(t for t in plan.tools if t.name == "ListFlows")
    roles = {p.name: p.role for p in listing.params}
    assert roles == {"maxResults": Role.LIMIT, "nextToken": Role.CURSOR}
    build = build_service(specs)
    for name in ("ListFlows", "DescribeFlow", "CreateFlow"):
        assert name in build.verified, build.outcomes[name]
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=5)
    seen: list[str] = []
    args: dict[str, object] = {"maxResults": 2}
    for _ in range(10):
        page = world.call(qualified(cls.name, "ListFlows"), args)["data"]
        seen += [f["flowArn"] for f in page["flows"]]
        if not page["nextToken"]:
            break
        args["nextToken"] = page["nextToken"]
    assert len(seen) == len(set(seen)) == len(world.services[cls.name].state.flows)
