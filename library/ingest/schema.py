"""Normalizing any spec dialect's schema to standard JSON Schema, resolving local ``$ref``s.

Dialects met in the wild: OpenAPI 3.0 (``nullable``, boolean ``exclusiveMinimum``, ``example``),
OpenAPI 3.1 / JSON Schema (type unions such as ``["null", "integer"]``), Swagger 2 (``x-nullable``,
``type: file``), BFCL (``dict``, ``float``, ``any``, ``tuple``, ``String``) and Python-ish type
names. References are inlined so downstream stages read plain schemas; a reference that recurses,
or that would inline more than a budget, becomes ``{"$ref": "#/$defs/Name"}`` with ``Name``
defined once in the root's ``$defs``. Nothing here raises on bad input: problems become
warnings on the document's Issues and the offending node becomes ``{}`` (accept anything).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from library.ingest.issues import Issues
from library.ingest.refs import RefError, child, ref_pointer, resolve
from library.runtime.semantic import REF_KEY, SEMANTIC_KEY
from library.toolspec import ErrorKind

MAX_DEPTH = 40  # nesting beyond this is cut: no real API needs it, and recursion must stay bounded
INLINE_BUDGET = 4000  # schema nodes inlined per root before further refs go to $defs
MAX_STRING = 4000  # descriptions, patterns, examples: longer text is cut
MAX_VALUE_NODES = 2000  # per enum/default/example value
MAX_ROOT_NODES = 20_000  # per tool schema, counting inlined references: bounds row size
MAX_WORK = 1_000_000  # schema nodes visited per document: bounds YAML alias bombs and the like

_TYPE_NAMES: dict[str, tuple[str, str | None] | None] = {
    **dict.fromkeys(("string", "str", "text", "char", "varchar"), ("string", None)),
    **dict.fromkeys(("number", "float", "double", "decimal", "real", "numeric"), ("number", None)),
    **dict.fromkeys(
        ("integer", "int", "long", "int32", "int64", "short", "uint"), ("integer", None)
    ),
    **dict.fromkeys(("boolean", "bool"), ("boolean", None)),
    **dict.fromkeys(
        ("object", "dict", "map", "hash", "record", "struct", "json"), ("object", None)
    ),
    **dict.fromkeys(("array", "list", "tuple", "set", "sequence"), ("array", None)),
    **dict.fromkeys(("null", "none", "nonetype", "nil"), ("null", None)),
    **dict.fromkeys(("any", "mixed", "unknown", "*"), None),
    "date": ("string", "date"),
    "datetime": ("string", "date-time"),
    "date-time": ("string", "date-time"),
    "email": ("string", "email"),
    "uri": ("string", "uri"),
    "url": ("string", "uri"),
    "uuid": ("string", "uuid"),
    "file": ("string", "binary"),
    "binary": ("string", "binary"),
}
_NUMERIC_KEYS = (
    "minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
    "minProperties", "maxProperties",
)  # fmt: skip
_TEXT_KEYS = ("description", "title", "format", "pattern")
_BOOL_KEYS = ("uniqueItems", "readOnly", "writeOnly", "deprecated")
_VALUE_KEYS = ("default", "const")
_DEF_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def jsonable(value: Any, depth: int = 0, budget: list[int] | None = None) -> Any:
    """Any YAML/JSON value made safe for orjson and Arrow (no sets, bytes, huge ints, NaN),
    cut to a bounded size: YAML aliases can make a small file hold an exponential value."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value[:MAX_STRING]
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value[:MAX_STRING].decode("utf-8", "replace")
    if budget is None:
        budget = [MAX_VALUE_NODES]
    budget[0] -= 1
    if depth > 16 or budget[0] < 0:
        return None
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1, budget) for k, v in list(value.items())[:200]}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v, depth + 1, budget) for v in list(value)[:200]]
    return str(value)[:MAX_STRING]


