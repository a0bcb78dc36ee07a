"""Value comparison shared by every criterion: tolerant of representation, strict on meaning.

States reach the judge as exported JSON, possibly written by another runtime version, and
answers are free text; so comparisons normalize case, whitespace, timestamp spelling,
number formatting and how a reply spells a date, and nothing else.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping
from typing import Any

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")
# A whole number token: thousands grouped by commas or not at all, an optional sign.
_WHOLE_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+")
# Punctuation that may wrap a number in prose: "($1,200.50)," or "30%".
_WRAP = "\"'()[]{}<>$\u20ac\u00a3\u00a5%*:;,.!?"
_LEAD = _WRAP.replace(".", "")  # ".5" keeps its point
_TOLERANCE = 0.005  # money is stated to the cent


def timestamp(value: object) -> str | None:
    """The canonical UTC spelling if ``value`` is an ISO date or timestamp string, else None."""
    return _timestamp(value.strip()) if isinstance(value, str) else None


@functools.lru_cache(maxsize=1 << 16)  # composition asks it of the same seeded values often
def _timestamp(text: str) -> str | None:
    """The canonical UTC spelling of an ISO date or timestamp, or None if ``text`` is neither."""
    if not _ISO.match(text):
        return None
    try:
        if len(text) == 10:
            return dt.date.fromisoformat(text).isoformat()
        value = dt.datetime.fromisoformat(text.replace(" ", "T"))
    except ValueError:
        return None
    if value.tzinfo is None:  # naive timestamps mean UTC, as in the runtime
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC).isoformat()


# A fully qualified domain name written with its root dot ("eu.example.com."), as DNS
# APIs want it: the same name as without the dot.
_ROOTED_NAME = re.compile(r"^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z]{2,63}\.$")


def normalize(value: Any) -> Any:
    """A canonical form: equal meanings give equal forms."""
    if isinstance(value, str):
        return _normal_text(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return round(float(value), 6)
    if isinstance(value, Mapping):
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize(v) for v in value]
    return value


@functools.lru_cache(maxsize=1 << 16)
def _normal_text(value: str) -> str:
    stamp = _timestamp(value.strip())
    if stamp is not None:
        return stamp
    text = " ".join(value.split()).casefold()
    return text[:-1] if _ROOTED_NAME.match(text) else text


def same(a: Any, b: Any) -> bool:
    return normalize(a) == normalize(b)


def matches(record: Mapping[str, Any], fields: Mapping[str, Any]) -> bool:
    """Every expected field of ``record`` has the expected value."""
    return all(same(record.get(k), v) for k, v in fields.items())


def _numbers(text: str) -> list[float]:
    out = []
    for token in _NUMBER.findall(text):
        try:
            out.append(float(token.replace(",", "")))
        except ValueError:
            continue
    return out


_MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
# The ways a person writes a date in prose: "September 3, 2026", "3 Sep 2026",
# "3rd of September 2026", and ISO "2026-09-03".
_SPELLED_DATES = (
    (re.compile(rf"(?<!\w){_MONTH}\s+{_DAY},?\s+(\d{{4}})(?!\d)"), (3, 1, 2)),
    (re.compile(rf"(?<!\w){_DAY}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})(?!\d)"), (3, 2, 1)),
    (re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)"), (1, 2, 3)),
)


def _is_date(text: str) -> bool:
    return len(text) == 10 and _timestamp(text) == text


def _dates(text: str) -> set[str]:
    """The calendar dates a text states, however spelled, as ISO dates."""
    out: set[str] = set()
    lowered = text.casefold()
    for pattern, (y, m, d) in _SPELLED_DATES:
        for found in pattern.finditer(lowered):
            month = found.group(m)
            number = int(month) if month.isdigit() else _MONTHS[month]
            try:
                out.add(dt.date(int(found.group(y)), number, int(found.group(d))).isoformat())
            except ValueError:
                continue
    return out


def _flat(text: str) -> str:
    # "on_hold" and "on hold" are the same word to a reader.
    return " ".join(text.replace("_", " ").split()).casefold()


def mentions(answer: str, value: Any) -> bool:
    """Whether a free-text answer states ``value``: numbers by value (``1,234.5`` states
    1234.50), everything else as a case-insensitive substring; a list needs all its items."""
    if isinstance(value, list | tuple):
        return bool(value) and all(mentions(answer, v) for v in value)
    if isinstance(value, bool) or value is None:
        return _flat(str(value)) in _flat(answer)
    if isinstance(value, int | float):
        return any(abs(n - float(value)) <= _TOLERANCE for n in _numbers(answer))
    text = str(value).strip()
    if not text:
        return False
    if _is_date(text):
        return text in _dates(answer)  # a date however the reply spells it
    return _flat(text) in _flat(answer)


def _whole_numbers(text: str) -> list[float]:
    """Numbers written as tokens of their own: "2026" inside "2026-03-02" or "12" inside
    "A12" is not a number the text states."""
    out = []
    for token in text.split():
        token = token.lstrip(_LEAD).rstrip(_WRAP)
        pieces = [token] if _WHOLE_NUMBER.fullmatch(token) else re.split(r"[,/;]", token)
        for piece in pieces:
            piece = piece.lstrip(_LEAD).rstrip(_WRAP)
            if piece and _WHOLE_NUMBER.fullmatch(piece):
                out.append(float(piece.replace(",", "")))
    return out


def says(answer: str, value: Any) -> bool:
    """Whether a free-text answer states ``value`` as a whole: strings on word boundaries
    (case-insensitive, ``_`` read as a space, so "low" is not in "follow-up"), numbers by
    value among whole number tokens (same tolerance as ``mentions``); a list if any item is
    stated. Stricter than ``mentions``, because it decides what an answer must *not* say:
    a value that merely occurs inside another word was not said."""
    if isinstance(value, list | tuple):
        return any(says(answer, v) for v in value)
    if value is None:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return any(abs(n - float(value)) <= _TOLERANCE for n in _whole_numbers(answer or ""))
    text = _flat(str(value).lower() if isinstance(value, bool) else str(value))
    if not text:
        return False
    if _is_date(text):
        return text in _dates(answer or "")
    pattern = r"(?<!\w)" + re.escape(text) + r"(?!\w)"
    return re.search(pattern, _flat(answer or "")) is not None
