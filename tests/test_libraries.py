"""The tests' ``bundled_library`` (tests/libraries.py, which keeps each service's compiled
source and conformance verdicts for the process) returns what the library's own returns,
whether a service is built for the first time or taken from what was kept."""

from __future__ import annotations

from library.compose.corpus import Library
from library.compose.corpus import bundled_library as library_bundled_library

from . import libraries
from .libraries import bundled_library


def _same(ours: Library, theirs: Library) -> None:
    assert [c.name for c in ours.classes] == [c.name for c in theirs.classes]
    assert all(a is b for a, b in zip(ours.classes, theirs.classes, strict=True))
    assert ours.specs == theirs.specs
    assert ours.verified == theirs.verified
    assert ours.nodes == theirs.nodes


def test_a_kept_build_equals_the_library_s_own() -> None:
    first = ["crm", "mail", "helpdesk"]
    fresh = bundled_library(first)  # built here (or kept by an earlier test of this process)
    _same(fresh, library_bundled_library(first))
    keys = len(libraries._BUILT)
    overlapping = ["mail", "todo", "crm"]
    again = bundled_library(overlapping)  # crm and mail kept, todo built
    assert len(libraries._BUILT) <= keys + 1
    _same(again, library_bundled_library(overlapping))
    for seed in (0, 4):
        _same(bundled_library(["todo"], seed=seed), library_bundled_library(["todo"], seed=seed))


def test_what_a_test_changes_in_its_library_stays_in_it() -> None:
    one = bundled_library(["todo"])
    one.verified["todo"].clear()
    one.specs.clear()
    two = bundled_library(["todo"])
    assert two.verified["todo"] and two.specs
    _same(two, library_bundled_library(["todo"]))
