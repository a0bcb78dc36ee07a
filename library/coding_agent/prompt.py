"""What the coding model is shown: the specs, the runtime API, an exemplar, the current code
and what verification said about it."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import orjson

from library.toolspec import ToolSpec

EXEMPLAR_PACKAGE = "library.services"
EXEMPLAR_FILE = "crm.py"

SYSTEM = """\
You write CompoWorld services: one self-contained Python module per service, written against \
the runtime in library.runtime. The module is loaded, its tools are called through a World \
and checked by an automatic conformance suite. Reply with the complete module in a single \
```python code block; no other code blocks."""

# A summary of library/runtime written for a model: what a service module must contain and
# the helpers it may use. Kept beside the prompt (not generated) because it states rules the
# code alone does not show (determinism, imports, no envelopes by hand).
RUNTIME_API = """\
Everything below is imported from library.runtime.

State and records
- `class Thing(Record)`: a frozen pydantic model with `id: str` plus typed fields; extra \
fields are forbidden. Never mutate a record: replace it (self.update / self.set_fields / \
model_copy).
- `class XState(State)`: one field per collection, `things: dict[str, Thing] = {}` keyed by \
record id, plus optional scalar settings. State already has `seq: int` (the id counter); do \
not redeclare it.

The service class
- `class X(Service)` with class attributes `name = "<service name>"` (exactly as given), \
`description = "..."`, `State = XState`, and the annotation `state: XState`.
- Tools are methods decorated with `@tool` (reads) or `@tool(write=True)` (changes state). \
The input schema comes from the signature, the output schema from the return annotation.
- Every parameter has a type hint. Parameter names are the spec's input property names; \
required properties have no default, optional ones default to None or the spec's default.
- Every tool has a Google-style docstring: a summary line, then `Args:` documenting each \
parameter.
- Return a Record, `list[Record]`, another pydantic model, or a plain JSON type that matches \
the spec's output schema.

Semantic types (Annotated types that validate values and tag schemas)
- Email, Phone, PersonName, CompanyName, Url, Date, DateTime, Money, Currency, Country, \
Address; `Ref["things"]` is the id of a record in the `things` collection.

Errors
- `raise ToolError(ErrorCode.X, "message")`, X one of INVALID_ARGUMENT, NOT_FOUND, CONFLICT, \
PERMISSION_DENIED, FAILED_PRECONDITION, INTERNAL. Messages name the argument or record.
- The World wraps results as {"success": true, "data": ...} and errors as {"success": false, \
"error": {"code", "message"}}, and rolls back every change of a failed call: never build \
envelopes yourself and never catch ToolError.

Helpers on self
- `self.new_id(prefix)` a deterministic new id; `self.now()` / `self.today()` the World's \
clock.
- `self.get(collection, id)` the record or NOT_FOUND; `self.put(collection, record)`; \
`self.update(collection, id, **changes)` (None values ignored); `self.set_fields(collection, \
id, **changes)`; `self.delete(collection, id)`.
- `paginate(items, limit, offset)` for list tools (limit 1..500).

Rules
- Deterministic: no clock but self.now(), no randomness, no I/O, no network, no threads, no \
global mutable state.
- Imports: library.runtime, pydantic, and the standard library's datetime, typing, re, math, \
decimal, enum, dataclasses. `seed()` is optional; leave it out unless asked."""


@functools.cache
def exemplar_source() -> str:
    """The reference service's source (the CRM), read from the installed package."""
    return resources.files(EXEMPLAR_PACKAGE).joinpath(EXEMPLAR_FILE).read_text()


def spec_payload(spec: ToolSpec) -> dict[str, Any]:
    """The parts of a spec that say what to build (provenance and hashes are left out)."""
    out = spec.model_dump(
        mode="json",
        include={"name", "description", "access", "verb", "resource"},
        exclude_none=True,
    )
    out["input_schema"] = spec.input_schema
    if spec.output_schema is not None:
        out["output_schema"] = spec.output_schema
    semantics = [
        f.model_dump(mode="json", include={"side", "path", "semantic", "ref"}, exclude_none=True)
        for f in spec.fields
        if f.semantic
    ]
    if semantics:
        out["semantic_fields"] = semantics
    return out


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def format_failures(failures: list[str], max_items: int, max_chars: int) -> str:
    shown = failures[:max_items]
    text = "\n".join(f"{i}. {f}" for i, f in enumerate(shown, 1))
    if len(failures) > len(shown):
        text += f"\n... and {len(failures) - len(shown)} more"
    return text if len(text) <= max_chars else text[:max_chars] + "\n... (truncated)"


def build_messages(
    service_name: str,
    specs: list[ToolSpec],
    code: str | None,
    failures_text: str,
    round_no: int,
    max_rounds: int,
) -> list[dict[str, str]]:
    tool_names = ", ".join(s.name for s in specs)
    parts = [
        f"Write the service `{service_name}` (class attribute name = {service_name!r}) with "
        f"exactly these tools: {tool_names}.",
        f"## Tool specs (JSON)\n{_json([spec_payload(s) for s in specs])}",
        f"## Runtime API\n{RUNTIME_API}",
        f"## Reference service ({EXEMPLAR_PACKAGE}.{EXEMPLAR_FILE[:-3]}), for style\n"
        f"```python\n{exemplar_source()}```",
    ]
    if code:
        parts.append(f"## Current code\n```python\n{code}\n```")
    else:
        parts.append("## Current code\nNone yet: write the module from scratch.")
    if failures_text:
        parts.append(
            "## Verification failures of the current code\n"
            f"{failures_text}\n\nFix every failure; keep what already works."
        )
    # The round number also keeps each round's prompt distinct, so a replayed answer can
    # never loop on itself.
    parts.append(
        f"Round {round_no} of {max_rounds}. Reply with the complete module in one ```python block."
    )
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "\n\n".join(parts)},
    ]
