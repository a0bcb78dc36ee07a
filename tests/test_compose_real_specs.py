"""Composition over services compiled from real specs (``../shared/specs``, read in place):
records whose id the spec names after them (``project_id``), services a person can only
open by listing records and picking one by name, and the graph edges those ids make."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from library.compose import ComposeConfig, make_env
from library.compose.catalog import DELETE, FETCH, LOOKUP, UPDATE, ToolInfo
from library.compose.corpus import Library
from library.compose.env import ComposeEnv, naming_fields
from library.compose.motifs import BY_NAME
from library.compose.render import render_instruction
from library.compose.spec_library import spec_library
from library.compose.walk import Walker
from library.compose.walk_state import Reject, found_records
from library.runtime import World
from library.seed import vocab

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
CHECKLIST = SPECS / "mcp" / "docker" / "simplechecklist.json"
MOCK = SPECS / "functions" / "tau2" / "mock.json"

pytestmark = pytest.mark.skipif(
    not (CHECKLIST.is_file() and MOCK.is_file()), reason="../shared/specs not present"
)


def _calls(
    tasks: list[Any], tool: str
) -> Iterator[tuple[Any, list[dict[str, Any]], int, dict[str, Any]]]:
    """(task, its gold plan, the step's index, the step) for every call of ``tool``."""
    for task in tasks:
        for i, step in enumerate(task.gold_plan):
            if step["tool"] == tool:
                yield task, task.gold_plan, i, step


def _opened(env: ComposeEnv, start: ToolInfo, tries: int) -> Iterator[tuple[World, Walker]]:
    """Walkers (and their worlds) that opened with ``start``, out of ``tries`` seeds."""
    for j in range(tries):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(j))
        if walker._attempt_start(start) is not None:
            yield world, walker


@pytest.fixture(scope="module")
def lib() -> Library:
    return spec_library([CHECKLIST, MOCK])


def test_records_read_with_their_own_id_name(lib: Library) -> None:
    """A project's id is ``project_id`` in every output: lookups still find the record,
    under ``id``, and read its id back at the output's own path."""
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    info = env.catalog.collection("simplechecklist", "projects")
    assert info is not None and info.id_key == "project_id"
    world, _ = env.world(0)
    envelope = world.call("simplechecklist__list_projects", {})
    found = found_records(envelope["data"], True, info.id_key)
    state = world.services["simplechecklist"].state.projects
    assert found and {r["id"] for _, r in found} == set(state)
    assert found_records(envelope["data"], True) == []  # read as ``id`` alone: nothing


def test_graph_links_ids_named_after_their_record(lib: Library) -> None:
    """A list of projects feeds the tools that take a project id (and a user list the
    create that takes a user id), though the spec keys neither output id."""
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    assert env.graph.has_edge("simplechecklist__list_projects", "simplechecklist__get_project")
    assert env.graph.has_edge("simplechecklist__list_projects", "simplechecklist__list_groups")
    assert env.graph.has_edge("mock__get_users", "mock__create_task")


def test_a_listing_opens_by_a_stated_name(lib: Library) -> None:
    """Services with no lookup by a contact detail are opened by listing their records
    and finding one by a value the user states, one no other listed record shares: a
    lookup, not a selection rule (the other users listed are distractors)."""
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    starts = {t.qualified for t in env.starts}
    assert {"simplechecklist__list_projects", "mock__get_users"} <= starts
    tool = env.catalog.tools["mock__get_users"]
    opened = 0
    for j in range(12):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(j))
        try:
            step = walker._attempt_start(tool)
        except Reject:
            step = None
        if step is None:
            continue
        opened += 1
        assert step.args == {}
        [(words, stated)] = step.text["by"]
        assert words == "name"  # what a user record is named by (not its id)
        assert step.rule is None  # nothing to choose: no other user holds the name
        chosen = step.entity
        assert chosen is not None
        listed = step.envelope["data"]
        same = [r for r in listed if f'"{r.get("name")}"' == stated]
        assert len(same) == 1 and same[0]["user_id"] == chosen.id
        assert chosen.id in world.services["mock"].state.users
        # The other listed users are distractors; its id is read at ``user_id``.
        assert [why for _, why in walker.decoys] == ["distractor"] * (len(listed) - 1)
        fact = next(f for f in walker.facts if f.entity is chosen and f.field == "id")
        assert fact.path.endswith(".user_id")
    assert opened >= 6


