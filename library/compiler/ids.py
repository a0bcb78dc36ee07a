"""Record ids as the spec declares them: which output key holds the id, and its type.

Real APIs key records by ``id``, ``sid``, ``changesetId`` or ``widget_id``, and their ids are
strings, integers, UUIDs or strings matching a pattern. Inside a generated service every id is
a string under the record's ``id`` attribute; the key and the type only change how the id looks
on the wire (an alias, ``IntId``) and how new ids are made (``uuid_id``, ``pattern_id`` from the
runtime; integers by the module's ``_int_id``, which counts each collection's ids apart).
"""

from __future__ import annotations

import json
import re
from typing import Any

from library.compiler.model import RUNTIME, IdStyle
from library.compiler.patterns import drawable
from library.compiler.types import json_types, usable_pattern
from library.ingest.naming import singular, tokens
from library.runtime.semantic import REF_MAX_LENGTH

ID_WORDS = (("id",), ("sid",), ("uuid",), ("guid",), ("arn",))  # ``arn``: AWS names records so

INT_IDS = "int_ids"  # the State attribute: collection -> the last integer id it gave

__all__ = ["INT_IDS", "RUNTIME", "IdStyle", "id_key", "id_style", "new_id_source"]


def id_key(props: dict[str, Any], resource: str | None, own: str | None = None) -> str | None:
    """The property of a record schema that holds its id, if any: ``id``, else the tool's own
    id parameter (``Sid``, ``changesetId``), ``<resource>_id``/``<resource>Id``, ``sid``..."""
    if "id" in props:
        return "id"
    keys = list(props)
    if own is not None:
        mine = tokens(own)
        for key in keys:
            if key.lower() == own.lower() or tokens(key) == mine:
                return key
    want = (*tokens(singular(resource)), "id") if resource else None
    for key in keys:
        toks = tokens(key)
        if toks in ID_WORDS or (want is not None and toks == want):
            return key
    from library.compiler.records import names_record  # records imports this module

    for key in keys:
        if names_record(tokens(key), resource):
            return key
    if "name" in props and resource:  # last resort: resources named by a unique ``name``
        return "name"
    return None


def id_style(node: dict[str, Any]) -> IdStyle | str:
    """The style of ids of this schema node, or why the compiler cannot make such ids."""
    types, _ = json_types(node)
    enum = node.get("enum")
    if enum:
        return "record ids are a fixed set of values"
    if types and types <= {"integer", "number"}:
        return IdStyle("int")
    if types and "string" not in types:
        return f"record ids are {'/'.join(sorted(types))}"
    if node.get("format") == "uuid":
        return IdStyle("uuid")
    pattern = node.get("pattern")
    low, high = node.get("minLength"), node.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) else 0
    high = high if isinstance(high, int) and not isinstance(high, bool) else None
    if isinstance(pattern, str):
        if not usable_pattern(pattern):
            return f"record ids must match {pattern!r}, which cannot be used"
        if all(_fits(pattern, low, high, text) for text in _RUNTIME_LIKE):
            return RUNTIME
        # ``pattern_id`` draws no id longer than a ``Ref`` takes
        capped = REF_MAX_LENGTH if high is None else min(high, REF_MAX_LENGTH)
        if not drawable(pattern, low, capped):
            return f"record ids must match {pattern!r}, which no id can be drawn for"
        return IdStyle("pattern", pattern, low, high)
    if low > 14 or (high is not None and high < 14):
        return IdStyle("pattern", ".+", low, high)
    return RUNTIME


# An id a description shows by example ("such as '#W0000000'", "e.g. INV-0001"), when the
# example is a code: an optional ``#``, a few capitals, an optional dash, then digits.
_TOLD_CODE = re.compile(
    r"(?:such as|e\.g\.,?|for example,?|like)\s+['\"`]?(#?[A-Z]{0,4}-?)(\d{3,12})['\"`]?(?!\w)"
)


def told_code(description: str) -> str | None:
    """The pattern of the ids a description shows by example, when they are codes (tau's
    "The order id, such as '#W0000000'" -> ``^\\#W\\d{7}$``); None otherwise (a user id
    such as 'sara_doe_496' is a name, not a number)."""
    match = _TOLD_CODE.search(description)
    if match is None:
        return None
    prefix, digits = match.groups()
    return f"^{re.escape(prefix)}\\d{{{len(digits)}}}$"


