"""Ids a person quotes, on the real tau-bench specs: tau's airline is reached only by a
user id ('sara_doe_496') or a reservation id ('ZFA04Y'), which its customers state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from library.compiler.ids import told_id
from library.compose import make_env
from library.compose.corpus import Library
from library.compose.env import ComposeEnv
from library.compose.spec_library import spec_library
from library.runtime import World
from library.seed import seed_pool
from tests.test_compose_real_specs import _opened

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs" / "functions" / "tau_bench"
AIRLINE = SPECS / "airline.json"
RETAIL = SPECS / "retail.json"
pytestmark = pytest.mark.skipif(
    not (AIRLINE.is_file() and RETAIL.is_file()), reason="../shared/specs not present"
)


@pytest.fixture(scope="module")
def lib() -> Library:
    return spec_library([AIRLINE, RETAIL])


@pytest.fixture(scope="module")
def env(lib: Library) -> ComposeEnv:
    return make_env(lib.classes, lib.nodes, verified=lib.verified)


def test_ids_shown_as_something_a_person_quotes() -> None:
    """A booking reference and a username shown by example are quotable, each in its own
    shape; an id shown by no example, or as a UUID, is not."""
    assert told_id({"description": "The reservation ID, such as 'ZFA04Y'."}) == r"^[A-Z0-9]{6}$"
    handle = told_id({"description": "The user id, such as 'sara_doe_496'."})
    assert handle is not None and re.fullmatch(handle, "sara_doe_496")
    assert not re.fullmatch(handle, "use_3fa9c1d2e4")
    assert told_id({"description": "The order id, such as '#W0000000'."}) == r"^\#W\d{7}$"
    assert told_id({"description": "The product id."}) is None
    uuid = "The id, such as '3fa85f64-5717-4562-b3fc-2c963f66afa6'."
    assert told_id({"description": uuid}) is None


def test_seeded_ids_look_like_the_examples(lib: Library) -> None:
    """Reservations are seeded as booking references, users under handles, as the spec
    shows them (not ``res_...``/``use_...``)."""
    classes = {c.name: c for c in lib.classes}
    world = World([classes["airline"]()], seed=3)
    world.seed_states(seed_pool(3), 5)
    state = world.services["airline"].state
    assert state.reservations and all(re.fullmatch(r"[A-Z0-9]{6}", r) for r in state.reservations)
    assert state.users and all(re.fullmatch(r"[a-z]+_[a-z]+_\d{3}", u) for u in state.users)
    # a user's handle is their own name, as 'sara_doe_496' is Sara Doe's
    named = 0
    for uid, user in state.users.items():
        first, last = (re.sub(r"[^a-z]", "", w) for w in str(user.name).lower().split()[:2])
        if 2 <= len(first) <= 12 and 2 <= len(last) <= 12:  # (else a drawn one)
            assert uid.startswith(f"{first}_{last}_"), (uid, user.name)
            named += 1
    assert named >= 3, named


def test_a_request_opens_by_the_id_its_user_quotes(env: ComposeEnv) -> None:
    """``get_reservation_details(reservation_id)`` opens a request: the user states the
    reservation's id, the step binds it from the user, and the record fetched is it."""
    tool = env.catalog.tools["airline__get_reservation_details"]
    assert tool.param("reservation_id").quoted == r"^[A-Z0-9]{6}$"
    opened = 0
    for _, walker in _opened(env, tool, 8):
        step = walker.steps[0]
        opened += 1
        rid = step.args["reservation_id"]
        assert step.binds == {"reservation_id": {"from": "user"}}
        assert step.literals == [rid] and step.entity is not None and step.entity.id == rid
        assert step.text["by"] == [["reservation ID", f'"{rid}"']]
        # a note about the work names the reservation by its reference, as people do
        name = walker._readable_name(step.entity)
        assert name is not None and (name.field, name.value) == ("id", rid)
    assert opened >= 4
