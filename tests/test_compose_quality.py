"""What a strict reviewer checks of composed tasks: purposeful plans, a coherent world, roles
held by different people, and a rubric that catches the mutants of its gold plan."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import random
import re
from collections.abc import Iterator
from itertools import chain, islice
from types import SimpleNamespace
from typing import Any

import pytest

from library.compose import ComposeConfig, ComposeEnv, compose_tasks, make_env
from library.compose import compose as compose_module
from library.compose.binding import AUTHORED, SETTLED, carries_across
from library.compose.catalog import ToolInfo
from library.compose.coherence import (
    ends_record,
    inverted,
    may_write,
    out_of_its_time,
    range_pairs,
)
from library.compose.compose import composed as task_stream
from library.compose.context import Entity, Fact
from library.compose.domains import TEAM_WORK
from library.compose.motifs import (
    BY_NAME,
    CONTRADICTS,
    MOTIFS,
    SEQUELS,
    fits,
    name_motif,
    part_of,
    refuses,
)
from library.compose.mutants import MutationReport
from library.compose.plan import QUERY_PARAMS, Bound, Step
from library.compose.prune import purposeful, renumber
from library.compose.roles import is_staff_role, role_of
from library.compose.run import task_world
from library.compose.topics import topic_texts
from library.compose.walk import Walker
from library.compose.walk_state import Reject
from library.graph.nodes import tool_verb
from library.seed import vocab
from library.seed.vocab import is_person_resource
from tests.libraries import bundled_library

SERVICES = ["crm", "helpdesk", "mail", "calendar", "storefront", "invoicing", "hr", "identity"]


@pytest.fixture(scope="module")
def lib():
    return bundled_library(SERVICES)


@pytest.fixture(scope="module")
def composed(lib):
    env = make_env(lib.classes, lib.nodes)
    return env, compose_tasks([], 30, env=env, seed=11)


def _reads_used(plan: list[dict], answer: list[dict]) -> Iterator[tuple[int, bool]]:
    used = {a.get("step") for a in answer}
    for step in plan:
        used |= {b.get("step") for b in step["binds"].values()}
        used |= set(step.get("uses") or ())
    for i, step in enumerate(plan):
        if not step["write"]:
            yield i, i in used


def test_every_read_feeds_something(composed):
    _, result = composed
    assert result.tasks
    for task in result.tasks:
        for i, used in _reads_used(task.gold_plan, task.answer):
            assert used, f"{task.task_id}: step {i} ({task.gold_plan[i]['tool']}) feeds nothing"


def test_mutation_gate_verdict_is_stored_and_met(composed):
    env, result = composed
    for task in result.tasks:
        assert task.mutation["catch_rate"] >= env.config.min_catch_rate
        assert "pick_decoy" not in task.mutation["escaped"]
        assert task.mutation["by_kind"].get("drop_write", [0, 0])[1] >= 1


def test_no_request_rewrites_what_someone_wrote(composed):
    """Updates of records already there never set a comment's body or a message's text,
    and yes/no changes are said as states, not as "true" or "false"."""
    _, result = composed
    updates = 0
    for task in result.tasks:
        assert " to true" not in task.instruction and " to false" not in task.instruction
        for step in task.gold_plan:
            text = step["text"]
            if text.get("kind") != "update":
                continue
            updates += 1
            changed = {str(label).replace(" ", "_") for label, _ in text.get("values") or ()}
            assert not changed & AUTHORED, (task.task_id, text)
    assert updates >= 5


def test_an_update_never_rewrites_authored_text():
    """A comment's body, a message's text, a document's content: set with the record, not
    by a later update; the other fields of the same tools stay settable."""
    lib = bundled_library(["docs", "chat"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    tools = [
        t
        for t in env.catalog.tools.values()
        if t.kind == "update" and any(p.name in AUTHORED for p in t.params)
    ]
    assert len(tools) >= 3
    for tool in tools:
        entity = Entity(tool.service, str(tool.collection), "x", {}, 0, "", "comment")
        on_record = {p.name for p in walker._settable(tool, entity)}
        assert not on_record & AUTHORED, tool.name
        assert {p.name for p in walker._settable(tool, None)} & AUTHORED, tool.name
    comment = env.catalog.tools["docs__update_comment"]
    entity = Entity("docs", str(comment.collection), "x", {}, 0, "", "comment")
    assert "resolved" in {p.name for p in walker._settable(comment, entity)}


def test_an_update_never_rewrites_what_a_transaction_settled():
    """An order's currency, subtotal or shipping total stays as it was agreed: no "change
    the order's currency to EUR, then refund it"; its other fields stay settable."""
    lib = bundled_library(["storefront", "invoicing"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    seen = 0
    for tool in env.catalog.tools.values():
        if tool.kind != "update":
            continue
        entity = Entity(tool.service, str(tool.collection), "x", {}, 0, "", "order")
        on_record = {p.name for p in walker._settable(tool, entity)}
        settled = {p.name for p in tool.params if SETTLED.search(p.name)}
        seen += len(settled)
        assert not on_record & settled, tool.name
        assert settled <= {p.name for p in walker._settable(tool, None)} | {
            p.name for p in tool.params if p.required
        }
    assert seen >= 2
    assert SETTLED.search("shipping_total") and SETTLED.search("total_price")
    assert not SETTLED.search("price") and not SETTLED.search("amount")


def test_rubric_guards_the_whole_service(composed):
    _, result = composed
    for task in result.tasks:
        kinds = [c["kind"] for c in task.rubric]
        assert kinds.count("only_requested_changes") == len(task.services)
        if task.answer:
            assert "answer_omits" in kinds
            assert all(row["excludes"] for row in task.answer)


def test_gold_run_writes_coherent_records_and_no_future_ids(lib, composed):
    _, result = composed
    for task in result.tasks:
        world = task_world(task, lib.classes)
        created = set()
        for step in task.gold_plan:
            envelope = world.call(step["tool"], step["arguments"])
            assert envelope["success"], (task.task_id, step["tool"], envelope)
            data = envelope.get("data")
            if step["write"] and isinstance(data, dict):
                assert not inverted(data), (task.task_id, step["tool"], data)
                if step["kind"] == "create":
                    created.add(data.get("id"))
        text = str(task.initial_state)
        assert not any(rid and f"'{rid}'" in text for rid in created), task.task_id


def test_people_in_different_roles_of_one_call_differ(composed):
    _, result = composed
    for task in result.tasks:
        for step in task.gold_plan:
            seen: dict[str, str] = {}
            for name, value in step["arguments"].items():
                if not isinstance(value, str) or "@" not in value:
                    continue
                role = role_of(name)
                other = seen.get(value.casefold())
                assert other is None or other == role, (task.task_id, step["tool"], name)
                seen[value.casefold()] = role


def test_staff_roles_never_take_a_customer(composed):
    env, result = composed
    assert env.staff, "the pool has no staff"
    for task in result.tasks:
        for step in task.gold_plan:
            for name, value in step["arguments"].items():
                if isinstance(value, str) and "@" in value and is_staff_role(role_of(name)):
                    assert env.is_staff("email", value), (task.task_id, step["tool"], name)


def test_gate_rejects_a_task_whose_mutants_escape(lib, monkeypatch):
    env = make_env(lib.classes, lib.nodes)
    weak = MutationReport(mutants=10, caught=5, by_kind={"collateral_write": [5, 10]})
    weak.escaped.append("collateral_write")
    monkeypatch.setattr(compose_module, "mutation_report", lambda *a, **k: weak)
    result = compose_tasks([], 3, env=env, seed=5, max_candidates=40)
    assert not result.tasks
    assert result.rejections.get(compose_module.MUTANTS_ESCAPE, 0) > 0


def test_gate_rejects_a_selection_rule_no_criterion_can_check(lib, monkeypatch):
    env = make_env(lib.classes, lib.nodes)
    report = MutationReport(mutants=10, caught=9, by_kind={"pick_decoy": [0, 1]})
    report.escaped.append("pick_decoy")
    monkeypatch.setattr(compose_module, "mutation_report", lambda *a, **k: report)
    result = compose_tasks([], 3, env=env, seed=5, max_candidates=40)
    assert not result.tasks
    assert result.rejections.get(compose_module.RULE_UNCHECKABLE, 0) > 0


def _step(write: bool, binds: dict) -> Step:
    tool = ToolInfo("svc", "t", write, "update" if write else "lookup", (), "", None, None, False)
    return Step(tool, {}, binds, {})


def test_pruning_drops_reads_that_feed_nothing_and_renumbers():
    steps = [
        _step(False, {}),  # 0: feeds step 2
        _step(False, {"a": {"from": "step", "step": 0, "path": "x"}}),  # 1: feeds nothing
        _step(True, {"b": {"from": "step", "step": 0, "path": "y"}}),  # 2: write
        _step(False, {}),  # 3: feeds only the answer
    ]
    keep = purposeful(steps, answer_steps=[3])
    assert keep == [0, 2, 3]
    renumber(steps, keep)
    assert steps[2].binds["b"]["step"] == 0
    # A read that feeds only a pruned read goes too.
    chain = [_step(False, {}), _step(False, {"a": {"from": "step", "step": 0}}), _step(True, {})]
    assert purposeful(chain, answer_steps=[]) == [2]


def test_state_machine_and_ranges():
    assert not may_write({"status": "closed"}, "update", "update_ticket")
    assert may_write({"status": "closed"}, "action", "reopen_ticket")
    assert not may_write({"status": "paid"}, "action", "void_invoice")
    assert may_write({"status": "paid"}, "action", "refund_invoice")
    assert may_write({"status": "open"}, "update", "update_ticket")
    # money is captured once: a payment partly refunded since has nothing left to capture
    assert not may_write({"status": "partially_refunded"}, "action", "capture_payment")
    assert not may_write({"status": "succeeded"}, "action", "capture_payment")
    assert may_write({"status": "requires_capture"}, "action", "capture_payment")
    assert ("pickup_at", "dropoff_at") in range_pairs(["pickup_at", "dropoff_at", "id"])
    bad = {"starts_at": "2026-03-20T10:00:00Z", "ends_at": "2026-03-19T10:00:00Z"}
    assert inverted(bad) == [("starts_at", "ends_at")]
    assert not inverted({"min_qty": 1, "max_qty": 5})


def test_roles_and_motifs():
    assert role_of("assignee_email") == "assignee"
    assert role_of("to") == "recipient"
    assert role_of("customer_name") == "customer"
    assert is_staff_role("assignee") and not is_staff_role("customer")
    assert name_motif([("suspend_user", "users"), ("send_message", "messages")]) == "offboarding"
    assert name_motif([("update_ticket", "tickets"), ("assign_ticket", "tickets")]) == "escalation"
    assert name_motif([("rename_file", "files")]) == ""


def test_instructions_vary_and_open_with_the_goal(composed):
    _, result = composed
    openings = {" ".join(t.instruction.split()[:3]) for t in result.tasks}
    assert len(openings) >= len(result.tasks) // 3


# -- one workflow per task ------------------------------------------------------------------


def test_every_task_carries_out_one_workflow(composed):
    """Each task has a motif and does that motif's own work; every other write belongs to
    it, or (a long request being more than one piece of work) to a workflow that follows
    from it (``SEQUELS``)."""
    env, result = composed
    for task in result.tasks:
        motif = BY_NAME[task.motif]
        writes = [env.catalog.tools[s["tool"]] for s in task.gold_plan if s["write"]]
        assert any(t.qualified in env.core_tools(motif) for t in writes), task.task_id
        # its own steps (an offboarding's hand-overs included: ``ComposeEnv.motif_tools``)
        own = env.motif_tools(motif)
        off = [
            t for t in writes if not part_of(motif, t.name, t.collection) and t.qualified not in own
        ]
        sequels = [BY_NAME[name] for name in SEQUELS[motif.name]]
        assert all(any(part_of(m, t.name, t.collection) for m in sequels) for t in off), (
            task.task_id,
            [t.qualified for t in off],
        )


def test_lookups_search_for_the_subject_not_for_other_people(composed):
    """After the opening lookup names a person, a search by a person is a search for them:
    no hop to whoever else a record mentions."""
    env, result = composed
    hops = 0
    for task in result.tasks:
        opening = task.gold_plan[0]["arguments"].values()
        subjects = {env.identity("email", v) for v in opening if isinstance(v, str) and "@" in v}
        if not subjects:
            continue
        for step in task.gold_plan[1:]:
            if step["write"] or step["kind"] != "lookup":
                continue
            for name, value in step["arguments"].items():
                if isinstance(value, str) and "@" in value and name not in QUERY_PARAMS:
                    hops += env.identity("email", value) not in subjects
    assert hops == 0


def test_the_subjects_stated_contact_is_used_as_stated(composed):
    """Once the opening names the person by e-mail, the plan uses that e-mail as the request
    states it: no read of another record just to learn it again ("the tickets whose email
    is the respondent email of the response")."""
    _, result = composed
    uses = 0
    for task in result.tasks:
        opening = task.gold_plan[0]
        stated = {
            v
            for name, v in opening["arguments"].items()
            if isinstance(v, str) and "@" in v and opening["binds"][name].get("from") == "user"
        }
        for i, step in enumerate(task.gold_plan[1:], 1):
            for name, value in step["arguments"].items():
                if isinstance(value, str) and value in stated:
                    uses += 1
                    source = step["binds"][name].get("from")
                    assert source == "user", f"{task.task_id} step {i} reads {name} from {source}"
    assert uses >= 5  # the check saw the subject's e-mail used again


def test_stated_free_text_speaks_of_the_workflow(composed):
    """A message, comment or meeting the plan writes uses its workflow's words (to the
    customer, to a colleague, or reporting back to the colleague the work is for)."""
    env, result = composed
    seen = 0
    for task in result.tasks:
        for step in task.gold_plan:
            if not step["write"]:
                continue
            tool = env.catalog.tools[step["tool"]]
            for name, bind in step["binds"].items():
                p = tool.param(name)
                kind = vocab.meaning(name, str(tool.collection or ""))
                own = (
                    topic_texts(task.motif, kind or "")
                    + topic_texts(task.motif, kind or "", internal=True)
                    + topic_texts(task.motif, kind or "", reporting=True)
                )
                if bind.get("from") != "user" or p is None or p.type != "string" or not own:
                    continue
                seen += 1
                assert step["arguments"][name] in own, (task.task_id, tool.qualified, name)
    assert seen, "no stated free text: the check saw nothing"


def test_a_person_record_is_not_created_for_someone_who_has_one(lib):
    """Adding a contact (an employee, a user) whose e-mail the collection already holds is
    no work; a colleague's e-mail in the owner field does not count as a holder."""
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    tool = env.catalog.tools["crm__create_contact"]
    contact = next(iter(world.services["crm"].state.contacts.values()))
    assert walker._already_there(tool, {"email": Bound.literal(contact.email)})
    assert walker._already_there(tool, {"email": Bound.literal(contact.email.upper())})
    assert not walker._already_there(tool, {"email": Bound.literal("new.person@example.org")})
    assert not walker._already_there(tool, {"email": Bound.literal(contact.owner_email)})
    company = env.catalog.tools["crm__create_company"]  # not a person: never refused
    assert not walker._already_there(company, {"email": Bound.literal(contact.email)})


def test_a_message_to_a_colleague_is_worded_for_a_colleague(composed):
    """ "Your refund is on its way" goes to the customer; the deal's owner hears "Refund
    processed"."""
    env, result = composed
    checked = 0
    for task in result.tasks:
        for step in task.gold_plan:
            tool = env.catalog.tools[step["tool"]]
            values = [
                v for a in step["arguments"].values() for v in (a if isinstance(a, list) else [a])
            ]
            people = [v for v in values if isinstance(v, str) and "@" in v]
            if not step["write"] or not people:
                continue
            # A colleague written to at a personal address is still a colleague.
            internal = all(env.is_staff("email", env.identity("email", v)) for v in people)
            for name, bind in step["binds"].items():
                kind = vocab.meaning(name, str(tool.collection or "")) or ""
                said = topic_texts(task.motif, kind, internal=True)
                if bind.get("from") != "user" or said == topic_texts(task.motif, kind):
                    continue  # no colleague's wording for this text
                checked += 1
                # (to the colleague the work was done for: that it is done, "Your ... is handled")
                told = (*said, *topic_texts(task.motif, kind, internal=True, reporting=True))
                assert (step["arguments"][name] in told) == internal, (task.task_id, name)
    assert checked, "no message to check"


def test_shared_reference_records_are_not_edited():
    """A plan or a property every customer shares is not edited by one person's request."""
    from library.compose.catalog import ACTION, DELETE, UPDATE

    lib = bundled_library(["subscriptions", "hotels", "helpdesk", "crm", "mail", "payments"])
    env = make_env(lib.classes, lib.nodes)
    assert {("subscriptions", "plans"), ("hotels", "properties")} <= env.catalogs
    assert ("subscriptions", "subscriptions") not in env.catalogs  # names its subscriber
    result = compose_tasks([], 40, env=env, seed=5)
    edits = 0
    for task in result.tasks:
        for step in task.gold_plan:
            tool = env.catalog.tools[step["tool"]]
            if tool.kind in (UPDATE, ACTION, DELETE):
                edits += 1
                assert (tool.service, tool.collection) not in env.catalogs, (
                    f"{task.task_id}: {step['tool']} edits a shared {tool.collection} record"
                )
    assert edits >= 20  # the check saw real edits


def test_each_record_plays_one_part_in_the_story(composed):
    """What a plan creates it creates as wanted (no "then change the new one"), nothing is
    created only to be ended, and once an action moved a record on (paused, hired, replied
    to) no later step edits it or hangs a new record on it."""
    env, result = composed
    checked = 0
    for task in result.tasks:
        plan = task.gold_plan
        finished: set[str] = set()
        for i, step in enumerate(plan):
            if not step["write"]:
                continue
            tool = env.catalog.tools[step["tool"]]
            own_bind = step["binds"].get(tool.own or "", {})
            from_step = own_bind.get("from") == "step"
            made_here = from_step and plan[own_bind["step"]]["kind"] == "create"
            where = f"{task.task_id} step {i} ({step['tool']})"
            if step["kind"] == "update":
                assert not made_here, f"{where} edits the record the plan just created"
            if step["kind"] == "action" and ends_record(tool.name):
                assert not made_here, f"{where} ends the record the plan just created"
            values = {v for v in step["arguments"].values() if isinstance(v, str)}
            assert not values & finished, f"{where} touches a record an earlier action moved on"
            checked += 1
            if step["kind"] == "action" and tool.own:
                finished.add(step["arguments"][tool.own])
    assert checked >= 30


def test_values_cross_services_only_when_they_mean_the_same_thing():
    # An expense's amount may come from the hotel's total; a ticket's price may not.
    assert carries_across("amount", "money", "total_price")
    assert carries_across("refund_amount", "money", "total")
    assert not carries_across("ticket_price", "money", "total_price")
    assert not carries_across("amount", "money", "annual_revenue")  # nobody pays that
    # a payment of an invoice is for its total: a part fills only the same part
    assert not carries_across("amount", "money", "subtotal")
    assert not carries_across("amount", "money", "tax_total")
    assert carries_across("subtotal", "money", "subtotal")
    assert not carries_across("linkedin_url", "url", "web_url")
    assert carries_across("website_url", "url", "website_url")
    assert carries_across("customer_email", "email", "email")


def test_a_found_record_is_not_created_again_for_the_same_person():
    """A renewal does not open a second subscription for the customer whose subscription
    it found; a trip does not book a second stay for the guest whose stay it found."""
    lib = bundled_library(["subscriptions", "hotels", "helpdesk", "crm", "mail", "payments"])
    env = make_env(lib.classes, lib.nodes)
    result = compose_tasks([], 40, env=env, seed=5)
    creates = 0
    for task in result.tasks:
        found: dict[str, set[str]] = {}
        for step in task.gold_plan:
            tool = env.catalog.tools[step["tool"]]
            key = f"{tool.service}.{tool.collection}"
            people = {
                v.casefold()
                for v in step["arguments"].values()
                if isinstance(v, str) and "@" in v and not env.is_staff("email", v)
            }
            if not step["write"]:
                found.setdefault(key, set()).update(people)
            elif step["kind"] == "create":
                creates += 1
                assert not people & found.get(key, set()), (
                    f"{task.task_id}: {step['tool']} makes a second record for someone the "
                    "plan found one for"
                )
    assert creates >= 10


def test_a_long_request_adds_only_work_that_follows_from_the_first(composed):
    """A hard walk's writes are its workflow's and those of the workflows that follow from
    it (a refund, then its escalation), not an unrelated errand (a renewal, then a room
    booking)."""
    env, _ = composed
    assert set(SEQUELS) == {m.name for m in MOTIFS}
    assert all(name in BY_NAME for names in SEQUELS.values() for name in names)
    world, base = env.world(0)
    walked = long_walks = 0
    for seed in range(40):
        walker = Walker(env, world, base, random.Random(seed))
        walker.cfg = dataclasses.replace(walker.cfg, hard_share=1.0)
        with contextlib.suppress(Reject):  # a rejected walk still chose what it may write
            walker.walk()
        if walker.motif is None or walker.allowed is None:
            continue
        walked += 1
        sequels = [m for m, _ in env.workflows if m.name in SEQUELS[walker.motif.name]]
        tools = env.catalog.tools
        fitting = env.motif_tools(walker.motif).union(*(env.sequel_tools(m) for m in sequels)) - {
            q for q in tools if refuses(walker.motif, tools[q].name, tools[q].collection)
        }
        # A long walk that fell short of the hard band was cut back to an ordinary request
        # (``Walker._back_to_one_matter``), which carries out its own workflow only.
        cut = walker.max_matters == env.config.matters
        assert walker.allowed == (env.motif_tools(walker.motif) if cut else fitting), (
            walker.motif.name
        )
        long_walks += not cut
    assert walked >= 10 and long_walks >= 5, (walked, long_walks)
    # A follow-up after other work tells someone; it does not mark a message starred.
    follow_up = BY_NAME["follow-up"]
    assert "mail__update_message" in env.motif_tools(follow_up)
    assert env.sequel_tools(follow_up) == env.core_tools(follow_up)
    assert "mail__update_message" not in env.sequel_tools(follow_up)
    assert "mail__reply_to_message" in env.sequel_tools(follow_up)


def test_a_record_belongs_to_the_workflow_its_name_says_most_of():
    """A purchase order is procurement's work, not a refund's because it is also an order;
    an order still belongs to a refund and to a shipment alike."""
    refund, procurement = BY_NAME["refund"], BY_NAME["procurement"]
    assert fits(procurement, "approve_purchase_order", "purchase_orders") >= 2.5
    assert fits(refund, "approve_purchase_order", "purchase_orders") < 1.5
    assert not part_of(refund, "send_purchase_order", "purchase_orders")
    assert fits(refund, "refund_order", "orders") >= 2.5
    assert part_of(BY_NAME["fulfilment"], "update_order", "orders")
    # A time entry is no ledger entry: logging hours is not billing work.
    assert not any(part_of(m, "create_time_entry", "time_entries") for m in MOTIFS)
    assert fits(BY_NAME["billing"], "create_ledger_entry", "ledger_entries") >= 2.5


def test_only_a_colleague_joins_or_leaves_us(composed):
    """An onboarding or offboarding is about one of our colleagues: a customer does not
    hand in their notice (such a walk is dropped as ``workflow_not_for_this_person``)."""
    from library.compose.compose import _fits_the_subject
    from library.compose.motifs import STAFF_WORKFLOWS

    env, result = composed
    customer, colleague = env.pool.people[0], env.pool.staff[0]
    opened = SimpleNamespace(
        text={"search": None, "by": [["email", f'"{customer.email}"']]}, entity=None
    )
    assert not _fits_the_subject(env, [opened], "offboarding")  # type: ignore[list-item]
    assert _fits_the_subject(env, [opened], "refund")  # type: ignore[list-item]
    opened.text["by"] = [["email", f'"{colleague.email}"']]
    assert _fits_the_subject(env, [opened], "onboarding")  # type: ignore[list-item]
    # a record named by the request (the member "Bobby Gould") is whose own record it is
    member = SimpleNamespace(
        text={"search": f'"{customer.full_name}"'},
        entity=SimpleNamespace(record={"email": customer.email, "owner_email": colleague.email}),
    )
    assert not _fits_the_subject(env, [member], "offboarding")  # type: ignore[list-item]
    # a record that is no one's (a device found by its name) leaves no one to offboard
    device = SimpleNamespace(
        text={"search": '"REF-2026-98986"'},
        entity=SimpleNamespace(record={"unique_name": "REF-2026-98986", "status": "active"}),
    )
    assert not _fits_the_subject(env, [device], "offboarding")  # type: ignore[list-item]
    assert _fits_the_subject(env, [device], "incident")  # type: ignore[list-item]
    for task in result.tasks:
        if task.motif in STAFF_WORKFLOWS:
            emails = [v for v in task.gold_plan[0]["arguments"].values() if "@" in str(v)]
            people = [env.pool.person_by_email(e) for e in emails]
            assert all(p is None or p.staff for p in people), task.instruction


def test_a_long_request_never_follows_work_with_its_contradiction():
    """A hard walk may carry on with what naturally follows its workflow (a refund, then
    its escalation), but never with what contradicts the first piece of work: no new
    charge or capture after a refund."""
    import contextlib
    import random

    from library.compose import ComposeConfig

    lib = bundled_library(["payments", "invoicing", "storefront", "mail", "helpdesk"])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(hard_share=1.0))
    refund = BY_NAME["refund"]
    checked = 0
    for j in range(6):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(j))
        walker._choose_workflow = lambda: refund  # type: ignore[method-assign]
        with contextlib.suppress(Reject):
            walker.walk()
        assert walker.allowed is not None
        verbs = {tool_verb(env.catalog.tools[q].name) for q in walker.allowed}
        assert not verbs & CONTRADICTS["refund"], sorted(verbs & CONTRADICTS["refund"])
        checked += 1
    assert checked == 6


