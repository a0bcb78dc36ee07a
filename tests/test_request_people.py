"""The people of a request stay who they are: work done for a colleague ends with telling
them it is done and hands nothing back to them; a record copied for one person (the
payment a lookup must find, a decoy beside it) is that person's in every field and every
reference; nobody holds two roles of one record; and a threshold decides by a value the
agent had to read, not one the request itself just set."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from library.compose import ComposeConfig, ComposeEnv, make_env
from library.compose.coherence import may_write, range_pairs
from library.compose.context import Entity
from library.compose.domains import TEAM_WORK
from library.compose.inject import put
from library.compose.motifs import BY_NAME, STAFF_WORKFLOWS, part_of
from library.compose.mutants import lookup
from library.compose.roles import TAKES_WORK, is_staff_role, role_of
from library.compose.walk import Walker
from library.compose.walk_state import Reject
from library.seed import vocab
from library.seed.vocab import is_person_resource, is_staff_resource
from library.seed.vocab import role_of as field_role
from tests.compose_walks import finished_walks, forced
from tests.libraries import bundled_library

SERVICES = [
    "helpdesk", "mail", "todo", "customer_success", "expenses", "issue_tracker", "payments",
    "storefront", "invoicing", "returns", "subscriptions", "crm",
]  # fmt: skip


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    return make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))


@pytest.fixture(scope="module")
def walks(env: ComposeEnv) -> list[Walker]:
    return finished_walks(env, 240, "people")


def _for_a_colleague(env: ComposeEnv, walker: Walker) -> set[str]:
    if walker.motif is None or walker.motif.name in STAFF_WORKFLOWS:
        return set()
    people = {env.identity("email", s) for s in walker.subjects()}
    return people if people and all(env.is_staff("email", p) for p in people) else set()


def test_telling_the_colleague_it_is_done_ends_the_request(
    env: ComposeEnv, walks: list[Walker]
) -> None:
    """Once the request's colleague is told the work is done ("nothing more is needed from
    you"), nothing more is done; and no work goes back on their plate (no task assigned to
    them, no ticket handed back to them)."""
    reported = colleague_requests = 0
    for walker in walks:
        colleagues = _for_a_colleague(env, walker)
        if not colleagues:
            continue
        colleague_requests += 1
        told_at = None
        for i, step in enumerate(walker.steps):
            if not step.write:
                continue
            assert told_at is None, ("a write after reporting back", told_at, i)
            for name, value in step.args.items():
                if role_of(name) in TAKES_WORK and isinstance(value, str):
                    assert env.identity("email", value) not in colleagues, (step.tool.name, name)
            told = walker._recipients(step.tool, step.args, step.entity)
            if told and told <= colleagues:
                told_at = i
                reported += 1
    assert colleague_requests >= 10 and reported >= 5, (colleague_requests, reported)


def _as_found(walker: Walker) -> Any:
    """The walk's world as the request found it: the seeded world and the injections."""
    world = walker.world
    world.restore(walker.base)
    for injection in walker.injections:
        put(world, injection)
    return world


def test_a_record_made_for_a_person_is_theirs_in_every_field(
    env: ComposeEnv, walks: list[Walker]
) -> None:
    """A record injected for one person (the orders a lookup by their e-mail must find, the
    decoys beside it) points at that person's own record (``customer_id``), sends its
    receipt to them, and names no one in two roles (their own report is not one they
    approve)."""
    tied = 0
    for walker in walks:
        world = _as_found(walker)
        for injection in walker.injections:
            info = env.catalog.collection(injection.service, injection.collection)
            if info is None:
                continue
            state = world.services[injection.service].state
            record = injection.record.model_dump(mode="json")
            emails = {
                n: v
                for n, m in info.fields.items()
                if m.key == "email" and isinstance(v := record.get(n), str)
            }
            roles = {}
            for n, v in emails.items():
                assert roles.setdefault(v, field_role(n)) == field_role(n), (record, n)
            for n, m in info.fields.items():
                ref = str(m.key or "")
                target = getattr(state, ref[3:], None) if ref.startswith("id:") else None
                owner = target.get(record.get(n)) if target is not None else None
                own = getattr(owner, "email", None)
                if not isinstance(own, str) or env.is_staff("email", own):
                    continue
                for field, value in emails.items():
                    if not env.is_staff("email", value):
                        tied += 1
                        assert value == own, (injection.collection, n, field, value, own)
    assert tied >= 20, tied


def test_a_threshold_reads_a_value_the_request_did_not_set(walks: list[Walker]) -> None:
    """ "If the subscription's seats are above 23" after "set its seats to 15" decides
    nothing: a threshold's number is one no step of the plan wrote, before it or in it
    ("set its story points to 100; its priority is highest if they are above 2")."""
    thresholds = 0
    for walker in walks:
        envelopes = [s.envelope or {} for s in walker.steps]
        for i, step in enumerate(walker.steps):
            for bind in step.binds.values():
                if bind.get("rule") != "threshold":
                    continue
                thresholds += 1
                k, path = bind["step"], str(bind["path"])
                where, _, field = path.rpartition(".")
                data = envelopes[k].get("data")
                source = lookup(data, where) if where else data  # a record, or a list's item
                rid = source.get("id") if isinstance(source, dict) else None
                for earlier in walker.steps[: i + 1]:  # ... nor the step itself
                    if earlier.write and earlier.entity is not None and earlier.entity.id == rid:
                        assert field not in earlier.args, (earlier.tool.name, field)
    assert thresholds >= 10, thresholds


