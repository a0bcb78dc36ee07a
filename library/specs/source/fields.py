"""Field constructors with the shared-entity conventions of the corpus built in.

Every service speaks the same vocabulary for the entities that travel between services:
``format: email`` strings for addresses, E.164 phone numbers, ``format: date`` and
``format: date-time`` strings, ``number`` amounts beside an ISO 4217 ``currency``, ISO 3166
alpha-2 countries, ``format: uri`` links and ``<resource>_id`` identifiers.
"""

from __future__ import annotations

import zlib
from typing import Any

from .model import Field, FieldType

E164 = r"^\+[1-9][0-9]{6,14}$"
ISO_4217 = r"^[A-Z]{3}$"
ISO_3166 = r"^[A-Z]{2}$"
CURRENCIES: tuple[str, ...] = ("USD", "EUR", "GBP", "CAD", "AUD", "JPY", "CHF", "SEK", "INR")


def _mk(
    name: str,
    type_: FieldType,
    desc: str,
    *,
    req: bool = False,
    ro: bool = False,
    null: bool = False,
    filt: bool = False,
    immut: bool = False,
    ex: Any = None,
    default: Any = None,
    **extra: Any,
) -> Field:
    return Field(
        name=name,
        type=type_,
        desc=desc,
        required=req,
        readonly=ro,
        nullable=null,
        filter=filt,
        immutable=immut,
        example=ex,
        default=default,
        **extra,
    )


def s(name: str, desc: str, **kw: Any) -> Field:
    """A plain string."""
    return _mk(name, "string", desc, **kw)


def enum(name: str, values: tuple[str, ...], desc: str, **kw: Any) -> Field:
    """A string restricted to ``values`` (statuses, priorities, stages)."""
    kw.setdefault("ex", values[0])
    return _mk(name, "string", desc, enum=values, **kw)


def integer(name: str, desc: str, **kw: Any) -> Field:
    return _mk(name, "integer", desc, **kw)


def number(name: str, desc: str, **kw: Any) -> Field:
    return _mk(name, "number", desc, **kw)


def boolean(name: str, desc: str, **kw: Any) -> Field:
    return _mk(name, "boolean", desc, **kw)


def email(name: str = "email", desc: str = "Email address.", **kw: Any) -> Field:
    kw.setdefault("ex", "jane.cooper@example.com")
    return _mk(name, "string", desc, fmt="email", **kw)


def phone(name: str = "phone", desc: str = "Phone number.", **kw: Any) -> Field:
    kw.setdefault("ex", "+14155550132")
    return _mk(name, "string", f"{desc} E.164 format, e.g. +14155550132.", pattern=E164, **kw)


def person(name: str = "full_name", desc: str = "Full name of the person.", **kw: Any) -> Field:
    examples = {"first_name": "Jane", "last_name": "Cooper"}
    kw.setdefault("ex", examples.get(name, "Jane Cooper"))
    return _mk(name, "string", desc, **kw)


def company(
    name: str = "company_name", desc: str = "Legal or trading name of the company.", **kw: Any
) -> Field:
    kw.setdefault("ex", "Northwind Traders")
    return _mk(name, "string", desc, **kw)


def date(name: str, desc: str, **kw: Any) -> Field:
    kw.setdefault("ex", "2025-07-15")
    return _mk(name, "string", desc, fmt="date", **kw)


def dt(name: str, desc: str, **kw: Any) -> Field:
    kw.setdefault("ex", "2025-07-15T14:30:00Z")
    return _mk(name, "string", desc, fmt="date-time", **kw)


def money(name: str = "amount", desc: str = "Amount of money.", **kw: Any) -> Field:
    kw.setdefault("ex", 1250.0)
    kw.setdefault("minimum", 0)
    return _mk(name, "number", desc, fmt="double", **kw)


def currency(
    name: str = "currency",
    desc: str = "Three-letter ISO 4217 currency code.",
    *,
    listed: bool = False,
    **kw: Any,
) -> Field:
    """The sibling of every money field: a pattern, or with ``listed`` an enum of codes."""
    kw.setdefault("ex", "USD")
    if listed:
        return _mk(name, "string", desc, enum=CURRENCIES, **kw)
    return _mk(name, "string", desc, pattern=ISO_4217, **kw)


def country(
    name: str = "country", desc: str = "Two-letter ISO 3166-1 country code.", **kw: Any
) -> Field:
    kw.setdefault("ex", "US")
    return _mk(name, "string", desc, pattern=ISO_3166, **kw)


def url(name: str, desc: str, **kw: Any) -> Field:
    kw.setdefault("ex", f"https://example.com/{name.removesuffix('_url')}")
    return _mk(name, "string", desc, fmt="uri", **kw)


def ref(name: str, resource: str | None, desc: str, **kw: Any) -> Field:
    """An identifier: of a resource in the same service (``resource``) or of another service."""
    kw.setdefault(
        "ex", example_id(resource[:3], resource) if resource else example_id(name[:3], name)
    )
    return _mk(name, "string", desc, ref=resource, **kw)


def arr(name: str, items: Field, desc: str, **kw: Any) -> Field:
    return _mk(name, "array", desc, items=items, **kw)


def obj(name: str, props: tuple[Field, ...], desc: str, **kw: Any) -> Field:
    return _mk(name, "object", desc, props=props, **kw)


def tags(
    name: str = "tags", desc: str = "Free-form labels used to group and filter records."
) -> Field:
    return arr(name, s("tag", "A label."), desc)


def address(name: str = "address", desc: str = "Postal address.", **kw: Any) -> Field:
    return obj(
        name,
        (
            s(
                "line1",
                "Street address, house number and street name.",
                req=True,
                ex="500 Market Street",
            ),
            s("line2", "Apartment, suite or floor.", ex="Suite 1200"),
            s("city", "City or locality.", req=True, ex="San Francisco"),
            s("region", "State, province or region.", ex="CA"),
            s("postal_code", "Postal or ZIP code.", req=True, ex="94105"),
            country(req=True),
        ),
        desc,
        **kw,
    )


def notes(name: str = "notes", desc: str = "Internal notes; never shown to the customer.") -> Field:
    return s(name, desc)


def example_id(prefix: str, salt: str) -> str:
    """A stable, vendor-looking id such as ``tic_4f2a9c1e``."""
    return f"{prefix}_{zlib.crc32(salt.encode()):08x}"
