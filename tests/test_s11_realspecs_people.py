"""A directory's people are people: a SCIM user's ``displayName`` is their name and its
``userName`` ("The user's username, usually their email address") their e-mail, so the
seeded user is one person (the e-mail of the name), the request's person is known by them,
and an offboarding reaches its own work (removing the leaver's user) on the real spec."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

from library.compose import walk as walk_module
from library.compose.motifs import BY_NAME
from library.ingest.semantics import infer_field
from tests.spec_envs import spec_env

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
SCIM = SPECS / "openapi" / "citrixonline.com__scim.json"


def test_a_username_described_as_an_email_is_an_email() -> None:
    node = {"type": "string", "description": "The user's username, usually their email address"}
    assert infer_field("userName", node, "users")[0] == "email"
    assert infer_field("username", node, "users")[0] == "email"
    # a handle is no address
    handle = {"type": "string", "description": "A handle"}
    assert infer_field("userName", handle, "users")[0] is None


def test_a_person_s_display_name_is_their_name_and_a_group_s_is_not() -> None:
    node = {"type": "string", "description": "The user's display name"}
    assert infer_field("displayName", node, "users")[0] == "person_name"
    assert infer_field("displayName", node, "groups")[0] is None


def test_a_seeded_directory_user_is_one_person() -> None:
    env = spec_env(SCIM)
    world, _ = env.world(0)
    users = list(world.services["citrixonline_com_scim"].state.users.values())
    assert users
    for user in users:
        first, last = user.displayName.split()[0].lower(), user.displayName.split()[-1].lower()
        assert "@" in user.userName, user
        local = user.userName.split("@")[0].lower()
        assert first in local or last in local, user


def test_an_offboarding_on_the_directory_removes_the_leaver() -> None:
    """The leaver is the person the opening finds: their own user is the one deleted."""
    env = spec_env(SCIM)
    motif = BY_NAME["offboarding"]
    deleted = 0
    for j in range(12):
        world, base = env.world(j % env.config.worlds)
        walker = walk_module.Walker(env, world, base, random.Random(f"0:{j}"))
        walker._choose_workflow = lambda m=motif: m  # type: ignore[method-assign]
        with contextlib.suppress(walk_module.Reject):
            walker.walk()
        deleted += any(s.tool.name == "deleteUser" for s in walker.steps)
    assert deleted >= 3


VTEX = SPECS / "openapi" / "vtex.local__VTEX-Do-API.json"


def test_a_person_object_s_name_is_the_name_of_its_e_mail() -> None:
    """A task's ``assignee: {email, id, name}`` is one colleague: "Tom McCoy" beside
    "tom.mccoy@...", not a record's name ("orders-backup")."""
    world, _ = spec_env(VTEX).world(0)
    tasks = list(world.services["vtex_local_vtex_do_api"].state.tasks.values())
    assignees = [t.model_dump(mode="json")["assignee"] for t in tasks]
    assert [a for a in assignees if a and a.get("email") and a.get("name")], assignees
    for a in assignees:
        if a and a.get("email") and a.get("name"):
            local = a["email"].split("@")[0].lower()
            assert a["name"].split()[-1].lower() in local, a
