"""Allowed values a schema states only in words, read as the enum (or the range) they are.

tau2's retail ``cancel_pending_order`` declares ``reason`` as a plain string described as "The
reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'",
and the real tool rejects any other text. A string node (a parameter, or a property at any
depth) whose own description states a *closed* set of values gets ``enum`` with exactly those
values, spelled as quoted: the seed writer, the compiled tool's validation and composition all
read the enum, so they use only those values.

Closed-set phrasings only, each followed by at least two values:

- ``either 'a' or 'b'``, ``one of 'a', 'b' and 'c'``, ``must be 'x' or 'y'`` (also should,
  shall, can only, may only, has to): the values quoted (``'…'``, ``"…"``, backticks, curly);
- ``Allowed values: a, b, c`` (also valid, possible, accepted, acceptable, permitted, supported
  values or options) and ``One of: a, b``: quoted, or bare words up to the end of the sentence.

Never examples ("such as 'a' or 'b'", "e.g.", "for example", "like", "including"), never a
list that goes on ("'a', 'b', etc.", "'a', 'b', and web-safe base64"), never a list that says
something else than what the field holds: one that does not end its clause ("Either
'folderId' or 'folderPath' is required"), one about a name quoted before it ("`Order` can be
either `asc` or `desc`"), an "either" after a verb ("must begin with either 'http://' or
..."), one naming two of the properties beside the field, or one in a description of composite
text (a filter expression, a comma-separated list) or of a set it says may grow. Never on a
record's id (``branchId``: the service issues ids), never where the schema already has an
enum or const, a non-text type or format, or a pattern, length, default or example the stated
values contradict.
"""

from __future__ import annotations

import re
from typing import Any

from library.ingest.naming import tokens

MAX_VALUES = 64  # the compiler types larger enums as their base type anyway
_ID_WORDS = (("id",), ("ids",), ("uuid",), ("guid",))

_QUOTED = (
    r"'(?P<v1>[^'\n]{1,80})'|\"(?P<v2>[^\"\n]{1,80})\"|`(?P<v3>[^`\n]{1,80})`"
    r"|\u2018(?P<v4>[^\u2019\n]{1,80})\u2019|\u201c(?P<v5>[^\u201d\n]{1,80})\u201d"
)
_BARE = r"(?P<v6>[A-Za-z0-9_][A-Za-z0-9_\-]{0,79}(?:\.[A-Za-z0-9_\-]{1,40})*)"
_SEPARATOR = re.compile(r"\s*(?:,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|\s*\|\s*|\s*/\s*)")
_LEADS = re.compile(
    r"\b(?:"
    r"(?P<either>either)"
    r"|(?P<one>one\s+of)(?:\s+the\s+following(?:\s+values)?)?"
    r"|(?P<must>must|should|shall|can\s+only|may\s+only|has\s+to|have\s+to)\s+be"
    r"(?:\s+(?:either|one\s+of(?:\s+the\s+following)?))?"
    r"|(?P<values>(?:allowed|valid|possible|accepted|acceptable|permitted|supported)"
    r"\s+(?:values?|options|choices))(?:\s+(?:are|is))?"
    r")\s*:?\s*",
    re.I,
)
_QUOTED_VALUE = re.compile(_QUOTED)
_BARE_VALUE = re.compile(_BARE + r"(?![A-Za-z0-9_'\"`])")
# Words before the lead, in the same sentence, that make the list examples or a count.
_NOT_CLOSED_BEFORE = re.compile(
    r"\b(?:such\s+as|e\.\s?g\b|eg\b|for\s+example|for\s+instance|like|including|include[sd]?"
    r"|at\s+least|at\s+most|more\s+than|any)\W*$",
    re.I,
)
_EXAMPLE_WORDS = re.compile(
    r"\b(?:such\s+as|e\.\s?g\.|for\s+example|for\s+instance|including|among\s+others"
    r"|examples?\s*:)",
    re.I,
)
# A quoted name before the lead: the values are that name's ("`Order` can be either ..."),
# not the field's. An apostrophe inside a word ("user's") quotes nothing.
_NAMED_BEFORE = re.compile(
    r"(?<![A-Za-z])'[^'\n]+'(?![A-Za-z])|\"[^\"\n]+\"|`[^`\n]+`|\u2018[^\u2019\n]+\u2019"
    r"|\u201c[^\u201d\n]+\u201d"
)
# What "either" must follow to say what the field is: nothing (the sentence opens with it),
# a copula ("should be either"), or punctuation; "Specify either `URL` or `Token`" and "must
# begin with either ..." say something else.
_EITHER_AFTER = re.compile(r"(?:^|[:(,\-\u2013\u2014]|\b(?:is|are|be|was|were))\s*$", re.I)
# Text whose parts the values describe (a filter expression, a comma-separated list, a sort
# pairing), and sets the description itself leaves open.
_COMPOSITE = re.compile(
    r"\b(?:comma[- ]separated|space[- ]separated|separated\s+by|delimited|expressions?|syntax"
    r"|list\s+of|in\s+the\s+form(?:at)?\s+of|specified\s+as|not\s+limited\s+to"
    r"|(?:may|might|could|can|will)\s+be\s+(?:added|extended)|new\s+values|other\s+values"
    r"|additional\s+values)\b",
    re.I,
)
_GOES_ON = re.compile(r"^\s*(?:,\s*)?(?:etc\b|and\s+so\s+on|or\b|and\b|\.\.\.|\u2026)", re.I)
_ENDS_CLAUSE = re.compile(r"^[ \t]*(?:$|\n|[.;:!?)\](]|,)")
_SENTENCE_END = re.compile(r"(?:[.!?]\s+(?=[A-Z\"'`])|\n)")


