"""One shared pool of people, companies and products that every service seeds from, so the
customer in the CRM is the sender in the mailbox and the attendee in the calendar."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from faker import Faker


@dataclass(frozen=True, slots=True)
class Company:
    name: str
    domain: str
    industry: str
    country: str
    address: str
    phone: str


@dataclass(frozen=True, slots=True)
class Person:
    first_name: str
    last_name: str
    email: str
    phone: str
    company: str
    title: str
    city: str
    country: str

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"


@dataclass(frozen=True, slots=True)
class Product:
    sku: str
    name: str
    category: str
    price: float
    currency: str


@dataclass(frozen=True, slots=True)
class SeedPool:
    seed: int
    people: tuple[Person, ...]
    companies: tuple[Company, ...]
    products: tuple[Product, ...]

    def company(self, name: str) -> Company:
        return next(c for c in self.companies if c.name == name)

    def people_at(self, company: str) -> list[Person]:
        return [p for p in self.people if p.company == company]


_INDUSTRIES = (
    "software",
    "logistics",
    "healthcare",
    "retail",
    "finance",
    "manufacturing",
    "education",
    "media",
    "energy",
    "hospitality",
)
_PRODUCTS = (
    ("Laptop Stand", "accessory"),
    ("Noise-Cancelling Headset", "hardware"),
    ("4K Monitor", "hardware"),
    ("Ergonomic Chair", "hardware"),
    ("Mesh Router", "hardware"),
    ("Conference Webcam", "hardware"),
    ("Docking Station", "accessory"),
    ("Mechanical Keyboard", "accessory"),
    ("Analytics Suite", "software license"),
    ("Cloud Backup", "subscription"),
    ("Premium Support", "service"),
    ("Onboarding Workshop", "training"),
    ("Security Audit", "service"),
    ("CRM Seat", "subscription"),
    ("Label Printer", "hardware"),
    ("Barcode Scanner", "hardware"),
    ("Standing Desk", "hardware"),
    ("Data Migration", "service"),
)
_TIERS = ("Lite", "Plus", "Pro", "Max", "Enterprise")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


@lru_cache(maxsize=8)
def seed_pool(
    seed: int = 0, people: int = 120, companies: int = 30, products: int = 40
) -> SeedPool:
    """The deterministic pool for a seed (cached: every service of a World shares it)."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    comps: list[Company] = []
    seen: set[str] = set()
    while len(comps) < companies:
        name = fake.company()
        if name in seen:
            continue
        seen.add(name)
        domain = f"{_slug(name.split(',')[0].split(' and ')[0])[:20]}.com"
        comps.append(
            Company(
                name=name,
                domain=domain,
                industry=fake.random_element(_INDUSTRIES),
                country=fake.random_element(("US", "GB", "DE", "FR", "CA", "NL", "AU")),
                address=fake.address().replace("\n", ", "),
                phone=f"+1{fake.numerify('##########')}",
            )
        )
    persons: list[Person] = []
    emails: set[str] = set()
    while len(persons) < people:
        first, last = fake.first_name(), fake.last_name()
        comp = comps[len(persons) % len(comps)]
        email = f"{_slug(first)}.{_slug(last)}@{comp.domain}"
        if email in emails:
            continue
        emails.add(email)
        persons.append(
            Person(
                first_name=first,
                last_name=last,
                email=email,
                phone=f"+1{fake.numerify('##########')}",
                company=comp.name,
                title=fake.job()[:60],
                city=fake.city(),
                country=comp.country,
            )
        )
    prods = []
    for i in range(products):
        base, category = _PRODUCTS[i % len(_PRODUCTS)]
        prods.append(
            Product(
                sku=f"SKU-{1000 + i}",
                name=f"{base} {_TIERS[(i // len(_PRODUCTS)) % len(_TIERS)]}",
                category=category,
                price=round(fake.pyfloat(min_value=5, max_value=2500, right_digits=2), 2),
                currency="USD",
            )
        )
    return SeedPool(seed=seed, people=tuple(persons), companies=tuple(comps), products=tuple(prods))