def test_money_taken_from_a_record_keeps_that_record_s_currency():
    """A payment of the refund's amount is in the refund's currency, never one drawn at
    random; an account's annual revenue is never what someone pays."""
    from library.compose.mutants import resolve

    lib = bundled_library(["storefront", "invoicing", "payments", "returns", "crm"])
    env = make_env(lib.classes, lib.nodes)
    # refunds make no payments: billing does; a batch may hold none, so up to three batches
    tasks = (t for seed in (3, 4, 5) for t in islice(task_stream(env, seed), 20))
    checked = 0
    for task in tasks:
        if checked >= 3:
            break
        world = task_world(task, lib.classes)
        envelopes = []
        for step in task.gold_plan:
            envelopes.append(world.call(step["tool"], step["arguments"]))
            if "currency" not in step["arguments"]:
                continue
            for name, bind in step["binds"].items():
                path = str(bind.get("path", ""))
                if bind.get("from") != "step" or not name.endswith(("amount", "total")):
                    continue
                assert not path.endswith("revenue"), (task.task_id, name, path)
                where = path.rsplit(".", 1)[0] + ".currency"
                source = {"from": "step", "step": bind["step"], "path": where}
                currency = resolve(source, None, envelopes)
                if isinstance(currency, str):  # the record keeps a currency
                    assert step["arguments"]["currency"] == currency, (task.task_id, step)
                    checked += 1
    assert checked >= 3


