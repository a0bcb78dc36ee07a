"""What a tool argument is told to do, when it is not a value of the record it names:

- a display option says what the answer shows (``dnssec``: "whether to include the dnssec
  fields in the Zone objects", ``expand``, ``fields``, ``verbose``): no filter, no field;
- a change set is an update's object of the record's own fields (``updates: {title,
  priority}``): its members are written to the record, the object itself is stored nowhere;
- a request body's member renamed beside a parameter of the same name (``body_rrsets``
  beside the query's ``rrsets``) writes the field of its own name.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from library.ingest.naming import singular, tokens
from library.toolspec import ToolSpec

# Names that only ever shape the answer (JSON:API ``include``, ``expand``, ``fields``).
_SHAPING_NAMES = frozenset({"expand", "embed", "fields", "verbose", "include", "pretty"})
_SHOWS = (
    r"(?:include[sd]?|including|return(?:s|ed)?|show(?:s|n)?|omit(?:s|ted)?|exclude[sd]?|"
    r"hide[sn]?|display(?:s|ed)?|expand(?:s|ed)?|embed(?:s|ded)?|populate[sd]?)"
)
# ``include ... fields``: the noun is a part of each record, not a kind of record.
_PARTS = r"(?:fields|properties|attributes|columns)"
_SHOWS_PARTS = re.compile(rf"\b{_SHOWS}\b[^.;:]{{0,80}}?\b{_PARTS}\b", re.IGNORECASE)
# ``include the rrsets in the response Zone object``: what each answered object holds.
_SHOWS_IN_OBJECT = re.compile(
    rf"\b{_SHOWS}\b[^.;:]{{0,80}}?\bin (?:the |each |every )?[^.;:]{{0,30}}?\bobjects?\b",
    re.IGNORECASE,
)
_DETAIL = re.compile(r"\b(?:level of detail|verbosity|slim|verbose)\b", re.IGNORECASE)
_PART_WORDS = frozenset({"field", "property", "attribute", "column"})


def shapes_answer(name: str, description: str, resource: str) -> bool:
    """Whether a parameter only says what the answer shows of each record, not which records
    or what they hold. A description about fields says so unless the records themselves are
    fields (``includeDisabled``: "Include disabled fields" of a custom-fields list)."""
    if set(tokens(name)) <= _SHAPING_NAMES:
        return True
    if _SHOWS_IN_OBJECT.search(description) or _DETAIL.search(description):
        return True
    parts_are_records = any(singular(t) in _PART_WORDS for t in tokens(resource))
    return not parts_are_records and bool(_SHOWS_PARTS.search(description))


def stored_name(spec: ToolSpec, key: str) -> str:
    """The field an input property writes: ``rrsets`` for ``body_rrsets``, which ingest
    renamed only so as not to shadow the query's ``rrsets`` (an option of the answer). A
    body's namesake of a path parameter keeps its own name: it may be the same thing
    (``FileId`` of ``/Files/{FileId}/Associations``) or another (the partner's
    ``organizationId`` of ``/organizations/{organizationId}/partner``)."""
    params = spec.http.params if spec.http else {}
    where = params.get(key, "")
    name = where.removeprefix("body:")
    return name if where.startswith("body:") and params.get(name) != "path" else key


def shadowed(spec: ToolSpec, key: str) -> bool:
    """Whether a query or header parameter has a body member of its name beside it (renamed
    ``body_<key>``): the body's member is the record's value, the parameter an option."""
    params = spec.http.params if spec.http else {}
    return params.get(key) in ("query", "header") and f"body:{key}" in params.values()


def path_keys(spec: ToolSpec) -> frozenset[str]:
    """The parameters of the tool's path: what names the record and its parents."""
    params = spec.http.params if spec.http else {}
    return frozenset(k for k, v in params.items() if v == "path")


def location(spec: ToolSpec, key: str) -> str:
    """``path``, ``query``, ``body`` (a renamed member too), or ``""`` without HTTP."""
    where = spec.http.params.get(key, "") if spec.http else ""
    return where.partition(":")[0]


def change_set(node: Any, own: Collection[str], name: str, keys: Collection[str] = ()) -> list[str]:
    """The members of an update's object argument that are the record's own fields, when
    more than half of them are (``updates: {title, description, status, priority}`` of a
    ticket); else ``[]``. An object the record holds under the argument's name is no change
    set, and what names the record (``keys``: the path's parameters, a ``{jobId,
    projectId}`` reference) is nothing an update changes."""
    if name in own or not isinstance(node, dict):
        return []
    props = node.get("properties")
    if not isinstance(props, dict) or not props:
        return []
    members = [k for k in props if k in own and k not in keys]
    return members if 2 * len(members) > len(props) else []