def _number(value: Any) -> bool:
    """A JSON number that every consumer can hold (finite; integers within 64 bits)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    return isinstance(value, float) and math.isfinite(value)


class SchemaNormalizer:
    """Normalizes schemas of one document; ``root`` is what local ``$ref``s resolve against.

    Resolved references are cached per document, so a component used by fifty operations is
    normalized once and shared (read-only) by all of them.
    """

    def __init__(self, root: Any, issues: Issues) -> None:
        self.root = root
        self.issues = issues
        self.tool: str | None = None  # the tool being parsed, for messages
        self._cache: dict[str, tuple[dict[str, Any], frozenset[str], int]] = {}
        self._failed: set[str] = set()
        self._stack: list[str] = []
        self._needed: set[str] = set()
        self._names: dict[str, str] = {}
        self._taken: set[str] = set()
        self._count = 0
        self._budget_end = 0
        self._root_limit = MAX_ROOT_NODES
        self._root_warned = False
        self._work = 0

    # -- entry points ---------------------------------------------------------------------
    def normalize(self, node: Any, pointer: str) -> dict[str, Any]:
        """A standalone schema: inlined, with ``$defs`` holding recursive/shared definitions."""
        self.begin()
        return self.finish(self.piece(node, pointer))

    def begin(self) -> None:
        """Start one root schema that may be assembled from several pieces (an operation's
        parameters and body): the pieces share one ``$defs``."""
        self._needed = set()
        self._stack = []
        self._budget_end = self._count + INLINE_BUDGET
        self._root_limit = self._count + MAX_ROOT_NODES
        self._root_warned = False

    def piece(self, node: Any, pointer: str) -> dict[str, Any]:
        return self._node(node, pointer, 0)

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Attach the ``$defs`` that the pieces since ``begin()`` refer to."""
        if not self._needed:
            return schema
        defs: dict[str, dict[str, Any]] = {}
        done: set[str] = set()
        while pending := self._needed - done:
            for target in sorted(pending):
                done.add(target)
                defs[self._names[target]] = self._definition(target)
        out = dict(schema)  # `schema` may be a shared cached object: never mutate it
        out["$defs"] = defs
        self._needed = set()
        return out

    def _def_ref(self, target: str) -> dict[str, Any]:
        self._needed.add(target)
        if target not in self._names:
            base = _DEF_NAME.sub("_", target.rsplit("/", 1)[-1])[:80] or "def"
            name, n = base, 1
            while name in self._taken:
                n += 1
                name = f"{base}_{n}"
            self._taken.add(name)
            self._names[target] = name
        return {"$ref": f"#/$defs/{self._names[target]}"}

    def _ref(self, ref: str, pointer: str, depth: int) -> dict[str, Any]:
        try:
            target = ref_pointer(ref)
        except RefError as exc:
            self._warn(pointer, ErrorKind.BAD_REF, f"{exc}; accepted any value here")
            return {}
        if target in self._failed:
            return {}
        if target in self._stack:
            return self._def_ref(target)
        cached = self._cache.get(target)
        if cached is not None:
            result, needed, size = cached
            if self._count + size > self._budget_end:
                return self._def_ref(target)
            self._needed |= needed
            self._count += size
            return result
        if self._count > self._budget_end:
            return self._def_ref(target)
        return self._resolve_fresh(target, pointer, depth)

    def _definition(self, target: str) -> dict[str, Any]:
        """The body of ``$defs[name]``: the target normalized with itself on the stack, so
        self-references stay references."""
        cached = self._cache.get(target)
        if cached is not None:
            self._needed |= cached[1]
            return cached[0]
        self._stack = []
        self._budget_end = self._count + INLINE_BUDGET
        return self._resolve_fresh(target, target, 0)

    def _resolve_fresh(self, target: str, pointer: str, depth: int) -> dict[str, Any]:
        try:
            node = resolve(self.root, target)
        except RefError as exc:
            self._failed.add(target)
            self._warn(pointer, ErrorKind.BAD_REF, f"{exc}; accepted any value here")
            return {}
        chain = self._ref_loop(target, node)
        if chain is not None:
            # Kept, it would become {"$defs": {"A": {"$ref": "#/$defs/A"}}}: a schema that
            # describes no value and sends a validator round in circles.
            self._failed.update(chain)
            loop = chain[chain.index(chain[-1]) :]
            self._warn(
                child(loop[-2], "$ref"),
                ErrorKind.BAD_REF,
                "$ref refers to itself ("
                + " -> ".join(f"#{t}"[:200] for t in chain)
                + "), so it describes no value; accepted any value here",
            )
            return {}
        outer, self._needed = self._needed, set()
        self._stack.append(target)
        start = self._count
        try:
            result = self._node(node, target, depth)
        finally:
            self._stack.pop()
            inner = self._needed
            self._needed = outer | inner
        self._cache[target] = (result, frozenset(inner), self._count - start)
        return result

    def _ref_loop(self, target: str, node: Any) -> list[str] | None:
        """The targets a chain of bare ``$ref``s visits from ``target`` when it comes back to
        one of them before reaching a schema (``[A, A]``, ``[A, B, C, B]``); None otherwise.
        A reference inside a schema (a tree's children) is recursion, not a loop."""
        chain = [target]
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            try:
                nxt = ref_pointer(node["$ref"])
                node = resolve(self.root, nxt)
            except RefError:
                return None  # reported where it is followed
            chain.append(nxt)
            if nxt in chain[:-1]:
                return chain
        return None

    # -- nodes ----------------------------------------------------------------------------
    def _warn(self, pointer: str, kind: ErrorKind, message: str) -> None:
        self.issues.warn(pointer, kind, message, tool=self.tool)

    def _node(self, node: Any, pointer: str, depth: int) -> dict[str, Any]:
        if isinstance(node, bool):
            return {} if node else {"not": {}}
        if not isinstance(node, dict):
            self._warn(
                pointer,
                ErrorKind.INVALID_SCHEMA,
                f"a schema must be an object, got {type(node).__name__}; accepted any value here",
            )
            return {}
        if depth > MAX_DEPTH:
            self._warn(
                pointer,
                ErrorKind.TRUNCATED,
                f"schema nested deeper than {MAX_DEPTH} levels; accepted any value below here",
            )
            return {}
        self._count += 1
        self._work += 1
        if self._count > self._root_limit:
            if not self._root_warned:
                self._root_warned = True
                self._warn(
                    pointer,
                    ErrorKind.TRUNCATED,
                    f"schema larger than {MAX_ROOT_NODES} nodes; the rest accept any value",
                )
            return {}
        if self._work > MAX_WORK:
            if self._work == MAX_WORK + 1:
                self._warn(
                    pointer,
                    ErrorKind.TRUNCATED,
                    f"over {MAX_WORK} schema nodes in this document; the rest accept any value",
                )
            return {}
        ref = node.get("$ref")
        if isinstance(ref, str):
            resolved = self._ref(ref, child(pointer, "$ref"), depth + 1)
            return self._with_siblings(resolved, node)
        out: dict[str, Any] = {}
        self._type(node, out, pointer)
        depth += 1
        for key, value in node.items():
            if key == "properties":
                self._properties(value, out, child(pointer, key), depth)
            elif key == "items":
                if isinstance(value, list):  # draft-4 tuple form
                    out["prefixItems"] = [
                        self._node(v, child(pointer, key, i), depth) for i, v in enumerate(value)
                    ]
                else:
                    out["items"] = self._node(value, child(pointer, key), depth)
            elif key in ("allOf", "oneOf", "anyOf", "prefixItems"):
                if isinstance(value, list) and value:
                    out[key] = [
                        self._node(v, child(pointer, key, i), depth) for i, v in enumerate(value)
                    ]
                elif value not in (None, []):
                    self._warn(
                        child(pointer, key), ErrorKind.INVALID_SCHEMA, f"{key} must be a list"
                    )
            elif key in ("additionalProperties", "not"):
                if isinstance(value, bool) and key == "additionalProperties":
                    out[key] = value
                elif value is not None:
                    out[key] = self._node(value, child(pointer, key), depth)
            elif key == "patternProperties" and isinstance(value, dict):
                out[key] = {
                    str(k): self._node(v, child(pointer, key, k), depth) for k, v in value.items()
                }
            elif key == "required":
                if isinstance(value, list):
                    names = [r for r in value if isinstance(r, str)]
                    if names:
                        out["required"] = list(dict.fromkeys(names))
            elif key in _TEXT_KEYS:
                if isinstance(value, str) and key not in out:
                    out[key] = (_regex_body(value) if key == "pattern" else value)[:MAX_STRING]
            elif key in _NUMERIC_KEYS:
                if _number(value) and not _exclusive_flag(node, key):
                    out[key] = value
            elif key in ("exclusiveMinimum", "exclusiveMaximum"):
                self._exclusive(key, value, node, out)
            elif key in _BOOL_KEYS:
                if isinstance(value, bool):
                    out[key] = value
            elif key == "enum":
                if isinstance(value, list) and value:
                    out["enum"] = self._value(value[:1000])
            elif key in _VALUE_KEYS:
                out[key] = self._value(value)
            elif key == "example":
                out.setdefault("examples", [self._value(value)])
            elif key == "examples":
                if isinstance(value, list) and value:
                    out["examples"] = self._value(value[:20])
            elif key in (SEMANTIC_KEY, REF_KEY) and isinstance(value, str):
                out[key] = value
        if "allOf" in out:
            out = _merge_all_of(out)
        if _enum_of_items(out):
            # ``{type: array, items: {type: string}, enum: [drugs, ...]}`` (Vimeo's content
            # filters) admits no value at all: the enum lists what the items may be
            self._warn(
                pointer,
                ErrorKind.INVALID_SCHEMA,
                "an array's enum lists single values: taken as its items' enum",
            )
            out["items"] = {**out["items"], "enum": out.pop("enum")}
            examples = [e for e in out.pop("examples", ()) if not isinstance(e, list | dict)]
            if examples:
                out["items"].setdefault("examples", examples)
        if "type" not in out and "properties" in out and not _has_combinator(out):
            out["type"] = "object"
        return out

    def _value(self, value: Any) -> Any:
        """An enum/default/example value, its size charged to the root's node budget."""
        allowance = max(0, min(MAX_VALUE_NODES, self._root_limit - self._count))
        budget = [allowance]
        out = jsonable(value, 0, budget)
        used = allowance - max(budget[0], 0)
        self._count += used
        self._work += used
        return out

    def _type(self, node: dict[str, Any], out: dict[str, Any], pointer: str) -> None:
        raw = node.get("type")
        names = raw if isinstance(raw, list) else [raw] if raw is not None else []
        types: list[str] = []
        for name in names:
            mapped = (
                _TYPE_NAMES.get(name.strip().lower(), False) if isinstance(name, str) else False
            )
            if mapped is False:
                self._warn(
                    child(pointer, "type"),
                    ErrorKind.INVALID_SCHEMA,
                    f"unknown type {str(name)[:80]!r}; accepted any value here",
                )
                continue
            if mapped is None:  # "any": no constraint
                continue
            json_type, fmt = mapped
            if json_type not in types:
                types.append(json_type)
            if fmt and not isinstance(node.get("format"), str):
                out["format"] = fmt
        nullable = node.get("nullable") is True or node.get("x-nullable") is True
        if nullable and types and "null" not in types:
            types.append("null")
        if len(types) == 1:
            out["type"] = types[0]
        elif types:
            out["type"] = types

    def _properties(self, value: Any, out: dict[str, Any], pointer: str, depth: int) -> None:
        if not isinstance(value, dict):
            if value is not None:
                self._warn(pointer, ErrorKind.INVALID_SCHEMA, "properties must be an object")
            return
        props: dict[str, Any] = {}
        required: list[str] = []
        for name, sub in list(value.items())[:2000]:
            key = str(name)
            props[key] = self._node(sub, child(pointer, key), depth)
            # Draft-3 style `"required": true` on the property itself (BFCL and others use it).
            if isinstance(sub, dict) and sub.get("required") is True:
                required.append(key)
        out["properties"] = props
        if required:
            out["required"] = list(dict.fromkeys([*out.get("required", []), *required]))

    def _exclusive(self, key: str, value: Any, node: dict[str, Any], out: dict[str, Any]) -> None:
        bound = "minimum" if key == "exclusiveMinimum" else "maximum"
        if value is True and _number(node.get(bound)):
            out[key] = node[bound]  # OpenAPI 3.0 boolean form -> the JSON Schema number form
        elif _number(value):
            out[key] = value

    def _with_siblings(self, resolved: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
        """OpenAPI 3.1 lets ``description`` and friends sit beside ``$ref``: apply them on top."""
        extra: dict[str, Any] = {}
        for key in ("description", "title", "format"):
            value = node.get(key)
            if isinstance(value, str):
                extra[key] = value[:MAX_STRING]
        for key in ("default", "example"):
            if key in node:
                extra["examples" if key == "example" else key] = (
                    [self._value(node[key])] if key == "example" else self._value(node[key])
                )
        for key in _BOOL_KEYS:
            if isinstance(node.get(key), bool):
                extra[key] = node[key]
        if node.get("nullable") is True or node.get("x-nullable") is True:
            t = resolved.get("type")
            if isinstance(t, str) and t != "null":
                extra["type"] = [t, "null"]
            elif isinstance(t, list) and "null" not in t:
                extra["type"] = [*t, "null"]
        if not extra:
            return resolved
        if "$ref" in resolved:  # a reference into $defs: wrap instead of merging
            return {"allOf": [resolved], **extra}
        return {**resolved, **extra}


_JS_REGEX = re.compile(r"^/(?P<body>.+)/[dgimsuy]*$", re.S)


def _regex_body(pattern: str) -> str:
    """``/^[a-z0-9._]+$/`` (a JavaScript regex literal) -> ``^[a-z0-9._]+$``: a JSON Schema
    pattern has no delimiters, and with them no string could match."""
    match = _JS_REGEX.match(pattern)
    return match.group("body") if match else pattern


def _exclusive_flag(node: dict[str, Any], key: str) -> bool:
    """True for ``minimum``/``maximum`` made exclusive by an OpenAPI 3.0 boolean flag."""
    if key == "minimum":
        return node.get("exclusiveMinimum") is True
    return key == "maximum" and node.get("exclusiveMaximum") is True


def _enum_of_items(out: dict[str, Any]) -> bool:
    """An array node whose enum lists single values, which no array equals, over items of
    no enum of their own."""
    types = out.get("type")
    arrays = types == "array" or (isinstance(types, list) and "array" in types)
    enum, items = out.get("enum"), out.get("items")
    if not arrays or not isinstance(enum, list) or not isinstance(items, dict):
        return False
    return "enum" not in items and not any(isinstance(v, list | dict) for v in enum)


def _has_combinator(schema: dict[str, Any]) -> bool:
    return "oneOf" in schema or "anyOf" in schema or "allOf" in schema


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """Fold ``allOf`` of object schemas into one object schema (the common OpenAPI inheritance
    idiom), so parameters and semantic types are visible without a reasoner. Anything that
    cannot be merged safely (refs into $defs, nested combinators, conflicting types) stays."""
    branches = schema["allOf"]
    for branch in branches:
        if "$ref" in branch or _has_combinator(branch) or "not" in branch:
            return schema
        t = branch.get("type")
        if t is not None and t != "object":
            return schema
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    t = merged.get("type")
    if t is not None and t != "object":
        return schema
    props: dict[str, Any] = {}
    required: list[str] = []
    for branch in [*branches, merged]:
        props.update(branch.get("properties", {}))
        required.extend(branch.get("required", []))
        for key, value in branch.items():
            if key not in ("properties", "required") and key not in merged:
                merged[key] = value
    merged["type"] = "object"
    if props:
        merged["properties"] = props
    if required:
        merged["required"] = list(dict.fromkeys(required))
    return merged
