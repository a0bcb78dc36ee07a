"""Requests over real specs read as a person's: openings that say the goal in varied
words, no engineering work filed into a customer's queue, a corrected address in the old
one's country, no benchmark's name for a shop's system, no lone half of a DNSSEC key pair
and a key's permissions said as access, not as a message's read state."""

from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from library.compose import ComposeConfig, compose_tasks, make_env
from library.compose.catalog import LOOKUP, FieldMeta, access_words, title
from library.compose.compose import _distractor_services
from library.compose.direction import forward
from library.compose.domains import infer_profile, service_domain
from library.compose.env import THING_STACKS
from library.compose.openings import JOB, MAIL, opening
from library.compose.plan import Step
from library.compose.referring import flag_clauses
from library.compose.spec_library import spec_library
from library.compose.topics import INTERNAL_TEXTS
from library.seed import vocab

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
RETAIL = SPECS / "functions" / "tau2" / "retail.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"
KUBECTL = SPECS / "mcp" / "docker" / "kubectl-mcp-server.json"
TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"
ANN = 'Ann Lee ("ann.lee@example.com")'
SERVER = 'the server "ns1.example.com"'
present = pytest.mark.skipif(
    not all(p.is_file() for p in (RETAIL, GMAIL, KUBECTL, TICKETS)), reason="specs not present"
)


def _masked(text: str) -> str:
    return text.replace(ANN, "X").replace(SERVER, "X").replace("The server", "X")


@pytest.mark.parametrize("motif", sorted(JOB))
def test_openings_vary_by_motif_and_what_set_the_work_off(motif: str) -> None:
    """A customer's request, a record's and a colleague's each open in many ways (a call,
    an e-mail, the chat, an alert, a review ...), not the same four sentences: at least
    8 distinct openings for a customer and 7 for a record, each naming its subject whole
    (later references find it there)."""
    customer = {opening(ANN, motif, v, staff=False) for v in range(60)}
    record = {opening(SERVER, motif, v, noun="server") for v in range(60)}
    assert len(customer) >= 8 and len(record) >= 7, (customer, record)
    assert all(ANN in text for text in customer)
    assert all(SERVER in text.replace("The server", "the server") for text in record)
    # a request says what is wanted, not only that something came in
    assert any("could you" in text.lower() or "please" in text.lower() for text in customer)


def test_record_openings_say_what_set_the_work_off_in_the_motif_s_words() -> None:
    incident = {_masked(opening(SERVER, "incident", v, noun="server")) for v in range(60)}
    dns = {_masked(opening(SERVER, "domain setup", v, noun="server")) for v in range(60)}
    assert any("paged" in t or "Monitoring" in t for t in incident), incident
    assert not incident & dns  # each motif its own words
    refund = {opening(ANN, "refund", v, staff=False) for v in range(60)}
    assert any("money back" in t for t in refund), refund


def test_an_e_mailed_request_says_a_customer_sent_it_in_its_first_sentence() -> None:
    said = 'the message "Refund request"'
    texts = {opening(said, "refund", v, noun="message", mail=True) for v in range(len(MAIL))}
    assert len(texts) == len(MAIL)
    first = [t.split(".")[0].lower() for t in texts]
    assert all(("customer" in f or "by e-mail" in f) and said.lower() in f for f in first), texts


def test_a_customer_queue_is_not_in_an_engineering_task_s_stack() -> None:
    """Support is the customer's domain: a ticket system's seeded tickets are customers'
    returns and questions ("Order arrived damaged"), so a cluster's incident or a DNS
    change is not logged there; an on-call tool's incidents stay engineering work."""
    for domain in ("engineering", "it"):
        assert "support" not in THING_STACKS[domain]
    assert "support" in THING_STACKS["commerce"]  # a shop's order still goes to support
    oncall = infer_profile("pager_app", ["List incidents", "Resolve an incident"])
    assert oncall.domain == "engineering", oncall
    assert "Order arrived damaged" in vocab.LISTS["ticket_subject"]


@present
def test_a_cluster_s_work_never_files_a_ticket_in_the_customer_queue() -> None:
    library = spec_library([KUBECTL, TICKETS, GMAIL])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    cluster_lookup = next(
        t
        for t in env.catalog.tools.values()
        if t.service == "kubectl_mcp_server" and t.kind == LOOKUP
    )
    stack = env.stack_of(Step(tool=cluster_lookup, args={}, binds={}, text={}))
    assert stack is not None and service_domain("ticket_api") not in stack


def test_a_new_address_is_drawn_in_the_old_one_s_country_and_another_city() -> None:
    from library.compose.binding import near_places
    from library.seed import seed_pool

    people = seed_pool(0).people
    near = near_places(people, {"order_id": "#W1", "city": "Paris", "country": "FR"})
    assert near and all(p.country == "FR" and p.city != "Paris" for p in near)
    nested = near_places(people, {"address": {"city": "London", "country": "GB"}})
    assert nested and all(p.country == "GB" and p.city != "London" for p in nested)
    assert near_places(people, {"order_id": "#W1"}) == people  # no place: anyone


