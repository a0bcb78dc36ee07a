"""What a compiled service seeds into fields known by their name or their spec (mutants of
library/compiler/emit_seed.py that survived the other tests, bench/mutation.py): a
customer's street address (``addr``, or a field the spec calls their postal address) is
their own street; a year (``fiscalyear``, even run together) is this year, last or next; a
date of birth (``dob``) is decades back; a stamp that goes with a flag (``archived`` and
``archived_date``) is set exactly when the flag is; a ledger account's code and type are the
named account's, a form question's key the one of its label; a field of unknown meaning
takes one of the spec's examples; and a free-form map the spec requires is seeded empty
(not null, even where null is allowed), an optional one left out."""

from __future__ import annotations

import datetime as dt

from library.seed import seed_pool, vocab
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import TEXT, _seeded, _seeded_world

EMAIL = {"type": "string", "format": "email"}
DATE = {"type": "string", "format": "date"}


def test_a_customers_street_address_is_their_own_street() -> None:
    pool = seed_pool()
    postal = {"type": "string", "description": "The customer's postal address."}
    record = _record(
        ["name", "email", "addr", "address"], name=TEXT, email=EMAIL, addr=TEXT, address=postal
    )
    for customer in _seeded("customers", "Customer", record):
        person = pool.person_by_email(customer["email"])
        assert person is not None and person.full_name == customer["name"], customer
        assert customer["addr"] == customer["address"] == person.street, customer


def test_a_year_is_this_year_last_or_next_even_run_together() -> None:
    number = {"type": "integer"}
    record = _record(
        ["title", "fiscalyear", "taxyear"], title=TEXT, fiscalyear=number, taxyear=number
    )
    world, budgets = _seeded_world("budgets", "Budget", record)
    years = {world.now().year + k for k in (-1, 0, 1)}
    for budget in budgets:
        assert {budget["fiscalyear"], budget["taxyear"]} <= years, budget


def test_a_date_of_birth_is_decades_back() -> None:
    world, patients = _seeded_world(
        "patients", "Patient", _record(["name", "dob"], name=TEXT, dob=DATE)
    )
    for patient in patients:
        born = dt.date.fromisoformat(patient["dob"])
        assert world.now().year - born.year >= 16, patient


def test_a_stamp_that_goes_with_a_flag_is_set_exactly_when_the_flag_is() -> None:
    flag = {"type": "boolean"}
    record = _record(["title", "archived"], title=TEXT, archived=flag, archived_date=DATE)
    documents = _seeded("documents", "Document", record)
    assert {d["archived"] for d in documents} == {True, False}, documents
    for document in documents:
        assert bool(document.get("archived_date")) == document["archived"], document


def test_a_ledger_account_and_a_form_question_read_as_one_row() -> None:
    account = {
        "type": "object",
        "required": ["name", "code", "type"],
        "properties": {"name": TEXT, "code": TEXT, "type": TEXT},
    }
    for line in _seeded(
        "journal_lines",
        "JournalLine",
        _record(["memo", "gl_account"], memo=TEXT, gl_account=account),
    ):
        named = line["gl_account"]
        assert vocab.GL_ACCOUNTS[named["name"]] == (named["code"], named["type"]), line
    question = {
        "type": "object",
        "required": ["key", "label"],
        "properties": {"key": TEXT, "label": TEXT},
    }
    for form in _seeded(
        "forms", "Form", _record(["title", "question"], title=TEXT, question=question)
    ):
        assert vocab.QUESTIONS[form["question"]["label"]] == form["question"]["key"], form


def test_a_field_of_unknown_meaning_takes_one_of_the_specs_examples() -> None:
    flavour = {"type": "string", "examples": ["vanilla", "mint", "mocha"]}
    scoops = _seeded("scoops", "Scoop", _record(["flavour"], flavour=flavour))
    assert {s["flavour"] for s in scoops} <= {"vanilla", "mint", "mocha"}
    assert len({s["flavour"] for s in scoops}) > 1, scoops


def test_a_required_free_form_map_is_seeded_empty_an_optional_one_left_out() -> None:
    free, or_null = {"type": "object"}, {"type": ["object", "null"]}
    record = _record(
        ["title", "metadata", "labels"], title=TEXT, metadata=free, labels=or_null, extras=free
    )
    for setting in _seeded("settings", "Setting", record):
        assert setting["metadata"] == setting["labels"] == {}, setting  # not null: it may be
        assert "extras" not in setting, setting
