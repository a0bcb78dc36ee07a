"""What a format parser hands to inference: one tool, schemas normalized, nothing inferred yet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from library.ingest.schema import jsonable
from library.toolspec import Access, HttpBinding

MAX_DESCRIPTION = 8000


@dataclass(slots=True)
class RawTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    pointer: str
    http: HttpBinding | None = None
    vendor: dict[str, Any] = field(default_factory=dict)
    declared_access: tuple[Access, str] | None = None  # (access, which tag said so)


def text(value: Any) -> str:
    """A description from whatever the document holds there (None, numbers, lists...)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = str(value)
    return value.strip()[:MAX_DESCRIPTION]


def declared_access(*holders: Any) -> tuple[Access, str] | None:
    """Read/write as the publisher declared it: tau2's ``x-tool-type`` or MCP annotations.

    These beat any inference. tau2's ``generic`` tools (calculate, transfer to a human) change
    no domain state, so they count as reads.
    """
    for holder in holders:
        if not isinstance(holder, dict):
            continue
        tag = holder.get("x-tool-type")
        if isinstance(tag, str):
            tag = tag.strip().lower()
            if tag in ("read", "write"):
                return tag, "x-tool-type"  # type: ignore[return-value]
            if tag == "generic":
                return "read", "x-tool-type"
        annotations = holder.get("annotations")
        if isinstance(annotations, dict):
            hint = annotations.get("readOnlyHint")
            if isinstance(hint, bool):
                return ("read" if hint else "write"), "readOnlyHint"
            if annotations.get("destructiveHint") is True:
                return "write", "destructiveHint"
    return None


def vendor_tags(holder: Any) -> dict[str, Any]:
    """The small vendor facts worth keeping: ``x-*`` scalars, tags, deprecation, annotations."""
    if not isinstance(holder, dict):
        return {}
    kept: dict[str, Any] = {}
    for key, value in holder.items():
        if not isinstance(key, str):
            continue
        if key.startswith("x-") and (value is None or isinstance(value, str | int | float | bool)):
            kept[key] = jsonable(value[:500] if isinstance(value, str) else value)
        elif key == "tags" and isinstance(value, list):
            kept["tags"] = [str(t)[:100] for t in value[:20] if isinstance(t, str | int)]
        elif key == "deprecated" and isinstance(value, bool):
            kept["deprecated"] = value
        elif key == "annotations" and isinstance(value, dict):
            kept["annotations"] = {
                str(k): jsonable(v)
                for k, v in list(value.items())[:20]
                if v is None or isinstance(v, str | bool | int)
            }
    return kept
