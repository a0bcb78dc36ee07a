"""``emit_source``: a ServicePlan written out as the Python module of a Service.

The module reads like the hand-written services: a docstring, enum aliases, nested values,
records, output wrappers, the State, then the Service with ``seed`` and one ``@tool`` per
compiled tool. Only the names a module uses are imported.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import textwrap

from library.compiler.actions import unseeded
from library.compiler.emit_seed import SeedWriter
from library.compiler.emit_tools import ToolWriter
from library.compiler.ids import INT_IDS
from library.compiler.model import FieldPlan, Kind, ServicePlan, TypeSpec
from library.compiler.naming import a_or_an, class_name, words
from library.compiler.selection import SELECTED
from library.compiler.shell import SHELL_STATE
from library.compiler.source import INDENT, WIDTH, docstring, render
from library.compiler.types import literal
from library.ingest.naming import singular

RUNTIME = (
    "Address", "AnyRef", "CompanyName", "Country", "Currency", "Date", "DateTime", "Email",
    "ErrorCode", "IntId", "IntRef", "Money", "PersonName", "Phone", "Record", "Ref", "Service",
    "State", "ToolError", "Url", "fit_text", "int_id", "int_ref", "paginate", "pattern_id",
    "pattern_or", "pattern_text", "tool", "uuid_id", "uuid_text",
)  # fmt: skip
TYPING = ("Annotated", "Any", "ClassVar", "Literal", "get_args")
PYDANTIC = ("BaseModel", "ConfigDict", "Field", "model_serializer")

# Emitted into every module: unset optional fields leave tool output instead of showing as
# null, which the spec's schemas (``"type": "string"``) would refuse.
BASES = '''
def _omit_unset(model: BaseModel, data: dict[str, Any]) -> dict[str, Any]:
    keep = type(model).keep_null
    return {k: v for k, v in data.items() if v is not None or k in keep}


class Value(BaseModel):
    """A nested value. Unset optional fields are left out of tool output, as the API does."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    keep_null: ClassVar[frozenset[str]] = frozenset()  # required fields that may be null

    @model_serializer(mode="wrap")
    def _serialize(self, handler):
        return _omit_unset(self, handler(self))


class Entity(Record):
    """A stored record. Unset optional fields are left out of tool output, as the API does."""

    keep_null: ClassVar[frozenset[str]] = frozenset()  # required fields that may be null

    @model_serializer(mode="wrap")
    def _serialize(self, handler):
        return _omit_unset(self, handler(self))
'''.strip("\n")

HELPERS = {
    "_same": '''
def _same(a: object, b: object) -> bool:
    """Equality for keys and filters: text compares case-insensitively."""
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return a == b
''',
    "_mentions": '''
def _mentions(q: str, *values: object) -> bool:
    """Search: the (casefolded) query occurs in one of the texts, or lists of texts."""
    for value in values:
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and q in text.casefold():
                return True
    return False
''',
    "_pick_state": '''
def _pick_state(rng: random.Random, open_states: tuple[Any, ...], states: tuple[Any, ...]) -> Any:
    """A seeded status: mostly an open one, as in a live system, so actions find records."""
    return rng.choice(open_states) if rng.random() < 0.7 else rng.choice(states)
''',
    "_view": '''
def _view(record: BaseModel, keys: frozenset[str]) -> dict[str, Any]:
    """The part of a record this answer shows (the spec lists its keys)."""
    return {k: v for k, v in record.model_dump(mode="json").items() if k in keys}
''',
    "_answer": '''
def _answer(record: BaseModel, answer: dict[str, Any]) -> dict[str, Any]:
    """A write's acknowledgement: the spec answers with these keys, not with the record the
    write stored (which supplies the id the answer may carry)."""
    del record
    return answer
''',
    "_whole_key": '''
def _whole_key(value: float) -> str:
    """The key of the record a number names: ids are whole numbers (``5.0`` names ``5``)."""
    return str(int(value)) if float(value).is_integer() else str(value)
''',
    "_int_id": f'''
def _int_id(service: Service, collection: str) -> str:
    """The next integer id of a collection: each collection counts its own (1, 2, 3 ...),
    never giving an id twice, even after a delete; one a loaded state holds is passed over."""
    last = service.state.{INT_IDS}
    taken = getattr(service.state, collection)
    n = last.get(collection, 0) + 1
    while str(n) in taken:
        n += 1
    last[collection] = n
    return str(n)
''',
    "_offset_of": '''
def _offset_of(cursor: str | None) -> int:
    """Cursors are opaque to callers; this service issues the offset of the next page."""
    if not cursor:
        return 0
    if not cursor.isdigit():
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"cursor: {cursor!r} was not issued here")
    return int(cursor)
