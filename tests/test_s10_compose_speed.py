"""Composition's CPU savings leave the process as they found it and the results unchanged."""

from __future__ import annotations

import gc

from library.compose.compose import few_collections
from library.rubric.values import normalize, timestamp


def test_few_collections_restores_the_collector_settings() -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    with few_collections():
        assert gc.get_threshold() != before
        assert gc.get_freeze_count() >= frozen
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen


def test_few_collections_restores_the_settings_when_composition_fails() -> None:
    before = gc.get_threshold()
    try:
        with few_collections():
            raise RuntimeError("a shard failed")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before


def test_remembered_normal_forms_are_the_forms() -> None:
    # the memo returns what the computation gives, for each spelling on its own
    assert normalize("2026-01-02T03:04:05Z") == "2026-01-02T03:04:05+00:00"
    assert normalize(" 2026-01-02 03:04:05 ") == "2026-01-02T03:04:05+00:00"
    assert normalize("Eu.Example.com.") == "eu.example.com"
    assert normalize("  Two   words ") == "two words"
    assert timestamp("2026-01-02") == "2026-01-02"
    assert timestamp("not a date") is None
    assert normalize(["A", {"b": "C "}]) == ["a", {"b": "c"}]
