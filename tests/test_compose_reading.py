"""What a reviewer of tau2-bench or AppWorld tasks reads in a composed task: free text a
person writes reads as text (never a raw record id), a selection rule orders records by
what a person would choose them by for the work (when it is due, how much it is), decoys
are different records (not near-copies of another one), and the value a reply must state
bears on the work the request is for."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from library.compose import ComposeConfig, ComposeEnv, compose_tasks, make_env
from library.compose import compose as compose_module
from library.compose.context import Entity, Fact
from library.compose.motifs import MONEY_WORK
from library.compose.realism import LATEST, MATCHING, chosen_by, rule_options
from library.compose.roles import PERSON_KEYS
from library.compose.topics import INTERNAL_TEXTS, TOPIC_TEXTS
from library.compose.walk import Walker
from tests.compose_walks import finished_walks, initial_world
from tests.libraries import bundled_library

SERVICES = [
    "storefront",
    "returns",
    "helpdesk",
    "mail",
    "todo",
    "crm",
    "car_rental",
    "recruiting",
    "customer_success",
    "identity",
]
# Fields no one chooses a record by: the record's own bookkeeping and readings of no
# consequence to the work.
BOOKKEEPING = frozenset(
    {"created_at", "updated_at", "sent_at", "received_at", "last_login_at", "odometer_km"}
)


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    config = ComposeConfig(p_selection=1.0, p_distractor=1.0)
    return make_env(library.classes, library.nodes, config=config)


@pytest.fixture(scope="module")
def walks(env: ComposeEnv) -> list[Walker]:
    return finished_walks(env, 120, "reading")


def test_free_text_reads_as_text_never_a_raw_id(walks: list[Walker]) -> None:
    """A note, a description, a body a person writes names the work in words (the order's
    number, the message's subject), never a record's generated id ("notes: mes_b5c34118")."""
    found = 0
    for walker in walks:
        ids = {e.id for e in walker.entities} | {d.id for d, _ in walker.decoys}
        for step in walker.steps:
            for name, value in step.args.items():
                p = step.tool.param(name)
                if p is None or p.key or p.item_key or not isinstance(value, str):
                    continue
                assert value not in ids, (step.tool.qualified, name, value)
                found += step.binds[name].get("from") == "step"
    assert found >= 5, found  # free text carried from a record: the check saw some


def test_a_selection_rule_orders_by_what_a_person_chooses_by(walks: list[Walker]) -> None:
    """The ticket due first, the largest order, the next pickup: never the one created last,
    updated first or with the smallest odometer reading, which the request has no reason
    to prefer."""
    ordered = 0
    for walker in walks:
        for step in walker.steps:
            rule = step.rule
            if rule is None or rule.kind == MATCHING or step.entity is None:
                continue
            info = walker.catalog.collection(step.tool.service, step.entity.collection)
            meta = info.fields.get(rule.field) if info is not None else None
            assert rule.field not in BOOKKEEPING, (step.tool.qualified, rule)
            assert chosen_by(rule.field, meta, step.entity.record.get(rule.field)), rule
            ordered += 1
    assert ordered >= 5, ordered


def test_records_that_differ_only_in_bookkeeping_have_no_ordered_rule() -> None:
    """Two tickets told apart only by when they were made or touched: no rule picks one."""
    records = [
        {"id": "t1", "created_at": "2027-01-01T10:00:00Z", "updated_at": "2027-01-02T10:00:00Z",
         "odometer_km": 1200, "due_date": "2027-02-01", "subtotal": 10.0},
        {"id": "t2", "created_at": "2027-01-03T10:00:00Z", "updated_at": "2027-01-04T10:00:00Z",
         "odometer_km": 900, "due_date": "2027-02-03", "subtotal": 20.0},
    ]  # fmt: skip
    fields = {(r.kind, r.field) for r in rule_options(records, None)}
    assert not {f for _, f in fields} & BOOKKEEPING, fields
    assert (LATEST, "due_date") in fields and ("largest", "subtotal") in fields


def test_amounts_in_different_currencies_are_not_ordered() -> None:
    """ "The reservation with the largest total price" among 3,250.74 EUR, 3,333.15 USD and
    1,319 GBP is no rule a person applies: money is compared in one currency."""
    from library.compose.catalog import CollectionInfo, FieldMeta

    info = CollectionInfo("hotels", "reservations", dict)
    info.fields = {
        "total_price": FieldMeta("total_price", "number", "money"),
        "currency": FieldMeta("currency", "string", "currency"),
    }
    records = [
        {"id": "r1", "total_price": 3250.74, "currency": "EUR"},
        {"id": "r2", "total_price": 3333.15, "currency": "USD"},
    ]
    assert not [r for r in rule_options(records, info) if r.field == "total_price"]
    same = [dict(r, currency="EUR") for r in records]
    assert {r.kind for r in rule_options(same, info) if r.field == "total_price"} == {
        "largest",
        "smallest",
    }


def _near_copies(record: dict, others: list[dict]) -> list[dict]:
    """The records of ``others`` sharing at least 80% of ``record``'s non-id fields."""
    keys = [k for k in record if k != "id" and not k.endswith("_id")]
    return [
        o for o in others if keys and sum(record[k] == o.get(k) for k in keys) >= 0.8 * len(keys)
    ]


def test_a_decoy_differs_as_another_record_does(walks: list[Walker]) -> None:
    """The records a rule or a lookup must tell apart are different records: not the same
    mail sent by another person, nor a candidate with another's links (a copy of a record
    with one or two fields changed)."""
    decoys = 0
    for walker in walks:
        world = initial_world(walker)
        for decoy, _ in walker.decoys:
            records = getattr(world.services[decoy.service].state, decoy.collection)
            if decoy.id not in records:
                continue
            mine = records[decoy.id].model_dump(mode="json")
            others = [r.model_dump(mode="json") for k, r in records.items() if k != decoy.id]
            assert not _near_copies(mine, others), (decoy.service, decoy.collection, decoy.id)
            decoys += 1
    assert decoys >= 20, decoys


def test_an_answer_bears_on_the_work() -> None:
    """What the reply must state is what the work needs: who to contact, the number to
    quote back, when something is due; an amount only where the work moves money (never a
    handed-over deal's amount, a job's salary band or a company's head count)."""
    library = bundled_library(["identity", "crm", "helpdesk", "recruiting", "todo", "storefront"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(p_answer=1.0))
    tasks = compose_tasks([], 48, env=env, seed=7).tasks
    asked = 0
    for task in tasks:
        for row in task.answer:
            tool = env.catalog.tools[task.gold_plan[row["step"]]["tool"]]
            info = env.catalog.collection(tool.service, str(tool.collection))
            field = row["path"].split(".")[-1]
            key = info.fields[field].key if info is not None and field in info.fields else None
            value = row["value"]
            if key in PERSON_KEYS or str(key).startswith("key:"):
                pass
            elif isinstance(value, int | float):
                assert task.motif in MONEY_WORK, (task.motif, row)
            else:
                assert chosen_by(field, None, value), (task.motif, row)
            asked += 1
    assert asked >= 5, asked


def test_an_offboarding_asks_for_no_amount() -> None:
    """Handing a leaver's deal over asks no one for its amount; a refund may ask its total."""
    deal = Entity("crm", "deals", "d1", {}, 0, "", "deal")
    amount = Fact(deal, "amount", 5000, "money", "number")
    owner = Fact(deal, "owner_email", "ann@changfisher.com", "email", "string")
    close = Fact(deal, "close_date", "2027-03-01", "date", "string")
    size = Fact(deal, "employee_count", 40, None, "integer")
    assert not compose_module._bears_on("offboarding", amount)
    assert compose_module._bears_on("refund", amount)
    assert compose_module._bears_on("offboarding", owner)
    assert compose_module._bears_on("offboarding", close)
    assert not compose_module._bears_on("renewal", size)


def test_a_customer_s_message_the_request_answers_is_about_its_matter(
    walks: list[Walker],
) -> None:
    """The customer's mail a refund replies to asks for the refund ("Ordered by mistake"),
    not "Notes from our call": what the plan finds of theirs in the inbox, to answer, is
    their request for the work; a candidate's asks for news of their application, and a
    colleague's is about their own trip or expenses, or asks for the work done for them
    (never a customer's "Question about my order" from a colleague)."""
    from library.compose.topics import ASKED_BY_COLLEAGUES, asked_by_colleague, matter_texts

    replied: Counter[str] = Counter()
    for walker in walks:
        texts = matter_texts(walker.motif.name if walker.motif else None)
        if not texts or walker.motif.name == "follow-up":  # a conversation about anything
            continue
        world = initial_world(walker)
        for step in walker.steps:
            if step.tool.service != "mail" or "reply" not in step.tool.name:
                continue
            message = world.services["mail"].state.messages.get(step.args["message_id"])
            if message is None:
                continue
            staff = walker.env.is_staff("email", message.from_)
            if staff and walker.motif.name not in ASKED_BY_COLLEAGUES:
                texts = asked_by_colleague(walker.motif.name)
                if not texts:
                    continue  # a leaver's own mail: theirs to write
            assert message.subject in {t[0] for t in texts}, (walker.motif.name, message.subject)
            replied["colleague" if staff else "customer"] += 1
    assert replied["customer"] >= 5 and replied["colleague"] >= 1, replied


def test_an_answer_is_not_what_a_lookup_was_given() -> None:
    """A reply is not asked for what the agent already searched by ("reply to the message
    from the order's customer ... and tell me the message's sender"): the question asks
    for something the request does not already hold."""
    library = bundled_library(["storefront", "mail", "shipping", "todo", "helpdesk", "crm"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(p_answer=1.0))
    asked = 0
    for task in compose_tasks([], 40, env=env, seed=11).tasks:
        searched = {
            v
            for s in task.gold_plan
            if not s["write"]
            for v in s["arguments"].values()
            if isinstance(v, str)
        }
        for row in task.answer:
            assert row["value"] not in searched, (task.instruction, row)
            asked += 1
    assert asked >= 5, asked


def test_what_a_plan_writes_points_at_nothing_that_is_not_there() -> None:
    """A message the plan sends says what was done: no "the new details are below" with
    nothing below, no "see attached" with nothing attached (strict reading of seed 83)."""
    texts = [
        text
        for table in (TOPIC_TEXTS, INTERNAL_TEXTS)
        for kinds in table.values()
        for kind, options in kinds.items()
        if kind.startswith("body")
        for text in options
    ]
    assert len(texts) > 20
    pointing = [t for t in texts if re.search(r"\b(below|attached|enclosed)\b", t, re.I)]
    assert not pointing, pointing


def _as_listed(envelope: object, rid: str) -> dict | None:
    """The record ``rid`` as a lookup's output listed it."""
    data = envelope.get("data") if isinstance(envelope, dict) else None
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]  # (a page of records)
    rows = data if isinstance(data, list) else [data]
    return next((r for r in rows if isinstance(r, dict) and rid in r.values()), None)


def test_the_work_due_first_is_open_work(walks: list[Walker]) -> None:
    """ "The ticket due first" picks among the open ones: a solved ticket due earlier is no
    one's next job, so a rule by due date never lands on finished work."""
    from library.compose.coherence import work_over

    ruled = 0
    for walker in walks:
        for step in walker.steps:
            rule = step.rule
            if rule is None or step.entity is None or not re.search(r"due|deadline", rule.field):
                continue
            ruled += 1
            # as the lookup found it (the plan may finish the task afterwards: "complete it")
            found = _as_listed(step.envelope, step.entity.id) or step.entity.record
            assert not work_over(found), (rule, found)
    assert ruled >= 3, ruled  # (a sample floor: the walks drawn vary with the vocabulary)


def test_no_record_is_picked_by_what_was_paid_on_it() -> None:
    """ "The invoice with the smallest amount paid" picks by the money's history, not by how
    big the matter is: a total or an amount may order records, what was paid, refunded or
    taxed may not."""
    from library.compose.catalog import FieldMeta

    def money(name: str) -> FieldMeta:
        return FieldMeta(name, "number", "money")

    assert chosen_by("total", money("total"), 10.0)
    assert chosen_by("amount_due", money("amount_due"), 10.0)
    for name in ("amount_paid", "amount_refunded", "tax_total", "fees"):
        assert not chosen_by(name, money(name), 10.0), name
