"""What the conformance suite needs to know about a tool, from a ToolSpec or its JSON form.

The suite runs in-process or inside a sandbox worker that receives JSON, so it accepts
``ToolSpec`` objects, ``ToolSpec.model_dump()`` dicts and warehouse ``specs`` rows alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from library.toolspec import ToolSpec


@dataclass(frozen=True, slots=True)
class ToolContract:
    service: str
    name: str
    verb: str | None
    resource: str | None
    access: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    refs: dict[str, str | None] = field(default_factory=dict)  # input param -> ref resource
    semantics: dict[str, str] = field(default_factory=dict)  # input path -> semantic type
    path_params: frozenset[str] = frozenset()
    # the path's parameters, deepest first: ``/organizers/{o}/trainings/{t}`` -> (t, o)
    nested: tuple[str, ...] = ()
    # a stateless computation's marking (``vendor["stateless"]``): its answer is checked
    # against ``library.runtime.compute.evaluate``
    computation: dict[str, Any] | None = None
    # a body member renamed beside a query parameter of its name -> that name
    # (``body_rrsets`` -> ``rrsets``): the record's field it writes
    renamed: dict[str, str] = field(default_factory=dict)

    def as_stored(self, sent: dict[str, Any]) -> dict[str, Any]:
        """Arguments by the record field they write: a renamed body member under its own
        name, in place of the parameter it was renamed beside (a query's display option)."""
        if not self.renamed:
            return sent
        out = {k: v for k, v in sent.items() if k not in self.renamed.values()}
        for key, name in self.renamed.items():
            if key in sent:
                out[name] = out.pop(key)
        return out

    @property
    def properties(self) -> dict[str, Any]:
        props = self.input_schema.get("properties")
        return props if isinstance(props, dict) else {}

    @property
    def required(self) -> list[str]:
        return [r for r in self.input_schema.get("required") or () if r in self.properties]

    @property
    def reads(self) -> bool:
        """The tool must leave state unchanged. ``access`` already weighs explicit hints
        (``readOnlyHint``, ``x-tool-type``, the HTTP method) over the verb guessed from a name."""
        return self.access == "read"


def contract(spec: ToolSpec | dict[str, Any]) -> ToolContract:
    data = spec.model_dump(mode="json") if isinstance(spec, ToolSpec) else dict(spec)
    fields = data.get("fields") or []
    refs: dict[str, str | None] = {}
    semantics: dict[str, str] = {}
    for f in fields:
        if not isinstance(f, dict) or f.get("side", "input") != "input":
            continue
        path = str(f.get("path", ""))
        if f.get("semantic"):
            semantics[path] = str(f["semantic"])
        if f.get("semantic") == "id" and "." not in path and "[" not in path:
            refs[path] = f.get("ref")
    http = data.get("http") or {}
    params = http.get("params") if isinstance(http, dict) else None
    path_params = frozenset(k for k, v in (params or {}).items() if v == "path")
    path = http.get("path") if isinstance(http, dict) else None
    segments = re.findall(r"\{([^}]+)\}", path) if isinstance(path, str) else []
    verb = data.get("verb")
    vendor = data.get("vendor") if isinstance(data.get("vendor"), dict) else {}
    marking = vendor.get("stateless")
    computation = marking if isinstance(marking, dict) and marking.get("operation") else None
    return ToolContract(
        service=str(data.get("service") or ""),
        name=str(data["name"]),
        verb=str(verb) if verb else None,
        resource=data.get("resource"),
        access=str(data.get("access") or "write"),
        input_schema=data.get("input_schema") or {"type": "object", "properties": {}},
        output_schema=data.get("output_schema"),
        refs=refs,
        semantics=semantics,
        path_params=path_params,
        nested=tuple(p for p in reversed(segments) if p in path_params),
        computation=computation,
        renamed={  # a body's copy of a path parameter writes nothing: the path says it
            k: v.removeprefix("body:")
            for k, v in (params or {}).items()
            if isinstance(v, str)
            and v.startswith("body:")
            and (params or {}).get(v.removeprefix("body:")) != "path"
        },
    )