SCIM = SPECS / "openapi" / "citrixonline.com__scim.json"


@pytest.mark.skipif(not SCIM.is_file(), reason="../shared/specs not present")
def test_camel_case_names_read_as_words() -> None:
    """OpenAPI names are camelCase: ``deleteUser`` is a delete and an offboarding's own
    work, and users are named by their ``userName`` and ``displayName``."""
    lib = spec_library([SCIM])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    tools = env.catalog.tools
    assert tools["citrixonline_com_scim__deleteUser"].kind == DELETE
    assert tools["citrixonline_com_scim__updateUser"].kind == UPDATE
    assert "citrixonline_com_scim__deleteUser" in env.core_tools(BY_NAME["offboarding"])
    info = env.catalog.collection("citrixonline_com_scim", "users")
    assert info is not None
    assert {"userName", "displayName"} <= naming_fields(info)
    assert "citrixonline_com_scim__getUsers" in {t.qualified for t in env.starts}


TELECOM = SPECS / "functions" / "tau2" / "telecom.json"


@pytest.mark.skipif(not TELECOM.is_file(), reason="../shared/specs not present")
def test_a_read_of_one_record_by_values_is_a_lookup() -> None:
    """``get_customer_by_name(full_name, dob)`` returns one customer found by what a
    person knows, not by an id: a lookup, as a list search is (fetches take the id)."""
    lib = spec_library([TELECOM])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    tools = env.catalog.tools
    assert tools["telecom__get_customer_by_name"].kind == LOOKUP
    assert tools["telecom__get_customer_by_id"].kind == FETCH


KUBECTL = SPECS / "mcp" / "docker" / "kubectl-mcp-server.json"


@pytest.fixture(scope="module")
def kube() -> Library:
    return spec_library([KUBECTL])


@pytest.mark.skipif(not KUBECTL.is_file(), reason="../shared/specs not present")
def test_a_tool_that_finds_its_record_by_name_acts_on_it(kube: Library) -> None:
    """``scale_deployment(name, replicas)`` takes no id: it finds the deployment by its
    name. It is an action on the deployment named so (not a create of a new one), the
    list of deployments feeds it in the graph, and its deployments have names a team
    gives its workloads (not filler sentences)."""
    from library.compose.catalog import ACTION, CREATE

    env = make_env(kube.classes, kube.nodes, config=ComposeConfig())
    tools = env.catalog.tools
    scale = tools["kubectl_mcp_server__scale_deployment"]
    assert (scale.kind, scale.collection, scale.own, scale.own_field) == (
        ACTION,
        "deployments",
        "name",
        "name",
    )
    assert tools["kubectl_mcp_server__create_deployment"].kind == CREATE  # a new one
    assert env.graph.has_edge(
        "kubectl_mcp_server__get_deployments", "kubectl_mcp_server__scale_deployment"
    )
    world, _ = env.world(0)
    names = [d.name for d in world.services["kubectl_mcp_server"].state.deployments.values()]
    assert names and all(" " not in n and n == n.lower() for n in names)


@pytest.mark.skipif(not KUBECTL.is_file(), reason="../shared/specs not present")
def test_an_incident_scales_the_deployment_it_found(kube: Library) -> None:
    """An incident (a real devops workflow) opens on the deployments its work acts on and
    scales the one the user names, passing that name as the tool's argument."""
    env = make_env(kube.classes, kube.nodes, config=ComposeConfig())
    incident = BY_NAME["incident"]
    assert "kubectl_mcp_server__scale_deployment" in env.core_tools(incident)
    assert [t.qualified for t in env.work_starts(incident)] == [
        "kubectl_mcp_server__get_deployments"
    ]
    scaled = 0
    for j in range(12):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(j))
        walker.motif = incident
        walker.allowed = env.motif_tools(incident)
        if walker._attempt_start(env.work_starts(incident)[0]) is None:
            continue
        step = walker._attempt(env.catalog.tools["kubectl_mcp_server__scale_deployment"])
        if step is None:
            continue
        scaled += 1
        target = step.entity
        assert target is not None and step.args["name"] == target.record["name"]
        assert step.binds["name"]["from"] == "step"  # read from the found record
        record = world.services["kubectl_mcp_server"].state.deployments[target.id]
        assert record.replicas == step.args["replicas"]
    assert scaled >= 3


