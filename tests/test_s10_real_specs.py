"""Requests over real specs as a real team's across its tools: an opening claims only how
a customer reached us where the task's world shows it (their e-mail in the inbox), a report
of the work names all the work, and a system is called what people call it (a product's
name, or a plain description where a benchmark named it by its job: "the store admin",
not "Retail")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from library.compose import compose_tasks
from library.compose.catalog import title
from library.compose.openings import CLAIMS, JOB, opening
from tests.spec_envs import spec_env

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
RETAIL = SPECS / "functions" / "tau2" / "retail.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"
TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"
POWERDNS = SPECS / "openapi" / "powerdns.local.json"
ANN = 'Ann Lee ("ann.lee@example.com")'
# How an opening says a customer reached us.
CLAIMED = re.compile(r"e-mailed|wrote in|called|support chat", re.I)


def _present(*paths: Path) -> None:
    if not all(p.is_file() for p in paths):
        pytest.skip("specs not present")


@pytest.mark.parametrize("motif", sorted(JOB))
def test_a_customer_opening_claims_no_way_in_the_world_does_not_show(motif: str) -> None:
    """Without a message or a call of theirs, a customer's request opens without saying
    how it came in, in as many ways as before; with one, it may say so."""
    bare = {opening(ANN, motif, v, staff=False) for v in range(60)}
    assert not any(CLAIMED.search(t) for t in bare), bare
    assert len(bare) >= 8
    mailed = {opening(ANN, motif, v, staff=False, heard={"mail"}) for v in range(60)}
    assert any("e-mailed us" in t for t in mailed), mailed
    assert not any("called" in t or "support chat" in t for t in mailed), mailed
    called = {opening(ANN, motif, v, staff=False, heard={"call"}) for v in range(60)}
    assert any("called" in t for t in called) and not any("e-mailed" in t for t in called)


def test_every_claimed_way_in_is_an_opening() -> None:
    from library.compose.openings import CUSTOMER

    assert set(CLAIMS) <= set(CUSTOMER)  # a claim reworded elsewhere would go unchecked


def test_a_benchmark_s_system_is_named_by_what_it_is() -> None:
    for service in ("tau_bench_retail", "retail", "ticket_api", "tau2_telecom", "airline"):
        name = title(service)
        assert name.startswith("the "), name
        assert not re.search(r"\b(Retail|Ticket|API|Airline|Telecom)\b", name), name
    # products keep their names
    assert title("gmail_mcp") == "Gmail" and title("powerdns_local") == "PowerDNS"
    assert title("customer_success") == "Customer Success"  # our own services too


def test_the_world_shows_a_mail_its_sender_sent_not_one_sent_to_them() -> None:
    env = spec_env(RETAIL, GMAIL)
    _, base = env.world(0)
    states = list(base.states.values())
    message = next(iter(base.states["gmail_mcp"].messages.values()))
    sender, to = message.sender, message.to
    assert env.heard_from(states, sender) == {"mail"}
    assert env.heard_from(states, sender.upper()) == {"mail"}
    received = {m.sender for m in base.states["gmail_mcp"].messages.values()}
    if to not in received:
        assert env.heard_from(states, to) == frozenset()
    assert env.heard_from([base.states["retail"]], sender) == frozenset()  # no mailbox


@pytest.fixture(scope="module")
def shop_tasks() -> list:
    env = spec_env(RETAIL, GMAIL, TICKETS)
    return compose_tasks([], 24, env=env, seed=0, max_candidates=1500).tasks


def test_a_customer_opening_says_they_e_mailed_only_with_their_mail_in_the_inbox(
    shop_tasks: list,
) -> None:
    customers = 0
    for task in shop_tasks:
        said = re.match(r'[^.;?]*?\("([^"]+@[^"]+)"\)', task.instruction)
        if said is None:
            continue
        customers += 1
        opening_text = re.split(r"[.;?] ", task.instruction, maxsplit=1)[0]
        if not re.search(r"e-mailed|wrote in", opening_text):
            continue
        inbox = task.initial_state.get("gmail_mcp", {}).get("messages", {})
        senders = {str(m.get("sender", "")).casefold() for m in inbox.values()}
        assert said.group(1).casefold() in senders, task.instruction
    assert customers >= 5, [t.instruction for t in shop_tasks]
    for task in shop_tasks:
        assert not re.search(r"\bin (Retail|Ticket API)\b", task.instruction), task.instruction


def test_a_report_of_the_work_names_every_record_it_made() -> None:
    """A DNS change that made a zone and a TSIG key reports both ("Created the domain
    api.example.com and the TSIG key backup-agent."), not only the key made last."""
    env = spec_env(POWERDNS, GMAIL)
    tasks = compose_tasks([], 16, env=env, seed=0, max_candidates=800).tasks
    checked = 0
    for task in tasks:
        plan = task.gold_plan
        for i, step in enumerate(plan):
            if step["tool"] not in env.report_tools or not step["write"]:
                continue
            made = [
                s
                for s in plan[:i]
                if s["write"] and s["tool"] not in env.report_tools | env.log_tools
            ]
            names = [
                str(v)
                for s in made
                for k, v in s["arguments"].items()
                if k in ("name", "domain") and s["binds"].get(k, {}).get("from") == "user"
            ]
            if len(made) < 2 or not names:
                continue
            checked += 1
            body = str(step["arguments"].get("body", ""))
            assert all(n in body for n in names), (body, names, task.instruction)
            assert body.count(" and ") >= 1, body
    assert checked >= 2, [t.instruction for t in tasks]


def test_a_product_published_twice_is_worked_through_one_copy() -> None:
    """tau2's and tau-bench's copies of one shop are one product: tasks open in and work
    through the first copy only, so one shop's refunds do not get twice the share of a
    run (twice the service cap, twice the plan shapes)."""
    twin = SPECS / "functions" / "tau_bench" / "retail.json"
    env = spec_env(RETAIL, twin, GMAIL, TICKETS)
    assert env.copies == {"tau_bench_retail"}, env.twins
    assert not any(t.service in env.copies for t in env.starts)
    for motif, _ in env.workflows:
        assert not any(q.startswith("tau_bench_retail__") for q in env.core_tools(motif))
    tasks = compose_tasks([], 10, env=env, seed=0, max_candidates=600).tasks
    assert tasks and all("tau_bench_retail" not in t.services for t in tasks)
    assert any("retail" in t.services for t in tasks)


def test_a_report_on_a_record_the_request_named_says_what_was_done_to_it() -> None:
    """An incident's report to a colleague says "Scaled the deployment search-service.",
    not only "search-service": the request named the deployment, so the mail can say
    what was done with it."""
    kubectl = SPECS / "mcp" / "docker" / "kubectl-mcp-server.json"
    env = spec_env(kubectl, GMAIL)
    tasks = compose_tasks([], 6, env=env, seed=0, max_candidates=600).tasks
    checked = 0
    for task in tasks:
        picked = {str(v) for v in task.literals}  # (the deployment the request names)
        for step in task.gold_plan:
            body = step["arguments"].get("body")
            if step["tool"] not in env.report_tools or not isinstance(body, str):
                continue
            named = [p for p in picked if p in body and p != body]
            if not named:
                assert not any(body == p for p in picked if len(p) < 30), body  # a bare name
                continue
            checked += 1
            assert body.endswith(".") and " " in body, body
    assert checked >= 1, [t.instruction for t in tasks]
