"""A guard ("leave the users alone") forbids a change someone could make with the task's
own change, not any change to a collection the task happens to read."""

from __future__ import annotations

import random
from types import SimpleNamespace as NS

from library.compose.compose import _untouched


def _guards(change: dict[str, object]) -> list[tuple[str, str]]:
    user = NS(service="retail", collection="users", created=False)
    order = NS(service="retail", collection="orders", created=False)
    tools = {
        "retail__modify_user_address": NS(
            service="retail",
            collection="users",
            write=True,
            params=[NS(name="user_id"), NS(name="address1"), NS(name="city")],
        ),
        "retail__modify_order": NS(service="retail", collection="orders", write=True, params=[]),
    }
    walker = NS(entities=[user, order], catalog=NS(tools=tools))
    steps = [
        NS(entity=user, write=False, args={"email": "a@b.c"}),
        NS(entity=order, write=True, args={"order_id": "#W1", **change}),
    ]
    written = {("retail", "orders")}
    return _untouched(walker, steps, written, random.Random(0), 1.0)  # type: ignore[arg-type]


def test_a_new_delivery_address_guards_the_customer_s_own_address() -> None:
    assert _guards({"address1": "1 Main St", "city": "Leeds"}) == [("retail", "users")]


def test_a_cancelled_order_guards_no_user() -> None:
    """Nothing in a cancellation would touch the user: "leave the users alone" is no rule."""
    assert _guards({"reason": "ordered by mistake"}) == []