def stated_values(description: Any) -> tuple[str, ...] | None:
    """The closed set of values ``description`` states (exact spelling, in order), or None."""
    if not isinstance(description, str) or not description:
        return None
    text = description[:4000]
    if _COMPOSITE.search(text):
        return None
    for lead in _LEADS.finditer(text):
        found = _list_after(text, lead)
        if found is not None:
            # "The type of model e.g. `home-page`. Currently supported values: ..." shows a
            # value the list lacks: the list is not every value
            shown = {v for m in _EXAMPLE_WORDS.finditer(text) for v in _shown_after(text, m.end())}
            return found if shown <= set(found) else None
    return None


def _shown_after(text: str, at: int) -> list[str]:
    """The quoted values an example phrase shows, up to the end of its sentence."""
    end = next((m.start() for m in _SENTENCE_END.finditer(text, at)), len(text))
    return [
        next(g for g in m.groups() if g is not None) for m in _QUOTED_VALUE.finditer(text, at, end)
    ]


def _list_after(text: str, lead: re.Match[str]) -> tuple[str, ...] | None:
    ends = (m.end() for m in _SENTENCE_END.finditer(text) if m.end() <= lead.start())
    sentence_start = max(ends, default=0)
    before = text[sentence_start : lead.start()]
    if _NOT_CLOSED_BEFORE.search(before) or _EXAMPLE_WORDS.search(before):
        return None
    if _NAMED_BEFORE.search(before):
        return None
    if lead.group("either") and not _EITHER_AFTER.search(before):
        return None
    # bare words only where the phrase introduces a list: "Allowed values: a, b", "One of: a, b"
    bare = lead.group("values") is not None or ":" in lead.group(0)
    values, end, separators = _values(text, lead.end(), _QUOTED_VALUE)
    if not values and bare:
        values, end, separators = _values(text, lead.end(), _BARE_VALUE)
    if len(values) < 2 or len(values) > MAX_VALUES or len(set(values)) < len(values):
        return None
    if lead.group("either") and not any(re.search(r"\bor\b", s) for s in separators):
        return None  # "either 'a', 'b'" without an "or" is no either/or
    rest = text[end:]
    if _GOES_ON.match(rest) or not _ENDS_CLAUSE.match(rest):
        return None
    if rest.lstrip(" \t").startswith(",") and _EXAMPLE_WORDS.search(rest[:40]):
        return None  # "'a' or 'b', for example"
    return tuple(values)