def test_an_update_that_requires_every_field_resends_what_it_keeps(lib: Library) -> None:
    """``update_task`` requires every field of the task (PUT style), some of which no one
    would state (its ``metadata`` object, a free-text priority): those are resent as the
    record the agent found holds them, read from it, and the instruction names only the
    changes."""
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    assert ("simplechecklist", "tasks") not in env.catalogs  # broken down, not shared
    update = env.catalog.tools["simplechecklist__update_task"]
    assert {"metadata", "priority"} <= {p.name for p in update.params if p.required}
    listing = env.catalog.tools["simplechecklist__get_all_tasks"]
    updated = 0
    for _, walker in _opened(env, listing, 12):
        found = dict(walker.steps[0].entity.record)  # type: ignore[union-attr]
        step = walker._attempt(update)
        if step is None:
            continue
        updated += 1
        assert step.binds["metadata"]["from"] == "step"
        assert step.args["metadata"] == found["metadata"]
        said = {name for name, _ in step.text["values"]}
        assert "metadata" not in said and said  # the changes, not what is resent
    assert updated >= 3


RETAIL = SPECS / "functions" / "tau2" / "retail.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"


@pytest.fixture(scope="module")
def shop() -> Library:
    return spec_library([RETAIL, GMAIL])


@pytest.mark.skipif(not (RETAIL.is_file() and GMAIL.is_file()), reason="specs not present")
def test_a_customer_s_only_order_is_reached_through_their_record(shop: Library) -> None:
    """tau2 retail has no lookup of orders: a user's record lists their order ids
    (inferred from "including their orders"), so an agent that found the user's id by
    e-mail and then read the user's details fetches the one order listed there, reading
    its id at ``order_ids[0]`` of the details, and can then cancel it."""
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    assert env.owned_lists[("retail", "users")] == {"order_ids": "orders"}
    opener = env.catalog.tools["retail__find_user_id_by_email"]
    details = env.catalog.tools["retail__get_user_details"]
    fetch = env.catalog.tools["retail__get_order_details"]
    fetched = 0
    for _, walker in _opened(env, opener, 16):
        user = walker.steps[0].entity
        assert user is not None and "order_ids" not in user.record  # its id alone
        assert walker._attempt(fetch) is None  # no order is known before the details
        assert walker._attempt(details) is not None and "order_ids" in user.record
        step = walker._attempt(fetch)
        if len(user.record["order_ids"]) != 1:
            assert step is None  # which of several orders is meant: nothing says
            continue
        assert step is not None
        fetched += 1
        assert step.args["order_id"] == user.record["order_ids"][0]
        assert step.binds["order_id"]["step"] == 1  # read off the details, not the id
        assert step.binds["order_id"]["path"].endswith("order_ids[0]")
        assert step.text["via"] == "the order listed on the user"
    assert fetched >= 3


def test_a_copy_of_a_record_keeps_its_id_under_the_spec_s_name(shop: Library) -> None:
    """Records whose id the spec names after them (``user_id``) can be copied (a decoy, a
    record a cross-service lookup must find): the copy's id replaces the original's."""
    from library.compose.inject import clone

    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    world, _ = env.world(0)
    user = next(iter(world.services["retail"].state.users.values()))
    copy = clone(user, "use_copy", {"email": "someone@example.com"})
    assert copy.id == "use_copy" and copy.email == "someone@example.com"
    assert copy.model_dump()["user_id"] == "use_copy"


@pytest.mark.skipif(not TELECOM.is_file(), reason="../shared/specs not present")
def test_work_items_with_children_are_not_reference_records() -> None:
    """Records other records point at are shared references (plans, rooms, projects), but
    not a telecom line (a customer's: ``customer_id``, inferred from every line tool
    taking the customer's id too) nor a checklist task (broken down into subtasks)."""
    lib = spec_library([TELECOM, CHECKLIST])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    assert ("telecom", "lines") not in env.catalogs
    assert ("simplechecklist", "tasks") not in env.catalogs
    assert ("simplechecklist", "projects") in env.catalogs  # its groups point at it
    lines = env.catalog.collection("telecom", "lines")
    assert lines is not None and lines.fields["customer_id"].key == "id:customers"
    # nothing lists lines: a customer's record lists theirs, and a walk reaches the one
    assert env.owned_lists[("telecom", "customers")] == {"line_ids": "lines"}


