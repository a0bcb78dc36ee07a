"""Who and what a compiled service seeds on records with people lists, departments, links and
unique names (mutants of library/compiler/emit_seed.py that survived the other tests,
bench/mutation.py): a draft is addressed to its subject and at most one more person outside
(where a received message is to one colleague); no one is in two of a record's lists of
people; an employee's department is one of our own departments, even where nothing else on
the record names them; a ``_uri`` names its file as a ``_url`` does; a contact known only by
a work or primary address is the record's subject, so the record is in the currency of that
person's company; and a unique name never repeats the spec's example (which a caller may
create)."""

from __future__ import annotations

import re

from library.seed import seed_pool
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import _seeded

TEXT = {"type": "string"}
EMAILS = {"type": "array", "items": {"type": "string", "format": "email"}}


def _domain(email: str) -> str:
    return email.split("@", 1)[1]


def test_a_draft_is_to_its_subject_and_at_most_one_more_outside() -> None:
    ours = seed_pool().org.domain  # type: ignore[union-attr]
    drafts = _seeded("drafts", "Draft", _record(["subject", "to"], subject=TEXT, to=EMAILS), 20)
    counts = {len(d["to"]) for d in drafts}
    assert counts == {1, 2}, drafts
    for draft in drafts:
        assert all(_domain(e) != ours for e in draft["to"]), draft
        assert len({_domain(e) for e in draft["to"]}) == 1, draft  # the subject's company
    received = _seeded("messages", "Message", _record(["subject", "to"], subject=TEXT, to=EMAILS))
    assert all(len(m["to"]) == 1 and _domain(m["to"][0]) == ours for m in received), received


def test_no_one_is_in_two_of_a_records_lists_of_people() -> None:
    lists = ("attendees", "members", "reviewers", "cc", "watchers")
    record = _record(["title", *lists], title=TEXT, **dict.fromkeys(lists, EMAILS))
    for meeting in _seeded("meetings", "Meeting", record, size=20):
        everyone = [e for key in lists for e in meeting[key]]
        assert len(everyone) == len(set(everyone)), meeting


def test_an_employees_department_is_one_of_ours_even_alone_on_the_record() -> None:
    departments = {p.department for p in seed_pool().staff}
    employees = _seeded("employees", "Employee", _record(["department"], department=TEXT))
    assert {e["department"] for e in employees} <= departments, employees
    assert len({e["department"] for e in employees}) > 1, employees


def test_a_uri_names_its_file_as_a_url_does() -> None:
    link = {"type": "string", "format": "uri"}
    record = _record(["title", "receipt_uri", "receipt_url"], title=TEXT, receipt_uri=link,
                     receipt_url=link)  # fmt: skip
    for file in _seeded("files", "File", record):
        for key in ("receipt_uri", "receipt_url"):
            assert re.fullmatch(r"https://[\w.-]+/files/receipt-[0-9a-f]{10}\.pdf", file[key]), file


def test_a_contact_known_by_a_work_or_primary_address_is_the_records_subject() -> None:
    pool = seed_pool()
    email = {"type": "string", "format": "email"}
    for name in ("primary_email", "work_email"):
        record = _record([name, "currency"], **{name: email}, currency=TEXT)
        for order in _seeded("orders", "Order", record):
            person = pool.person_by_email(order[name])
            assert person is not None, order  # someone outside, not a colleague
            assert order["currency"] == pool.company(person.company).currency, order


def test_a_primary_address_is_the_subjects_even_where_its_description_names_staff() -> None:
    pool = seed_pool()
    email = {
        "type": "string",
        "format": "email",
        "description": "Primary e-mail, as the agent entered it.",
    }
    record = _record(["first_name", "primary_email"], first_name=TEXT, primary_email=email)
    for contact in _seeded("contacts", "Contact", record):
        person = pool.person_by_email(contact["primary_email"])
        assert person is not None and person.first_name == contact["first_name"], contact


def test_a_unique_name_never_repeats_the_specs_example() -> None:
    name = {
        "type": "string",
        "description": "The unique name of the project.",
        "example": "Warehouse rollout",
    }
    projects = _seeded("projects", "Project", _record(["name"], name=name), size=40)
    names = [p["name"] for p in projects]
    assert "Warehouse rollout" not in names, names
    assert len(set(names)) == len(names), names
