"""Words out of identifiers: tokenizing, snake_case, plurals, safe tool and service names."""

from __future__ import annotations

import re
from functools import lru_cache

# camelCase / PascalCase / ACRONYMCase boundaries, then any non-alphanumeric run.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_TOOL_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]+")
_SERVICE_BAD = re.compile(r"[^a-z0-9]+")

# Words whose plural is themselves, or that read as collections already.
_UNCOUNTABLE = frozenset(
    {
        "data", "info", "information", "metadata", "media", "news", "series", "species",
        "equipment", "feedback", "software", "hardware", "weather", "whois", "dns", "sms", "mms",
        "inbox", "money", "health", "status", "analytics", "statistics", "stats",
        "settings", "content", "history", "inventory", "memory",
        "storage", "search", "auth", "login", "logout", "me", "usage", "billing", "traffic",
        "staff", "personnel", "audio", "video", "music", "evidence", "knowledge", "insurance",
        "fuel", "advice", "access", "progress", "research",
    }
)  # fmt: skip
_IRREGULAR = {
    "person": "people", "child": "children", "man": "men", "woman": "women",
    "mouse": "mice", "index": "indexes", "matrix": "matrices", "vertex": "vertices",
    "criterion": "criteria", "datum": "data", "leaf": "leaves", "life": "lives",
    "analysis": "analyses", "basis": "bases", "quiz": "quizzes", "goose": "geese",
}  # fmt: skip
_PLURAL_VALUES = frozenset(_IRREGULAR.values())


@lru_cache(maxsize=65536)
def tokens(identifier: str) -> tuple[str, ...]:
    """``getContactByID`` -> ``(get, contact, by, id)``; ``due-date`` -> ``(due, date)``."""
    spaced = _CAMEL.sub(" ", identifier)
    return tuple(t.lower() for t in _NON_ALNUM.split(spaced) if t)


def snake(identifier: str) -> str:
    return "_".join(tokens(identifier))


def is_plural(word: str) -> bool:
    """A guess good enough for collection names: ``contacts`` yes, ``address``/``status`` no."""
    if word in _PLURAL_VALUES or word in _UNCOUNTABLE:
        return True
    if len(word) < 3 or not word.endswith("s"):
        return False
    return not word.endswith(("ss", "us", "is"))


def written_plural(word: str) -> bool:
    """Spelled as a plural (``contacts``, ``people``); uncountables like ``status`` are not."""
    if word in _PLURAL_VALUES:
        return True
    return len(word) >= 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


_IRREGULAR_SINGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman"}


def singular(word: str) -> str:
    """The singular of a snake_case collection name (``leave_requests`` -> ``leave_request``)."""
    head, _, last = word.rpartition("_")
    if last in _IRREGULAR_SINGULAR:
        last = _IRREGULAR_SINGULAR[last]
    elif last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("sses", "shes", "ches", "xes", "zes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return f"{head}_{last}" if head else last


@lru_cache(maxsize=65536)
def pluralize(word: str) -> str:
    """Plural of the last word of a snake_case name: ``restore_point`` -> ``restore_points``."""
    head, _, last = word.rpartition("_")
    if not last:
        return word
    if is_plural(last):
        plural = last
    elif last in _IRREGULAR:
        plural = _IRREGULAR[last]
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        plural = last + "es"
    elif last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        plural = last[:-1] + "ies"
    else:
        plural = last + "s"
    return f"{head}_{plural}" if head else plural


def resource_name(words: str | tuple[str, ...] | list[str]) -> str | None:
    """A resource (plural snake_case collection name) from an identifier or its tokens."""
    toks = tokens(words) if isinstance(words, str) else tuple(words)
    toks = tuple(t for t in toks if t)
    if not toks or all(t.isdigit() for t in toks):
        return None
    return pluralize("_".join(toks))


def tool_name(raw: str, limit: int = 64) -> str:
    """A function name every model API accepts: ``^[A-Za-z0-9_-]{1,64}$``."""
    name = _TOOL_NAME_BAD.sub("_", raw).strip("_")
    return name[:limit] or "tool"


def renamed_warning(raw: str, name: str) -> str | None:
    """The warning for a tool name that :func:`tool_name` changed (surrounding spaces aside);
    None when it was kept."""
    if name == raw.strip():
        return None
    return (
        f"tool name {raw[:200]!r} renamed to {name!r}: model APIs accept only A-Z, a-z, 0-9, "
        "_ and - in a tool name, at most 64 characters"
    )


def service_name(raw: str) -> str:
    """A service name: lowercase ``[a-z0-9_]``, e.g. ``1password.local__connect`` ->
    ``1password_local_connect``."""
    name = _SERVICE_BAD.sub("_", raw.lower()).strip("_")
    return name[:80] or "service"
