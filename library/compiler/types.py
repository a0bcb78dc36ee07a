"""JSON Schema -> Python types for generated code.

A node becomes a ``TypeSpec``: the annotation's source text plus what seeding, comparing and
emitting need. Semantic types inferred at ingestion (``email``, ``date``, ids...) win over the
bare JSON type, so the generated service speaks the shared vocabulary; enums become named
``Literal`` aliases and objects with properties become nested models, both deduplicated by
shape so that ``billing_address`` and ``shipping_address`` share one class.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from library.compiler.model import FieldPlan, Kind, ModelPlan, TypeSpec
from library.compiler.naming import class_name, field_attr
from library.ingest.naming import singular, tokens
from library.runtime.semantic import REGISTRY
from library.toolspec import FieldInfo

MAX_DEPTH = 6  # deeper objects are kept as plain dicts: a simulation does not need their shape
MAX_ENUM = 64  # larger enums are typed as their base type

# Semantic type -> (runtime annotation, JSON types it may annotate).
SEMANTIC_ANNOTATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "email": ("Email", ("string",)),
    "phone": ("Phone", ("string",)),
    "person_name": ("PersonName", ("string",)),
    "company": ("CompanyName", ("string",)),
    "url": ("Url", ("string",)),
    "currency": ("Currency", ("string",)),
    "country": ("Country", ("string",)),
    "address": ("Address", ("string",)),
    "date": ("Date", ("string",)),
    "datetime": ("DateTime", ("string",)),
    "money": ("Money", ("number",)),
}
RUNTIME_NAMES = frozenset(a for a, _ in SEMANTIC_ANNOTATIONS.values()) | {
    "Any", "Annotated", "BaseModel", "ConfigDict", "ErrorCode", "Field", "Literal", "Record",
    "Ref", "SeedPool", "Service", "State", "ToolError", "Value", "Entity", "dt", "random",
}  # fmt: skip
_FORMATS_OF = {
    "date": ("date",),
    "datetime": ("date-time",),
    "email": ("email",),
    "url": ("uri", "url"),
    "phone": ("phone",),
}
_BASE = {"string": Kind.STR, "integer": Kind.INT, "number": Kind.FLOAT, "boolean": Kind.BOOL}
_ANNOTATION = {Kind.STR: "str", Kind.INT: "int", Kind.FLOAT: "float", Kind.BOOL: "bool"}


def json_types(node: Mapping[str, Any]) -> tuple[set[str], bool]:
    """The JSON types a node allows, and whether null is one of them."""
    raw = node.get("type")
    found = set(raw) if isinstance(raw, list) else ({raw} if isinstance(raw, str) else set())
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or ():
            if isinstance(branch, dict):
                sub, _ = json_types(branch)
                found |= sub
                if branch.get("type") == "null":
                    found.add("null")
    if not found and "properties" in node:
        found.add("object")
    if not found and "items" in node:
        found.add("array")
    nullable = "null" in found or node.get("nullable") is True
    found.discard("null")
    return found, nullable


def merge_all_of(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """``allOf`` of objects (a schema and its description, a base and its extension) as one
    node: keys merged, properties and required lists united."""
    parts = [b for b in node.get("allOf") or () if isinstance(b, dict)]
    if not parts:
        return node
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    props: dict[str, Any] = {}
    required: list[str] = []
    for part in [*(merge_all_of(p) for p in parts), merged]:
        props.update(part.get("properties") or {})
        required += [r for r in part.get("required") or () if r not in required]
        for k, v in part.items():
            if k not in ("properties", "required"):
                merged.setdefault(k, v)
    if props:
        merged["properties"] = props
    if required:
        merged["required"] = required
    return merged


def single_branch(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """The one non-null branch of an ``anyOf``/``oneOf`` (``X | null``), else the node;
    ``allOf`` parts merged."""
    node = merge_all_of(node)
    for key in ("anyOf", "oneOf"):
        branches = [b for b in node.get(key) or () if isinstance(b, dict)]
        non_null = [b for b in branches if b.get("type") != "null"]
        if len(non_null) == 1:
            merged = {k: v for k, v in node.items() if k not in (key, "type")}
            return {**non_null[0], **merged}
    return node


def literal(values: tuple[Any, ...]) -> str:
    return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"


_INT64 = (-(2**63), 2**63 - 1)


def constraints(spec: TypeSpec) -> list[str]:
    """``Field`` arguments that keep a parameter's bounds from the spec (``ge=1``, ``le=100``)."""
    node, out = spec.schema, []
    if spec.kind in (Kind.INT, Kind.FLOAT) and spec.semantic in (None, "money"):
        for key, arg in (
            ("minimum", "ge"),
            ("maximum", "le"),
            ("exclusiveMinimum", "gt"),
            ("exclusiveMaximum", "lt"),
        ):
            value = node.get(key)
            if not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if spec.kind is Kind.INT:
                if not math.isfinite(value) or not _INT64[0] < value < _INT64[1]:
                    continue  # an int64's own limits, written as floats: no bound at all
                # 6.5: an int's bound is 6; 100.0 is 100 (a float bound on an int field is
                # refused when the service loads)
                value = math.floor(value) if arg in ("le", "gt") else math.ceil(value)
            out.append(f"{arg}={value!r}")
    if spec.kind is Kind.STR and spec.semantic is None:
        for key, arg in (("minLength", "min_length"), ("maxLength", "max_length")):
            value = node.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                out.append(f"{arg}={value}")
        pattern = node.get("pattern")
        if isinstance(pattern, str) and usable_pattern(pattern):
            out.append(f"pattern={json.dumps(pattern)}")
    return out