@pytest.mark.skipif(not (RETAIL.is_file() and GMAIL.is_file()), reason="specs not present")
def test_a_delivery_address_put_right_stays_in_its_country() -> None:
    """A delivery problem's new address is in the order's own country (a Paris order is
    not sent on to Austin); the country it keeps is resent, not stated."""
    library = spec_library([RETAIL, GMAIL])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    moved = 0
    for seed in (1, 2, 3):
        for task in compose_tasks([], 30, env=env, seed=seed, max_candidates=600).tasks:
            for step in task.gold_plan:
                if not step["tool"].endswith("modify_pending_order_address"):
                    continue
                args = step["arguments"]
                order = task.initial_state["retail"]["orders"][args["order_id"]]
                assert args["country"] == order["country"], task.instruction
                assert args["city"] != order["city"], task.instruction
                assert f'"{args["city"]}"' in task.instruction, task.instruction
                moved += 1
        if moved >= 2:
            break
    assert moved >= 2


def test_a_benchmark_s_name_is_no_system_s_name() -> None:
    # (tenth session: a benchmark's system is named by what it is, ``service_names.PLAIN``)
    assert title("tau_bench_retail") == title("retail") == "the store admin"
    assert title("tau_bench_airline") == "the reservation system"
    assert title("gorilla_file_system") == "the file system"
    assert title("ticket_api") == "the help desk"
    assert not re.search(r"\b(Tau|Bench|BFCL)\b", title("tau2_telecom"))


def test_no_twin_of_a_task_s_service_is_mounted_beside_it() -> None:
    """``tau_bench_retail`` and ``retail`` are both "Retail": a request's "in Retail"
    would name either, so the other is never a distractor."""
    env = SimpleNamespace(
        config=SimpleNamespace(gateway_size=15),
        classes={"retail": 0, "tau_bench_retail": 0, "gmail_mcp": 0, "ticket_api": 0},
    )
    for seed in range(5):
        mounted = _distractor_services(env, ["retail", "gmail_mcp"], random.Random(seed))  # type: ignore[arg-type]
        assert "tau_bench_retail" not in mounted and "ticket_api" in mounted


def test_a_lone_half_of_a_dnssec_key_pair_is_never_asked_for() -> None:
    keytypes = ["ksk", "zsk", "csk"]
    assert forward("keytype", keytypes, keytypes, None, "domain setup") == ["csk"]
    assert forward("keytype", ["ksk", "zsk"], ["ksk", "zsk"], None, None) == ["ksk", "zsk"]


def test_a_key_s_read_and_write_flags_are_access_not_a_message_s_state() -> None:
    key = {n: FieldMeta(n, "boolean", None) for n in ("read", "write", "name")}
    message = {
        "read": FieldMeta("read", "boolean", None),
        "subject": FieldMeta("subject", "string", None),
    }
    assert access_words("read", key) == "read access"
    assert access_words("read", message) == "read"
    said = flag_clauses([(access_words("read", key), False)], "the key")
    assert said == "turn off read access for the key" and "unread" not in said


POWERDNS = SPECS / "openapi" / "powerdns.local.json"
MAILSCRIPT = SPECS / "openapi" / "mailscript.com.json"


@pytest.mark.parametrize("team_spec", [POWERDNS, MAILSCRIPT], ids=["dns", "mail-keys"])
def test_a_team_s_own_work_is_reported_to_a_colleague_not_filed_with_customers(
    team_spec: Path,
) -> None:
    """A DNS change on our own server, or a change to an API key of ours (MailScript, a
    communications tool, whose stack holds support), files nothing in the customer queue
    (Ticket API's tickets are customers' returns); the team tells a colleague by e-mail
    that it is done, in a colleague's words ("DNS change made"), so such requests still
    have a second service."""
    if not all(p.is_file() for p in (team_spec, GMAIL, TICKETS)):
        pytest.skip("specs not present")
    library = spec_library([team_spec, GMAIL, TICKETS])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    assert env.report_tools == {"gmail_mcp__sendMessage"}
    tasks = compose_tasks([], 8, env=env, seed=1, max_candidates=300).tasks
    team = [t for t in tasks if t.motif in ("domain setup", "access", "incident")]
    assert team, [t.instruction for t in tasks]
    for task in team:
        tools = [s["tool"] for s in task.gold_plan]
        assert not any(t.startswith("ticket_api__") for t in tools), task.instruction
        sent = [s for s in task.gold_plan if s["tool"] == "gmail_mcp__sendMessage"]
        assert sent, task.instruction
        for step in sent:
            assert env.is_staff("email", step["arguments"]["to"]), task.instruction
            internal = {t for texts in INTERNAL_TEXTS.values() for t in texts["email_subject"]}
            assert step["arguments"]["subject"] in internal, task.instruction