def test_each_order_is_listed_by_one_customer(shop: Library) -> None:
    """Seeding draws each user's orders on its own; composition's worlds give every order
    one owner at most, and most users exactly one order, so "the order listed on the
    user" is theirs alone."""
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    for seed in range(3):
        world, _ = env.world(seed)
        users = world.services["retail"].state.users.values()
        listed = [o for u in users for o in u.order_ids]
        assert len(listed) == len(set(listed))
        assert sum(len(u.order_ids) == 1 for u in users) > len(users) // 2


def test_a_copied_customer_gets_orders_of_their_own(shop: Library) -> None:
    """A record a walk injects as a copy of another customer (the one a cross-service
    lookup must find, a decoy) does not share the original's orders: it lists copies."""
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    state = world.services["retail"].state
    original = next(u for u in state.users.values() if len(u.order_ids) == 1)
    from library.compose.inject import clone

    walker._inject("retail", "users", clone(original, "use_copy", {"email": "x@example.com"}))
    copy = world.services["retail"].state.users["use_copy"]
    [order] = copy.order_ids
    assert order != original.order_ids[0]
    assert order in world.services["retail"].state.orders  # the copy's own order
    assert walker.injections[0].collection == "orders"


def test_workflows_and_openings_need_work_a_walk_can_do() -> None:
    """Over the real set, a workflow is drawn only where some core tool has every input
    a walk can supply, and a walk opens only where its work can be reached: a refund no
    longer opens on telecom customers (their payment requests lead to no refund)."""
    lib = spec_library([RETAIL, GMAIL, TELECOM, SPECS / "functions" / "tau2" / "airline.json"])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    refund = BY_NAME["refund"]
    assert "telecom" not in env.start_services(refund)
    assert "retail" in env.start_services(refund)
    book = env.catalog.tools["airline__book_reservation"]
    assert not env.reachable(book)  # flights and passengers: text of unknown meaning
    assert env.reachable(env.catalog.tools["retail__cancel_pending_order"])
    suspend = env.catalog.tools["telecom__suspend_line"]
    assert env.reachable(suspend)  # no tool reads a line, but a customer lists theirs


def test_every_customer_has_an_order_of_their_own(shop: Library) -> None:
    """Listed records are dealt out in turn: with as many orders as users, each user
    lists exactly one (drawn independently, most users listed none or several, and a
    refund for them had no order to reach)."""
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    for seed in range(3):
        world, _ = env.world(seed)
        state = world.services["retail"].state
        assert len(state.orders) == len(state.users)
        assert all(len(u.order_ids) == 1 for u in state.users.values())


def test_mail_has_a_sender_and_shop_users_are_customers(shop: Library) -> None:
    """A mailbox's messages come from someone (``sender``, inferred beside the recipient
    of ``sendMessage``), and a shop's users, who hold orders, are its customers, not our
    colleagues: a refund request arrives from a customer's address."""
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    info = env.catalog.collection("gmail_mcp", "messages")
    assert info is not None and info.fields["sender"].key == "email"
    world, _ = env.world(0)
    for message in world.services["gmail_mcp"].state.messages.values():
        assert "@" in message.sender
        # copied in are colleagues: neither the sender nor the one it is addressed to
        assert message.sender not in (message.cc, message.bcc), message
        assert message.to not in (message.cc, message.bcc), message
    for user in world.services["retail"].state.users.values():
        assert not env.is_staff("email", user.email), user.email


