"""An opening fits the work its request asks for: it says something is wrong with its record
("A colleague flagged the server ...") only where the plan changes that record, not where
it sets new records up for it (a zone on a server: "We're setting up a new domain for the
server ..."), and it says a person is waiting ("They are expecting it today") only where
one is: a customer whose message the world holds, or whom the plan writes back to.

``misfits`` is the reviewer's check, written apart from ``openings``' own lists."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from library.compose import compose_tasks
from library.compose.openings import CLEARING, SETUP, SIDE, UNCLAIMED, WORK, opening
from library.compose.render import render_instruction
from tests.spec_envs import spec_env
from tests.test_s10_wording import flags

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"
POWERDNS = SPECS / "openapi" / "powerdns.local.json"
RETAIL = SPECS / "functions" / "tau2" / "retail.json"
TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"

SERVER = 'the server "ns1.example.com"'
ANN = 'Ann Lee ("ann.lee@example.com")'

# Words that say the record has something wrong with it, and words that say someone waits.
AILING = re.compile(
    r"\bflagged\b|turned up|needs looking at|look into|credentials need changing"
    r"|needs sorting out|is due on|misbehaving|trouble with|paged about",
    re.I,
)
WAITS = re.compile(
    r"waiting on us|been waiting|expecting it|waiting to hear|can't wait|waiting on some", re.I
)
_SENDS = re.compile(r"\b(?:send|reply|draft|e-?mail|message|notify|forward|share|invite)\b")
_TO = ("to", "recipient", "recipients", "email")

Plan = Sequence[Mapping[str, Any]]


def _first_sentence(text: str) -> str:
    hidden = re.sub(r'"[^"]*"', lambda q: "_" * len(q.group(0)), text)
    m = re.search(r"(?<=[.?:!])\s+(?=[A-Z])", hidden)
    return text[: m.start()] if m else text


def _sources(step: Mapping[str, Any]) -> set[int]:
    return {b["step"] for b in (step.get("binds") or {}).values() if b.get("from") == "step"}


def _reached(plan: Plan) -> set[int]:
    out = {0}
    for i, step in enumerate(plan):
        if i and not step["write"] and _sources(step) & out:
            out.add(i)
    return out


def _to_found(step: Mapping[str, Any], reached: set[int]) -> bool:
    return any(
        name in _TO and b.get("from") == "step" and b.get("step") in reached
        for name, b in (step.get("binds") or {}).items()
    )


def _changes_subject(plan: Plan) -> bool:
    """A write changes, deletes or answers the record the plan starts from (or one it
    found through it)."""
    reached = _reached(plan)
    for step in plan:
        if not step["write"]:
            continue
        summary = str(step["text"].get("summary") or "")
        if step["text"]["kind"] != "create" and _sources(step) & reached:
            return True
        if _SENDS.search(summary) and _to_found(step, reached):
            return True
    return False


def _someone_waits(task: Mapping[str, Any], email: str) -> bool:
    """The plan writes back to the person, or their own message is in a mailbox."""
    plan = task["gold_plan"]
    reached = _reached(plan)
    for step in plan:
        summary = str(step["text"].get("summary") or "")
        if not step["write"] or not _SENDS.search(summary):
            continue
        if summary.startswith("reply") and _sources(step) & reached:
            return True
        if email and email in json.dumps(step["arguments"]).casefold():
            return True
        if _to_found(step, reached):
            return True
    sender = r'"(?:from|sender|from_email|from_address|sender_email)": "[^"]*'
    blob = json.dumps(task.get("initial_state"))
    return bool(email) and re.search(sender + re.escape(email), blob, re.I) is not None


def misfits(task: Mapping[str, Any]) -> list[str]:
    """How the task's opening does not fit its plan: ``ailing`` (a fault in a record the
    plan does not change), ``waiting`` (a person waiting where no one is)."""
    first = _first_sentence(str(task["instruction"]))
    plan = task["gold_plan"]
    out = []
    t = plan[0]["text"]
    said = t.get("search") or next((p for _, p in t.get("by") or ()), None)
    about_record = isinstance(said, str) and f"{t.get('noun')} {said}" in first
    if about_record and AILING.search(first) and not _changes_subject(plan):
        out.append("ailing")
    if WAITS.search(first):
        m = re.search(r'\("([^"]+@[^"]+)"\)', first)
        if not _someone_waits(task, m.group(1).casefold() if m else ""):
            out.append("waiting")
    return out


# -- plans as the composer writes them ---------------------------------------------------
def _lookup(noun: str, by: str, said: str) -> dict[str, Any]:
    text = {"kind": "lookup", "service": "PowerDNS", "noun": noun, "nouns": noun + "s"}
    text |= {"by": [[by, said]], "label": noun}
    return {"write": False, "binds": {}, "arguments": {}, "text": text}


def _on_found(arg: str, value: str, **text: Any) -> dict[str, Any]:
    """A write whose ``arg`` is the record the first step found (``text``: its note)."""
    return {
        "write": True,
        "arguments": {arg: value},
        "binds": {arg: {"from": "step", "step": 0, "path": "[0].id"}},
        "text": {"values": [], **text},
    }


def _zone_plan() -> list[dict[str, Any]]:
    """Find the server, make a zone for it, tell a colleague."""
    zone = _on_found(
        "server_id", "localhost", kind="create", service="PowerDNS", label="zone",
        summary="create a new domain", **{"for": ["the server"]},
    )  # fmt: skip
    return [_lookup("server", "domain", '"ns1.example.com"'), zone, _mail("bob@example.com")]


def _mail(to: str, bound: int | None = None) -> dict[str, Any]:
    binds: dict[str, Any] = {"to": {"from": "user"}}
    if bound is not None:
        binds = {"to": {"from": "step", "step": bound, "path": "email"}}
    text = {"kind": "create", "service": "Gmail", "summary": "send an email message"}
    text |= {"for": [], "values": [["recipient", f'"{to}"']], "label": "message"}
    return {"write": True, "arguments": {"to": to, "body": "Done."}, "binds": binds, "text": text}


def _change_plan() -> list[dict[str, Any]]:
    """Find the server and change it."""
    change = _on_found(
        "server_id", "localhost", kind="update", service="PowerDNS", target="the server",
        values=[["kind", '"Master"']],
    )  # fmt: skip
    return [_lookup("server", "domain", '"ns1.example.com"'), change]


def _refund_plan(*tail: dict[str, Any]) -> list[dict[str, Any]]:
    """Find Ann's account, cancel her order, then ``tail``."""
    cancel = _on_found(
        "order_id", "#W1", kind="action", service="the store admin",
        summary="cancel the order listed on the user",
    )  # fmt: skip
    return [_lookup("user", "email", '"ann.lee@example.com"'), cancel, *tail]


