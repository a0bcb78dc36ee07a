"""A guard over a kind of record the request only reads names the records it found, as a
person would ("Don't change the server or any other server"; in a shop, "Don't change
Kevin's user account or anyone else's"), not the table ("The users stay as they are")."""

from __future__ import annotations

import pytest

from library.compose.render import render_instruction
from tests.plan_steps import find_step, plan_step

_SERVERS = [{"scope": "collection", "service": "Dns", "noun": "server", "nouns": "servers"}]
_USERS = [{"scope": "collection", "service": "Shop", "noun": "user", "nouns": "users"}]


def _dns_plan() -> list[dict[str, object]]:
    return [
        find_step("dns.list_servers", "server", [["name", '"ns1.example.com"']]),
        plan_step(
            "dns.create_zone",
            {"kind": "create", "summary": "create a zone", "label": "new zone",
             "values": [["name", '"docs.example.com"']]},
        ),
    ]  # fmt: skip


@pytest.mark.parametrize("variant", range(3))
def test_a_read_kind_is_named_by_the_record_the_request_found(variant: int) -> None:
    text = render_instruction(_dns_plan(), _SERVERS, goal="Some DNS work is due.", variant=variant)
    assert "servers" not in text.lower(), text
    assert "the server" in text.lower() and "other server" in text, text


@pytest.mark.parametrize("variant", range(3))
def test_a_customer_s_own_account_is_named_as_theirs(variant: int) -> None:
    plan = [
        find_step("shop.find_user", "user", [["email", '"kevin.russell@garcia.co.uk"']]),
        plan_step(
            "shop.modify_order_address",
            {"kind": "update", "label": "order", "values": [["address1", '"401 King Street"']]},
        ),
    ]
    goal = 'Kevin Russell ("kevin.russell@garcia.co.uk") is waiting on us about a delivery.'
    text = render_instruction(plan, _USERS, goal=goal, variant=variant)
    assert "the users" not in text.lower(), text
    assert "Kevin's user account" in text, text
    assert "anyone else's" in text or "everyone else's" in text, text


def test_a_kind_nothing_found_is_still_named_as_a_kind() -> None:
    """With no record of the kind in the plan there is nothing to name but the kind."""
    plan = _dns_plan()[1:]
    text = render_instruction(plan, _SERVERS, goal="Some DNS work is due.", variant=0)
    assert "servers" in text, text
