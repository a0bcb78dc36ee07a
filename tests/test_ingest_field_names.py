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
