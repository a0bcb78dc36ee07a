"""What a compiled service seeds by a field's meaning on a company's own record
(library/compiler/emit_seed.py, ``_by_meaning``, whose mutants survive in many small places,
bench/mutation.py): a company's name and phone are that company's; a number to call
(``to``, "the number to call") is its contact's phone, and the contact's address, country
and currency go with them; an enum too large for a Literal is seeded from its first
members; times nested in an object are past (a birth date decades back); a free-form map
the spec requires is empty; a deal's contact, guests and phones to call are its person's
(the first of each list), its tags the vocabulary's, one to three of them; a reason
that belongs to a state (``lost_reason``) is on the records in that state only; an amount
nested in an object is in its contact's company's currency; and a role's name and e-mail
are one person's, a colleague for a staff role (assignee), someone outside for a requester."""

from __future__ import annotations

import datetime as dt

from library.seed import seed_pool, vocab
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import _seeded_world

TEXT = {"type": "string"}
CODES = [f"code{k:02d}" for k in range(70)]
FIELDS = {
    "name": TEXT,
    "phone": TEXT,
    "size_code": {"type": "string", "enum": CODES},
    "visit": {
        "type": "object",
        "properties": {
            "on": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "birth_date": {"type": "string", "format": "date"},
        },
    },
    "billing_address": {
        "type": "object",
        "properties": {"street": TEXT, "city": TEXT, "postal_code": TEXT},
    },
    "to": {"type": "string", "description": "The number to call."},
    "currency": TEXT,
    "country": TEXT,
    "settings": {"type": "object"},
}


def test_a_companys_record_shows_the_company_and_its_contact() -> None:
    pool = seed_pool()
    world, companies = _seeded_world("companies", "Company", _record(list(FIELDS), **FIELDS))
    now = world.now()
    for row in companies:
        company = pool.company(row["name"])
        assert company is not None and row["phone"] == company.phone, row
        contact = pool.person_by_phone(row["to"])
        assert contact is not None and contact.company == company.name, row
        address = row["billing_address"]
        assert (address["street"], address["city"], address["postal_code"]) == (
            contact.street,
            contact.city,
            contact.postal_code,
        ), row
        assert (row["country"], row["currency"]) == (contact.country, company.currency), row
        assert row["size_code"] in CODES[:8], row
        visit = row["visit"]
        assert dt.date.fromisoformat(visit["on"]) <= now.date(), row
        assert dt.datetime.fromisoformat(visit["at"].replace("Z", "+00:00")) <= now, row
        assert 1962 <= dt.date.fromisoformat(visit["birth_date"]).year <= 2003, row
        assert row["settings"] == {}, row
    assert len({row["size_code"] for row in companies}) > 1, companies
    assert len({row["name"] for row in companies}) > 1, companies


def _items(item: dict) -> dict:
    return {"type": "array", "items": item}


DEAL = {
    "title": TEXT,
    "status": {"type": "string", "enum": ["open", "won", "lost"]},
    "lost_reason": TEXT,
    "guests": _items({"type": "object", "properties": {"full_name": TEXT}}),
    "attendee_phones": _items(TEXT),
    "contact": {
        "type": "object",
        "properties": {"name": TEXT, "email": {"type": "string", "format": "email"}, "phone": TEXT},
    },
    "tags": _items(TEXT),
}


def test_a_deals_people_are_its_contact_first_and_its_reason_is_its_states() -> None:
    pool = seed_pool()
    required = ["title", "status", "guests", "attendee_phones", "contact", "tags"]
    _, deals = _seeded_world("deals", "Deal", _record(required, **DEAL), size=12)
    assert {d["status"] for d in deals} >= {"lost", "open"}, deals
    for deal in deals:
        assert bool(deal.get("lost_reason")) == (deal["status"] == "lost"), deal
        contact = pool.person_by_email(deal["contact"]["email"])
        assert contact is not None and deal["contact"]["phone"] == contact.phone, deal
        names = [g["full_name"] for g in deal["guests"]]
        assert names[0] == f"{contact.first_name} {contact.last_name}", deal
        assert all(pool.person_by_name(n) is not None for n in names), deal
        phones = deal["attendee_phones"]
        assert phones[0] == contact.phone and len(set(phones)) == len(phones), deal
        assert all(pool.person_by_phone(p) is not None for p in phones), deal
        assert set(deal["tags"]) <= set(vocab.values_of("tag")), deal
    assert len({len(d["tags"]) for d in deals}) > 1, deals  # one to three, drawn


def test_a_nested_amounts_currency_is_the_contacts_company_currency() -> None:
    pool = seed_pool()
    value = {"type": "object", "properties": {"amount": {"type": "number"}, "currency": TEXT}}
    email = {"type": "string", "format": "email"}
    record = _record(["title", "contact_email", "value"], title=TEXT, contact_email=email,
                     value=value)  # fmt: skip
    _, deals = _seeded_world("deals", "Deal", record)
    for deal in deals:
        contact = pool.person_by_email(deal["contact_email"])
        assert contact is not None, deal
        assert deal["value"]["currency"] == pool.company(contact.company).currency, deal
    assert len({d["value"]["currency"] for d in deals}) > 1, deals


def test_a_roles_name_and_email_are_one_persons_a_colleague_for_staff_roles() -> None:
    pool = seed_pool()
    email = {"type": "string", "format": "email"}
    names = ["subject", "assignee_name", "assignee_email", "requester_name", "requester_email"]
    nodes = {n: email if n.endswith("email") else TEXT for n in names}
    _, tickets = _seeded_world("tickets", "Ticket", _record(names, **nodes))
    for ticket in tickets:
        for role, staff in (("assignee", True), ("requester", False)):
            person = pool.person_by_email(ticket[f"{role}_email"])
            assert person is not None and person.staff is staff, ticket
            assert ticket[f"{role}_name"] == f"{person.first_name} {person.last_name}", ticket