def _values(text: str, at: int, value: re.Pattern[str]) -> tuple[list[str], int, list[str]]:
    """Values matched by ``value`` from ``at``, each after the last by a list separator: the
    values, where the list ends, and the separators seen."""
    values: list[str] = []
    separators: list[str] = []
    pos = at
    while True:
        match = value.match(text, pos)
        if match is None:
            break
        found = next(g for g in match.groups() if g is not None)
        if found != found.strip() or not found:
            break
        values.append(found)
        pos = match.end()
        sep = _SEPARATOR.match(text, pos)
        if sep is None or sep.end() == pos or value.match(text, sep.end()) is None:
            break
        separators.append(sep.group(0))
        pos = sep.end()
    return values, pos, separators


def _fits(node: dict[str, Any], values: tuple[str, ...]) -> bool:
    """Whether ``node`` is plain text that nothing in it contradicts ``values`` for."""
    types = node.get("type")
    types = types if isinstance(types, list) else [types]
    if "string" not in types or any(t not in ("string", "null") for t in types):
        return False
    if "enum" in node or "const" in node or node.get("format") not in (None, ""):
        return False
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            return False
        if not all(compiled.search(v) for v in values):
            return False
    low, high = node.get("minLength"), node.get("maxLength")
    if isinstance(low, int) and any(len(v) < low for v in values):
        return False
    if isinstance(high, int) and any(len(v) > high for v in values):
        return False
    shown = [*(node.get("examples") or ()), *([node["default"]] if "default" in node else ())]
    return all(v is None or v in values for v in shown if not isinstance(v, list | dict))


def with_stated_values(
    schema: Any, depth: int = 0, siblings: frozenset[str] = frozenset(), name: str = ""
) -> Any:
    """``schema`` with ``enum`` on every text node whose description states its values (see
    the module); nodes left unchanged are shared, changed ones are copies. ``name``: the
    property the node is (or whose items it is), ``siblings``: the properties beside it
    (values naming two of them name fields, not values)."""
    if not isinstance(schema, dict) or depth > 40:
        return schema
    out: dict[str, Any] | None = None

    def put(key: str, value: Any) -> None:
        nonlocal out
        if value is not schema[key]:
            out = dict(schema) if out is None else out
            out[key] = value

    for key in ("properties", "patternProperties", "$defs", "definitions"):
        children = schema.get(key)
        if isinstance(children, dict):
            props = key == "properties"
            names = frozenset(children) if props else frozenset()
            new = {
                k: with_stated_values(v, depth + 1, names, k if props else "")
                for k, v in children.items()
            }
            if any(new[k] is not children[k] for k in children):
                put(key, new)
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            put(
                key, with_stated_values(schema[key], depth + 1, name=name if key == "items" else "")
            )
    for key in ("prefixItems", "allOf", "anyOf", "oneOf"):
        children = schema.get(key)
        if isinstance(children, list):
            new_list = [with_stated_values(v, depth + 1, siblings, name) for v in children]
            if any(a is not b for a, b in zip(new_list, children, strict=True)):
                put(key, new_list)
    values = stated_values(schema.get("description"))
    if values is not None and _fits(schema, values) and _holds_values(name, siblings, values):
        out = dict(schema) if out is None else out
        out["enum"] = list(values)
    ranged = _with_range(schema if out is None else out)  # "from 1 to 5": its bounds
    if ranged is not None:
        out = ranged
    return schema if out is None else out


def _holds_values(name: str, siblings: frozenset[str], values: tuple[str, ...]) -> bool:
    """Whether stated ``values`` are what the property ``name`` holds: not a record's id (the
    service issues those: a branch's id "must be one of "0", "1" or "2"" is a record of its
    own), and not names of the properties beside it."""
    if tokens(name)[-1:] in _ID_WORDS:
        return False
    names = {n.casefold() for n in siblings}
    return sum(v.casefold() in names for v in values) < 2