@lru_cache(maxsize=32)
def _semantic_adapter(semantic: str) -> TypeAdapter[Any]:
    return TypeAdapter(REGISTRY[semantic].annotation)


def accepts_samples(semantic: str, node: Mapping[str, Any]) -> bool:
    """Whether a semantic type accepts the spec's own examples, default and enum: a spec whose
    ``date`` example is a timestamp, or whose ``*_url`` example is ``git@...``, keeps its base
    type rather than refuse values its publisher calls valid."""
    values = [*(node.get("examples") or ()), node.get("example"), node.get("default")]
    values += node.get("enum") or ()  # ISO currency codes and ``UNKNOWN_CURRENCY``: text
    adapter = _semantic_adapter(semantic)
    for value in values:
        if value is None:
            continue
        try:
            adapter.validate_python(value)
        except Exception:
            return False
    return True


@lru_cache(maxsize=1024)
def usable_pattern(pattern: str) -> bool:
    """Whether both Python and pydantic's (Rust) regex engine accept the pattern."""
    try:
        re.compile(pattern)
        TypeAdapter(Annotated[str, Field(pattern=pattern)])
    except Exception:
        return False
    return True


class TypeMapper:
    """Maps schema nodes of one service to types, collecting nested models and enum aliases."""

    def __init__(self, reserved: set[str]) -> None:
        self.models: dict[tuple, ModelPlan] = {}
        self.enums: dict[str, tuple[Any, ...]] = {}
        self._enum_names: dict[tuple[Any, ...], str] = {}
        self.taken: set[str] = set(reserved) | set(RUNTIME_NAMES)

    # -- names ----------------------------------------------------------------------------
    def claim(self, wanted: str, owner: str | None = None) -> str:
        """A fresh class-level name: ``Stage``, else ``DealStage``, else ``Stage2``."""
        candidates = [wanted] + ([class_name(owner) + wanted] if owner else [])
        for name in candidates:
            if name not in self.taken:
                self.taken.add(name)
                return name
        n = 2
        while f"{wanted}{n}" in self.taken:
            n += 1
        self.taken.add(f"{wanted}{n}")
        return f"{wanted}{n}"

    def enum_alias(self, values: tuple[Any, ...], hint: str, owner: str | None) -> str:
        if values in self._enum_names:
            return self._enum_names[values]
        name = self.claim(class_name(hint), owner)
        self.enums[name] = values
        self._enum_names[values] = name
        return name

    # -- mapping --------------------------------------------------------------------------
    def map(
        self,
        node: Any,
        *,
        path: str,
        infos: Mapping[str, FieldInfo],
        hint: str,
        owner: str | None = None,
        defs: Mapping[str, Any] | None = None,
    ) -> TypeSpec:
        """The type of ``node`` at ``path`` (FieldInfo paths: ``items[].sku``); ``hint`` names
        any enum alias or nested model it needs, ``owner`` disambiguates the name."""
        return self._map(node, _Where(path, infos, hint, owner, defs or {}, 0, frozenset()))

    def _map(self, node: Any, at: _Where) -> TypeSpec:
        node = node if isinstance(node, dict) else {}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            target = at.defs.get(name)
            if name in at.seen or not isinstance(target, dict):
                return TypeSpec(Kind.DICT, "dict[str, Any]", schema=node)  # recursion: cut here
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            at = replace(at, seen=at.seen | {name})
        node = dict(single_branch(node))
        types, nullable = json_types(node)
        spec = self._typed(node, types, at)
        spec.nullable = nullable
        spec.schema = node
        return spec

    def _typed(self, node: dict[str, Any], types: set[str], at: _Where) -> TypeSpec:
        if types == {"integer", "number"}:
            types = {"number"}
        jtype = next(iter(types)) if len(types) == 1 else None
        info = at.infos.get(at.path)
        semantic, ref = (info.semantic, info.ref) if info else (None, None)
        enum = tuple(v for v in node.get("enum") or () if v is not None)
        if enum and len(enum) <= MAX_ENUM and _same_scalar_type(enum):
            alias = self.enum_alias(enum, at.hint, at.owner)
            return TypeSpec(Kind.ENUM, alias, enum=enum, semantic=semantic)
        if enum and semantic == "id":
            semantic = None  # a listed set of codes (``currencyId``), not another record's id
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in _FORMATS_OF.get(semantic or "", (fmt,)):
            semantic = None  # a declared format (``uuid``) beats a guess from the name
        if jtype == "string" and fmt in ("date", "date-time"):
            semantic = "date" if fmt == "date" else "datetime"  # the format beats a name guess
        if semantic == "id" and names_itself(at.hint):
            semantic = None  # ``uuid`` beside an ``id``: the holder's own other name, no pointer
        if semantic == "id" and jtype in ("string", None):
            annotation = f'Ref["{ref}"]' if ref else "str"
            return TypeSpec(Kind.STR, annotation, semantic="id", ref=ref)
        if (
            semantic in SEMANTIC_ANNOTATIONS
            and jtype in SEMANTIC_ANNOTATIONS[semantic][1]
            and accepts_samples(semantic, node)
            and (
                (semantic in ("date", "datetime") and fmt in ("date", "date-time"))
                or not _constrained(node)
            )
        ):
            annotation = SEMANTIC_ANNOTATIONS[semantic][0]
            kind = {"date": Kind.DATE, "datetime": Kind.DATETIME, "money": Kind.FLOAT}
            return TypeSpec(kind.get(semantic, Kind.STR), annotation, semantic=semantic)
        if semantic == "id" and jtype == "integer":
            return TypeSpec(Kind.INT, "int", semantic="id", ref=ref)
        if jtype in _BASE:
            kind = _BASE[jtype]
            meant = None
            if semantic in SEMANTIC_ANNOTATIONS and _constrained(node):
                # the spec's own constraints apply, not the semantic type's
                semantic, meant = None, semantic
            return TypeSpec(kind, _ANNOTATION[kind], semantic=semantic or None, meant=meant)
        if jtype == "array":
            item = self._map(node.get("items"), at.child("[]", singular(at.hint), at.owner))
            inner = f"{item.annotation} | None" if item.nullable else item.annotation
            return TypeSpec(Kind.LIST, f"list[{inner}]", item=item)
        if jtype == "object":
            props = node.get("properties")
            if isinstance(props, dict) and props and at.depth < MAX_DEPTH:
                return self._model(node, props, at)
            return TypeSpec(Kind.DICT, "dict[str, Any]")
        return TypeSpec(Kind.ANY, "Any")

    def _model(self, node: dict[str, Any], props: dict[str, Any], at: _Where) -> TypeSpec:
        required = set(node.get("required") or ())
        fields: list[FieldPlan] = []
        taken: set[str] = set()
        for key, sub in props.items():
            spec = self._map(sub, at.child(f".{key}" if at.path else key, key, at.hint))
            attr = field_attr(key, taken)
            taken.add(attr)
            description = sub.get("description", "") if isinstance(sub, dict) else ""
            fields.append(FieldPlan(key, attr, spec, key in required, description))
        # constraints too: a channel whose ``id`` is at least 1 is not an account whose may be 0
        signature = tuple(
            (f.name, f.type.annotation, f.type.nullable, f.required, _bounds(f.type.schema))
            for f in fields
        )
        existing = self.models.get(signature)
        if existing is None:  # same shape, same class: billing and shipping addresses share one
            name = self.claim(class_name(at.hint), at.owner)
            existing = ModelPlan(name, fields, str(node.get("description") or ""))
            self.models[signature] = existing
        return TypeSpec(Kind.MODEL, existing.name, model=existing.name)


