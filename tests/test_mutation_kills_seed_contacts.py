"""Who a compiled service seeds into a record's lists of people and what into its address
(mutants of library/compiler/emit_seed.py that survived the other tests, bench/mutation.py):
the people copied on or watching a ticket are colleagues, whether the list is named for the
role alone (``cc``) or for the role and what it holds (``cc_emails``, ``watcher_emails``),
never the ticket's requester; and a customer's address is the customer's own, its second
line left empty rather than filled with made-up text."""

from __future__ import annotations

from library.seed import seed_pool
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import TEXT, _seeded

EMAIL = {"type": "string", "format": "email"}
EMAILS = {"type": "array", "items": EMAIL}


def test_the_people_copied_on_or_watching_a_ticket_are_colleagues() -> None:
    pool = seed_pool()
    record = _record(
        ["subject", "requester_email", "cc_emails", "watcher_emails"],
        subject=TEXT,
        requester_email=EMAIL,
        cc_emails=EMAILS,
        watcher_emails=EMAILS,
    )
    listed = 0
    for ticket in _seeded("tickets", "Ticket", record):
        assert not pool.is_staff(ticket["requester_email"]), ticket
        for key in ("cc_emails", "watcher_emails"):
            assert all(pool.is_staff(e) for e in ticket[key]), (key, ticket)
            assert ticket["requester_email"] not in ticket[key]
            listed += len(ticket[key])
    assert listed > 0


ADDRESS = {
    "type": "object",
    "required": ["line1", "line2", "city"],
    "properties": {"line1": TEXT, "line2": TEXT, "city": TEXT},
}


def test_a_customers_address_is_their_own_with_no_made_up_second_line() -> None:
    pool = seed_pool()
    record = _record(["name", "email", "address"], name=TEXT, email=EMAIL, address=ADDRESS)
    for customer in _seeded("customers", "Customer", record):
        person = pool.person_by_email(customer["email"])
        assert person is not None and person.full_name == customer["name"], customer
        assert customer["address"] == {"line1": person.street, "line2": "", "city": person.city}
