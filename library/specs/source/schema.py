"""Render a :class:`Field` as a schema in one of the corpus's dialects.

Dialects: ``oas30`` (``nullable``, ``example``), ``oas31`` (type unions, ``examples``),
``swagger`` (``x-nullable``, ``example``), ``json`` (plain JSON Schema for MCP and OpenAI
functions) and ``bfcl`` (BFCL's ``dict``/``float`` type names, no formats or patterns).
"""

from __future__ import annotations

from typing import Any, Literal

from .model import Field

Dialect = Literal["oas30", "oas31", "swagger", "json", "bfcl"]
OAS: tuple[str, ...] = ("oas30", "oas31", "swagger")
_BFCL_TYPES = {"object": "dict", "number": "float"}


def field_schema(
    f: Field, d: Dialect, *, self_ref: str | None = None, record: bool = False
) -> dict[str, Any]:
    """The schema of ``f``; ``self_ref`` is the ``$ref`` a recursive field points back to."""
    out: dict[str, Any] = {}
    kind: Any = _BFCL_TYPES.get(f.type, f.type) if d == "bfcl" else f.type
    if f.nullable and d in ("oas31", "json"):
        kind = [f.type, "null"]
    out["type"] = kind
    if f.nullable and d == "oas30":
        out["nullable"] = True
    if f.nullable and d == "swagger":
        out["x-nullable"] = True
    out["description"] = f.desc
    if f.fmt and d != "bfcl":
        out["format"] = f.fmt
    if f.enum:
        out["enum"] = list(f.enum)
    if f.pattern and d != "bfcl":
        out["pattern"] = f.pattern
    if f.minimum is not None and d != "bfcl":
        out["minimum"] = f.minimum
    if f.maximum is not None and d != "bfcl":
        out["maximum"] = f.maximum
    if f.default is not None:
        out["default"] = f.default
    if record and f.readonly and d in OAS:
        out["readOnly"] = True
    if f.type == "array":
        if f.recursive:
            if self_ref and d in OAS:
                out["items"] = {"$ref": self_ref}
            else:
                out["items"] = {
                    "type": "dict" if d == "bfcl" else "object",
                    "description": "A nested record of the same shape.",
                }
        elif f.items is not None:
            out["items"] = field_schema(f.items, d, self_ref=self_ref, record=record)
    if f.type == "object":
        out["properties"] = {
            p.name: field_schema(p, d, self_ref=self_ref, record=record) for p in f.props
        }
        required = [p.name for p in f.props if p.required]
        if required:
            out["required"] = required
    if f.example is not None and d in ("oas30", "swagger"):
        out["example"] = f.example
    if f.example is not None and d == "oas31":
        out["examples"] = [f.example]
    return out


def object_schema(
    fields: list[Field] | tuple[Field, ...],
    d: Dialect,
    *,
    desc: str | None = None,
    required: bool = True,
    self_ref: str | None = None,
    record: bool = False,
) -> dict[str, Any]:
    """An object over ``fields``; ``required`` lists the fields marked required."""
    out: dict[str, Any] = {"type": "dict" if d == "bfcl" else "object"}
    if desc:
        out["description"] = desc
    out["properties"] = {
        f.name: field_schema(f, d, self_ref=self_ref, record=record) for f in fields
    }
    names = [f.name for f in fields if f.required]
    if required and names:
        out["required"] = names
    return out
