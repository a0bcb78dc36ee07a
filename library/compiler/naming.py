"""Names for generated code: Python identifiers for spec names, class names, singulars.

Spec names are data (``from``, ``x-request-id``, ``createNotebook``); generated code needs
identifiers that neither clash with Python keywords nor shadow attributes of ``Service`` or
pydantic's ``BaseModel``. Where an identifier differs from the spec name, the emitter adds an
alias so schemas and tool output keep the spec's spelling.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Collection

from pydantic import BaseModel

from library.ingest.naming import pluralize, tokens

_NOT_IDENT = re.compile(r"\W+")

# Service attributes a tool method must not replace (the helpers tool bodies call).
SERVICE_ATTRS = frozenset(
    {
        "name", "description", "State", "state", "tools", "world", "seed", "load_state", "now",
        "today", "new_id", "get", "put", "update", "set_fields", "delete",
    }
)  # fmt: skip
# Field names pydantic refuses, or that shadow a BaseModel attribute.
MODEL_ATTRS = frozenset(name for name in dir(BaseModel) if not name.startswith("__"))


def identifier(name: str, taken: frozenset[str] | set[str] = frozenset()) -> str:
    """A Python identifier for a spec name: ``from`` -> ``from_``, ``x-id`` -> ``x_id``."""
    ident = _NOT_IDENT.sub("_", name).strip("_") or "field"
    if ident[0].isdigit():
        ident = f"n{ident}"
    if keyword.iskeyword(ident) or keyword.issoftkeyword(ident) or ident in taken:
        ident += "_"
    while ident in taken:
        ident += "_"
    return ident


# Names annotations use: a field called ``list`` would shadow ``list[...]`` in its class body.
ANNOTATION_NAMES = frozenset(
    {"list", "dict", "str", "int", "float", "bool", "set", "tuple", "type", "object", "bytes"}
)


def field_attr(name: str, taken: set[str]) -> str:
    """The attribute name of a model field (pydantic reserves ``model_*`` and ``_*``)."""
    ident = identifier(name, frozenset(taken) | MODEL_ATTRS | ANNOTATION_NAMES)
    return f"f_{ident}" if ident.startswith("model_") else ident


def class_name(name: str) -> str:
    """``leave_requests`` -> ``LeaveRequests``; ``1password`` -> ``N1password``."""
    words = tokens(name) or ("model",)
    text = "".join(w[:1].upper() + w[1:] for w in words)
    return f"N{text}" if text[0].isdigit() else text


def a_or_an(phrase: str) -> str:
    """``a contact``, ``an account``."""
    return f"{'an' if phrase[:1].lower() in 'aeiou' else 'a'} {phrase}"


def words(name: str) -> str:
    """Human words for messages: ``leave_request`` -> ``leave request``."""
    return " ".join(tokens(name)) or name


def verb_words(tool_name: str) -> tuple[str, ...]:
    """The leading word(s) of a tool name: ``check_in_booking`` -> ``('check', 'in', ...)``."""
    return tokens(tool_name)


def collection_for(param: str, ref: str | None, collections: Collection[str]) -> str | None:
    """The collection an id parameter points into, or None.

    Shared by the compiler (which emits the existence checks) and the conformance suite (which
    probes them), so both agree on which parameters are references: the inferred ``ref`` when
    it names a collection, else ``<thing>_id`` / ``<thing>Id`` naming one.
    """
    if ref and ref in collections:
        return ref
    parts = tokens(param)
    if len(parts) >= 2 and parts[-1] == "id":
        base = "_".join(parts[:-1])
        for candidate in (pluralize(base), base):
            if candidate in collections:
                return candidate
    return None