def _render(plan: Plan, goal: str) -> dict[str, Any]:
    return {"instruction": render_instruction(plan, goal=goal), "gold_plan": plan}


@pytest.mark.parametrize("motif", ["domain setup", "access", "incident", "file sharing"])
def test_setting_up_records_for_a_record_says_nothing_is_wrong_with_it(motif: str) -> None:
    made = [_render(_zone_plan(), opening(SERVER, motif, v, noun="server")) for v in range(60)]
    assert not [t["instruction"] for t in made if misfits(t)]
    firsts = {_first_sentence(t["instruction"]) for t in made}
    assert any("a new domain" in f for f in firsts), firsts  # what it sets up, said
    assert len(firsts) >= 6, firsts  # several families still, none dominating


def test_changing_a_record_may_still_say_it_was_flagged() -> None:
    """The families that say a record turned up with a fault stay for work that changes it."""
    firsts = {
        _first_sentence(
            render_instruction(_change_plan(), goal=opening(SERVER, "access", v, noun="server"))
        )
        for v in range(60)
    }
    assert any(AILING.search(f) for f in firsts), firsts
    assert not any("setting up" in f for f in firsts)


def test_clearing_out_a_record_may_say_so() -> None:
    """Work that deletes what it found (a key of the server) opens as a clean-up in some
    variants, and never as setting something up."""
    plan = [
        _lookup("server", "domain", '"ns1.example.com"'),
        _on_found("key_id", "k1", kind="delete", service="PowerDNS", target="the key"),
    ]
    firsts = {
        _first_sentence(render_instruction(plan, goal=opening(SERVER, "access", v, noun="server")))
        for v in range(60)
    }
    assert any(re.search(r"clean-up|tidy up|clear out", f) for f in firsts), firsts
    assert not any("setting up" in f for f in firsts)