def test_a_refund_tells_the_customer_who_asked(shop: Library) -> None:
    """After the work on a customer's order the request may ask to e-mail them: the
    address is the one the request states (no record found it, yet the reply is part of
    the work), and the customer as recipient is the customer's own role, not a second
    role filled by one person. A user found by the message's sender is never read back
    for the address the lookup was called with."""
    from library.compose import compose_tasks

    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    tasks = compose_tasks([], 6, env=env, seed=0, max_candidates=600).tasks
    replies = 0
    for task, plan, i, step in _calls(tasks, "gmail_mcp__sendMessage"):
        bind = step["binds"]["to"]
        if bind.get("from") == "step":
            # read from a record, never from a user looked up by that very address
            source = plan[bind["step"]]
            assert not (
                source["tool"] == "retail__find_user_id_by_email"
                and source["binds"]["email"].get("from") == "step"
            ), task.instruction
        opening = plan[0]
        if opening["tool"] == "retail__find_user_id_by_email" and i > 0:
            # the one order on the customer's record is "their order", not a record path
            assert "listed on" not in task.instruction, task.instruction
            assert step["arguments"]["to"] == opening["arguments"]["email"]
            assert any(s["write"] and s["tool"].startswith("retail__") for s in plan[:i])
            replies += 1
    assert replies >= 1, [t.instruction for t in tasks]


def test_a_small_library_repeats_plan_shapes_rather_than_starve() -> None:
    """One task per plan shape while shapes are plenty; a run that finds no new task for
    ``balance_patience`` candidates lifts the share caps, and for as many more allows one
    more task per shape, up to ``max_shape_repeats``."""
    from types import SimpleNamespace

    from library.compose.compose import Balance

    config = ComposeConfig(balance_patience=3, max_shape_repeats=3)
    balance = Balance(SimpleNamespace(config=config))  # type: ignore[arg-type]
    assert balance.shape_cap == 1
    for _ in range(3):
        balance.miss()
    assert balance.lifted and balance.shape_cap == 1
    caps = []
    for _ in range(12):
        balance.miss()
        caps.append(balance.shape_cap)
    assert caps[2] == 2 and caps[5] == 3 and max(caps) == 3


def test_a_request_by_mail_is_the_customer_s_message_and_gets_a_reply(shop: Library) -> None:
    """A refund that arrives by e-mail opens on the customer's own message asking for it
    ("Ordered by mistake"), finds their user id by its sender, reads their details, cancels
    with the reason they gave, and replies to the sender (a reply is not a second copy of
    their message)."""
    from library.compose import compose_tasks
    from library.compose.topics import request_texts

    asked = {
        subject: reason
        for motif in ("refund", "fulfilment")
        for subject, _, reason in request_texts(motif)
    }
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    tasks = compose_tasks([], 40, env=env, seed=1, max_candidates=1500).tasks
    by_mail = [t for t in tasks if t.gold_plan[0]["tool"] == "gmail_mcp__findMessage"]
    assert by_mail, [t.instruction for t in tasks]
    replied = 0
    for task in by_mail:
        subject = task.gold_plan[0]["arguments"]["query"]
        assert subject in asked, task.instruction
        # "the order in Retail of the sender of the message", not a path through records
        assert "listed on" not in task.instruction, task.instruction
        lookup = task.gold_plan[1]
        assert lookup["binds"]["email"]["path"].endswith("sender"), task.instruction
        # the sender's user id, then their details: what they ordered is read off those
        assert task.gold_plan[2]["tool"] == "retail__get_user_details", task.gold_plan
        off_lookup = [
            b for s in task.gold_plan[2:] for b in s["binds"].values() if b.get("step") == 1
        ]
        assert off_lookup and {b["path"] for b in off_lookup} == {"user_id"}, task.gold_plan
        # it came in from a customer, not "a refund to do with the message ... is on my plate"
        assert "customer" in task.instruction.split(".")[0] or "by e-mail" in task.instruction
        for step in task.gold_plan:
            if step["tool"] == "retail__cancel_pending_order":
                # the reason they gave, as the tool spells it
                assert step["arguments"]["reason"].casefold() == asked[subject].casefold()
            # where they want their parcel is theirs to say, and their message does not
            assert step["tool"] != "retail__modify_pending_order_address", task.instruction
        for step in task.gold_plan:
            if step["tool"] == "gmail_mcp__sendMessage":
                assert step["binds"]["to"]["path"].endswith("sender")
                replied += 1
    assert replied >= 1