@dataclass(frozen=True, slots=True)
class _Where:
    """Where in a schema the mapper is: the FieldInfo path, names for what it creates."""

    path: str
    infos: Mapping[str, FieldInfo]
    hint: str
    owner: str | None
    defs: Mapping[str, Any]
    depth: int
    seen: frozenset[str]  # $defs being expanded: a second visit is recursion

    def child(self, step: str, hint: str, owner: str | None) -> _Where:
        return replace(
            self, path=f"{self.path}{step}", hint=hint, owner=owner, depth=self.depth + 1
        )


def _constrained(node: Mapping[str, Any]) -> bool:
    """A pattern or tight length bounds: values of a semantic type (an e-mail, a URL) would
    not fit, so the field keeps its base type and the spec's constraints."""
    low, high = node.get("minLength"), node.get("maxLength")
    tight = (isinstance(high, int) and high < 64) or (isinstance(low, int) and low > 3)
    return "pattern" in node or tight


def _same_scalar_type(values: tuple[Any, ...]) -> bool:
    kinds = {type(v) for v in values}
    return len(kinds) == 1 and kinds <= {str, int}


_BOUND_KEYS = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "pattern", "format", "minItems", "maxItems",
)  # fmt: skip


def _bounds(node: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """What a node's values must satisfy beyond their type, as a hashable key."""
    return tuple((k, repr(node[k])) for k in _BOUND_KEYS if isinstance(node, dict) and k in node)


def names_itself(key: str) -> bool:
    """A key named only as an identifier (``uuid``, ``shortUUID``, ``guid``): an identifier of
    the object that holds it, wherever that object's id is kept, not a pointer to a record."""
    words = set(tokens(key))
    return bool(words & {"uuid", "guid"}) and words <= {"uuid", "guid", "short"}


def infos_by_path(fields: list[FieldInfo], side: str, prefix: str = "") -> dict[str, FieldInfo]:
    """A tool's FieldInfos for one side, keyed by path below ``prefix`` (``data[].``)."""
    out: dict[str, FieldInfo] = {}
    for f in fields:
        if f.side == side and f.path.startswith(prefix):
            out[f.path[len(prefix) :]] = f
    return out