def test_other_work_joins_a_request_only_where_it_belongs():
    """A renewal or an escalation books a meeting, not a hotel room or an interview
    (scheduling's own work); a second piece of work brings its core steps, not its allies'
    (a renewal, then billing, is no refund); a refund creates no payment, invoice or order,
    and an offboarding adds no one."""
    renewal, escalation, refund = BY_NAME["renewal"], BY_NAME["escalation"], BY_NAME["refund"]
    assert part_of(renewal, "create_meeting", "meetings")
    assert part_of(escalation, "create_event", "events")
    for motif in (renewal, escalation):
        assert not part_of(motif, "create_interview", "interviews")
        assert not part_of(motif, "create_reservation", "reservations")
        assert not part_of(motif, "update_reservation", "reservations")
    assert part_of(refund, "create_refund", "refunds")
    assert part_of(refund, "refund_order", "orders")
    for tool, coll in (("create_payment", "payments"), ("create_payment_link", "payment_links"),
                       ("create_invoice", "invoices"), ("create_order", "orders")):  # fmt: skip
        assert not part_of(refund, tool, coll), tool
    assert not part_of(BY_NAME["offboarding"], "create_employee", "employees")

    lib = bundled_library(["meetings", "calendar", "hotels", "recruiting", "payments", "mail"])
    env = make_env(lib.classes, lib.nodes)
    scheduling, billing = BY_NAME["scheduling"], BY_NAME["billing"]
    joined = {env.catalog.tools[q].collection for q in env.sequel_tools(scheduling)}
    assert joined and joined <= {"meetings", "events"}, joined
    assert any(env.catalog.tools[q].collection == "interviews" for q in env.motif_tools(scheduling))
    assert env.sequel_tools(billing) <= env.core_tools(billing)
    assert not any(tool_verb(q.split("__", 1)[1]) == "refund" for q in env.sequel_tools(billing))


