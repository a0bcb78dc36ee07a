"""A field whose spec declares a pattern holds a value by its meaning where that value fits
the pattern (a channel called ``design``), and a string drawn to match only where none does:
seeded worlds read like real ones, and every value still passes the spec's schema."""

from __future__ import annotations

import random
import re

from library.runtime import pattern_or
from library.seed import seed_pool
from tests.libraries import bundled_library


def test_pattern_or_keeps_a_fitting_value_and_draws_otherwise() -> None:
    slug = r"^[a-z0-9_-]{1,80}$"
    assert pattern_or("billing-team", "s", slug) == "billing-team"
    drawn = pattern_or("Billing Team", "s", slug)
    assert drawn != "Billing Team" and re.fullmatch(slug, drawn)
    assert pattern_or("abc", "s", slug, max_length=2) != "abc"
    assert pattern_or(None, "s", slug) == pattern_or(None, "s", slug)  # seeded: repeatable


def test_named_records_with_a_pattern_read_as_names() -> None:
    lib = bundled_library(["chat", "code_hosting"])
    names: dict[str, list[str]] = {}
    for cls in lib.classes:
        state = cls().seed(seed_pool(0), random.Random(0), 12)
        for coll in ("channels", "repositories"):
            if hasattr(state, coll):
                names[coll] = [r.name for r in getattr(state, coll).values()]
    channel = re.compile(r"^[a-z0-9_-]{1,80}$")
    for coll, found in names.items():
        assert len(found) >= 5, coll
        assert all(channel.fullmatch(n) or re.fullmatch(r"^[A-Za-z0-9._-]+$", n) for n in found)
        # words joined by dashes (``payments-gateway``), not rstr's ``.zm9tb-RkRMgSnMJq8``
        wordy = [n for n in found if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", n)]
        assert len(wordy) == len(found), (coll, found)
