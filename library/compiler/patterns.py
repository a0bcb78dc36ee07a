"""Strings that match a regular expression: for patterned fields without a usable example.

Drawn with ``rstr`` (a maintained regex-to-string generator, through the runtime's
``draw_pattern``) from the caller's seeded RNG, then checked against the pattern and the length
bounds, since ``rstr`` ignores anchors' context, lookarounds and lengths.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from library.runtime.ids import draw_pattern

MAX_TRIES = 20


def regex_sample(
    pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None
) -> str | None:
    """A string matching the regular expression within the length bounds, or None."""
    try:
        re.compile(pattern)
    except re.error:
        return None
    return draw_pattern(rng, pattern, min_length, max_length, tries=MAX_TRIES)


@lru_cache(maxsize=2048)
def drawable(pattern: str, min_length: int = 0, max_length: int | None = None) -> bool:
    """Whether values matching the pattern within the bounds can be drawn every time (rstr
    cannot honour every construct: a seed must never fail, nor fall back to ``""``)."""
    return all(
        regex_sample(pattern, random.Random(f"drawable:{k}"), min_length, max_length) is not None
        for k in range(8)
    )