def test_an_order_sent_to_a_new_address_is_sent_to_no_one_else_s_home(shop: Library) -> None:
    """A delivery moved to a new address: one real address (street, city and postcode
    agree), never the home of a customer in the world (the seed pool's people live there)."""
    from library.compose import compose_tasks

    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    homes = {person.street for person in env.pool.people}
    moved = 0
    for seed in (1, 2, 3):
        for task in compose_tasks([], 40, env=env, seed=seed, max_candidates=1500).tasks:
            for step in task.gold_plan:
                if step["tool"].endswith("modify_pending_order_address"):
                    assert step["arguments"]["address1"] not in homes, task.instruction
                    moved += 1
        if moved >= 5:
            break
    assert moved >= 5


def test_a_customer_s_zip_is_a_postcode(shop: Library) -> None:
    """A record's bare ``zip`` (inferred from ``find_user_id_by_name_zip``) is its
    subject's postcode, not a line of prose."""
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    world, _ = env.world(0)
    for user in world.services["retail"].state.users.values():
        assert len(user.zip) <= 10 and not user.zip.endswith("."), user.zip


def test_a_starving_run_draws_the_workflows_that_complete() -> None:
    """While tasks come easily every workflow keeps its weight; once the run starves, a
    workflow is drawn by the share of its walks that became tasks."""
    from types import SimpleNamespace

    from library.compose.compose import Balance

    balance = Balance(SimpleNamespace(config=ComposeConfig(balance_patience=2)))  # type: ignore[arg-type]
    for name, done in [("refund", True), ("refund", True), ("travel", False), ("travel", False)]:
        balance.drew(name)
        if done:
            balance.completed()
    assert balance.workflow_odds() is None
    balance.miss()
    balance.miss()
    odds = balance.workflow_odds()
    assert odds is not None and odds["refund"] > 5 * odds["travel"]


def test_a_share_under_its_floor_draws_the_workflows_that_carry_it() -> None:
    """While threshold tasks are under their floor, workflows whose tasks carry thresholds
    are drawn more often and those whose tasks never do less (within ``floor_odds``); at
    the floor every workflow keeps its weight."""
    from types import SimpleNamespace

    from library.compose.compose import Balance

    config = ComposeConfig(floors=(("threshold", 0.6),), floor_odds=1.5)
    balance = Balance(SimpleNamespace(config=config))  # type: ignore[arg-type]

    def task(motif: str, capabilities: list[str]) -> SimpleNamespace:
        return SimpleNamespace(
            motif=motif, capabilities=capabilities, difficulty="medium", services=[], domain=""
        )

    for _ in range(12):
        balance.add(task("refund", ["threshold"]))
        balance.add(task("offboarding", []))
    odds = balance.workflow_odds()
    assert odds is not None
    assert odds["refund"] == 1.5 and odds["offboarding"] == 1 / 1.5
    for _ in range(12):
        balance.add(task("refund", ["threshold"]))
    assert balance.workflow_odds() is None


def test_a_new_delivery_address_is_one_real_address(shop: Library) -> None:
    """An order's new delivery address is stated whole, every part from one address
    (street, city, postcode and country agree), and an order whose address the plan just
    changed is not then cancelled (the change would be wasted)."""
    from library.compose import compose_tasks

    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    tasks = compose_tasks([], 40, env=env, seed=2, max_candidates=1500).tasks
    changed = 0
    for task in tasks:
        plan = task.gold_plan
        for i, step in enumerate(plan):
            if step["tool"] != "retail__modify_pending_order_address":
                continue
            args = step["arguments"]
            # another house on one person's street (see the test below)
            street = re.sub(r"\d+", "", args["address1"])
            assert any(
                re.sub(r"\d+", "", p.street) == street
                and (p.city, p.postal_code, p.country)
                == (args["city"], args["zip"], args["country"])
                for p in env.pool.people
            ), args
            order = args["order_id"]
            later = [s for s in plan[i + 1 :] if s["tool"] == "retail__cancel_pending_order"]
            assert all(s["arguments"]["order_id"] != order for s in later), task.instruction
            changed += 1
    assert changed >= 1