_Offboarding = forced("offboarding")


def test_no_one_holds_two_roles_of_a_record_made_for_them() -> None:
    """A leaver's reports to approve, found or made for the request, are never reports they
    filed themselves: a record copied to hold a person in one role (the approver) is not
    one holding them in another (the employee)."""
    library = bundled_library(["identity", "expenses", "helpdesk", "todo", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))
    made = 0
    for walker in finished_walks(env, 120, "two roles", _Offboarding):
        for injection in walker.injections:
            if injection.collection != "expense_reports":
                continue
            made += 1
            record = injection.record.model_dump(mode="json")
            assert record["employee_email"] != record["approver_email"], record
    assert made >= 10, made


_Billing = forced("billing")


_Refund = forced("refund")


def test_an_action_is_taken_only_where_the_record_asks_for_it() -> None:
    """A return request asking for an exchange is not refunded: where a field's options name
    the action (refund, exchange, store credit), the record acted on asks for that one."""
    library = bundled_library(["returns", "storefront", "mail", "todo", "invoicing"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    refunded = 0
    for walker in finished_walks(env, 120, "asked", _Refund):
        for step in walker.steps:
            if step.tool.collection == "return_requests" and step.write and step.entity:
                # refunded, or approved or received within a refund: one asking for a refund
                refunded += 1
                assert step.entity.record.get("resolution") in (None, "refund"), step.entity.record
    assert refunded >= 10, refunded


def test_a_colleague_has_no_customer_record() -> None:
    """Someone leaving is found in our people's records (their user, their employee record),
    never as a lead, a contact or a customer of their own: those are outside people's."""
    library = bundled_library(["identity", "crm", "helpdesk", "todo", "storefront", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))
    walks = finished_walks(env, 150, "no lead", _Offboarding)
    for walker in walks:
        for step in walker.steps:
            coll = str(step.tool.collection or "")
            if is_person_resource(coll) and not is_staff_resource(coll):
                value = step.args.get("email")
                assert not env.is_staff("email", value), (step.tool.qualified, value)
    assert len(walks) >= 30, len(walks)


def test_a_business_key_names_one_record() -> None:
    """A shipment found by its tracking number is the one with that number: no selection
    rule picks among records sharing a key that names one record (decoys share the
    filtered fields, so none is made for such a key)."""
    library = bundled_library(["shipping", "storefront", "todo", "mail", "notes"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    by_key = 0
    for walker in finished_walks(env, 150, "one key"):
        for step in walker.steps:
            if step.tool.qualified == "shipping__list_shipments" and "tracking_number" in step.args:
                by_key += 1
                assert step.rule is None, step.text
    assert by_key >= 5, by_key


def test_money_received_is_not_voided() -> None:
    """An invoice with money paid on it is settled or refunded, never voided or cancelled
    as if nothing had been paid (``may_write``, which every write's target passes)."""
    part_paid = {"status": "partially_paid", "amount_paid": 120.5, "total": 300.0}
    assert not may_write(part_paid, "action", "void_invoice")
    assert not may_write({"status": "sent", "amount_paid": 1}, "action", "cancel_invoice")
    assert may_write({"status": "sent", "amount_paid": 0.0}, "action", "void_invoice")
    # nor sent again: it went out before money came in (a reminder is a message, not a send)
    assert not may_write(part_paid, "action", "send_invoice")


def test_who_is_taken_off_a_record_is_not_asked_to_act_on_it(walks: list[Walker]) -> None:
    """A to-do or a meeting for a ticket's assignee, then the ticket reassigned, asks work of
    someone the request takes off it: a record handed to someone else hands over from a
    person the plan gave no work (their note on it before it moves on is no work)."""
    handed = 0
    given = {"assignee", "assigned_to", "host", "organizer", "recipient", "owner"}
    for walker in walks:
        world = _as_found(walker)
        for i, step in enumerate(walker.steps):
            entity = step.entity
            if not step.write or entity is None or entity.created:
                continue
            found = getattr(world.services[entity.service].state, entity.collection).get(entity.id)
            before = found.model_dump(mode="json") if found is not None else {}
            leaving = {
                walker.env.identity("email", before[name])
                for name, value in step.args.items()
                if name != step.tool.own
                and is_staff_role(role_of(name))
                and isinstance(before.get(name), str)
                and value != before.get(name)
            }
            if not leaving:
                continue
            handed += 1
            for earlier in walker.steps[:i]:
                if earlier.write:
                    for n, v in earlier.args.items():
                        for person in v if isinstance(v, list) else [v]:
                            if role_of(n) in given and isinstance(person, str):
                                who = walker.env.identity("email", person)
                                assert who not in leaving, (earlier.tool.name, step.tool.name)
    assert handed >= 20, handed


_Expenses = forced("expenses")


def test_what_hangs_on_a_decided_record_is_settled_with_it() -> None:
    """An expense of a report the request approved, or submitted (or found approved), is
    not changed afterwards: the decision covers what it decided on, and what is sent for
    approval is fixed before it goes; and an expense on another report than the one the
    request works on is another claim (one claim a request)."""
    library = bundled_library(["expenses", "todo", "mail", "identity"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))
    edited = 0
    for walker in finished_walks(env, 1500, "decided", _Expenses):
        decided: set[str] = set()
        reports: set[str] = set()
        for step in walker.steps:
            if step.write and step.tool.collection == "expense_reports" and step.entity:
                reports.add(str(step.entity.id))
                if step.tool.name.endswith("_expense_report") and step.kind == "action":
                    decided.add(str(step.entity.id))  # submitted, approved, rejected...
            if step.tool.name == "update_expense" and step.entity is not None:
                edited += 1
                report = step.entity.record.get("expense_report_id")
                assert report not in decided, step.entity.record
                assert not reports or report in reports, (reports, step.entity.record)
    assert edited >= 1, edited  # few: most claims are decided, and then nothing of them moves


def test_a_refund_sends_out_no_bill() -> None:
    """A refund gives money back: sending an invoice or a quote for payment is no part of it,
    nor is voiding an invoice (only one nobody paid is voided) or cancelling a payment only
    authorised (a void: billing's); telling the customer is, and refunding their payment is."""
    refund = BY_NAME["refund"]
    assert not part_of(refund, "send_invoice", "invoices")
    assert not part_of(refund, "send_quote", "quotes")
    assert not part_of(refund, "void_invoice", "invoices")
    assert not part_of(refund, "cancel_payment", "payments")
    assert part_of(BY_NAME["billing"], "cancel_payment", "payments")
    assert part_of(refund, "refund_payment", "payments")
    assert part_of(refund, "send_message", "messages")
    assert part_of(BY_NAME["billing"], "void_invoice", "invoices")


_Scheduling = forced("scheduling")


def test_someone_asks_to_meet() -> None:
    """Scheduling is for a person (a customer who wrote in, a colleague): it never opens on a
    record ("The event 'Open House' is part of some scheduling")."""
    library = bundled_library(["event_registration", "meetings", "calendar", "mail", "crm"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    walks = finished_walks(env, 150, "meet", _Scheduling)
    for walker in walks:
        assert walker._opened_on_a_person(), walker.steps[0].tool.qualified
    assert len(walks) >= 10, len(walks)


def test_one_notice_a_person(walks: list[Walker]) -> None:
    """Each person is told once: an e-mail, a draft, a reply, or a new to-do assigned to
    them (an e-mail and a to-do saying the same to one colleague is one too many); and no
    to-do goes to whoever the plan assigned a record to (the ticket is their work)."""
    notices = handed_over = 0
    for walker in walks:
        told: set[str] = set()
        handed: set[str] = set()  # given a record (a ticket assigned to them)
        for step in walker.steps:
            if not step.write:
                continue
            these = walker._recipients(step.tool, step.args, step.entity)
            given = {
                walker.env.identity("email", v)
                for n, v in step.args.items()
                if role_of(n) in TAKES_WORK and isinstance(v, str)
            }
            if step.tool.kind == "create" and step.tool.collection == "tasks":
                these = these | given
                # a to-do for whoever the plan just assigned the ticket to repeats it
                assert not given & handed, (step.tool.qualified, given & handed)
            elif step.tool.kind != "create":
                handed |= given
                handed_over += len(given)
            assert not these & told, (step.tool.qualified, these & told)
            told |= these
            notices += len(these)
    assert notices >= 100 and handed_over >= 20, (notices, handed_over)


def test_a_stated_span_is_one_of_its_kind() -> None:
    """A room booked or an event set up runs an hour or two, a rental some days: a stated
    start and end make one span of the record's kind, not two dates drawn weeks apart."""
    library = bundled_library(["workplace", "calendar", "car_rental", "hr", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    spans = 0
    for walker in finished_walks(env, 240, "span"):
        for step in walker.steps:
            if step.tool.kind != "create":
                continue
            for start, end in range_pairs(step.args):
                a, b = step.args[start], step.args[end]
                if step.binds[start].get("from") != "user" or not isinstance(a, str):
                    continue
                days = (dt.datetime.fromisoformat(b[:10]) - dt.datetime.fromisoformat(a[:10])).days
                limit = 15 if step.tool.service == "car_rental" else 2
                assert 0 <= days <= limit, (step.tool.qualified, start, a, end, b)
                spans += 1
    assert spans >= 5, spans


def test_a_status_is_not_a_request() -> None:
    """An invoice whose status could become "void" is voided in a billing clean-up: a status
    lists where actions lead, not an outcome someone asked for (as a return's resolution
    does)."""
    library = bundled_library(["crm", "helpdesk", "invoicing"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    walks = finished_walks(env, 150, "void", _Billing)
    voided = sum(s.tool.name == "void_invoice" for w in walks for s in w.steps)
    assert voided >= 10, voided


def test_money_received_follows_the_status() -> None:
    """A seeded invoice shows money paid as its status says: all of it once paid, part of
    it while partially paid, none while a draft, sent or overdue."""
    library = bundled_library(["invoicing"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    seen = set()
    for seed in range(3):
        world, _ = env.world(seed)
        for invoice in world.services["invoicing"].state.invoices.values():
            paid, total = invoice.amount_paid or 0.0, invoice.total
            seen.add(invoice.status)
            if invoice.status == "paid":
                assert paid == total, invoice
            elif invoice.status == "partially_paid":
                assert 0 < paid < total, invoice
            else:
                assert paid == 0, invoice
    assert {"paid", "sent"} <= seen, seen


def test_a_customer_s_work_does_not_open_on_our_suppliers() -> None:
    """A refund is a customer's: it never opens on a supplier in Procurement ("The vendor
    'Salazar Ltd'"), whose order is then refunded and who is written to as a customer."""
    library = bundled_library(["procurement", "storefront", "returns", "mail", "invoicing"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    walks = finished_walks(env, 200, "supplier", _Refund)
    for walker in walks:
        assert walker.steps[0].tool.service != "procurement", walker.steps[0].tool.qualified
    assert len(walks) >= 20, len(walks)


def _addresses(value: Any) -> list[dict[str, Any]]:
    """Every nested address (a mapping with a city and a country) inside a record."""
    if isinstance(value, dict):
        here = [value] if {"city", "country"} <= set(value) else []
        return here + [a for v in value.values() for a in _addresses(v)]
    if isinstance(value, list):
        return [a for v in value for a in _addresses(v)]
    return []


def test_an_address_is_in_the_country_of_its_city(walks: list[Walker]) -> None:
    """A nested address names the country its city is in (Lyon is in FR, not in the US
    that the spec's example gives), in the seeded records and in those copied for a
    person, whose copy carries that person's own address."""
    country_of = {city: c for c, places in vocab.CITIES.items() for city, _ in places}
    checked = moved = 0
    for walker in walks:
        world = _as_found(walker)
        for name, svc in world.services.items():
            for coll in type(svc.state).model_fields:
                records = getattr(svc.state, coll)
                for record in records.values() if isinstance(records, Mapping) else ():
                    for address in _addresses(record.model_dump(mode="json")):
                        if address["city"] in country_of and address["country"]:
                            checked += 1
                            assert address["country"] == country_of[address["city"]], (
                                name,
                                coll,
                                address,
                            )
        for injection in walker.injections:
            record = injection.record.model_dump(mode="json")
            person = walker.env.pool.person_by_email(str(record.get("customer_email") or ""))
            for address in _addresses(record) if person is not None else ():
                moved += 1
                assert address["city"] == person.city, (injection.collection, address, person)
    assert checked >= 500 and moved >= 5, (checked, moved)


def test_a_copy_has_numbers_of_its_own(walks: list[Walker]) -> None:
    """A record copied for a request (a decoy, the invoice a lookup must find) gets its own
    invoice, order or issue number: no two records of a collection share a number that
    names one record, and its prose cites its own number ("... invoice INV-2026-3116")."""
    keys = {"invoice_number", "order_number", "quote_number", "key"}
    copies = cited = 0
    for walker in walks:
        world = _as_found(walker)
        for injection in walker.injections:
            records = getattr(world.services[injection.service].state, injection.collection)
            for field in keys & set(type(injection.record).model_fields):
                value = getattr(injection.record, field)
                if not isinstance(value, str):
                    continue
                copies += 1
                sharing = [r.id for r in records.values() if getattr(r, field) == value]
                assert sharing == [injection.record.id], (injection.collection, field, sharing)
        for payment in world.services["payments"].state.payments.values():
            said = re.findall(r"INV-\d{4}-\d{4}", str(payment.description or ""))
            if said:
                cited += 1
                assert said == [payment.invoice_number], (payment.description, payment)
    assert copies >= 30 and cited >= 30, (copies, cited)


def test_a_record_found_by_another_s_number_is_their_customer_s(
    env: ComposeEnv, walks: list[Walker]
) -> None:
    """The payment a lookup finds by the number of the customer's invoice was paid by that
    customer: its receipt goes to them and it is charged to their customer record, not to
    whoever the copied payment belonged to; it paid what the invoice shows paid, in the
    invoice's currency (not a copied 50,481.27 AUD on a 4,252.69 EUR draft invoice)."""
    # Rare in walks since a bill with money on it is neither sent nor voided (they find
    # a customer's payments by e-mail): checked wherever it happens, and the money rule
    # (``_settling``) is checked directly below.
    for walker in walks:
        world = _as_found(walker)
        # the invoices of the world as the request found it (a billing walk may only look
        # the payment up: the invoice it cites is then one the walk never stepped on)
        invoices = {
            inv.invoice_number: inv.model_dump(mode="json")
            for inv in world.services["invoicing"].state.invoices.values()
        }
        customers = world.services["payments"].state.customers
        for injection in walker.injections:
            if injection.collection != "payments":
                continue
            payment = injection.record
            if payment.invoice_number in invoices:
                invoice = invoices[payment.invoice_number]
                assert payment.receipt_email == invoice["customer_email"], payment
                assert invoice.get("amount_paid", 0) > 0, (invoice, payment)
                assert payment.amount == invoice["amount_paid"], (invoice, payment)
                assert payment.currency == invoice["currency"], (invoice, payment)
                assert customers[payment.customer_id].email == payment.receipt_email
    walker = walks[0]
    info = walker._coll("payments", "payments")
    assert info is not None
    part_paid = {"invoice_number": "INV-1", "amount_paid": 120.5, "total": 300.0}
    invoice = Entity(
        "invoicing", "invoices", "inv_1", {**part_paid, "currency": "EUR"}, 0, "", "invoice"
    )
    assert walker._settling(info, invoice) == {"amount": 120.5, "currency": "EUR"}
    draft = Entity(
        "invoicing", "invoices", "inv_2", {**part_paid, "amount_paid": 0}, 0, "", "invoice"
    )
    with pytest.raises(Reject, match="lookup_empty"):
        walker._settling(info, draft)  # nothing paid on it: no payment to find


def test_money_received_is_not_asked_for_again(env: ComposeEnv, walks: list[Walker]) -> None:
    """No new payment, payment link or invoice is for the amount of a payment already made
    (the invoice's payment exists: a link for its amount asks for the money twice); only a
    refund takes a payment's amount."""
    carried = 0
    # (billing work too: payments are taken only of bills still owed, which few walks find)
    for walker in walks + finished_walks(env, 180, "money", _Billing):
        for step in walker.steps:
            if not step.write:
                continue
            amounts = [
                v for n, v in step.args.items() if (p := step.tool.param(n)) and p.key == "money"
            ]
            for fact in step.sources:
                if fact.key != "money" or fact.value not in amounts:
                    continue  # (a to-do's notes may cite a payment's amount)
                carried += 1
                paid = {"payment", "payments", "charge", "charges"} & set(
                    fact.entity.collection.split("_")
                )
                refund = "refund" in str(step.tool.collection)
                assert refund or not paid, (step.tool.name, fact.entity.collection, fact.field)
    assert carried >= 4, carried


_Hiring = forced("hiring")


_Travel = forced("travel")


def test_a_customer_s_booking_carries_no_cost_center_of_ours() -> None:
    """Which of our budgets pays is set on a colleague's booking, never on a customer's
    ("change the booking with Eddie as booker so that its cost center is CC-2300")."""
    library = bundled_library(["flights", "car_rental", "hotels", "crm", "mail", "todo", "hr"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    theirs = ours = 0
    for walker in finished_walks(env, 300, "cost", _Travel):
        charged = any(s.write and "cost_center" in s.args for s in walker.steps)
        if walker._for_an_outsider():
            theirs += 1
            assert not charged, [(s.tool.name, s.args) for s in walker.steps]
        else:
            ours += charged
    assert theirs >= 10 and ours >= 1, (theirs, ours)


def test_a_customer_s_trip_books_no_briefing() -> None:
    """A customer's trip changes their bookings and tells them: no meeting is booked about
    it (a trip briefing is a colleague's, with their manager, and only theirs)."""
    library = bundled_library(["flights", "hotels", "crm", "hr", "meetings", "mail", "calendar"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    theirs = 0
    for walker in finished_walks(env, 300, "briefing", _Travel):
        if not walker._for_an_outsider():
            continue
        theirs += 1
        meetings = [
            s
            for s in walker.steps
            if s.write and s.tool.collection in ("meetings", "events") and s.kind == "create"
        ]
        assert not meetings, [s.tool.name for s in walker.steps]
    assert theirs >= 10, theirs


def test_what_the_plan_files_starts_at_its_first_step() -> None:
    """A record the request makes moves on one stage at most (a new issue started, a new
    report submitted): never straight past the work between ("file an issue, then set it
    in review"); a record it found may move on as its work says."""
    library = bundled_library(["issue_tracker"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    rid = next(iter(world.services["issue_tracker"].state.issues))
    made = Entity("issue_tracker", "issues", rid, {}, 0, "", "the issue", created=True)

    def moved(old: str, new: str) -> Any:
        issues = {"issues": SimpleNamespace(updated={rid: {"status": (old, new)}})}
        return SimpleNamespace(services={"issue_tracker": issues})

    assert not walker._skips_ahead(moved("todo", "in_review"))  # found: its own pace
    walker.entities.append(made)
    assert walker._skips_ahead(moved("todo", "in_review"))
    assert walker._skips_ahead(moved("backlog", "in_progress"))
    assert not walker._skips_ahead(moved("todo", "in_progress"))
    assert not walker._skips_ahead(moved("todo", "wont_do"))  # given up: an end, not a skip


def test_someone_s_scheduling_books_one_time() -> None:
    """A colleague's scheduling books one time: a meeting, an interview or a room, not an
    interview, then a meeting with their manager, then a room at another hour."""
    library = bundled_library(["recruiting", "meetings", "workplace", "hr", "calendar", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.5))
    booked = 0
    for walker in finished_walks(env, 300, "one time", _Scheduling):
        times = [
            s.tool.qualified
            for s in walker.steps
            if s.write
            and s.kind == "create"
            and {"meeting", "meetings", "event", "events", "interviews", "bookings"}
            & set(str(s.tool.collection).split("_"))
        ]
        booked += bool(times)
        assert len(times) <= 1, times
    assert booked >= 30, booked


def test_money_is_taken_for_what_is_owed() -> None:
    """No payment or payment link is for the total of a quote the customer has not accepted
    (charging them right after the quote is sent); an invoice's total may be paid."""
    library = bundled_library(["quotes", "payments", "invoicing", "crm", "todo", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    # the work that takes money (not the team's own work on its task board)
    env.workflows = [(m, w) for m, w in env.workflows if m.name not in TEAM_WORK]
    paid = 0
    for walker in finished_walks(env, 560, "owed"):
        for step in walker.steps:
            if not (step.write and step.tool.service == "payments" and step.kind == "create"):
                continue
            for fact in step.sources:
                if fact.key == "money":
                    paid += 1
                    offer = fact.entity.collection == "quotes"
                    status = fact.entity.record.get("status")
                    assert not offer or status == "accepted", (step.tool.name, status)
    assert paid >= 5, paid


def test_a_new_record_is_in_the_currency_of_whom_it_is_for() -> None:
    """A currency the request states for a new record follows the person it is for: a
    colleague's expense report is in our currency, never one drawn at random."""
    library = bundled_library(["expenses", "flights", "hr", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    ours = env.pool.org.currency
    stated = 0
    for walker in finished_walks(env, 400, "currency"):
        for step in walker.steps:
            said = step.binds.get("currency", {}).get("from") == "user"
            if step.write and step.kind == "create" and said:
                stated += 1
                assert step.args["currency"] == ours, (step.tool.name, step.args)
    assert stated >= 5, stated


def test_an_approver_decides_and_does_not_file() -> None:
    """A colleague who approves an expense report has it approved or sent back for them,
    never submitted: submitting is the employee's act."""
    library = bundled_library(["expenses", "hr", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    acted = 0
    for walker in finished_walks(env, 400, "approver", _Expenses):
        subjects = {env.identity("email", s) for s in walker.subjects()}
        for step in walker.steps:
            if step.write and step.kind == "action" and step.entity is not None:
                record = step.entity.record
                if env.identity("email", str(record.get("approver_email"))) in subjects:
                    acted += 1
                    assert not step.tool.name.startswith("submit"), step.tool.name
    assert acted >= 10, acted


def test_a_person_is_found_by_who_they_are() -> None:
    """A request that names a person record by a search says who they are (a name, an
    e-mail), never where they work ("the candidate 'Mann-Kelley'")."""
    library = bundled_library(["recruiting", "meetings", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    searched = 0
    for walker in finished_walks(env, 600, "who they are", _Hiring):
        first = walker.steps[0]
        query = first.args.get("query")
        if not isinstance(query, str) or not is_person_resource(str(first.tool.collection)):
            continue
        searched += 1
        record = first.entity.record if first.entity is not None else {}
        companies = {v for k, v in record.items() if k in ("company", "current_company")}
        assert query not in companies, (first.tool.name, query)
    assert searched >= 5, searched  # enough searches seen (fewer walks reach them since
    # lookups that only bookkeeping fields could tell apart are refused)


_Escalation = forced("escalation")


def test_a_threshold_is_not_read_off_what_its_own_step_sets() -> None:
    """ "Set the issue's story points to 100; its priority is highest if they are above 2"
    decides nothing: a step's threshold reads no field the same step sets."""
    library = bundled_library(["issue_tracker", "customer_success", "meetings", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    thresholds = 0
    for walker in finished_walks(env, 400, "same step", _Escalation):
        for step in walker.steps:
            for bind in step.binds.values():
                if bind.get("rule") != "threshold":
                    continue
                thresholds += 1
                field = str(bind["path"]).rpartition(".")[2]
                assert not (step.write and field in step.args), (step.tool.name, field)
    assert thresholds >= 20, thresholds


def test_an_invite_is_a_notice() -> None:
    """Whoever a new meeting invites (its host) has been told: no to-do or e-mail to them
    follows ("book an incident review hosted by the reporter, then add them a to-do")."""
    library = bundled_library(["issue_tracker", "meetings", "todo", "mail", "hr"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    invited = 0
    for walker in finished_walks(env, 400, "invite", _Escalation):
        told: set[str] = set()
        for step in walker.steps:
            if not step.write:
                continue
            these = walker._recipients(step.tool, step.args, step.entity)
            people = {
                env.identity("email", v)
                for n, v in step.args.items()
                if role_of(n) in ("host", "assignee") and isinstance(v, str)
            }
            if step.kind == "create" and step.tool.collection in ("meetings", "tasks"):
                these |= people
                invited += step.tool.collection == "meetings"
            assert not these & told, (step.tool.qualified, these & told)
            told |= these
    assert invited >= 20, invited


def test_what_a_payment_is_for_is_the_bill_the_request_works_on() -> None:
    """A payment link's description cites the invoice the request works on, by its number:
    not "Clayton-Cook invoice INV-2026-3189", a made-up company and number for Kristen
    Kirby of Walker."""
    library = bundled_library(["invoicing", "payments", "crm"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.2))
    links = 0
    for walker in finished_walks(env, 200, "link", _Billing):
        numbers = {
            s.entity.record.get("invoice_number")
            for s in walker.steps
            if s.entity is not None and s.entity.collection == "invoices"
        }
        for step in walker.steps:
            if step.tool.name == "create_payment_link":
                links += 1
                assert step.args["description"] in numbers, (step.args, numbers)
    assert links >= 5, links


_Expenses2 = forced("expenses", "escalation")


def test_a_post_in_a_colleague_s_channel_is_said_to_them() -> None:
    """A message posted in the channel of a colleague's own message is read by that
    colleague: it is said as to a colleague (or reports the work to whoever asked), never as
    to a customer ("Your expenses are approved and will be paid", "We have escalated your
    case to a senior engineer" into Christopher's channel, after a report only submitted)."""
    from library.compose.topics import INTERNAL_TEXTS, TOPIC_TEXTS

    library = bundled_library(["expenses", "chat", "todo", "customer_success", "identity"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    posts = 0
    for walker in finished_walks(env, 400, "channel", _Expenses2):
        for step in walker.steps:
            if step.tool.name != "create_message" or walker.motif is None:
                continue
            posts += 1
            customers = set(TOPIC_TEXTS.get(walker.motif.name, {}).get("body:message", ()))
            ours = set(INTERNAL_TEXTS.get(walker.motif.name, {}).get("body:message", ()))
            assert step.args["text"] not in customers - ours, (walker.motif.name, step.args)
    assert posts >= 5, posts


_FollowUp = forced("follow-up")


def test_a_follow_up_writes_to_whom_it_follows_up() -> None:
    """A customer's follow-up reaches them: it writes to them (a reply, a new message, a
    draft) or logs a call with them. One that only comments "Customer contacted; waiting to
    hear back" and reassigns the ticket follows up on nobody."""
    library = bundled_library(["mail", "helpdesk", "voice", "crm", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    theirs = 0
    for walker in finished_walks(env, 200, "follow", _FollowUp):
        if not walker._for_an_outsider():
            continue
        theirs += 1
        subjects = {env.identity("email", s) for s in walker.subjects()}
        told = [
            s
            for s in walker.steps
            if walker._recipients(s.tool, s.args, s.entity) & subjects
            or (s.write and walker._their_call(s, subjects))
        ]
        assert told, [(s.tool.name, s.args) for s in walker.steps if s.write]
    assert theirs >= 10, theirs


def test_a_post_in_a_channel_is_a_notice_to_its_readers() -> None:
    """A chat post in the channel of a colleague's message tells that colleague: no mail
    reply saying the same to them beside it ("I've taken care of the escalation for you"
    in John's channel and again in reply to his e-mail)."""
    library = bundled_library(["expenses", "chat", "mail", "issue_tracker", "meetings", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.4))
    posts = 0
    # (a post in a colleague's channel is rare: a second batch where the first has few)
    walks = (w for tag in ("posts", "posts2") for w in finished_walks(env, 400, tag, _Expenses2))
    for walker in walks:
        if posts >= 5:
            break
        told: set[str] = set()
        for step in walker.steps:
            if not step.write:
                continue
            these = walker._recipients(step.tool, step.args, step.entity)
            if step.tool.name == "create_message":  # whoever wrote in that channel reads it
                these = walker.readers_of(step.args["channel_id"])
                posts += bool(these)
            assert not these & told, [(s.tool.name, s.args) for s in walker.steps if s.write]
            told |= these
    assert posts >= 5, posts


def test_no_to_do_for_whom_the_plan_handed_a_record() -> None:
    """Whoever the plan just made a record's recruiter, owner or assignee has their notice
    of it: no to-do about it follows ("change the application's recruiter to Nicole, book
    its interview with Nicole, then add a task for Nicole")."""
    from library.compose.roles import hands_over

    library = bundled_library(["recruiting", "todo", "identity", "crm", "calendar", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    to_dos = 0
    for walker in finished_walks(env, 300, "handed", forced("hiring", "offboarding")):
        handed: set[str] = set()
        for step in walker.steps:
            if not step.write:
                continue
            if step.tool.kind == "create" and step.tool.collection == "tasks":
                to_dos += 1
                for name, value in step.args.items():
                    if role_of(name) in TAKES_WORK and isinstance(value, str):
                        assert env.identity("email", value) not in handed, [
                            (s.tool.name, s.args) for s in walker.steps if s.write
                        ]
            elif step.tool.kind != "create":
                handed |= {
                    env.identity("email", v)
                    for n, v in step.args.items()
                    if isinstance(v, str) and "@" in v and hands_over(role_of(n))
                }
    assert to_dos >= 10, to_dos


def test_nothing_is_paid_on_a_bill_the_plan_called_off() -> None:
    """No payment or payment link takes the amount of an invoice the plan voided ("void
    James's newest invoice, then add a payment of the invoice's total")."""
    library = bundled_library(["invoicing", "payments", "crm", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.3))
    voided = 0
    for walker in finished_walks(env, 300, "void", _Billing):
        called_off: set[str] = set()
        for step in walker.steps:
            if step.write and step.tool.name == "void_invoice" and step.entity is not None:
                called_off.add(step.entity.id)
                voided += 1
            moves = step.write and step.tool.collection in ("payments", "payment_links")
            for fact in step.sources if moves else ():
                if fact.key == "money":
                    assert fact.entity.id not in called_off, [
                        (s.tool.name, s.args) for s in walker.steps if s.write
                    ]
    assert voided >= 5, voided


def test_a_copy_for_a_sender_is_no_message_to_themselves() -> None:
    """A message copied so that a lookup finds one from Ann is not one sent to Ann: a list
    of recipients holding her makes the copy one person in two roles (from = to)."""
    from types import SimpleNamespace

    from library.compose.lookups import _names_elsewhere
    from tests.libraries import bundled_library

    lib = bundled_library(["mail"])
    info = make_env(lib.classes, lib.nodes).catalog.collection("mail", "messages")
    ann = "ann.lee@changfisher.com"
    to_ann = SimpleNamespace(**{"from": "bo@x.com", "to": [ann], "cc": []})
    to_bo = SimpleNamespace(**{"from": "cy@x.com", "to": ["bo@x.com"], "cc": []})
    assert _names_elsewhere(to_ann, info, {ann}, ["from"])
    assert not _names_elsewhere(to_bo, info, {ann}, ["from"])


def test_a_customer_s_trip_lists_no_colleague_of_ours() -> None:
    """A flight booking copied for a customer (the one the request finds by their e-mail)
    flies the customer: its passengers are not the colleagues on the booking it came from."""
    library = bundled_library(["flights", "hotels", "car_rental", "todo", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    trips = 0
    for walker in finished_walks(env, 80, "trips", forced("travel")):
        world = walker.world
        world.restore(walker.base)
        for injection in walker.injections:
            put(world, injection)
        for booking in world.services["flights"].state.bookings.values():
            booker = booking.booker_email
            if booker is None or env.is_staff("email", booker):
                continue  # our own staff's trips may list colleagues
            if not any(i.record is booking or i.record.id == booking.id for i in walker.injections):
                continue
            emails = [p.email for p in booking.passengers if p.email]
            assert not [e for e in emails if env.is_staff("email", e)], (booker, emails)
            trips += 1
    assert trips >= 3, trips


def test_no_payment_is_taken_for_a_bill_already_settled() -> None:
    """Money is taken for what is owed: a payment (or a payment link) of an invoice's total
    is never for an invoice already paid, partly paid or called off."""
    from library.compose.binding import _SETTLED
    from library.compose.coherence import money_taken, status_of

    library = bundled_library(["invoicing", "payments", "helpdesk", "todo", "mail"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    taken = 0
    for walker in finished_walks(env, 150, "owed", _Billing):
        world = walker.world
        world.restore(walker.base)
        for injection in walker.injections:
            put(world, injection)
        for step in walker.steps:
            if step.tool.kind != "create" or step.tool.service != "payments":
                continue
            for name, bind in step.binds.items():
                if bind.get("from") != "step" or name not in ("amount", "amount_due", "total"):
                    continue
                source = walker.steps[bind["step"]].entity
                assert source is not None
                state = world.services[source.service].state
                record = getattr(state, source.collection)[source.id].model_dump(mode="json")
                assert status_of(record) not in _SETTLED and not money_taken(record), record
                taken += 1
    assert taken >= 5, taken


def test_nothing_is_posted_into_an_archived_channel() -> None:
    """A chat post goes into a channel in use: never one archived (the chat tool's own
    description says posting there fails)."""
    from library.compose.coherence import archived

    library = bundled_library(["expenses", "chat", "mail", "issue_tracker", "meetings", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.4))
    posts = shelved = 0
    # (posts are rare: more batches where the first has few)
    tags = ("shelved", "shelved2", "shelved3")
    batches = (w for tag in tags for w in finished_walks(env, 300, tag, _Expenses2))
    for walker in batches:
        if posts >= 5 and shelved >= 5:
            break
        world = walker.world
        world.restore(walker.base)
        for injection in walker.injections:
            put(world, injection)
        channels = world.services["chat"].state.channels
        shelved += sum(archived(c.model_dump()) for c in channels.values()) > 0
        for step in walker.steps:
            if step.tool.qualified == "chat__create_message":
                channel = channels[step.args["channel_id"]].model_dump()
                assert not archived(channel), channel
                posts += 1
    assert posts >= 5 and shelved >= 5, (posts, shelved)


def test_no_mail_goes_to_a_contact_who_asked_for_none() -> None:
    """A follow-up replies or writes to its customer only where no record of theirs says
    they want no messages (a CRM contact flagged ``do_not_contact``)."""
    from library.compose.coherence import opted_out

    library = bundled_library(["mail", "helpdesk", "crm", "todo", "voice"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=0.0))
    written = flagged = 0
    for walker in finished_walks(env, 150, "opted out", forced("follow-up")):
        world = walker.world
        world.restore(walker.base)
        for injection in walker.injections:
            put(world, injection)
        contacts = world.services["crm"].state.contacts.values()
        shy = {c.email for c in contacts if opted_out(c.model_dump())}
        flagged += bool(shy)
        for step in walker.steps:
            if step.write and step.tool.service == "mail":
                told = walker._recipients(step.tool, step.args, step.entity)
                assert not told & {env.identity("email", e) for e in shy}, (step.tool.name, told)
                written += 1
    assert written >= 10 and flagged >= 5, (written, flagged)


def test_no_one_covers_for_a_colleague_who_has_not_started(walks: list[Walker]) -> None:
    """ "I'm covering for Stephanie today" is never said of a new hire who has not started
    (their HR record still onboarding): the request then says it helps them instead."""
    from library.compose import compose as compose_module
    from library.compose.openings import STAFF, STAFF_HERE

    away = {t.split("{subject}")[-1] for t in STAFF if t not in STAFF_HERE}
    checked = 0
    for walker in walks:
        if walker.motif is None or not walker.steps:
            continue
        name = walker.motif.name
        for variant in range(len(STAFF)):
            text = compose_module._goal(walker.env, walker.steps, name, variant)
            if not any(tail.split("{")[0] in text for tail in away if tail.split("{")[0]):
                continue
            emails = re.findall(r'\("([^"]+@[^"]+)"\)', text)
            if not emails:
                continue
            checked += 1
            fresh = compose_module._goal(
                walker.env, walker.steps, name, variant, frozenset({emails[0].casefold()})
            )
            assert not any(tail.split("{")[0] in fresh for tail in away if tail.split("{")[0]), (
                text,
                fresh,
            )
            break
    assert checked >= 3, checked


def test_work_is_not_given_to_a_colleague_away_however_they_were_found(
    walks: list[Walker],
) -> None:
    """A colleague read off a record (a job's hiring manager) is not made an interviewer or
    an assignee while a record of theirs says they are away (on leave, suspended)."""
    from library.compose.catalog import Param

    checked = 0
    for walker in walks:
        subjects = walker.subjects()
        param = Param("assignee_email", False, "string", key="email")
        for fact in list(walker.facts):
            if fact.key != "email" or not walker.env.is_staff("email", fact.value):
                continue
            if walker.env.identity("email", fact.value) in subjects:
                continue
            found = walker._facts_for(param, fact.entity.service, ("", None))
            if fact not in found:
                continue
            walker._away = lambda away=str(fact.value).casefold(): frozenset({away})  # type: ignore[method-assign]
            try:
                assert fact not in walker._facts_for(param, fact.entity.service, ("", None))
            finally:
                del walker._away
            checked += 1
            break
    assert checked >= 3, checked
