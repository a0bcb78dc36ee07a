"""Numbers a task states for a real API's fields fit what the field means (a latitude within
+-90, a port a registered one) and the bounds the spec declares."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from library.compose.catalog import Param
from library.compose.literals import number
from library.seed.numbers import numeric_range, snake, within


@pytest.mark.parametrize(
    ("name", "low", "high", "integer"),
    [
        ("latitude", -90, 90, False),
        ("longitude", -180, 180, False),
        ("startLatitude", -90, 90, False),  # camelCase, as real specs write it
        ("lng", -180, 180, False),
        ("batteryLevel", 0, 100, True),
        ("port", 1024, 65535, True),
        ("heading", 0, 359, False),
        ("model_year", 1990, 2026, True),
        ("odometer_km", 5000, 150000, True),  # a car returned "with odometer km 12": no
        ("story_points", 1, 13, True),  # an estimate, not a loyalty balance of 1,100
    ],
)
def test_stated_numbers_fit_the_fields_meaning(
    name: str, low: float, high: float, integer: bool
) -> None:
    rng = random.Random(7)
    param = Param(name=name, required=True, type="integer" if integer else "number")
    values = [number(param, rng, integer) for _ in range(200)]
    assert all(v is not None and low <= v <= high for v in values), (name, max(values))


def test_declared_bounds_narrow_the_meaning() -> None:
    rng = random.Random(3)
    param = Param(name="latitude", required=True, type="number", minimum=40.0, maximum=50.0)
    assert all(40 <= number(param, rng, False) <= 50 for _ in range(100))
    assert within("latitude", None, None) == (-90.0, 90.0)
    assert within("percent", 10, None) == (10, 100.0)
    assert within("nothing_known", 0, 5) is None


def test_names_without_meaning_get_none() -> None:
    assert snake("maxResults") == "max_results"
    assert numeric_range("amount") is None  # amounts are the compose vocabulary's business
    assert numeric_range("latitude_ref") is None


SCIM = Path(__file__).resolve().parents[2] / "shared/specs/openapi/citrixonline.com__scim.json"


@pytest.mark.skipif(not SCIM.is_file(), reason="../shared/specs is not present")
def test_a_records_user_name_is_its_own_persons() -> None:
    """A SCIM user's (and the current user's) ``userName`` is the username (here the e-mail,
    as the spec says) of the person its ``displayName`` names: "William Santana" is not
    "ebruce", a colleague's username read off the words "user name" as if the record had a
    "user" role. A group's ``displayName`` is the group's name, not a person's ("Angela
    Potts"); the current user (``me``) is one of us."""
    from library.compiler import compile_service, load_service
    from library.ingest import ingest_document
    from library.runtime import World
    from library.seed.pool import seed_pool
    from library.seed.vocab import role_of

    assert role_of("user_name") == role_of("userName".lower()) == ""
    specs, _ = ingest_document(SCIM)
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=6)
    pool, checked = seed_pool(), 0
    state = world.services[cls.name].state
    groups = [g.displayName for g in state.groups.values()]
    assert groups and not any(pool.person_by_name(g) for g in groups), groups
    assert all(pool.person_by_name(m.displayName).staff for m in state.me.values())
    for records in state.collections().values():
        for record in records.values():
            shown, user = getattr(record, "displayName", None), getattr(record, "userName", None)
            if isinstance(shown, str) and isinstance(user, str):
                person = pool.person_by_name(shown)
                # (the spec: "The user's username, usually their email address")
                assert person is not None and user in (person.username, person.email), (shown, user)
                checked += 1
    assert checked >= 6, checked


MAILSCRIPT = SCIM.parent / "mailscript.com.json"


@pytest.mark.skipif(not MAILSCRIPT.is_file(), reason="../shared/specs is not present")
def test_who_created_a_record_is_one_of_our_users() -> None:
    """MailScript's ``createdBy`` and ``owner`` (plain strings, no description) name a
    colleague by their username, not a sentence of prose."""
    from library.compiler import compile_service, load_service
    from library.ingest import ingest_document
    from library.runtime import World
    from library.seed.pool import seed_pool

    specs, _ = ingest_document(MAILSCRIPT)
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=5)
    ours = {p.username for p in seed_pool().staff}
    named = [
        getattr(record, field)
        for records in world.services[cls.name].state.collections().values()
        for record in records.values()
        for field in ("createdBy", "owner")
        if isinstance(getattr(record, field, None), str)
    ]
    assert len(named) >= 10 and set(named) <= ours, named[:6]


TAU2_RETAIL = Path(__file__).resolve().parents[2] / "shared/specs/functions/tau2/retail.json"


@pytest.mark.skipif(not TAU2_RETAIL.is_file(), reason="../shared/specs not present")
def test_ids_a_spec_shows_by_example_look_like_it() -> None:
    """tau2's tools say "The order id, such as '#W0000000'. Be careful there is a '#'
    symbol": its orders are such numbers (which a ticket logging the work can quote), not
    generated ``ord_3fa9c1d2e4``; a user id shown as 'sara_doe_496' (a name) is left alone."""
    import re

    from library.compiler.ids import told_code
    from library.compose.spec_library import spec_library
    from library.runtime import World
    from library.seed import seed_pool

    assert told_code("The order id, such as '#W0000000'.") == r"^\#W\d{7}$"
    assert told_code("The user id, such as 'sara_doe_496'.") is None
    lib = spec_library([TAU2_RETAIL])
    [cls] = lib.classes
    assert sum(lib.verified[cls.name].values()) == len(lib.verified[cls.name])  # all verified
    world = World([cls()], seed=3)
    world.seed_states(seed_pool(3), 5)
    orders = list(world.services[cls.name].state.orders)
    assert orders and all(re.fullmatch(r"#W\d{7}", o) for o in orders), orders
    answer = world.call(f"{cls.name}__get_order_details", {"order_id": orders[0]})
    assert answer["success"] and answer["data"]["order_id"] == orders[0], answer
