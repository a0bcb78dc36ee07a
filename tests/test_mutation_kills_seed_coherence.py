"""A seeded record reads as one real row (library/compiler/emit_seed.py, the field-by-name
rules of ``_text``, ``_by_meaning`` and ``_url``, whose mutants survive in many small places,
bench/mutation.py): every field a customer record holds about its person (names, e-mail,
phone, town, postcode, street, job title, username, display name, country) is that one
person's, every field about their company (name, domain, industry, time zone, website,
handle) is their company's; and an order line's product name is the name of the product
its SKU names."""

from __future__ import annotations

from library.seed import seed_pool
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import _seeded

TEXT = {"type": "string"}
# field -> the person's attribute it shows
PERSON = {
    "first_name": "first_name",
    "last_name": "last_name",
    "phone": "phone",
    "city": "city",
    "town": "city",
    "zip": "postal_code",
    "postal_code": "postal_code",
    "street": "street",
    "company_name": "company",
    "job_title": "title",
    "title": "title",
    "username": "username",
    "country": "country",
}
COMPANY = {"domain": "domain", "industry": "industry", "timezone": "timezone"}


def test_every_field_about_a_customer_shows_one_person_and_their_company() -> None:
    pool = seed_pool()
    names = ["email", *PERSON, *COMPANY, "display_name", "website", "handle", "screen_name"]
    customers = _seeded("customers", "Customer", _record(names, **dict.fromkeys(names, TEXT)))
    for customer in customers:
        person = pool.person_by_email(customer["email"])
        assert person is not None and not person.staff, customer
        company = pool.company(person.company)
        for key, attr in PERSON.items():
            assert customer[key] == getattr(person, attr), (key, customer)
        for key, attr in COMPANY.items():
            assert customer[key] == getattr(company, attr), (key, customer)
        assert customer["display_name"] == f"{person.first_name} {person.last_name}", customer
        assert customer["website"] == f"https://{company.domain}", customer
        assert customer["handle"] == customer["screen_name"], customer
        assert customer["handle"].startswith("@") and len(customer["handle"]) > 3, customer
    assert len({c["email"] for c in customers}) == len(customers), customers


def test_an_order_lines_product_name_is_the_one_its_sku_names() -> None:
    by_sku = {p.sku: p for p in seed_pool().products}
    names = ["sku", "product_name", "note"]
    lines = _seeded("order_lines", "OrderLine", _record(names, **dict.fromkeys(names, TEXT)))
    for line in lines:
        assert by_sku[line["sku"]].name == line["product_name"], line
    assert len({line["sku"] for line in lines}) > 1, lines
