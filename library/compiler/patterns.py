"""Strings that match a regular expression: for patterned fields without a usable example."""

from __future__ import annotations

import random
import re
from typing import Any

try:  # Python 3.11+: the regex parser moved
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]


def regex_sample(
    pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None
) -> str | None:
    """A string matching a (simple) regular expression within the length bounds, or None."""
    try:
        parsed = sre_parse.parse(pattern)
        compiled = re.compile(pattern)
    except Exception:
        return None
    for _ in range(20):
        try:
            text = _emit(parsed, rng, 0)
        except Exception:
            return None
        long_enough = len(text) >= min_length and (max_length is None or len(text) <= max_length)
        if long_enough and compiled.search(text):
            return text
    return None


def _emit(parsed: Any, rng: random.Random, depth: int) -> str:
    if depth > 20:
        raise ValueError("pattern too deep")
    out = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_class_char(arg, rng))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            if str(high) == "MAXREPEAT" or high > low + 6:
                high = low + 6
            # at least one repetition where allowed: empty strings rarely satisfy a minLength
            count = rng.randint(min(max(low, 1), high), high) if high > low else low
            out.append("".join(_emit(sub, rng, depth + 1) for _ in range(count)))
        elif name == "SUBPATTERN":
            out.append(_emit(arg[-1], rng, depth + 1))
        elif name == "BRANCH":
            out.append(_emit(rng.choice(arg[1]), rng, depth + 1))
        elif name in ("AT", "ASSERT_NOT"):
            continue
        else:
            raise ValueError(f"unsupported regex construct {name}")
    return "".join(out)


def _class_char(items: list[Any], rng: random.Random) -> str:
    choices: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            return "x"
        if name == "LITERAL":
            choices.append(chr(arg))
        elif name == "RANGE":
            choices.append(chr(rng.randint(arg[0], arg[1])))
        elif name == "CATEGORY":
            kind = str(arg)
            choices.append({"CATEGORY_DIGIT": "7", "CATEGORY_SPACE": " "}.get(kind, "k"))
    return rng.choice(choices) if choices else "a"
