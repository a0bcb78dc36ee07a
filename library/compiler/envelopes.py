"""Call envelopes: an answer wrapped in keys that say how the call went, around the payload.

Rudder answers every call as ``{"action": "getDataSource", "result": "success", "data":
{"datasources": [<record>]}}``: the record is two layers down, and a read answers a list of
one. Such a tool is planned on its payload (the compiler's shapes apply as they do at the
top), and the emitted method wraps its answer back in the layers, so that the answer still
matches the schema the spec declares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from library.compiler.ids import id_key
from library.compiler.records import deref, own_id_param, record_source
from library.compiler.types import json_types
from library.compiler.values import answer_constant, json_literal
from library.toolspec import ToolSpec

ONE_RECORD_VERBS = frozenset({"read", "create", "update", "delete", "action"})


@dataclass(frozen=True, slots=True)
class Layer:
    """One layer around the payload: the key holding it, the fixed values of the layer's
    other keys (Python source), and whether the payload is a list of one."""

    key: str
    fixed: tuple[tuple[str, str], ...] = ()
    listed: bool = False

    def wrap(self, value: str) -> str:
        inner = f"[{value}]" if self.listed else value
        items = [f"{key!r}: {source}" for key, source in self.fixed]
        return "{" + ", ".join([*items, f"{self.key!r}: {inner}"]) + "}"


def fixed_value(key: str, node: dict[str, Any]) -> str | None:
    """The one value a key of a call envelope can hold: a single-valued enum or ``const``
    (``"action": {"enum": ["getDataSource"]}``), else a neutral status-like value."""
    values = [v for v in node.get("enum") or () if v is not None]
    if "const" in node:
        values = [node["const"]]
    if len(values) == 1 and isinstance(values[0], str | int | float | bool):
        return json_literal(values[0])
    return answer_constant(key, node)


def peel(spec: ToolSpec) -> tuple[ToolSpec, tuple[Layer, ...]]:
    """The spec planned on its payload, and the layers to wrap the answer in (outermost
    first); the spec itself and no layers where its answer is not so wrapped."""
    layers: list[Layer] = []
    current = spec
    while len(layers) < 3:
        source = record_source(current)
        if source is not None and (source.container != "page" or not _one_record(current)):
            break  # records where the compiler's shapes find them
        found = _layer(current)
        if found is None:
            break
        layer, current = found
        layers.append(layer)
    if not layers or record_source(current) is None:
        return spec, ()
    return current, tuple(layers)


def _layer(spec: ToolSpec) -> tuple[Layer, ToolSpec] | None:
    """The outer layer of the spec's answer and the spec of what it holds: one key holds an
    object or array, every other key is a plain value, and every required one has a fixed
    value; or, for a tool answering one record, ``{<records>: [<record>]}``."""
    root = spec.output_schema
    out = deref(root, root) if root else {}
    props = out.get("properties")
    if json_types(out)[0] != {"object"} or not isinstance(props, dict) or not props:
        return None
    nested = [k for k, n in props.items() if json_types(deref(n, root))[0] & {"object", "array"}]
    if len(nested) != 1:
        return None
    key = nested[0]
    node = deref(props[key], root)
    if key not in (out.get("required") or ()) and len(props) > 1:
        return None  # an optional payload: the answer could be without it
    fixed: list[tuple[str, str]] = []
    for other in out.get("required") or ():
        if other == key:
            continue
        value = fixed_value(other, deref(props.get(other), root))
        if value is None:
            return None
        fixed.append((other, value))
    listed = json_types(node)[0] == {"array"}
    if listed:
        if fixed or len(props) > 1 or not _one_record(spec):
            return None  # a list beside other keys is a page: the compiler's own shapes
        node = deref(node.get("items"), root)
        if id_key(node.get("properties") or {}, spec.resource, None) is None:
            return None
    elif json_types(node)[0] != {"object"}:
        return None
    inner = {k: v for k, v in (root or {}).items() if k == "$defs"} | node
    prefix = f"{key}[]." if listed else f"{key}."
    fields = [
        f.model_copy(update={"path": f.path[len(prefix) :]})
        for f in spec.fields
        if f.side != "output" or f.path.startswith(prefix)
    ]
    return Layer(key, tuple(fixed), listed), spec.model_copy(
        update={"output_schema": inner, "fields": fields}
    )


def _one_record(spec: ToolSpec) -> bool:
    """A tool that answers one record: a create, or a read or write of the record it names."""
    if spec.verb not in ONE_RECORD_VERBS:
        return False
    return spec.verb == "create" or own_id_param(spec, spec.resource or "") is not None