# -- numeric ranges stated in words --------------------------------------------------------
# BFCL's ticket ``priority`` is a bare integer described as "Priority of the ticket, from 1 to
# 5": the range is the field's ``minimum``/``maximum``, which the seed writer and the tool's
# validation read. Unambiguous phrasings only, one range per description: "from 1 to 5",
# "between 1 and 5", "1-5" (also "1 - 5", "1–5", "1..5"), "1 (highest) to 5 (lowest)", "range
# of 1 to 5", "on a scale of 1 to 10". Never an example ("e.g. 1-5"), never two different
# ranges, never where a low is not below its high.
_NUMBER = r"(-?\d+(?:\.\d+)?)"
_RANGES = (
    re.compile(
        rf"\b(?:from|range(?:\s+(?:of|is))?|scale\s+of|between)\s+{_NUMBER}"
        rf"(?:\s*\([^()\n]{{1,30}}\))?\s+(?:to|and|through)\s+{_NUMBER}(?!\w|\.\d)",
        re.I,
    ),
    re.compile(
        rf"(?<![\w.\-]){_NUMBER}\s*\([^()\n]{{1,30}}\)\s*(?:to|through|-|\u2013)\s*{_NUMBER}(?!\w|\.\d)",
        re.I,
    ),
    re.compile(r"(?<![\w.\-/:])(\d+)\s*(?:-|\u2013|\u2014|\.\.)\s*(\d+)(?![\w\-/:%]|\.\d)"),
)


def stated_range(description: Any) -> tuple[float, float] | None:
    """The one numeric range ``description`` states (low, high), or None."""
    if not isinstance(description, str) or not description:
        return None
    text = description[:4000]
    found: set[tuple[float, float]] = set()
    taken: list[tuple[int, int]] = []
    for pattern in _RANGES:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue  # the same words, read by an earlier phrasing
            taken.append((match.start(), match.end()))
            ends = (m.end() for m in _SENTENCE_END.finditer(text) if m.end() <= match.start())
            before = text[max(ends, default=0) : match.start()]
            if _EXAMPLE_WORDS.search(before) or _NOT_CLOSED_BEFORE.search(before):
                return None  # "e.g. 1-5": an example, not the range
            low, high = float(match.group(1)), float(match.group(2))
            if not low < high:
                return None
            found.add((low, high))
    return next(iter(found)) if len(found) == 1 else None


def _number_node(node: dict[str, Any]) -> bool:
    types = node.get("type")
    types = types if isinstance(types, list) else [types]
    kinds = [t for t in types if t != "null"]
    return bool(kinds) and all(t in ("integer", "number") for t in kinds)


def _with_range(node: dict[str, Any]) -> dict[str, Any] | None:
    """``node`` with the bounds its description states where it declares none, or None."""
    if not _number_node(node) or "enum" in node or "const" in node:
        return None
    found = stated_range(node.get("description"))
    if found is None:
        return None
    integer = "integer" in (node["type"] if isinstance(node["type"], list) else [node["type"]])
    low, high = (int(v) if integer and v == int(v) else v for v in found)
    if integer and (low != found[0] or high != found[1]):
        return None  # "1.5 to 2.5" is no range of whole numbers
    declared = [node.get(k) for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")]
    if any(v is not None for v in declared):
        return None  # the declared bounds are the field's, always
    shown = [*(node.get("examples") or ()), *([node["default"]] if "default" in node else ())]
    numbers = [v for v in shown if isinstance(v, int | float) and not isinstance(v, bool)]
    if any(not low <= v <= high for v in numbers):
        return None  # "Defaults to 0" beside "1-5": the words are not the range
    return {**node, "minimum": low, "maximum": high}


# "(“Slave” type zones only)", "(only for Slave zones)": the kind of record a field is for.
_KEPT_FOR = re.compile(
    r"(?i)\(\s*[\"“'‘]?([\w-]+)[\"”'’]?\s+(?:type\s+)?\w+\s+only\s*\)"
    r"|\bonly for [\"“'‘]?([\w-]+)[\"”'’]?"
)


def kept_for(description: Any) -> str | None:
    """The one kind of record a field's description keeps it for ("List of IP addresses
    configured as a master for this zone ("Slave" type zones only)" -> ``Slave``), else None:
    a record of that kind has it, the others do not."""
    told = _KEPT_FOR.search(str(description or ""))
    return str(told.group(1) or told.group(2)) if told is not None else None
