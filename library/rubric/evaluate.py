"""Evaluating a rubric: per-criterion results and completion (every criterion passes)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from library.rubric.criteria import Criterion, States, from_dict


def load_criteria(items: Iterable[Criterion | Mapping[str, Any]]) -> list[Criterion]:
    return [c if isinstance(c, Criterion) else from_dict(c) for c in items]


def dump_criteria(criteria: Iterable[Criterion]) -> list[dict[str, Any]]:
    return [c.to_dict() for c in criteria]


def evaluate(
    criteria: Sequence[Criterion | Mapping[str, Any]],
    initial: States,
    final: States,
    answer: str = "",
) -> list[bool]:
    """Pass/fail per criterion, in rubric order."""
    return [c.check(initial, final, answer) for c in load_criteria(criteria)]


def completion(
    criteria: Sequence[Criterion | Mapping[str, Any]],
    initial: States,
    final: States,
    answer: str = "",
) -> bool:
    """A task is complete when every criterion passes (an empty rubric never completes)."""
    loaded = load_criteria(criteria)
    return bool(loaded) and all(c.check(initial, final, answer) for c in loaded)
