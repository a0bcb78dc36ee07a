"""Cutting a stage's work into batches (the unit a task runner spreads over workers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def batches(items: Sequence[T], size: int) -> list[list[T]]:
    """``items`` in order, in lists of ``size`` (the last may be shorter)."""
    if size < 1:
        raise ValueError(f"batch size must be at least 1, got {size}")
    return [list(items[i : i + size]) for i in range(0, len(items), size)]