''',
}


def before_actions(plan: ServicePlan) -> ServicePlan:
    """The plan as the seed writer sees it: records as they are before the actions that set
    a field ran (``actions.unseeded``: a pending order has no cancellation reason and no new
    item ids), so those fields are left unset (None) and set only when the action runs."""
    records = {}
    for name, record in plan.records.items():
        drop = unseeded(record)
        fields = {k: f for k, f in record.fields.items() if k not in drop}
        records[name] = dataclasses.replace(record, fields=fields) if drop else record
    return dataclasses.replace(plan, records=records)


def emit_source(plan: ServicePlan) -> str:
    """The Python source of the plan's Service (deterministic: same plan, same text)."""
    taken = {*plan.enums, *(m.name for m in plan.models), *(w.cls for w in plan.wrappers)}
    taken |= {r.cls for r in plan.records.values()} | {plan.cls, f"{plan.cls}State"}
    taken |= {f"{plan.cls}Transition", "compute", "FileTree", "run_shell", "shell_answer"}
    taken |= set(RUNTIME) | set(TYPING) | set(PYDANTIC) | {"Value", "Entity"}
    tools = ToolWriter(plan, taken)
    methods = _methods(plan, tools)
    seeds = SeedWriter(before_actions(plan))
    service = _service(plan, methods, seeds)
    helpers = tools.helpers | seeds.helpers | ({"_int_id"} if _int_ids(plan) else set())
    parts = [
        BASES,
        *(_helper(name) for name in sorted(helpers)),
        *_models(plan),
        *_records(plan),
        *_wrappers(plan),
        _transition(plan),
        _state(plan),
        # parameter types named for short signatures: after the classes they may name
        "\n".join(_assign(name, text) for text, name in tools.aliases.items()),
        service,
    ]
    body = "\n\n\n".join(p for p in parts if p)
    aliases, body = _id_aliases(body)
    names = "\n".join(p for p in (aliases, _enums(plan)) if p)
    body = f"{names}\n\n\n{body}" if names else body
    gap = "\n\n" if names else "\n\n\n"  # two blank lines before a def or class
    return f"{_header(plan)}\n\n{_imports(body)}{gap}{body}\n"


# id parameter types -> their module-level alias's suffix (``IntRef["orders"]``: ``OrderIntId``)
ID_ALIASES = {"Ref": "Id", "IntRef": "IntId", "AnyRef": "AnyId"}


def _id_aliases(body: str) -> tuple[str, str]:
    """``Ref["contacts"]`` in annotations becomes a module-level ``ContactId`` alias, as in the
    hand-written services (a string inside an annotation would read as a forward reference,
    which linters report as an undefined name); ``IntRef``/``AnyRef`` likewise."""
    heads = "|".join(ID_ALIASES)
    refs = list(dict.fromkeys(re.findall(rf'(?<!\w)({heads})\["([^"]+)"\]', body)))
    taken = set(re.findall(r"^\s*(\w+)\s*[=(:]", body, re.M))  # module names and fields
    taken |= set(re.findall(r"^class (\w+)", body, re.M))
    taken |= set(RUNTIME) | set(TYPING) | set(PYDANTIC)
    lines = []
    for head, ref in refs:
        name = class_name(singular(ref)) + ID_ALIASES[head]
        while name in taken:
            name += "_"
        taken.add(name)
        lines.append(f'{name} = {head}["{ref}"]')
        body = re.sub(rf'(?<!\w){head}\["{re.escape(ref)}"\]', name, body)
    return "\n".join(lines), body


def _assign(name: str, value: str) -> str:
    line = f"{name} = {value}"
    if len(line) <= WIDTH or "\n" in value:  # short, or laid out already
        return line
    if value.startswith("frozenset({"):  # as ruff lays out a long set of names
        inner = value.removeprefix("frozenset(").removesuffix(")")
        if len(INDENT + inner) <= WIDTH:
            return f"{name} = frozenset(\n{INDENT}{inner}\n)"
        items = inner.strip("{}").split(", ")
        rows = "".join(f"{INDENT * 2}{item},\n" for item in items)
        return f"{name} = frozenset(\n{INDENT}{{\n{rows}{INDENT}}}\n)"
    if value.startswith("Annotated[") and len(f"{name} = Annotated[") <= WIDTH:
        split = _subscript_rows(value)
        if split is not None:  # as ruff lays out a long subscript: its items inside
            return "\n".join([f"{name} = Annotated[", *split, "]"])
    return f"{name} = (\n{INDENT}{value}\n)"


def _subscript_rows(value: str) -> list[str] | None:
    """The items of ``Annotated[T, Field(...)]`` on one indented line, or one a line (a long
    call laid out by ``render``); None when the text is not such a subscript."""
    try:
        node = ast.parse(value, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return None
    items = [ast.get_source_segment(value, e) for e in node.slice.elts]
    if any(item is None for item in items):
        return None
    one = INDENT + ", ".join(items)  # type: ignore[arg-type]
    if len(one) <= WIDTH:
        return [one]
    return [line for item in items for line in render(item, 1, suffix=",")]  # type: ignore[arg-type]


def _header(plan: ServicePlan) -> str:
    first, *rest = _wrap_prose(plan.description, WIDTH - 3)
    lines = [
        f'"""{first}',
        *rest,
        "",
        f"Generated by the CompoWorld compiler tier from {len(plan.tools) + len(plan.skipped)} "
        "tool specifications;",
        "do not edit: change the spec or the compiler instead.",
    ]
    if plan.skipped:
        skipped = ", ".join(plan.skipped)
        lines += ["", *_wrap_prose(f"Left to the coding-agent tier: {skipped}.", WIDTH)]
    return "\n".join([*lines, '"""'])


def _wrap_prose(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


def _imports(body: str) -> str:
    """Import exactly the names the module uses (found in its syntax tree, not its prose)."""
    used: set[str] = set()
    for node in ast.walk(ast.parse(body)):
        if isinstance(node, ast.Name):
            used.add(node.id)
    std = [f"import {m}" if m == "random" else "import datetime as dt" for m in ("dt", "random")]
    std = [line for line, name in zip(std, ("dt", "random"), strict=True) if name in used]
    typing = [n for n in TYPING if n in used]
    if typing:
        std.append(f"from typing import {', '.join(typing)}")
    pyd = [n for n in PYDANTIC if n in used]
    third = [f"from pydantic import {', '.join(pyd)}"] if pyd else []
    runtime = [n for n in RUNTIME if n in used]
    first = [f"from library.runtime import {', '.join(runtime)}"] if runtime else []
    if first and len(first[0]) > WIDTH:
        first = ["from library.runtime import (", *(f"{INDENT}{n}," for n in runtime), ")"]
    if "compute" in used:
        first.append("from library.runtime.compute import compute")
    shell = [n for n in ("FileTree", "run_shell", "shell_answer") if n in used]
    if shell:
        first.append(f"from library.runtime.shell import {', '.join(shell)}")
    if "SeedPool" in used:
        first.append("from library.seed import SeedPool")
    blocks = [b for b in (std, third, first) if b]
    return "\n\n".join("\n".join(b) for b in blocks)


def _helper(name: str) -> str:
    return HELPERS[name].strip("\n")


def _enums(plan: ServicePlan) -> str:
    out = []
    for name, values in plan.enums.items():
        line = f"{name} = {literal(values)}"
        if len(line) > WIDTH:
            items = "".join(f"{INDENT}{_lit(v)},\n" for v in values)
            line = f"{name} = Literal[\n{items}]"
        out.append(line)
    return "\n".join(out)


def _lit(value: object) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _field_line(f: FieldPlan, optional: bool) -> str:
    annotation = f.type.annotation
    if f.type.nullable or optional:
        annotation += " | None"
    if f.aliased:
        default = "None, " if optional else ""
        value = f"Field({default}alias={json.dumps(f.name)})"
        head = f"{INDENT}{f.attr}: {annotation} = "
        if len(head + value) <= WIDTH:
            return head + value
        inner = INDENT * 2 + value.removeprefix("Field(").removesuffix(")")
        if len(f"{head}Field(") <= WIDTH and len(inner) <= WIDTH:  # as ruff format splits it
            return "\n".join([f"{head}Field(", inner, f"{INDENT})"])
        return "\n".join([f"{head}(", INDENT * 2 + value, f"{INDENT})"])
    return f"{INDENT}{f.attr}: {annotation}" + (" = None" if optional else "")


def _class(name: str, base: str, doc: str, fields: list[FieldPlan], *, always: bool = False) -> str:
    lines = [f"class {name}({base}):", *docstring(doc or f"A {words(name).lower()}.", 1)]
    extras = []
    if any(f.aliased for f in fields):
        extras.append(
            f"{INDENT}model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)"
        )
    # required fields that may be null (``Any`` too): left out, they would fail on reload
    keep = sorted(
        f.name for f in fields if f.required and (f.type.nullable or f.type.kind is Kind.ANY)
    )
    if keep:
        extras.append(
            f"{INDENT}keep_null = frozenset({{{', '.join(json.dumps(k) for k in keep)}}})"
        )
    if extras:
        lines += ["", *extras]
    if fields:
        lines.append("")
        lines += [_field_line(f, not f.required and not always) for f in fields]
    return "\n".join(lines)


def _models(plan: ServicePlan) -> list[str]:
    return [_class(m.name, "Value", m.description, m.fields) for m in plan.models]


def _records(plan: ServicePlan) -> list[str]:
    out = []
    for r in plan.records.values():
        fields = list(r.fields.values())
        if r.id_key != "id" or r.id_style.kind == "int":  # the id, as the spec shows it
            annotation = "IntId" if r.id_style.kind == "int" else "str"
            ident = FieldPlan(r.id_key, "id", TypeSpec(Kind.STR, annotation), required=True)
            fields = [ident, *fields]
        out.append(_class(r.cls, "Entity", r.description, fields))
    return out


def _wrappers(plan: ServicePlan) -> list[str]:
    out = []
    for w in plan.wrappers:
        doc = "Confirmation that a record was deleted."
        if w.record and not w.meta and w.fields[0].type.kind is Kind.MODEL:
            doc = f"{a_or_an(words(w.record).lower()).capitalize()} record, under one key."
        elif w.record:
            doc = f"A page of {words(w.record).lower()} records."
        out.append(_class(w.cls, "Value", doc, w.fields))
    return out


def _history(plan: ServicePlan) -> bool:
    return any(t.action is not None and t.action.history for t in plan.tools)


def _transition(plan: ServicePlan) -> str:
    if not _history(plan):
        return ""
    return "\n".join(
        [
            f"class {plan.cls}Transition(Value):",
            f'{INDENT}"""An action taken on a record that changes none of its fields."""',
            "",
            f"{INDENT}collection: str",
            f"{INDENT}record_id: str",
            f"{INDENT}action: str",
            f"{INDENT}at: DateTime",
        ]
    )


def _int_ids(plan: ServicePlan) -> bool:
    """Whether some collection counts integer ids (``_int_id``, ``State.int_ids``)."""
    return any(r.id_style.numeric for r in plan.records.values())


def _state(plan: ServicePlan) -> str:
    lines = []
    if _int_ids(plan):
        lines.append(f"{INDENT}{INT_IDS}: dict[str, int] = {{}}  # collection -> its last id")
    if _history(plan):
        lines.append(f"{INDENT}transitions: list[{plan.cls}Transition] = []")
    if any(t.action is not None and t.action.selects for t in plan.tools):
        lines.append(f"{INDENT}{SELECTED}: dict[str, str] = {{}}  # collection -> selected id")
    for r in plan.records.values():
        lines.append(f"{INDENT}{r.resource}: dict[str, {r.cls}] = {{}}")
    if any(t.shell is not None for t in plan.tools):  # a shell's files, a sample home at first
        lines.append(f"{INDENT}{SHELL_STATE}: FileTree = FileTree.sample()")
    if not plan.records:  # a docstring, then a blank line before any field (ruff format)
        doc = f'{INDENT}"""No collections: the compiler tier expressed none of the tools."""'
        lines = [doc, *([""] if lines else []), *lines]
    return "\n".join([f"class {plan.cls}State(State):", *lines])


def _description_lines(text: str) -> list[str]:
    line = f"{INDENT}description = {json.dumps(text)}"
    if len(line) <= WIDTH:
        return [line]
    chunks = _wrap_prose(text, WIDTH - 12)
    parts = [json.dumps(c + (" " if i < len(chunks) - 1 else "")) for i, c in enumerate(chunks)]
    return [f"{INDENT}description = (", *(f"{INDENT * 2}{p}" for p in parts), f"{INDENT})"]


def _methods(plan: ServicePlan, tools: ToolWriter) -> dict[str, list[str]]:
    """Each tool's method; a tool whose emission fails (a compiler bug) is moved to
    ``plan.skipped`` so the rest of the service is still written."""
    out: dict[str, list[str]] = {}
    for tool in list(plan.tools):
        try:
            out[tool.name] = tools.method(tool)
        except Exception as exc:
            plan.tools.remove(tool)
            plan.skipped[tool.name] = f"compiler error: {type(exc).__name__}: {exc}"
    return out


def _service(plan: ServicePlan, methods: dict[str, list[str]], seeds: SeedWriter) -> str:
    lines = [
        f"class {plan.cls}(Service):",
        f"{INDENT}name = {json.dumps(plan.service)}",
        *_description_lines(plan.description),
        f"{INDENT}State = {plan.cls}State",
        f"{INDENT}state: {plan.cls}State",
        "",
        *seeds.methods(),
    ]
    current = None
    for tool in plan.tools:
        if tool.resource != current:
            current = tool.resource
            title = words(current) or "computed from the arguments"
            lines += ["", f"{INDENT}# -- {title} " + "-" * max(3, 84 - len(title))]
        else:
            lines.append("")
        lines += methods[tool.name]
    return "\n".join(lines)
