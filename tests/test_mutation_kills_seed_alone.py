"""A field alone on its record still seeds as its name says, what it reads drawn for it
(library/compiler/emit_seed.py, whose mutants survive where another field happens to draw the
same person or product, bench/mutation.py): a ``product_title`` is a catalogue product's name;
a ``linkedin_url`` is the profile of a person of the pool; a required id issued by another
service (``stripe_customer_id``) is its kind and eight hex digits; a unique reference the
spec shows by example (``TKT-0042``) keeps the example's format with other digits, different
on every record; a unique label of unknown meaning is the record's kind (or the spec's
example), qualified to stay unique; ``date_created`` is the creation moment, never after the
last update; an example longer than forty characters is kept whole, not varied digit by
digit; a client account's phone is its company's; and a price bounded from 5 is still a
catalogue product's price."""

from __future__ import annotations

import re

from library.seed import seed_pool, vocab
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import _seeded

TEXT = {"type": "string"}
MOMENT = {"type": "string", "format": "date-time"}


def _alone(path: str, noun: str, name: str, node: dict, size: int = 8) -> list:
    return [row[name] for row in _seeded(path, noun, _record([name], **{name: node}), size)]


def _distinct(values: list) -> bool:
    return len(set(values)) == len(values)


def test_a_product_title_alone_is_a_catalogue_products_name() -> None:
    names = {p.name for p in seed_pool().products}
    titles = _alone("lines", "Line", "product_title", TEXT)
    assert set(titles) <= names and len(set(titles)) > 1, titles


def test_a_linkedin_url_alone_is_a_person_of_the_pools_profile() -> None:
    people = {f"https://www.linkedin.com/in/{vocab.slug(p.full_name)}" for p in seed_pool().people}
    urls = _alone("profiles", "Profile", "linkedin_url", {"type": "string", "format": "uri"})
    assert set(urls) <= people and len(set(urls)) > 1, urls
    assert all(u.startswith("https://www.linkedin.com/in/") for u in urls), urls


def test_an_id_issued_by_another_service_is_its_kind_and_eight_hex_digits() -> None:
    ids = _alone("charges", "Charge", "stripe_customer_id", TEXT)
    assert all(re.fullmatch(r"stripe_customer_[0-9a-f]{8}", i) for i in ids), ids
    assert _distinct(ids), ids


def test_a_unique_reference_keeps_its_examples_format_with_other_digits() -> None:
    node = {"type": "string", "description": "The unique reference.", "example": "TKT-0042"}
    refs = _alone("tickets", "Ticket", "ticket_ref", node)
    assert all(re.fullmatch(r"TKT-[0-9]{4}", r) for r in refs) and _distinct(refs), refs


def test_a_unique_label_of_unknown_meaning_is_a_distinct_slug() -> None:
    """Never the kind with a city ("Widget (Lille)"): distinct slugs of plausible words."""
    node = {"type": "string", "description": "The unique label of the widget."}
    labels = _alone("widgets", "Widget", "label", node)
    assert all(re.fullmatch(r"[a-z]+(-[a-z0-9]+)+", label) for label in labels), labels
    assert _distinct(labels), labels


def test_date_created_is_the_creation_moment_never_after_the_last_update() -> None:
    record = _record(["date_created", "updated_at"], date_created=MOMENT, updated_at=MOMENT)
    for note in _seeded("notes", "Note", record, size=12):
        assert note["date_created"] <= note["updated_at"], note
        assert note["date_created"].endswith(":00Z"), note  # created on the minute


def test_a_unique_label_the_spec_shows_by_example_varies_that_example() -> None:
    node = {"type": "string", "description": "The unique label of the widget.", "example": "Blue"}
    labels = _alone("widgets", "Widget", "label", node)
    assert all(label.startswith("Blue") for label in labels) and _distinct(labels), labels


def test_an_example_longer_than_forty_characters_is_kept_as_it_is() -> None:
    example = "Batch 12345 left the northern hub at 0600"  # 41 characters, digits in it
    assert len(example) == 41
    node = {"type": "string", "example": example}
    assert set(_alone("crates", "Crate", "zorbl", node)) == {example}


def test_a_client_accounts_phone_is_its_companys() -> None:
    phones = {c.phone for c in seed_pool().companies}
    record = _record(["name", "phone"], name=TEXT, phone=TEXT)
    accounts = _seeded("client_accounts", "ClientAccount", record)
    assert {a["phone"] for a in accounts} <= phones, accounts


def test_a_price_bounded_from_five_is_a_catalogue_products_price() -> None:
    prices = {p.price for p in seed_pool().products}
    seeded = _alone("items", "Item", "price", {"type": "number", "minimum": 5})
    assert set(seeded) <= prices and len(set(seeded)) > 1, seeded