@pytest.mark.skipif(not TELECOM.is_file(), reason="../shared/specs not present")
def test_a_record_known_only_by_a_listed_id_is_acted_on_by_it() -> None:
    """Nothing reads a tau2 telecom line on its own: a customer's record lists their
    lines' ids, and a walk that found the customer suspends the one line listed there by
    that id (read at ``line_ids[0]``), naming it "the line listed on the customer"."""
    lib = spec_library([TELECOM])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    opener = env.catalog.tools["telecom__get_customer_by_phone"]
    suspend = env.catalog.tools["telecom__suspend_line"]
    assert env.reachable(suspend)
    acted = 0
    for world, walker in _opened(env, opener, 24):
        customer = walker.steps[0].entity
        assert customer is not None
        step = walker._attempt(suspend)
        if len(customer.record.get("line_ids") or []) != 1:
            assert step is None
            continue
        if step is None:
            continue  # e.g. the reason drawn is the one the line already holds
        acted += 1
        line = customer.record["line_ids"][0]
        assert step.args["line_id"] == line
        assert step.binds["line_id"]["path"].endswith("line_ids[0]")
        assert "the line listed on the customer" in step.text["summary"]
        assert world.services["telecom"].state.lines[line].status == "suspended"
        # said as "the customer's line", the owner's id not stated beside it, and a reason
        # a line is suspended for (not a cancelled order's "Moved to another date")
        assert all(label != "customer ID" for label, _ in step.text["values"]), step.text
        assert step.args["reason"] in vocab.values_of("suspension_reason")
        plan = [walker.steps[0].to_dict(), step.to_dict()]
        said = walker.steps[0].text["by"][0][1]
        text = render_instruction(plan, goal=f"About the customer {said}:", variant=0)
        assert (
            "the customer's line in the telecom account system" in text and "listed on" not in text
        ), text
    assert acted >= 2


@pytest.mark.skipif(not RETAIL.is_file(), reason="specs not present")
def test_two_copies_of_one_product_are_never_one_task_s_stack(tmp_path: Path) -> None:
    """Two services publishing the same API (tau-bench's and tau2's retail shop) are one
    product twice, not a stack one organisation runs: a task uses one of them, never the
    same work in each."""
    from library.compose import compose_tasks

    for name in ("shop_a", "shop_b"):
        (tmp_path / f"{name}.json").write_bytes(RETAIL.read_bytes())
    lib = spec_library([tmp_path, GMAIL])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    assert env.twins == {"shop_a": {"shop_b"}, "shop_b": {"shop_a"}}
    tasks = compose_tasks([], 20, env=env, seed=0, max_candidates=800).tasks
    assert tasks
    for task in tasks:
        assert not {"shop_a", "shop_b"} <= set(task.services), task.instruction


TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"


@pytest.mark.skipif(not TICKETS.is_file(), reason="specs not present")
def test_a_ticket_logging_the_work_never_names_the_record_by_its_raw_id() -> None:
    """A ticket system shares no key with a shop, yet a support team logs its work there. A
    note a person writes names the changed record in words: its number, title or subject.
    tau2's orders are numbers people quote ("The order id, such as '#W0000000'"), so the
    log cites them; a generated id (``ord_c5ab8f7b60``) is never written into a ticket."""
    from library.compose import compose_tasks

    lib = spec_library([RETAIL, GMAIL, TICKETS])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    assert "ticket_api__create_ticket" in env.log_tools
    tasks = compose_tasks([], 30, env=env, seed=0, max_candidates=1500).tasks
    assert tasks
    orders = {
        str(v)
        for t in tasks
        for s in t.gold_plan
        for k, v in s["arguments"].items()
        if k == "order_id"
    }
    assert orders and all(re.fullmatch(r"#W\d{7}", o) for o in orders), orders  # as tau shows them
    logged = 0
    for task, _plan, _i, step in _calls(tasks, "ticket_api__create_ticket"):
        description = str(step["arguments"].get("description"))
        assert not re.search(r"\b[a-z]+_[0-9a-f]{10}\b", description), (
            task.instruction,
            description,
        )
        logged += description in orders
    assert logged >= 5, logged


MAILSCRIPT = SPECS / "openapi" / "mailscript.com.json"


