"""DNS work read as a team writes it (PowerDNS and a ticket API from ``../shared/specs``): a
new zone is of a kind that needs nothing the request leaves out (a "Slave" zone needs its
masters, which no request gives), and the report of the work to a colleague says what was
done with a name the request gave ("Created the zone cdn.example.com."), not the bare name."""

from __future__ import annotations

import pytest

from library.compose import ComposeConfig, make_env
from library.compose.catalog import Param, _without_kept_kinds
from library.compose.env import ComposeEnv
from library.compose.spec_library import spec_library
from tests.compose_walks import finished_walks

# the real specs it reads, and a walk that makes a DNS change
from tests.test_real_specs_dns import GMAIL, POWERDNS, TICKETS, _DnsChange, pytestmark  # noqa: F401


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    lib = spec_library([POWERDNS, GMAIL, TICKETS])
    return make_env(lib.classes, lib.nodes, config=ComposeConfig())


def test_a_kind_that_needs_a_field_left_out_is_not_chosen() -> None:
    """An optional field kept for one kind takes that kind out of the enum a plan draws
    from; a required one (which a plan gives) does not, and other enums keep every value."""
    kind = Param("kind", True, "string", enum=("Native", "Master", "Slave"))
    other = Param("soa_edit", False, "string", enum=("Slave", "INCEPTION"))
    masters = Param("masters", False, "array")
    said = {"description": 'List of IP addresses of masters ("Slave" type zones only)'}
    props = {"kind": ({}, True), "masters": (said, False), "soa_edit": ({}, False)}
    out = {p.name: p for p in _without_kept_kinds((kind, masters, other), props)}
    assert out["kind"].enum == ("Native", "Master")
    assert out["soa_edit"].enum == ("INCEPTION",)
    required = {"kind": ({}, True), "masters": (said, True)}
    assert _without_kept_kinds((kind, masters), required)[0].enum == kind.enum


def test_no_new_zone_is_a_slave_zone_without_masters(env: ComposeEnv) -> None:
    create = env.catalog.tools["powerdns_local__createZone"]
    kind = create.param("kind")
    assert kind is not None and kind.enum and "Slave" not in kind.enum, kind
    made = [
        step.args
        for walker in finished_walks(env, 40, "zones", _DnsChange)
        for step in walker.steps
        if step.tool.qualified == "powerdns_local__createZone"
    ]
    assert made and all(args.get("kind") != "Slave" or args.get("masters") for args in made)


def test_a_report_says_what_was_done_with_a_name_the_request_gave(env: ComposeEnv) -> None:
    """No report's body is a bare copy of a value the request states elsewhere."""
    sentences = 0
    for walker in finished_walks(env, 60, "logs", _DnsChange):
        for step in walker.steps:
            text = step.args.get("body")
            if step.tool.qualified != "gmail_mcp__sendMessage" or not isinstance(text, str):
                continue
            stated = {
                v
                for other in walker.steps
                if other is not step
                for n, v in other.args.items()
                if other.binds.get(n, {}).get("from") == "user" and isinstance(v, str)
            }
            assert text not in stated, text
            # named as the tool names it ("the TSIG key"), not the collection run together
            assert "tsigkey" not in text.lower(), text
            sentences += any(v in text for v in stated) and text.endswith(".")
    assert sentences >= 3, sentences


def test_a_collection_guard_is_one_a_tool_could_break() -> None:
    """ "Leave the inputs alone" where no tool writes inputs is no rule: a task guards only a
    collection some tool writes."""
    import random
    from types import SimpleNamespace as NS

    from library.compose.compose import _untouched

    def entity(coll: str) -> NS:
        return NS(service="mail", collection=coll, created=False)

    inputs, keys, rules = entity("inputs"), entity("keys"), entity("rules")
    write = NS(service="mail", collection="keys", write=True, params=[NS(name="read")])
    tools = {"mail__update_key": write}
    walker = NS(entities=[inputs, keys, rules], catalog=NS(tools=tools))
    steps = [
        NS(entity=inputs, write=False, args={}),
        NS(entity=keys, write=False, args={}),
        NS(entity=rules, write=True, args={"rule_id": "r1", "read": False}),
    ]
    for seed in range(20):
        guarded = _untouched(walker, steps, {("mail", "rules")}, random.Random(seed), 1.0, 2)  # type: ignore[arg-type]
        assert guarded == [("mail", "keys")], guarded