def test_a_record_found_by_a_person_s_phone_or_name_is_theirs():
    """A contact injected so that a lookup by someone's phone finds it carries that person's
    name and e-mail too, never another person's (an SMS contact with Yvonne's phone and
    Eddie's e-mail)."""
    lib = bundled_library(["sms", "crm"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    info = env.catalog.collection("sms", "contacts")
    assert info is not None
    person = next(p for p in env.pool.people if not p.staff)
    by_phone = walker._identity_of(info, "phone", person.phone)
    assert by_phone["email"] == person.email and by_phone["full_name"] == person.full_name
    by_name = walker._identity_of(info, "full_name", person.full_name)
    assert by_name["email"] == person.email and by_name["phone"] == person.phone


def test_meetings_and_tickets_a_workflow_makes_speak_of_it():
    """A delivery problem's meeting is a delivery review, not a "Marketing campaign kickoff";
    a ticket raised in a refund is about the refund."""
    for motif in MOTIFS:
        if motif.name in TEAM_WORK:
            continue  # a team's work on its own things: no meetings or tickets of their own
        assert topic_texts(motif.name, "meeting_topic"), motif.name
        assert topic_texts(motif.name, "ticket_subject"), motif.name


def test_a_person_record_lends_its_people_only_when_it_is_the_subject_s():
    """The owner of the subject's own contact record may take a role in their request; the
    manager's report found by the manager's e-mail is someone else, whose details are no
    one's choice for a role."""
    lib = bundled_library(["hr", "crm", "mail"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    walker.motif = BY_NAME["escalation"]
    subject, other = env.pool.staff[0], env.pool.staff[1]
    walker.subjects = lambda: {subject.email.casefold()}  # type: ignore[method-assign]

    def employee(email: str, manager: str) -> Entity:
        record = {"id": "emp_1", "email": email, "manager_email": manager}
        return Entity("hr", "employees", "emp_1", record, 1, "data[0]", "employee")

    assert walker._about_the_work(employee(subject.email, other.email))
    assert not walker._about_the_work(employee(other.email, subject.email))


def test_someone_leaving_takes_on_no_work_and_is_told_nothing_more():
    """In an offboarding the leaver is no assignee, host or recipient (a handover task
    assigned to the person handing over); in other work a colleague may well be."""
    lib = bundled_library(["hr", "todo", "mail"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    leaver = env.pool.staff[0]
    walker.subjects = lambda: {leaver.email.casefold()}  # type: ignore[method-assign]
    walker.steps = [_step(False, {})]
    for motif, allowed in (("offboarding", False), ("escalation", True)):
        walker.motif = BY_NAME[motif]
        walker.call_people = {}
        walker.call_writes = False  # their work is found by their name ...
        assert walker._fits_role("assignee_email", "email", leaver.email), motif
        walker.call_writes = True  # ... and given to someone else
        assert walker._fits_role("assignee_email", "email", leaver.email) is allowed, motif
        walker.call_people = {}
        assert walker._fits_role("to", "email", leaver.email) is allowed, motif


def test_no_flag_or_status_undoes_the_work():
    """A renewal never turns on "cancel at period end" (a flag named for what the workflow
    contradicts), and a record the plan opens is not then set to "wont_do"."""
    from library.compose.coherence import FINAL

    lib = bundled_library(["subscriptions", "issue_tracker", "mail"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    update = env.catalog.tools["subscriptions__update_subscription"]
    flag = update.param("cancel_at_period_end")
    assert flag is not None
    walker.motif = BY_NAME["renewal"]
    assert walker._works_against(flag)
    assert flag.name not in {p.name for p in walker._settable(update, None)}
    walker.motif = BY_NAME["billing"]
    assert not walker._works_against(flag)
    assert {"wont_do", "closed", "canceled"} <= FINAL


def _transition_outcomes(created: bool) -> dict[str, object]:
    """An escalation's walk moving an open issue (one it made, or one it found) to
    "wont_do" and to "in_progress": the step each makes, or None."""
    from library.compose.coherence import status_of

    lib = bundled_library(["issue_tracker", "mail"])
    env = make_env(lib.classes, lib.nodes)
    tool = env.catalog.tools["issue_tracker__transition_issue"]
    outcomes = {}
    for status in ("wont_do", "in_progress"):
        world, base = env.world(0)
        walker = Walker(env, world, base, random.Random(0))
        walker.motif = BY_NAME["escalation"]
        walker.max_matters = None
        issues = world.services["issue_tracker"].state.issues
        rid, record = next(
            (i, r.model_dump(mode="json"))
            for i, r in sorted(issues.items())
            # one still ahead of "in_progress": moving it there moves it on, not back
            if status_of(r.model_dump(mode="json")) in ("backlog", "todo")
        )
        issue = Entity("issue_tracker", "issues", rid, record, 0, "", "issue", created=created)
        walker._add_entity(issue)  # the record and what it shows, as a step would add them
        walker._bind_required = lambda *a, s=status, **k: {"status": Bound.literal(s)}  # type: ignore[method-assign]
        outcomes[status] = walker._action(tool)
    return outcomes


def test_a_record_the_plan_opens_is_not_then_given_up():
    """An issue the plan files is not then moved to "wont_do" (or any final status); moving
    it on to "in_progress" is work."""
    outcomes = _transition_outcomes(created=True)
    assert outcomes["wont_do"] is None
    assert outcomes["in_progress"] is not None


def test_an_escalation_gives_up_on_nothing_it_found():
    """An escalation does not move the issue it found to "wont_do" (``motifs.ONGOING``: nor
    does a renewal end what it renews); moving the issue on to "in_progress" is work."""
    outcomes = _transition_outcomes(created=False)
    assert outcomes["wont_do"] is None
    assert outcomes["in_progress"] is not None


def test_an_offboarding_winds_up_the_leaver_s_own_records_and_edits_nothing_else_on_them():
    """Someone leaving: the person records a write acts on are theirs (not the employee
    they manage), and on them only a status or an end date changes (no new job title)."""
    from library.compose.direction import is_stage
    from library.seed.vocab import is_person_resource

    lib = bundled_library(["hr", "identity", "todo", "mail"])
    env = make_env(lib.classes, lib.nodes)
    # offboardings only (the library's directory and task board have other work too)
    env.workflows = [(m, w) for m, w in env.workflows if m.name == "offboarding"]
    # seed 3: without the first rule 2 writes hit someone the leaver manages, without the
    # second 4 edit the leaver
    tasks, _ = compose_tasks([], 24, env=env, seed=3)
    checked = 0
    for task in tasks:
        if task.motif != "offboarding":
            continue
        # The leaver: the person the request opens on (by e-mail or name), as the pool
        # knows them.
        opening = task.gold_plan[0]["arguments"].values()
        leaver = next(env.identity("", v) for v in opening if isinstance(v, str))
        for step in task.gold_plan:
            tool = env.catalog.tools[step["tool"]]
            if not step["write"] or tool.kind == "create" or not tool.own:
                continue
            if not is_person_resource(str(tool.collection)):
                continue
            records = task.initial_state[tool.service][str(tool.collection)]
            record = records[step["arguments"][tool.own]]
            own = {env.identity("", v) for k, v in record.items() if not role_of(k)}
            assert leaver in own, (task.task_id, step["tool"], record)
            for name, bind in step["binds"].items():
                if name == tool.own or bind.get("from") == "resent":
                    continue
                assert is_stage(name) or "end" in name or "termination" in name, (
                    task.task_id,
                    step["tool"],
                    name,
                )
            checked += 1
    assert checked >= 5


def test_an_answer_is_about_the_work_not_a_policy_note_or_a_private_detail():
    """What the reply must state comes from the records the work went through: never who
    wrote the policy note a rule was read in, nor a colleague's private e-mail."""
    lib = bundled_library(
        ["hr", "invoicing", "storefront", "helpdesk", "crm", "knowledge_base", "docs", "todo"]
    )
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(p_answer=1.0, p_house_rule=1.0))
    tasks = compose_tasks([], 40, env=env, seed=5).tasks
    answered = ruled = 0
    for task in tasks:
        notes = {rule["step"] for rule in task.house_rules}  # where each note is read
        ruled += bool(notes)
        for row in task.answer:
            answered += 1
            assert row["step"] not in notes, (task.instruction, row)
            assert not env.is_private(row["value"]), row
            assert "personal" not in row["path"] and "home" not in row["path"], row
    assert answered >= 10 and ruled >= 5, (answered, ruled)
    # A colleague's private address, a home address: private, whatever the field is called.
    colleague, walker = env.pool.staff[0], SimpleNamespace(env=env)
    employee = Entity("hr", "employees", "e1", {}, 0, "", "employee")
    private = Fact(employee, "contact", colleague.personal_email, "email", "string")
    assert compose_module._private(walker, private)
    assert compose_module._private(walker, Fact(employee, "home_city", "Leeds", None, "string"))
    work = Fact(employee, "email", colleague.email, "email", "string")
    assert not compose_module._private(walker, work)


def test_the_outside_person_of_a_record_is_one_person_in_every_role(lib):
    """A ticket's customer e-mail and its requester name are one customer's, in every
    record of a task's world: the ones seeded, the ones a lookup needs, and the
    near-duplicates a selection rule must tell apart."""
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(p_selection=1.0))
    checked = 0
    for task in compose_tasks([], 40, env=env, seed=18).tasks:
        for ticket in (task.initial_state.get("helpdesk") or {}).get("tickets", {}).values():
            person = env.person_by_email(ticket["customer_email"])
            if person is not None:
                checked += 1
                assert ticket["requester_name"] == person.full_name, (task.task_id, ticket)
    assert checked >= 100


def test_no_reply_answers_a_message_the_plan_sent(composed):
    """A reply answers what someone else wrote: replying to the message the plan itself just
    sent ("send ..., then reply to the new message") is no request a person makes."""
    env, result = composed
    replies = 0
    for task in result.tasks:
        made = {
            i
            for i, step in enumerate(task.gold_plan)
            if env.catalog.tools[step["tool"]].kind == "create"
        }
        for step in task.gold_plan:
            if not step["tool"].endswith("reply_to_message"):
                continue
            replies += 1
            source = step["binds"]["message_id"]
            assert source.get("step") not in made, (task.task_id, source)
    assert replies, "no reply in the set: the check saw nothing"


@pytest.mark.parametrize(
    ("state", "tool"),
    [
        ("staged", "suspend_user"),
        ("invited", "deactivate_user"),
        ("draft", "approve_expense_report"),
        ("pending", "refund_order"),
    ],
)
def test_an_action_waits_for_its_record_to_be_live(state: str, tool: str) -> None:
    """One suspends an active account, approves a submitted report, refunds a paid order:
    the same action on a record not yet live (staged, draft, awaiting payment) is refused."""
    assert not may_write({"status": state}, "action", tool)
    live = {"suspend_user": "active", "deactivate_user": "active"}.get(tool, "submitted")
    assert may_write({"status": "paid" if tool == "refund_order" else live}, "action", tool)


def test_an_answer_may_state_the_records_own_other_values(composed):
    """The values an answer must leave out are other records' (a decoy's total), never the
    asked record's own (its subtotal, which a threshold may have decided the work by)."""
    _, result = composed
    asked = 0
    for task in result.tasks:
        for row in task.answer:
            asked += 1
            owns = _own_values(task, row)
            assert not owns & set(map(str, row["excludes"])), (task.task_id, row)
    assert asked, "no answer asked: the check saw nothing"


def _own_values(task, row) -> set[str]:
    """The other scalar values of the records that hold an answer row's value in its field."""
    field = [p for p in re.split(r"[.\[\]]", row["path"]) if p][-1]
    out: set[str] = set()
    for colls in task.initial_state.values():
        for records in colls.values():
            if not isinstance(records, dict):
                continue  # a counter, a log: no records
            for rec in records.values():
                if isinstance(rec, dict) and rec.get(field) == row["value"]:
                    out |= {
                        str(v)
                        for k, v in rec.items()
                        if k != field
                        and isinstance(v, int | float | str)
                        and not isinstance(v, bool)
                    }
    return out


def test_no_decoy_is_a_copy_of_a_person(composed):
    """One person is one candidate, one customer, one user: a selection rule's decoys are
    records a person has (their orders, their tickets), never copies of the person found by
    their own e-mail (three "Valerie Morales" candidates to choose from)."""
    env, result = composed
    decoys = 0
    # (a person collection's decoy is rare: a second batch where the first has none)
    more = (t for seed in (14, 16, 17) for t in islice(task_stream(env, seed), 30))
    for task in chain(result.tasks, more):
        if decoys >= 1 and task not in result.tasks:
            break
        for d in task.decoys:
            records = task.initial_state.get(d["service"], {}).get(d["collection"], {})
            if not is_person_resource(d["collection"]) or d["id"] not in records:
                continue
            decoys += 1
            email = records[d["id"]].get("email")
            twins = [r for r in records.values() if email and r.get("email") == email]
            assert len(twins) == 1, (task.task_id, d)
    assert decoys, "no decoy of a person collection: the check saw nothing"


def test_an_answer_may_say_what_the_plan_overwrote(composed):
    """A reply may tell what it changed ("reassigned from Juan"): the values a step
    overwrites are never among those the answer must leave out."""
    _, result = composed
    checked = 0
    for task in result.tasks:
        excluded = {str(v) for row in task.answer for v in row["excludes"]}
        if not excluded:
            continue
        records = {
            rid: rec
            for colls in task.initial_state.values()
            for recs in colls.values()
            if isinstance(recs, dict)
            for rid, rec in recs.items()
            if isinstance(rec, dict)
        }
        for step in task.gold_plan:
            if not step["write"]:
                continue
            held = [
                records[v]
                for v in step["arguments"].values()
                if isinstance(v, str) and v in records
            ]
            for rec in held:
                old = {str(rec[k]) for k in step["arguments"] if k in rec and rec[k] is not None}
                old -= {str(v) for v in step["arguments"].values()}
                checked += 1
                assert not old & excluded, (task.task_id, step["tool"], old & excluded)
    assert checked, "no overwrite beside an answer: the check saw nothing"


def test_a_copy_keeps_its_status_and_its_dates_in_agreement() -> None:
    """A decoy or a supplied copy moved in time or in state is still a coherent record: no
    stay "checked in" that begins next month, no booking "booked" that began last week
    (3 of 300 tasks had one before copies were checked)."""
    lib = bundled_library(["hotels"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    info = env.catalog.collection("hotels", "reservations")
    now = base.clock
    stays = world.services["hotels"].state.reservations.values()
    stay = next(r for r in stays if r.status == "confirmed" and r.check_in > now.date())
    with pytest.raises(ValueError, match="status and its dates"):
        walker._copy("hotels", info, stay, "res_copy", {"status": "checked_in"})
    # (in its own place: a second stay beside it would book its guest twice)
    assert walker._copy("hotels", info, stay, stay.id, {"rooms": 2}).rooms == 2
    began = {
        "status": "booked",
        "starts_at": "2026-01-01T09:00:00Z",
        "ends_at": "2026-01-01T10:00:00Z",
    }
    assert out_of_its_time(began, "2026-01-02T09:00:00+00:00")
    assert not out_of_its_time({**began, "status": "completed"}, "2026-01-02T09:00:00+00:00")
    # a bill's terms: overdue once its due date has passed, sent while it has not
    bill = {"status": "overdue", "issue_date": "2026-01-01", "due_date": "2026-01-31"}
    assert out_of_its_time(bill, "2026-01-15T09:00:00+00:00")
    assert not out_of_its_time(bill, "2026-02-02T09:00:00+00:00")
    assert out_of_its_time({**bill, "status": "sent"}, "2026-02-02T09:00:00+00:00")
    assert not out_of_its_time({**bill, "status": "sent"}, "2026-01-15T09:00:00+00:00")


def test_a_threshold_splits_the_records_it_is_about() -> None:
    """A threshold lies between the least and the most its field holds in the task's world
    ("urgent if the health score is above 100" on a 0-100 score can never be true)."""
    lib = bundled_library(["customer_success", "storefront", "hotels", "todo", "issue_tracker"])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(p_threshold=1.0))
    checked = 0
    for task in compose_tasks([], 24, env=env, seed=5).tasks:
        for step in task.gold_plan:
            for bind in step["binds"].values():
                if bind.get("rule") != "threshold":
                    continue
                read = env.catalog.tools[task.gold_plan[bind["step"]]["tool"]]
                field = bind["path"].rsplit(".", 1)[-1]
                records = task.initial_state[read.service][str(read.collection)].values()
                values = [r[field] for r in records if isinstance(r.get(field), int | float)]
                checked += 1
                assert min(values) < bind["limit"] < max(values), (task.task_id, field, bind)
    assert checked >= 5, checked


def test_a_healthier_account_is_the_less_urgent() -> None:
    """A policy on a reading where more is better (an account's health score) gives the
    lower reading the higher urgency ("health score above 16: urgent" had it backwards)."""
    from library.compose.direction import against_the_grain, urgency

    assert against_the_grain("health_score", "priority")
    assert not against_the_grain("amount", "priority")
    assert not against_the_grain("health_score", "tier")
    lib = bundled_library(["customer_success", "todo", "helpdesk", "docs"])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(p_threshold=1.0))
    checked = 0
    for seed in (5, 6, 7):
        for task in compose_tasks([], 24, env=env, seed=seed).tasks:
            for step in task.gold_plan:
                for name, bind in step["binds"].items():
                    source = str(bind.get("path", "")).rsplit(".", 1)[-1]
                    if bind.get("rule") != "threshold" or not against_the_grain(source, name):
                        continue
                    checked += 1
                    above, otherwise = urgency(bind["above"]), urgency(bind["otherwise"])
                    assert above is not None and otherwise is not None, bind
                    assert above < otherwise, (task.task_id, source, name, bind)
        if checked >= 3:
            break
    assert checked >= 3, checked


def _policy_notes(services: list[str]) -> Iterator[tuple[ComposeEnv, str, str, dict[str, Any]]]:
    """(env, task id, service, the policy note's record) of tasks composed with every
    threshold moved into a policy note."""
    lib = bundled_library(services)
    config = ComposeConfig(p_threshold=1.0, p_house_rule=1.0)
    env = make_env(lib.classes, lib.nodes, config=config)
    for task in compose_tasks([], 24, env=env, seed=3).tasks:
        for rule in task.house_rules:
            note = task.initial_state[rule["service"]][rule["collection"]][rule["id"]]
            yield env, task.task_id, rule["service"], note


def test_a_policy_note_is_about_no_customer() -> None:
    """A policy note states our own rule: it is not a note about a customer (the notes
    app's notes carry a ``contact_email``; 23 of 62 policy notes named a customer)."""
    checked = 0
    for env, tid, service, note in _policy_notes(
        ["notes", "storefront", "hotels", "todo", "customer_success"]
    ):
        outside = [v for v in note.values() if isinstance(v, str) and "@" in v]
        assert all(env.is_staff("email", v) for v in outside), (tid, note)
        checked += service == "notes"
    assert checked >= 3, checked


def test_a_policy_note_is_in_force() -> None:
    """A policy the request tells the agent to follow is published, in English and for our
    staff: not a draft (13 of 14 knowledge-base policies were drafts), not a public Dutch
    help-centre article."""
    checked = 0
    for _, tid, service, note in _policy_notes(
        ["knowledge_base", "storefront", "helpdesk", "todo", "shipping"]
    ):
        if service != "knowledge_base":
            continue
        checked += 1
        assert note["status"] == "published", (tid, note)
        assert str(note.get("locale") or "en").startswith("en"), (tid, note)
    assert checked >= 3, checked


def test_money_taken_is_refunded_not_cancelled() -> None:
    assert not may_write({"status": "succeeded"}, "action", "cancel_payment")
    assert may_write({"status": "succeeded"}, "action", "refund_payment")
    assert may_write({"status": "requires_capture"}, "action", "cancel_payment")
    # some of it given back already: still money taken (refund the rest, never cancel)
    refunded = {"status": "partially_refunded", "amount_refunded": 137.42}
    assert not may_write(refunded, "action", "cancel_payment")
    assert not may_write({"status": "open", "amount_refunded": 20.0}, "action", "void_charge")


def test_decoys_and_copies_keep_the_seeded_world_coherent(lib, composed):
    """The records a task adds beside the seeded ones (decoys copied in another state,
    with another total or time) keep to the seed's rules: a deal's probability follows its
    stage, an order's total is the sum of its lines and charges, its fulfillment agrees with
    its status, and what happened lies between creation and the last update, before now."""
    _, result = composed
    checked = 0
    for task in result.tasks:
        now = task_world(task, lib.classes).now().isoformat()
        state = task.initial_state
        for deal in state.get("crm", {}).get("deals", {}).values():
            checked += 1
            closed = {"won": 100, "lost": 0}.get(deal["stage"].rsplit("_", 1)[-1])
            if closed is not None:
                assert deal.get("probability") == closed, (task.task_id, deal)
        for order in state.get("storefront", {}).get("orders", {}).values():
            checked += 1
            lines = sum(i["quantity"] * i["unit_price"] for i in order["line_items"])
            assert abs(order["subtotal"] - lines) < 0.02, (task.task_id, order)
            parts = order["subtotal"] + (order.get("shipping_total") or 0)
            assert abs(order["total"] - parts) < 0.02, (task.task_id, order)
            if order["status"] == "fulfilled":
                assert order["fulfillment_status"] == "fulfilled", (task.task_id, order)
        for records in (c for s in state.values() for c in s.values() if isinstance(c, dict)):
            for r in records.values():
                if not isinstance(r, dict) or not isinstance(r.get("updated_at"), str):
                    continue
                checked += 1
                assert r["updated_at"][:19] <= now[:19], (task.task_id, r)
                assert r.get("created_at", "")[:19] <= r["updated_at"][:19], (task.task_id, r)
    assert checked


def test_an_answer_forbids_only_its_rivals_values() -> None:
    """The values an answer must not give are its rivals': other records of its kind the
    plan showed (another ticket's assignee). The user's own mailbox, or a policy note's
    author, is no rival: an honest summary may name them."""
    from types import SimpleNamespace

    from library.compose.compose import _confusable

    ticket = SimpleNamespace(service="helpdesk", collection="tickets", id="tic_1")
    fact = SimpleNamespace(value="ann@acme.com", field="assignee_email", key="email", entity=ticket)
    seen = [
        ("assignee_email", "email", "bob@acme.com", "tic_2", ("helpdesk", "tickets")),
        ("from_email", "email", "me@acme.com", "mes_1", ("mail", "messages")),
        ("author_email", "email", "eve@acme.com", "doc_1", ("docs", "documents")),
    ]
    assert _confusable(fact, seen, []) == ["bob@acme.com"]  # type: ignore[arg-type]


def test_an_extension_moves_its_record_later() -> None:
    """ "Extend the rental, with drop-off time ..." sets a later drop-off, never an earlier
    one (strict reading of seed 97: an extension that brought the return forward a day)."""
    lib = bundled_library(["car_rental", "mail", "todo", "crm", "flights", "hotels"])
    env = make_env(lib.classes, lib.nodes)
    checked = 0
    for seed in (1, 2, 3):
        for task in compose_tasks([], 30, env=env, seed=seed).tasks:
            for step in task.gold_plan:
                if step["tool"] != "car_rental__extend_rental":
                    continue
                args = step["arguments"]
                rental = task.initial_state["car_rental"]["rentals"][args["rental_id"]]
                checked += 1
                assert args["dropoff_at"] > rental["dropoff_at"], (task.task_id, args, rental)
    assert checked >= 2, checked


def test_a_check_in_is_done_on_its_day() -> None:
    """A room booking is checked in on the day it starts, never a week before: no plan
    checks in a booking whose start is more than a day ahead of the task's clock."""
    from library.compose.coherence import too_early

    now = dt.datetime(2026, 12, 10, 9, tzinfo=dt.UTC)
    booking = {"starts_at": "2026-12-19T10:00:00Z", "ends_at": "2026-12-19T12:00:00Z"}
    assert too_early(booking, "check_in_booking", now)
    assert not too_early({**booking, "starts_at": "2026-12-10T10:00:00Z"}, "check_in_booking", now)
    assert not too_early(booking, "update_booking", now)
    lib = bundled_library(["workplace", "calendar", "mail"])
    env = make_env(lib.classes, lib.nodes)
    # (check-ins came with a new booking for the same room, which db19ad9 rules out: "make
    # a booking ... Then check in the booking" read as the new one; the unit checks above
    # carry the rule, and any check-in these tasks still make is on its day)
    tasks = (t for seed in (3, 2) for t in islice(task_stream(env, seed), 20))
    for task in tasks:
        world = task_world(task, lib.classes)
        clock = world.now()
        for step in task.gold_plan:
            if "check_in" in step["tool"]:
                record = world.call(
                    "workplace__get_booking", {"booking_id": step["arguments"]["booking_id"]}
                )
                assert (
                    str(record["data"]["starts_at"])[:10]
                    <= (clock + dt.timedelta(days=1)).date().isoformat()
                )
            world.call(step["tool"], step["arguments"])


def test_a_passenger_has_one_birth_date_in_every_booking() -> None:
    """A person listed on several bookings (the ones the request made theirs included) is
    born on one day: never three "Jason Love" passengers with three birth dates."""
    lib = bundled_library(["flights", "hotels", "mail", "crm"])
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(p_selection=1.0))
    listed = 0
    for task in compose_tasks([], 30, env=env, seed=4).tasks:
        born: dict[str, set[str]] = {}
        for booking in task.initial_state.get("flights", {}).get("bookings", {}).values():
            for passenger in booking.get("passengers") or ():
                if passenger.get("email") and passenger.get("date_of_birth"):
                    born.setdefault(passenger["email"], set()).add(passenger["date_of_birth"])
        for email, days in born.items():
            listed += 1
            assert len(days) == 1, (task.task_id, email, days)
            person = env.pool.person_by_email(email)
            if person is not None:
                assert days == {person.born.date().isoformat()}, (task.task_id, email, days)
    assert listed >= 20, listed


def test_a_shipment_on_its_way_keeps_its_carrier() -> None:
    """A shipment already in transit (or delivered) keeps how it travels: no plan changes
    its carrier or its service level mid-route."""
    from library.compose.coherence import set_in_motion

    assert set_in_motion({"status": "in_transit"}, "carrier")
    assert set_in_motion({"status": "delivered"}, "service_level")
    assert not set_in_motion({"status": "label_created"}, "carrier")
    assert not set_in_motion({"status": "in_transit"}, "notes")
    lib = bundled_library(["shipping", "storefront", "mail", "helpdesk"])
    env = make_env(lib.classes, lib.nodes)
    routed = 0
    for task in compose_tasks([], 40, env=env, seed=6).tasks:
        shipments = task.initial_state.get("shipping", {}).get("shipments", {})
        for step in task.gold_plan:
            if not step["tool"].startswith("shipping__update"):
                continue
            record = shipments.get(step["arguments"].get("shipment_id"), {})
            for name in step["arguments"]:
                if name != "shipment_id" and record:
                    routed += 1
                    assert not set_in_motion(record, name), (task.task_id, name, record)
    assert routed >= 3, routed


def test_a_rental_under_way_keeps_where_it_was_picked_up() -> None:
    """A car already picked up keeps its pickup place and time: a plan may move its
    drop-off, never where it began."""
    from library.compose.coherence import already_begun

    assert already_begun({"status": "picked_up"}, "pickup_location")
    assert already_begun({"status": "checked_in"}, "check_in_date")
    assert not already_begun({"status": "picked_up"}, "dropoff_location")
    assert not already_begun({"status": "reserved"}, "pickup_location")
    lib = bundled_library(["car_rental", "flights", "mail", "expenses"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    update = env.catalog.tools["car_rental__update_rental"]
    for status, kept in (("picked_up", False), ("reserved", True)):
        entity = Entity("car_rental", "rentals", "x", {"status": status}, 0, "", "rental")
        settable = {p.name for p in walker._settable(update, entity)}
        assert ("pickup_location" in settable) is kept and "dropoff_location" in settable
    edited = 0
    for seed in (6, 7, 8, 9, 10, 11):
        for task in compose_tasks([], 40, env=env, seed=seed).tasks:
            rentals = task.initial_state.get("car_rental", {}).get("rentals", {})
            for step in task.gold_plan:
                record = rentals.get(step["arguments"].get("rental_id"), {})
                if not step["write"] or record.get("status") != "picked_up":
                    continue
                for name in step["arguments"]:
                    edited += name != "rental_id"
                    assert not already_begun(record, name), (task.task_id, name, record)
        if edited >= 3:
            break
    assert edited >= 3, edited


def test_a_stated_reason_fits_the_kind_the_request_states() -> None:
    """A CTA the request creates as "renewal" is raised for the renewal ("Contract ends
    next quarter"), never for "Usage dropped 40% in 30 days"."""
    from library.compose.binding import fitted_to_kind
    from library.compose.plan import Bound
    from library.seed.vocab import BY_KIND

    out = fitted_to_kind(
        {"type": Bound.literal("renewal"), "reason": Bound.literal("Three open escalations")},
        "customer_success.ctas",
        random.Random(0),
    )
    assert out["reason"].value in BY_KIND["risk_reason"]["renewal"], out["reason"]
    lib = bundled_library(["customer_success", "todo", "mail"])
    env = make_env(lib.classes, lib.nodes)
    # the customers' work (not the team's own work on its task board)
    env.workflows = [(m, w) for m, w in env.workflows if m.name not in TEAM_WORK]
    made = 0
    for task in compose_tasks([], 48, env=env, seed=3).tasks:
        for step in task.gold_plan:
            args = step["arguments"]
            if step["tool"] == "customer_success__create_cta" and args.get("type"):
                made += 1
                assert args["reason"] in BY_KIND["risk_reason"][args["type"]], args
    assert made >= 2, made


def test_a_copy_moved_to_another_state_keeps_nothing_that_state_never_holds() -> None:
    """A paid invoice copied as a draft has nothing paid on it ("the smallest amount paid" on
    a draft was impossible): a copy moved to a state leaves unset what every record in that
    state leaves unset."""
    lib = bundled_library(["invoicing"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    info = env.catalog.collection("invoicing", "invoices")
    invoices = world.services["invoicing"].state.invoices.values()
    paid = next(r for r in invoices if r.status == "paid" and r.amount_paid)
    today = world.now().date()  # a draft is dated today, due ahead (c008cb9)
    terms = {"issue_date": today, "due_date": today + dt.timedelta(days=30)}
    draft = walker._copy("invoicing", info, paid, "inv_copy", {"status": "draft", **terms})
    assert draft.status == "draft" and not draft.amount_paid, draft
    kept = walker._copy("invoicing", info, paid, "inv_copy2", {"memo": "Thanks."})
    assert kept.amount_paid == paid.amount_paid  # the same state keeps what it holds