def test_a_record_only_read_for_other_work_is_not_said_to_have_a_fault() -> None:
    """A payment read for its payer, whose quote then gets a payment link: the payment is
    where the work starts, not something flagged."""
    quote = _lookup("quote", "contact email", "the payer email of the payment")
    quote["binds"] = {"contact_email": {"from": "step", "step": 0, "path": "[0].payer_email"}}
    link = {
        "write": True,
        "arguments": {"amount": 120},
        "binds": {"amount": {"from": "step", "step": 1, "path": "[0].total"}},
        "text": {"kind": "create", "service": "Payments", "summary": "add a payment link",
                 "for": [], "values": [["amount", "the total of the quote"]]},
    }  # fmt: skip
    plan = [_lookup("payment", "number", '"INV-1"'), quote, link]
    said = 'the payment "INV-1"'
    made = [_render(plan, opening(said, "billing", v, noun="payment")) for v in range(60)]
    assert not [t["instruction"] for t in made if misfits(t)]


def test_no_one_is_said_to_wait_where_no_one_does() -> None:
    """A customer's refund the plan only carries out: no "they are expecting it today";
    one the plan writes back about, or whose e-mail is in the inbox, may say so."""
    quiet = [_render(_refund_plan(), opening(ANN, "refund", v, staff=False)) for v in range(60)]
    assert not [t["instruction"] for t in quiet if misfits(t)]
    answered = _refund_plan(_mail("ann.lee@example.com"))
    told = {
        _first_sentence(render_instruction(answered, goal=opening(ANN, "refund", v, staff=False)))
        for v in range(60)
    }
    assert any(WAITS.search(f) for f in told), told
    mailed = {
        _first_sentence(
            render_instruction(
                _refund_plan(), goal=opening(ANN, "refund", v, staff=False, heard={"mail"})
            )
        )
        for v in range(60)
    }
    assert any(WAITS.search(f) for f in mailed), mailed


def test_a_colleague_away_is_not_said_to_have_work_that_cannot_wait() -> None:
    texts = {opening(ANN, "escalation", v, staff=True) for v in range(60)}
    assert not any(WAITS.search(t) for t in texts), texts


def test_a_reply_to_the_record_s_sender_counts_as_work_on_it() -> None:
    """A message found and answered (a draft to its sender) is worked on: a colleague may
    have flagged it."""
    plan = [_lookup("message", "subject", '"Where is my order?"'), _mail("x@example.com", 0)]
    said = 'the message "Where is my order?"'
    firsts = {
        _first_sentence(
            render_instruction(plan, goal=opening(said, "follow-up", v, noun="message"))
        )
        for v in range(60)
    }
    assert any(AILING.search(f) for f in firsts), firsts


def test_dns_work_over_real_specs_opens_as_set_up_work() -> None:
    """Composed over PowerDNS and Gmail (zones, keys made for a server): no opening says the
    server turned up with a fault."""
    env = spec_env(POWERDNS, GMAIL)
    tasks = compose_tasks([], 16, env=env, seed=0, max_candidates=800).tasks
    dumped = [t.model_dump(mode="json") for t in tasks]
    assert len(dumped) >= 8
    assert not [(misfits(t), t["instruction"]) for t in dumped if misfits(t)]


def test_shop_work_over_real_specs_says_a_customer_waits_only_where_one_does() -> None:
    env = spec_env(RETAIL, GMAIL, TICKETS)
    tasks = compose_tasks([], 16, env=env, seed=0, max_candidates=800).tasks
    dumped = [t.model_dump(mode="json") for t in tasks]
    assert len(dumped) >= 8
    assert not [(misfits(t), t["instruction"]) for t in dumped if misfits(t)]


@pytest.mark.parametrize("motif", sorted(WORK))
def test_the_new_families_read_as_english_for_every_work(motif: str) -> None:
    work = WORK[motif]
    for template in (*SETUP, *SIDE, *CLEARING, *UNCLAIMED):
        for made in ("a new domain", "a TSIG key", "an event"):
            text = template.format(
                subject=ANN if template in UNCLAIMED else SERVER,
                work=work,
                Work=work[:1].upper() + work[1:],
                made=made,
                job=f"look after {ANN}",
                job_them="look after them",
            )
            assert not flags(text), (motif, text, flags(text))