# An id a description quotes by example ("such as 'ZFA04Y'", "such as 'sara_doe_496'").
_TOLD_ID = re.compile(r"(?:such as|e\.g\.,?|for example,?|like)\s+['\"`]([^'\"`\s]{3,40})['\"`]")
# A booking reference: a few capitals and digits, both (``ZFA04Y``, ``8JX2WO``).
_REFERENCE = re.compile(r"^(?=.*[A-Z])(?=.*\d)[A-Z\d]{5,10}$")
# A handle: lower-case words and a number, joined by ``_``, ``.`` or ``-`` (``sara_doe_496``).
_HANDLE = re.compile(r"^[a-z]{2,12}(?:[_.-][a-z]{2,12})*[_.-]?\d{1,6}$")


def told_id(node: dict[str, Any] | None) -> str | None:
    """The pattern of the ids an id parameter shows by example when a person could quote
    one (a code, a booking reference, a handle): tau's "The reservation ID, such as
    'ZFA04Y'" -> ``^[A-Z0-9]{6}$``, "The user id, such as 'sara_doe_496'" -> ids of that
    shape. None for ids shown no such way (an opaque UUID, no example)."""
    node = node or {}
    description = str(node.get("description") or "")
    code = told_code(description)
    if code is not None:
        return code
    shown = [e for e in [*(node.get("examples") or []), node.get("example")] if isinstance(e, str)]
    shown += _TOLD_ID.findall(description)
    for example in shown:
        if _REFERENCE.match(example):
            return f"^[A-Z0-9]{{{len(example)}}}$"
        if _HANDLE.match(example):
            parts = re.findall(r"[a-z]+|\d+|[_.-]", example)
            return "^" + "".join(_shape(part) for part in parts) + "$"
    return None


def is_handle(pattern: str | None) -> bool:
    """Whether ``told_id`` made ``pattern`` from a handle ('sara_doe_496'): a person's
    record then takes an id of their own name (``SeedPool.handle_id``)."""
    return bool(pattern) and re.fullmatch(_HANDLE_SHAPE, str(pattern)) is not None


# What ``told_id`` makes of a handle: words of a name's length, digits, separators.
_HANDLE_SHAPE = r"\^(?:\[a-z\]\{2,12\}|\\d\{\d+\}|\\?[_.-])+\$"


def _shape(part: str) -> str:
    """One run of a handle as a pattern: words of a name's length, the number's digits."""
    if part.isdigit():
        return f"\\d{{{len(part)}}}"
    if part.isalpha():
        return "[a-z]{2,12}"
    return re.escape(part)


# Ids the runtime makes (``<prefix>_<10 hex digits>``): a pattern must take all of them, not
# one that happens to hold ``123`` (``[1-5]\d\d`` is searched, not matched).
_RUNTIME_LIKE = ("rec_0123456789", "abc_abcdefabcd", "x_ffffffffff", "rec_a0a0a0a0a0")


def _fits(pattern: str, low: int, high: int | None, text: str) -> bool:
    try:
        found = re.search(pattern, text) is not None
    except re.error:
        return False
    return found and len(text) >= low and (high is None or len(text) <= high)


def new_id_source(style: IdStyle, prefix: str, resource: str) -> str:
    """Python source (in a tool body or ``seed``) for a new id of this style. Integer ids are
    a sequence per collection (``INT_IDS``: 1, 2, 3 ... in each, continuing after the seeded
    records), as a database's keys are, rather than one counter shared by the service."""
    if style.numeric:
        return f"_int_id(self, {json.dumps(resource)})"
    if style.kind == "uuid":
        return f"uuid_id(self, {json.dumps(prefix)})"
    if style.kind == "pattern":
        args = [
            "self",
            json.dumps(prefix),
            json.dumps(style.pattern or ".+"),
            f"self.state.{resource}",
        ]
        if style.min_length or style.max_length is not None:
            args.append(str(style.min_length))
        if style.max_length is not None:
            args.append(str(style.max_length))
        return f"pattern_id({', '.join(args)})"
    return f"self.new_id({json.dumps(prefix)})"
