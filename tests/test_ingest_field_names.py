"""Semantic types read off a field's name: a plural names a list of the singular (``emails``),
but a word that merely ends in "s" is itself (an ``address`` is one address)."""

from __future__ import annotations

import pytest

from library.ingest.semantics import by_name


@pytest.mark.parametrize(
    ("tokens", "kind"),
    [
        (("address",), "address"),
        (("home", "address"), "address"),
        (("billing", "address"), "address"),
        (("addresses",), "address"),
        (("addr",), "address"),
        (("emails",), "email"),
        (("email", "address"), "email"),
    ],
)
def test_a_field_name_gives_its_kind(tokens: tuple[str, ...], kind: str) -> None:
    found = by_name(tokens, "string", None)
    assert found is not None and found[0] == kind, (tokens, found)


@pytest.mark.parametrize(
    ("tokens", "jtype", "kind"),
    [
        (("total",), "number", "money"),  # an invoice's total is what is owed
        (("tax", "total"), "number", "money"),
        (("grand", "total"), "number", "money"),
        (("total",), "integer", None),  # a page's total is a count
        (("country",), "string", "country"),
        (("country", "code"), "string", "country"),
    ],
)
def test_a_total_in_decimals_is_money(
    tokens: tuple[str, ...], jtype: str, kind: str | None
) -> None:
    found = by_name(tokens, jtype, None)
    assert (found[0] if found else None) == kind, (tokens, jtype, found)