@pytest.mark.skipif(not MAILSCRIPT.is_file(), reason="../shared/specs not present")
def test_a_record_is_named_by_a_name_not_a_sentence() -> None:
    """A request names a record by a name or a title a person would say, never by a note's
    sentence ("the input 'Flagged during the weekly review.'"), whatever field holds it."""
    lib = spec_library([MAILSCRIPT])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig())
    named = 0
    for start in env.starts:
        for _, walker in _opened(env, start, 30):
            stated = [str(v) for v in walker.steps[0].literals]
            named += len(stated)
            assert not any(v.rstrip().endswith(".") for v in stated), (start.name, stated)
    assert named >= 10, named


@pytest.mark.skipif(not (RETAIL.is_file() and GMAIL.is_file()), reason="specs not present")
def test_a_customer_copied_for_someone_else_is_theirs_alone(shop: Library) -> None:
    """A user record a walk injects for another person (a distractor beside the customer)
    lives at that person's address, not the copied customer's (its address lies flat on the
    record: address1, city, zip), and is never a second record of someone who has one."""
    from tests.compose_walks import finished_walks

    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    world, base = env.world(0)
    info = env.catalog.collection("retail", "users")
    anchor = next(iter(world.services["retail"].state.users.values()))
    walker = Walker(env, world, base, random.Random(0))
    before = len(world.services["retail"].state.users)
    for _ in range(40):  # a distractor is another real customer, never a near-copy
        walker._distract("retail", "users", anchor, "email", info)
    emails = [u.email for u in world.services["retail"].state.users.values()]
    assert len(emails) == before and len(emails) == len(set(emails)), sorted(emails)
    copies = 0
    walks = finished_walks(env, 60, "flat")
    if sum(i.collection == "users" for w in walks for i in w.injections) < 8:
        walks += finished_walks(env, 60, "flat2")  # a second batch where the first has few
    for walker in walks:
        for injection in walker.injections:
            if injection.collection != "users":
                continue
            user = injection.record
            person = env.pool.person_by_email(user.email)
            if person is None or not person.city:
                continue
            copies += 1
            assert (user.address1, user.city, user.country) == (
                person.street,
                person.city,
                person.country,
            ), user
    assert copies >= 5, copies


@pytest.mark.skipif(not (RETAIL.is_file() and GMAIL.is_file()), reason="specs not present")
def test_a_request_by_mail_is_done_for_the_reason_it_gives_or_not_at_all(
    shop: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A customer's e-mail whose reason the tool does not offer (tau2 takes 'no longer
    needed' or 'ordered by mistake') is no cancellation request: the work is never done
    for a reason the customer did not give."""
    from library.compose import compose_tasks, topics

    texts = (
        (
            "Found it cheaper",
            "Hi, I found it cheaper elsewhere; please cancel.",
            "Cheaper elsewhere",
        ),
    )
    monkeypatch.setitem(topics.REQUEST_TEXTS, "refund", texts)
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    reason = env.catalog.tools["retail__cancel_pending_order"].param("reason")
    assert reason is not None and reason.enum  # the closed set its description states
    tasks = compose_tasks([], 40, env=env, seed=1, max_candidates=1500).tasks
    cancels = [
        (t, step)
        for t in tasks
        for step in t.gold_plan
        if step["tool"] == "retail__cancel_pending_order"
    ]
    assert len(cancels) >= 3  # cancellations our user asks for still happen
    for task, _ in cancels:
        assert task.gold_plan[0]["tool"] != "gmail_mcp__findMessage", task.instruction


def test_a_customer_s_orders_ship_to_their_home(shop: Library) -> None:
    """The orders a tau2 customer lists are sent to the address on their user record
    (address1 ... zip alike), not to another customer's home: seeding draws each address
    apart, and tying the lists to their owners brings the address along; an e-mail or IP
    address is no place to send an order."""
    from library.compose.env import _a_place

    assert _a_place("address1") and _a_place("zip") and _a_place("shipping_address")
    assert not _a_place("email_address") and not _a_place("ip_address")
    env = make_env(shop.classes, shop.nodes, config=ComposeConfig())
    parts = ("address1", "address2", "city", "state", "country", "zip")
    orders = 0
    for world_seed in range(3):
        world, _ = env.world(world_seed)
        state = world.services["retail"].state
        for user in state.users.values():
            for oid in user.order_ids or []:
                order = state.orders[oid]
                orders += 1
                assert [getattr(order, k) for k in parts] == [getattr(user, k) for k in parts]
    assert orders >= 20, orders
