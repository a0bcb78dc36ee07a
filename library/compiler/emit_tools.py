"""Tool methods: a signature typed from the spec, a docstring carrying its descriptions, and a
body by verb (create, read, list, update, delete, search, action)."""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections.abc import Callable
from typing import Any

from library.compiler.actions import RECIPIENTS, REPLIES, SENDERS, status_field
from library.compiler.emit_seed import put_call
from library.compiler.envelopes import Layer
from library.compiler.ids import new_id_source
from library.compiler.model import (
    ActionPlan,
    FieldPlan,
    Kind,
    ParamPlan,
    RecordPlan,
    Role,
    ServicePlan,
    Shape,
    ToolPlan,
    TypeSpec,
    WrapperPlan,
)
from library.compiler.naming import a_or_an, class_name, words
from library.compiler.selection import SELECTED
from library.compiler.shell import shell_body
from library.compiler.source import (
    INDENT,
    WIDTH,
    Call,
    Expr,
    call,
    comment_block,
    docstring,
    render,
)
from library.compiler.stateless import HANDOFF_ANSWER
from library.compiler.tools import COUNTING, default_literal
from library.compiler.types import constraints
from library.ingest.naming import singular

PAD = INDENT * 2
# the moments a new record is made at (a reply's ``sent_at``)
_MADE_AT = frozenset({"created_at", "updated_at", "sent_at", "posted_at", "received_at"})
# what a reply or a forward does not carry over unless given (the copies, the files)
_NOT_CARRIED = frozenset({"cc", "bcc", "attachments", "attachment_urls"})
PAGINATE_MAX = 500  # the runtime's ``paginate`` accepts limits up to this


def _lit(value: object) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def py_literal(value: Any) -> str:
    """Python source of a JSON-like value (dicts, lists, text, numbers, booleans, None)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    return _lit(value)


def _msg(text: str) -> str:
    """An f-string literal for an error message (``text`` holds ``{expr}`` placeholders)."""
    return f'f"{text}"' if "{" in text else json.dumps(text)


def _error(code: str, text: str, indent: int = 2) -> list[str]:
    lines = call("raise ToolError", [f"ErrorCode.{code}", _msg(text)], indent)
    if all(len(line) <= WIDTH for line in lines):
        return lines
    # a message naming several keys: its parts, one literal per line (``no rate with ...``)
    pad, chunks = INDENT * indent, [""]
    for part in re.split(r"(?<=, )", text):
        if chunks[-1] and len(chunks[-1]) + len(part) > WIDTH - len(pad) - 16:
            chunks.append("")
        chunks[-1] += part
    return [
        f"{pad}raise ToolError(",
        f"{pad}{INDENT}ErrorCode.{code},",
        f"{pad}{INDENT}(",
        *(f"{pad}{INDENT * 2}{_msg(chunk)}" for chunk in chunks),
        f"{pad}{INDENT}),",
        f"{pad})",
    ]


class ToolWriter:
    def __init__(self, plan: ServicePlan, taken: set[str]) -> None:
        self.plan = plan
        self.helpers: set[str] = set()  # module-level helpers the bodies call
        self.aliases: dict[str, str] = {}  # long parameter annotation -> module-level alias
        self.taken = taken
        self.functions: dict[str, str] = {}  # stateless function literal -> constant name

    # -- signature ------------------------------------------------------------------------
    def method(self, tool: ToolPlan) -> list[str]:
        if tool.stateless is not None:
            return self._stateless(tool, tool.stateless)
        if tool.shell is not None:
            return self._shell(tool, tool.shell)
        record = self.plan.records[tool.resource]
        options = ["write=True"] if tool.write else []
        if tool.method != tool.name:
            options.append(f"name={json.dumps(tool.name)}")
        lines = [f"{INDENT}@tool({', '.join(options)})" if options else f"{INDENT}@tool"]
        lines += self._head(tool, self._returns(tool, record))
        args = [(p.attr, p.description or f"The {words(p.name)}.") for p in self._ordered(tool)]
        lines += docstring(tool.description, 2, args)
        if tool.notes:
            lines += comment_block(
                f"Accepted but not simulated: {', '.join(tool.notes)}.",
                2,
            )
        body = {
            "create": self._create,
            "read": self._read,
            "update": self._update,
            "delete": self._delete,
            "list": self._list,
            "search": self._list,
            "count": self._count,
            "action": self._action,
            "clear": self._clear,
        }[tool.verb]
        lines = lines + body(tool, record)
        if tool.output.shape is Shape.ENVELOPE:
            wrapper = self._wrapper(tool.output.cls)
            attr = wrapper.fields[0].attr
            fixed = [
                f"{f.attr}={tool.output.meta[f.name]}"
                for f in wrapper.fields[1:]
                if f.name in tool.output.meta
            ]
            cls = str(tool.output.cls)
            if tool.output.shown:  # the part of the record the envelope holds
                self.helpers.add("_view")
                keys = self._keys(tool, list(tool.output.shown))
                lines = _returned(
                    lines, lambda value: _call_text(cls, [f"{attr}=_view({value}, {keys})", *fixed])
                )
            else:
                lines = _returned(lines, lambda value: _call_text(cls, [f"{attr}={value}", *fixed]))
        elif tool.output.shape is Shape.ANSWER:
            self.helpers.add("_answer")
            lines = _returned(lines, lambda value: _answer_call(value, tool.output.meta))
        elif tool.output.shape is Shape.VIEW:
            self.helpers.add("_view")
            keys = self._keys(tool, list(tool.output.meta))
            lines = _returned(lines, lambda value: f"_view({value}, {keys})")
        elif tool.output.shape is Shape.ONE:
            lines = _returned(lines, lambda value: f"[{value}]")
        elif tool.output.shape is Shape.ID:  # the new record's id is the answer
            shown = "int({}.id)" if tool.output.meta.get("type") == "integer" else "{}.id"
            lines = _returned(lines, shown.format)
        elif tool.output.shape is Shape.BLANK:  # the write answers the empty text
            lines = _returned(lines, lambda value: '""')
        if tool.outer:  # the call envelopes the spec declares around the answer
            lines = _returned(lines, lambda value: _enveloped(value, tool.outer))
        return lines

    def _stateless(self, tool: ToolPlan, marking: dict[str, Any]) -> list[str]:
        """A stateless function: its answer from its arguments (``compute``), an empty answer
        (``think``) or the hand-over's acknowledgement; no state read or written."""
        options = [] if tool.method == tool.name else [f"name={json.dumps(tool.name)}"]
        lines = [f"{INDENT}@tool({', '.join(options)})" if options else f"{INDENT}@tool"]
        kind = marking.get("kind")
        returns = {"computation": "dict[str, float]", "probe": _answer_type(marking)}
        lines += self._head(tool, returns.get(str(kind), "str"))
        args = [(p.attr, p.description or f"The {words(p.name)}.") for p in self._ordered(tool)]
        lines += docstring(tool.description, 2, args)
        if kind == "probe":  # the service answers while it is up
            return [*lines, f"{PAD}return {py_literal(marking.get('answer'))}"]
        if kind == "no_op":
            return [*lines, f'{PAD}return ""']
        if kind == "handoff":
            return [*lines, f"{PAD}return {json.dumps(HANDOFF_ANSWER)}"]
        shown = {k: marking.get(k) for k in ("operation", "operands", "result_key")}
        name = self._function(tool, shown)
        given = "{" + ", ".join(f"{json.dumps(p.name)}: {p.attr}" for p in tool.params) + "}"
        return lines + call("return compute", [name, given], 2)

    def _shell(self, tool: ToolPlan, marking: dict[str, Any]) -> list[str]:
        """A shell command on the service's file tree (``library.compiler.shell``)."""
        options = ["write=True"] if tool.write else []
        if tool.method != tool.name:
            options.append(f"name={json.dumps(tool.name)}")
        lines = [f"{INDENT}@tool({', '.join(options)})" if options else f"{INDENT}@tool"]
        lines += self._head(tool, "dict[str, Any]")
        args = [(p.attr, p.description or f"The {words(p.name)}.") for p in self._ordered(tool)]
        lines += docstring(tool.description, 2, args)
        return lines + shell_body(tool, marking, 2)

    def _function(self, tool: ToolPlan, shown: dict[str, Any]) -> str:
        """A module-level constant holding what ``compute`` needs (one per distinct function)."""
        flat = py_literal(shown)
        if flat in self.functions:
            return self.functions[flat]
        name = f"{tool.method.upper()}_FUNCTION"
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        text = flat
        if len(f"{name} = {flat}") > WIDTH:  # one key per line, as ruff lays out a long dict
            rows = "".join(f"{INDENT}{py_literal(k)}: {py_literal(v)},\n" for k, v in shown.items())
            text = "{\n" + rows + "}"
        self.aliases[text] = name
        self.functions[flat] = name
        return name

    def _keys(self, tool: ToolPlan, shown: list[str]) -> str:
        """A module-level frozenset of the keys a view shows (named once per key set)."""
        items = [json.dumps(k) for k in sorted(shown)]
        text = "frozenset({" + ", ".join(items) + "})"
        if text not in self.aliases:
            name = f"{class_name(tool.method).upper()}_KEYS"
            while name in self.taken:
                name += "_"
            self.taken.add(name)
            self.aliases[text] = name
        return self.aliases[text]

    def _ordered(self, tool: ToolPlan) -> list[ParamPlan]:
        required = [p for p in tool.params if p.required]
        return required + [p for p in tool.params if not p.required]

    def _head(self, tool: ToolPlan, returns: str) -> list[str]:
        params = []
        for p in self._ordered(tool):
            annotation = self._annotation(p)
            line = f"{PAD}{p.attr}: {annotation}{self._default(p)},"
            if len(line) > WIDTH:  # too long for a signature line: name the type at module level
                annotation = self._annotation(p, self._alias(p, self._core(p)))
            param = f"{p.attr}: {annotation}{self._default(p)}"
            if len(f"{PAD}{param},") > WIDTH and p.aliased:  # split as ruff format does
                core = self._annotation(p, self._alias(p, self._core(p)), aliased=False)
                parts = [core, f"Field(alias={json.dumps(p.name)})"]
                inner = f"{PAD}{INDENT}{', '.join(parts)}"
                rows = [inner] if len(inner) <= WIDTH else [f"{PAD}{INDENT}{x}," for x in parts]
                param = "\n".join([f"{p.attr}: Annotated[", *rows, f"{PAD}]{self._default(p)}"])
            params.append(param)
        one = f"{INDENT}def {tool.method}({', '.join(['self', *params])}) -> {returns}:"
        if len(one) <= WIDTH:
            return [one]
        rows = [f"{PAD}{p}," for p in params]
        return [
            f"{INDENT}def {tool.method}(",
            f"{PAD}self,",
            *(line for row in rows for line in row.split("\n")),  # one line an item
            f"{INDENT}) -> {returns}:",
        ]

    def _alias(self, p: ParamPlan, annotation: str) -> str:
        if annotation not in self.aliases:
            name = class_name(p.name)
            while name in self.taken:
                name += "_"
            self.taken.add(name)
            self.aliases[annotation] = name
        return self.aliases[annotation]

    def _core(self, p: ParamPlan) -> str:
        """The parameter's type with the spec's bounds (``Annotated[int, Field(ge=1)]``)."""
        text = p.type.annotation
        bounds = constraints(p.type) if p.role is not Role.ID else []
        return f"Annotated[{text}, Field({', '.join(bounds)})]" if bounds else text

    def _annotation(self, p: ParamPlan, core: str | None = None, aliased: bool = True) -> str:
        text = core or self._core(p)
        if p.type.nullable or (not p.required and default_literal(p) is None):
            text = f"{text} | None"
        if p.aliased and aliased:
            text = f"Annotated[{text}, Field(alias={json.dumps(p.name)})]"
        return text

    def _default(self, p: ParamPlan) -> str:
        if p.required:
            return ""
        return f" = {default_literal(p) or 'None'}"

    def _returns(self, tool: ToolPlan, record: RecordPlan) -> str:
        if tool.outer:
            return "dict[str, Any]"
        if tool.output.shape is Shape.LIST and tool.output.shown:
            return "list[dict[str, Any]]"
        if tool.output.shape in (Shape.LIST, Shape.ONE):
            return f"list[{record.cls}]"
        if tool.output.shape in (Shape.PAGE, Shape.DELETION, Shape.ENVELOPE):
            return tool.output.cls or record.cls
        if tool.output.shape is Shape.COUNT and "" in tool.output.meta:
            return "int"
        if tool.output.shape is Shape.KEYS:
            item = "int" if tool.output.meta.get("type") == "integer" else "str"
            return f"dict[str, list[{item}]]" if tool.output.items else f"list[{item}]"
        if tool.output.shape is Shape.ID:
            return "int" if tool.output.meta.get("type") == "integer" else "str"
        if tool.output.shape is Shape.BLANK:
            return "str"
        if tool.output.shape in (Shape.VIEW, Shape.ANSWER, Shape.COUNT, Shape.EMPTY):
            return "dict[str, Any]"
        return record.cls

    # -- shared checks --------------------------------------------------------------------
    def _id(self, tool: ToolPlan) -> ParamPlan | None:
        return next((p for p in tool.params if p.role is Role.ID), None)

    def _ref_checks(self, tool: ToolPlan) -> list[str]:
        lines: list[str] = []
        for p in tool.params:
            if p.role not in (Role.FIELD, Role.REF, Role.FILTER) or not p.ref_collection:
                continue
            target = self.plan.records.get(p.ref_collection)
            int_ids = target is not None and target.id_style.numeric
            numbers = (Kind.INT, Kind.FLOAT)
            if p.type.kind is not Kind.STR and not (int_ids and p.type.kind in numbers):
                continue
            value = f"str({p.attr})" if p.type.kind is Kind.INT else p.attr
            if p.type.kind is Kind.FLOAT:  # a whole number names a record (``5.0``: ``5``)
                self.helpers.add("_whole_key")
                value = f"_whole_key({p.attr})"
            get = f"self.get({json.dumps(p.ref_collection)}, {value})"
            if p.required and not p.type.nullable:
                lines.append(f"{PAD}{get}")
            else:
                lines += [f"{PAD}if {p.attr} is not None:", f"{PAD}{INDENT}{get}"]
        return lines

    def _required_state(self, tool: ToolPlan, record: RecordPlan, ident: str) -> list[str]:
        """A record in another state than the one the tool's name requires is refused
        (``cancel_pending_order`` on a delivered order)."""
        status = status_field(record)
        if not tool.requires or status is None:
            return []
        attr = status.attr
        what = f"{words(singular(record.resource))} {{{ident}!r}}"
        wanted = " or ".join(str(v) for v in tool.requires)
        allowed = ", ".join(_lit(v) for v in tool.requires) + (
            "," if len(tool.requires) == 1 else ""
        )
        lines = _if(f"record.{attr} not in ({allowed})", 2)
        return lines + _error(
            "FAILED_PRECONDITION", f"{what} is {{record.{attr}}}, not {wanted}", 3
        )

    def _scope_checks(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        lines: list[str] = []
        ident = self._id(tool)
        for p in tool.by_role(Role.SCOPE):
            field = record.fields[p.target or p.name]
            what = f"{words(singular(record.resource))} {{{ident.attr if ident else p.attr}!r}}"
            lines += [f"{PAD}if record.{field.attr} != {p.attr}:"]
            lines += _error("NOT_FOUND", f"no {what} with {p.name} {{{p.attr}!r}}", 3)
        return lines

    def _unique_checks(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        lines: list[str] = []
        ident = self._id(tool)
        for p in tool.by_role(Role.FIELD):
            field = record.fields.get(p.target or "")
            if field is None or not field.unique:
                continue
            self.helpers.add("_same")
            cond = f"_same(r.{field.attr}, {p.attr})"
            if ident is not None:
                cond += f" and r.id != {ident.attr}"
            loop = f"{cond} for r in self.state.{record.resource}.values()"
            guard = f"{p.attr} is not None and " if not p.required or p.type.nullable else ""
            line = f"{PAD}if {guard}any({loop}):"
            if len(line) <= WIDTH:
                lines.append(line)
            elif len(f"{PAD}{INDENT}{loop}") <= WIDTH:
                lines += [f"{PAD}if {guard}any(", f"{PAD}{INDENT}{loop}", f"{PAD}):"]
            else:
                rows = self._loop_rows(cond, record.resource)
                lines += [f"{PAD}if {guard}any(", *rows, f"{PAD}):"]
            what = words(singular(record.resource))
            taken = f"{a_or_an(what)} with {p.name} {{{p.attr}!r}} already exists"
            lines += _error("CONFLICT", taken, 3)
        return lines

    def _loop_rows(self, cond: str, resource: str) -> list[str]:
        return [f"{PAD}{INDENT}{cond}", f"{PAD}{INDENT}for r in self.state.{resource}.values()"]

    def _changes(self, tool: ToolPlan, record: RecordPlan) -> list[tuple[str, str]]:
        out = []
        for p in tool.params:
            if p.role is Role.FIELD and p.target:
                out.append((record.fields[p.target].attr, p.attr))
        given = {attr for attr, _ in out}
        for p in tool.by_role(Role.CHANGES):
            for member, target in p.mapping.items():
                if record.fields[target].attr in given:
                    continue  # a parameter of its own sets the field
                value = f"{p.attr}.{member}"
                if not p.required or p.type.nullable:
                    value = f"None if {p.attr} is None else {value}"
                out.append((record.fields[target].attr, value))
        return out

    def _save(self, record: RecordPlan, ident: str, changes: list[tuple[str, str]]) -> list[str]:
        """``return self.update(...)``; records with aliased fields go through ``model_copy``
        because ``Service.update`` merges by dump keys, which are the aliases."""
        if not record.aliased:
            coll = json.dumps(record.resource)
            return call("return self.update", [coll, ident, *(f"{k}={v}" for k, v in changes)], 2)
        lines = call("changes = dict", [f"{k}={v}" for k, v in changes], 2)
        lines.append(f"{PAD}changes = {{k: v for k, v in changes.items() if v is not None}}")
        save = "record.model_copy(update=changes)"
        lines += call("return self.put", [json.dumps(record.resource), save], 2)
        return lines

    def _stamped(self, record: RecordPlan) -> list[tuple[str, str]]:
        field = record.fields.get("updated_at")
        if field is not None and field.type.kind is Kind.DATETIME:
            return [(field.attr, "now")]
        return []

    # -- verbs ----------------------------------------------------------------------------
    def _create(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        lines = self._unique_checks(tool, record) + self._ref_checks(tool)
        given = {p.target: p for p in tool.params if p.role is Role.FIELD and p.target}
        args: list[tuple[str | None, Expr]] = []
        for name, field in record.fields.items():
            if name in given:
                p = given[name]
                value = p.attr
                if p.name in tool.fallbacks:
                    value = f"{p.attr} if {p.attr} is not None else {tool.fallbacks[p.name]}"
                args.append((field.attr, value))
            elif name in tool.server_values:
                args.append((field.attr, tool.server_values[name]))
        exprs = " ".join(v for _, v in args if isinstance(v, str))
        if "now" in exprs.replace("now.", "now ").split():
            lines.append(f"{PAD}now = self.now()")
        new_id = new_id_source(record.id_style, record.id_prefix, record.resource)
        if "record_id" in exprs:
            lines.append(f"{PAD}record_id = {new_id}")
            new_id = "record_id"
        kw: list[tuple[str | None, Expr]] = [("id", new_id), *args]
        return lines + put_call(record.resource, record.cls, kw, 2, head="return self.put")

    def _read(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        ident = self._id(tool)
        coll = json.dumps(record.resource)
        if ident is None and tool.current:
            return self._current(tool, record)
        if ident is None:
            keys = tool.by_role(Role.KEY)
            cond = " and ".join(
                f"r.{record.fields[p.target or p.name].attr} == {p.attr}" for p in keys
            )
            lines = [f"{PAD}for r in self.state.{record.resource}.values():"]
            lines = self._ref_checks(tool) + lines
            what = words(singular(record.resource))
            if not keys:  # a singleton: the one record is the answer
                return [*lines, f"{INDENT * 3}return r", *_error("NOT_FOUND", f"no {what} yet")]
            lines += [*_if(cond, 3), f"{INDENT * 4}return r"]
            shown = ", ".join(f"{p.name} {{{p.attr}!r}}" for p in keys)
            return lines + _error("NOT_FOUND", f"no {what} with {shown}")
        scope = self._scope_checks(tool, record) + self._ref_checks(tool)
        if not scope:
            return [f"{PAD}return self.get({coll}, {ident.attr})"]
        return [f"{PAD}record = self.get({coll}, {ident.attr})", *scope, f"{PAD}return record"]

    def _current(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        """The selected record of its kind, else the first one (the default selection)."""
        coll = json.dumps(record.resource)
        first = f"next(iter(self.state.{record.resource}), None)"
        lines = self._ref_checks(tool)
        lines.append(f"{PAD}record_id = self.state.{SELECTED}.get({coll}) or {first}")
        lines += _if("record_id is None", 2)
        lines += _error("NOT_FOUND", f"no {words(singular(record.resource))} selected", 3)
        return [*lines, f"{PAD}return self.get({coll}, record_id)"]

    def _only(self, tool: ToolPlan, record: RecordPlan) -> tuple[ParamPlan, list[str]]:
        """The id parameter, or for a singleton (no parameter names it) the lines that find
        its one record's id, and a stand-in parameter for it."""
        ident = self._id(tool)
        if ident is not None:
            return ident, []
        stand_in = ParamPlan("id", "record_id", TypeSpec(Kind.STR, "str"), True, role=Role.ID)
        coll = f"self.state.{record.resource}"
        keys = tool.by_role(Role.KEY)
        if keys:  # a natural key names the record (``key``, ``path``, ``name``)
            cond = " and ".join(
                f"r.{record.fields[p.target or p.name].attr} == {p.attr}" for p in keys
            )
            loop = f"(r.id for r in {coll}.values() if {cond})"
            found = Call("next", [(None, loop), (None, "None")])
            lines = render(found, 2, "record_id = ")
            if any(len(line) > WIDTH for line in lines):  # as ruff format splits a generator
                rows = ("r.id", f"for r in {coll}.values()", f"if {cond}")
                inner = [f"{PAD}{INDENT * 2}{row}" for row in rows]
                lines = [f"{PAD}record_id = next(", f"{PAD}{INDENT}(", *inner]
                lines += [f"{PAD}{INDENT}),", f"{PAD}{INDENT}None,", f"{PAD})"]
            lines += _if("record_id is None", 2)
            shown = ", ".join(f"{p.name} {{{p.attr}!r}}" for p in keys)
            lines += _error("NOT_FOUND", f"no {words(singular(record.resource))} with {shown}", 3)
            return stand_in, lines
        assert record.singleton, f"{tool.name}: no id parameter, and not a singleton"
        lines = [f"{PAD}record_id = next(iter({coll}), None)", *_if("record_id is None", 2)]
        lines += _error("NOT_FOUND", f"no {words(singular(record.resource))} yet", 3)
        return stand_in, lines

    def _update(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        ident, found = self._only(tool, record)
        coll = json.dumps(record.resource)
        checks = (
            self._scope_checks(tool, record)
            + self._unique_checks(tool, record)
            + self._ref_checks(tool)
        )
        scoped = bool(self._scope_checks(tool, record))
        required = self._required_state(tool, record, ident.attr)
        lines: list[str] = []
        if scoped or record.aliased or required:
            lines.append(f"{PAD}record = self.get({coll}, {ident.attr})")
        elif checks:
            lines.append(f"{PAD}self.get({coll}, {ident.attr})")  # not_found before any other check
        lines += required + checks
        changes = self._changes(tool, record)
        stamp = [s for s in self._stamped(record) if s[0] not in dict(changes)]
        if stamp:
            lines.append(f"{PAD}now = self.now()")
        return found + lines + self._save(record, ident.attr, changes + stamp)

    def _delete(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        ident, found = self._only(tool, record)
        coll = json.dumps(record.resource)
        lines: list[str] = list(found)
        scope = self._scope_checks(tool, record)
        if scope:
            lines += [f"{PAD}record = self.get({coll}, {ident.attr})", *scope]
        lines += self._ref_checks(tool)
        shapes = (Shape.RECORD, Shape.VIEW, Shape.ENVELOPE, Shape.ONE, Shape.BLANK)
        if tool.output.shape in shapes:
            return [*lines, f"{PAD}return self.delete({coll}, {ident.attr})"]
        values = {"id": "record.id", "true": "True"}
        wrapper = self._wrapper(tool.output.cls)
        kw = [f"{f.attr}={values[tool.output.meta[f.name]]}" for f in wrapper.fields]
        if any("record." in v for v in kw):
            lines.append(f"{PAD}record = self.delete({coll}, {ident.attr})")
        else:
            lines.append(f"{PAD}self.delete({coll}, {ident.attr})")
        return lines + call(f"return {tool.output.cls}", kw, 2)

    def _clear(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        """Every record of the collection is deleted; the answer shows nothing."""
        coll = json.dumps(record.resource)
        return [
            f"{PAD}for record_id in list(self.state.{record.resource}):",
            f"{PAD}{INDENT}self.delete({coll}, record_id)",
            f"{PAD}return {{}}",
        ]

    def _action(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        ident, found = self._only(tool, record)
        action = tool.action
        assert action is not None
        coll = json.dumps(record.resource)
        what = f"{words(singular(record.resource))} {{{ident.attr}!r}}"
        lines = [f"{PAD}record = self.get({coll}, {ident.attr})", *self._scope_checks(tool, record)]
        if action.selects:  # the record becomes the selected one of its kind
            lines.append(f"{PAD}self.state.{SELECTED}[{coll}] = record.id")
            return [*found, *lines, f"{PAD}return record"]
        if action.derives:
            return [*found, *lines, *self._derive(tool, record, action)]
        changes: list[tuple[str, str]] = []
        if action.status_field and action.target is not None:
            attr = record.fields[action.status_field].attr
            lines += _if(f"record.{attr} == {_lit(action.target)}", 2)
            lines += _error("FAILED_PRECONDITION", f"{what} is already {action.target}", 3)
            changes.append((attr, _lit(action.target)))
        if action.blocked:
            attr = record.fields[_status_name(record, action)].attr
            blocked = ", ".join(_lit(v) for v in action.blocked)
            if len(action.blocked) == 1:
                blocked += ","
            lines += _if(f"record.{attr} in ({blocked})", 2)
            lines += _error("FAILED_PRECONDITION", f"{what} is {{record.{attr}}}", 3)
        lines += self._required_state(tool, record, ident.attr)
        if action.flag_field and action.switch:  # a device's switch: set or flipped
            attr = record.fields[action.flag_field].attr
            value = f"not record.{attr}" if action.flips else repr(action.flag_value)
            changes.append((attr, value))
        elif action.flag_field:
            attr = record.fields[action.flag_field].attr
            test = f"record.{attr}" if action.flag_value else f"not record.{attr}"
            state = action.flag_field if action.flag_value else f"not {action.flag_field}"
            lines += _if(test, 2)
            lines += _error("FAILED_PRECONDITION", f"{what} is already {state}", 3)
            changes.append((attr, repr(action.flag_value)))
        lines += self._ref_checks(tool)
        for p in tool.by_role(Role.STATUS):
            attr = record.fields[p.target or ""].attr
            mapping = ", ".join(f"{_lit(k)}: {_lit(v)}" for k, v in p.mapping.items())
            changes.append((attr, f"{{{mapping}}}[{p.attr}]"))
        changes += self._changes(tool, record)
        stamp = [(record.fields[action.stamp_field].attr, "now")] if action.stamp_field else []
        stamp += [s for s in self._stamped(record) if s[0] not in dict(stamp)]
        stamp = [s for s in stamp if s[0] not in dict(changes)]  # a parameter sets it already
        if stamp:
            if record.fields[_by_attr(record, stamp[0][0])].type.kind is Kind.DATE:
                stamp[0] = (stamp[0][0], "now.date()")
            lines.append(f"{PAD}now = self.now()")
        if action.history:
            if not stamp:
                lines.append(f"{PAD}now = self.now()")
            kw = [
                f"collection={coll}",
                f"record_id={ident.attr}",
                f"action={json.dumps(tool.name)}",
                "at=now",
            ]
            lines += call(f"transition = {self.plan.cls}Transition", kw, 2)
            lines.append(f"{PAD}self.state.transitions.append(transition)")
        lines += self._save(record, ident.attr, changes + stamp)
        if not any("record." in line for line in lines[1:]):
            lines[0] = f"{PAD}self.get({coll}, {ident.attr})"
        return found + lines

    def _derive(self, tool: ToolPlan, record: RecordPlan, action: ActionPlan) -> list[str]:
        """A reply or a forward: a new record made from ``record`` with the fields given, made
        now; a reply goes back to whoever wrote the one it answers. ``record`` is kept."""
        lines = self._ref_checks(tool)
        changes = self._changes(tool, record)
        given = {attr for attr, _ in changes}
        sender = next((record.fields[n] for n in SENDERS if n in record.fields), None)
        to = next((record.fields[n] for n in RECIPIENTS if n in record.fields), None)
        if action.word in REPLIES and sender and to and to.attr not in given:
            back, me = f"record.{sender.attr}", f"record.{to.attr}"
            if to.type.kind is Kind.LIST:
                back, me = f"[{back}]", f"{me}[0] if {me} else {back}"
            changes += [(to.attr, back), (sender.attr, me)]
        changes += [
            (f.attr, "[]")
            for name, f in record.fields.items()
            if name in _NOT_CARRIED and f.type.kind is Kind.LIST and f.attr not in given
        ]  # fmt: skip
        made = [
            (f.attr, "now.date()" if f.type.kind is Kind.DATE else "now")
            for name, f in record.fields.items()
            if name in _MADE_AT and f.type.kind in (Kind.DATETIME, Kind.DATE)
            and f.attr not in given
        ]  # fmt: skip
        if made:
            lines.append(f"{PAD}now = self.now()")
        new_id = new_id_source(record.id_style, record.id_prefix, record.resource)
        kw = [f"id={new_id}", *(f"{k}={v}" for k, v in changes + made)]
        lines += call("update = dict", kw, 2)
        lines.append(f"{PAD}update = {{k: v for k, v in update.items() if v is not None}}")
        # its own flags, as a new record's: a reply to a starred, unread message is neither
        fresh = [
            f"{f.attr}={self._as_created(record, name, f)}"
            for name, f in record.fields.items()
            if f.type.kind is Kind.BOOL and f.attr not in given
        ]
        if fresh:
            lines += call("update.update", fresh, 2)
        coll = json.dumps(record.resource)
        return lines + call("return self.put", [coll, "record.model_copy(update=update)"], 2)

    def _as_created(self, record: RecordPlan, name: str, f: FieldPlan) -> str:
        """The value a record of ``record``'s kind made new holds in ``name``: what its
        create sets, else the spec's default, else none (false where it must have one)."""
        for tool in self.plan.tools:
            if tool.resource == record.resource and name in tool.server_values:
                return tool.server_values[name]
        default = f.type.schema.get("default")
        if isinstance(default, bool):
            return repr(default)
        return "False" if f.required and not f.type.nullable else "None"

    # -- list, search and count -----------------------------------------------------------
    def _list(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        if tool.output.shape is Shape.KEYS:
            return self._found(tool, record) + self._keys_answer(tool)
        return self._found(tool, record) + self._paginate(tool, record)

    def _keys_answer(self, tool: ToolPlan) -> list[str]:
        """The ids of the records found (a limit and an offset applied), as the spec lists
        them: text, or integers."""
        lines = self._whole_counts(tool)
        for p in tool.by_role(Role.OFFSET):
            lines.append(f"{PAD}found = found[{p.attr} or 0 :]")
        for p in tool.by_role(Role.LIMIT):
            lines.append(f"{PAD}found = found[: {p.attr}] if {p.attr} is not None else found")
        ident = "int(r.id)" if tool.output.meta.get("type") == "integer" else "r.id"
        ids = f"[{ident} for r in found]"
        key = tool.output.items
        answer = f"{{{json.dumps(key)}: {ids}}}" if key else ids
        return [*lines, f"{PAD}return {answer}"]

    def _count(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        (key,) = tool.output.meta
        answer = f"{{{json.dumps(key)}: len(found)}}" if key else "len(found)"
        return [*self._found(tool, record), f"{PAD}return {answer}"]

    def _found(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        """``found = [...]``: the records the filters, ranges and query select, in order."""
        lines: list[str] = []
        query = next(iter(tool.by_role(Role.QUERY)), None)
        conds: list[Expr] = []
        optional_search: Call | None = None  # ``(not q or _mentions(...))``'s call
        if query is not None:
            self.helpers.add("_mentions")
            fields = tool.search_fields or [
                n for n, f in record.fields.items() if f.type.kind is Kind.STR
            ]
            texts = [f"r.{record.fields[n].attr}" for n in fields] or ["r.id"]
            mentions = Call("_mentions", [(None, "q"), *((None, t) for t in texts)])
            if query.required and not query.type.nullable:
                lines.append(f"{PAD}q = {query.attr}.strip().casefold()")
                lines += _if("not q", 2)
                lines += _error("INVALID_ARGUMENT", f"{query.name}: must not be empty", 3)
                conds.append(mentions)
            else:
                lines.append(f'{PAD}q = ({query.attr} or "").strip().casefold()')
                conds.append(f"(not q or {mentions.flat()})")
                optional_search = mentions
        lines += self._ref_checks(tool)
        for p in tool.params:
            if p.role is Role.FILTER:
                conds.append(self._filter(p, record))
            elif p.role is Role.RANGE:
                conds.append(self._range(p, record))
        source = f"self.state.{record.resource}.values()"
        if record.order == "newest":
            source = f"reversed({source})"
        flat = " and ".join(_flat(c) for c in conds)
        one = f"{PAD}found = [r for r in {source} if {flat}]"
        inner = f"{PAD}{INDENT}r for r in {source} if {flat}"
        if conds and len(one) <= WIDTH:
            lines.append(one)
        elif conds and len(inner) <= WIDTH:
            lines += [f"{PAD}found = [", inner, f"{PAD}]"]
        elif conds:
            lines += [f"{PAD}found = [", f"{PAD}{INDENT}r", f"{PAD}{INDENT}for r in {source}"]
            joined = f"{PAD}{INDENT}if {flat}"
            if len(joined) <= WIDTH:
                lines.append(joined)
            else:
                for i, c in enumerate(conds):
                    word = "if " if i == 0 else "and "
                    split = render(c, 3, prefix=word)
                    if optional_search is not None and i == 0 and len(split[0]) > WIDTH:
                        # as ruff format splits a long ``(not q or ...)``
                        split = [f"{PAD}{INDENT}{word}(", f"{PAD}{INDENT * 2}not q"]
                        split += render(optional_search, 4, prefix="or ")
                        split.append(f"{PAD}{INDENT})")
                    lines += split
            lines.append(f"{PAD}]")
        else:
            lines.append(f"{PAD}found = list({source})")
        return lines

    def _filter(self, p: ParamPlan, record: RecordPlan) -> str:
        field = record.fields.get(p.target or p.name)
        r = f"r.{field.attr}" if field is not None else "r.id"
        if field is None:  # the record's own id: text inside the service
            value = p.attr if p.type.kind is Kind.STR else f"str({p.attr})"
            if p.type.kind is Kind.FLOAT:  # a whole number names a record (``5.0``: ``5``)
                self.helpers.add("_whole_key")
                value = f"_whole_key({p.attr})"
            test = f"r.id == {value}"
        elif field.type.kind is Kind.LIST:
            test = (
                f"set({p.attr}) <= set({r} or [])"
                if p.type.kind is Kind.LIST
                else f"{p.attr} in ({r} or [])"
            )
        elif field.type.is_text and field.type.semantic != "id":
            self.helpers.add("_same")
            test = f"_same({r}, {p.attr})"
        else:
            test = f"{r} == {p.attr}"
        if p.required and not p.type.nullable:
            return test
        return f"({p.attr} is None or {test})"

    def _range(self, p: ParamPlan, record: RecordPlan) -> str:
        field = record.fields[p.target or ""]
        value, r = p.attr, f"r.{field.attr}"
        if field.type.kind is Kind.DATE and p.type.kind is Kind.DATETIME:
            value = f"{p.attr}.date()"
        elif field.type.kind is Kind.DATETIME and p.type.kind is Kind.DATE:
            r = f"{r}.date()"
        test = f"{r} {'>=' if p.op == 'ge' else '<='} {value}"
        if not field.required or field.type.nullable:
            test = f"r.{field.attr} is not None and {test}"
        if " and " in test:
            test = f"({test})"
        if p.required and not p.type.nullable:
            return test
        return f"({p.attr} is None or {test})"

    def _whole_counts(self, tool: ToolPlan) -> list[str]:
        """A limit, offset or page declared ``number`` counts whole records (``2.0``: 2)."""
        lines: list[str] = []
        for p in tool.params:
            if p.role not in COUNTING or p.type.kind is not Kind.FLOAT:
                continue
            if p.type.nullable or (not p.required and default_literal(p) is None):
                lines.append(f"{PAD}{p.attr} = int({p.attr}) if {p.attr} is not None else None")
            else:
                lines.append(f"{PAD}{p.attr} = int({p.attr})")
        return lines

    def _paginate(self, tool: ToolPlan, record: RecordPlan) -> list[str]:
        lines = self._whole_counts(tool)
        limit = next(iter(tool.by_role(Role.LIMIT)), None)
        offset = next(iter(tool.by_role(Role.OFFSET)), None)
        cursor = next(iter(tool.by_role(Role.CURSOR)), None)
        page = next(iter(tool.by_role(Role.PAGE)), None)
        start = "0"
        by_page = None
        if page is not None and limit is not None:
            by_page = f"(max({page.attr}, 1) - 1) * {limit.attr}"
        if cursor is not None:  # a page number or an offset counts where no cursor is given
            self.helpers.add("_offset_of")
            otherwise = by_page or (f"{offset.attr} or 0" if offset is not None else None)
            tail = f" if {cursor.attr} else {otherwise}" if otherwise else ""
            lines.append(f"{PAD}start = _offset_of({cursor.attr}){tail}")
            start = "start"
        elif by_page is not None:
            lines.append(f"{PAD}start = {by_page}")
            start = "start"
        elif offset is not None:
            start = offset.attr
        maximum = limit.type.schema.get("maximum") if limit is not None else None
        small = not isinstance(maximum, int) or maximum <= PAGINATE_MAX
        if limit is not None and small:
            lines.append(f"{PAD}selected = paginate(found, {limit.attr}, {start})")
        elif limit is not None:
            lines.append(f"{PAD}selected = found[{start} : {start} + {limit.attr}]")
        elif start != "0":
            lines.append(f"{PAD}selected = found[{start}:]")
        else:
            lines.append(f"{PAD}selected = found")
        if tool.output.shown:  # the items show part of each record
            self.helpers.add("_view")
            keys = self._keys(tool, list(tool.output.shown))
            lines.append(f"{PAD}selected = [_view(r, {keys}) for r in selected]")
        if tool.output.shape is Shape.LIST:
            return [*lines, f"{PAD}return selected"]
        meta = set(tool.output.meta.values())
        if meta & {"next_cursor", "has_more"}:
            lines.append(f"{PAD}end = {start} + len(selected)")
        wrapper = self._wrapper(tool.output.cls)
        values = {
            "total": "len(found)",
            "limit": limit.attr if limit is not None else "len(selected)",
            "offset": start,
            "has_more": "end < len(found)",
            "page": page.attr if page is not None else "1",
        }
        kw = []
        for f in wrapper.fields:
            meaning = tool.output.meta.get(f.name)
            if meaning is None:
                kw.append(f"{f.attr}=selected")
            elif meaning.startswith("="):  # a fixed value (``status_code=200``)
                kw.append(f"{f.attr}={meaning[1:]}")
            elif meaning == "next_cursor":
                last = "None" if f.type.nullable else '""'
                width = _cursor_width([cursor.type if cursor else None, f.type])
                token = f'f"{{end:0{width}d}}"' if width else "str(end)"
                kw.append(f"{f.attr}={token} if end < len(found) else {last}")
            else:
                kw.append(f"{f.attr}={values[meaning]}")
        return lines + call(f"return {tool.output.cls}", kw, 2)

    def _wrapper(self, cls: str | None) -> WrapperPlan:
        return next(w for w in self.plan.wrappers if w.cls == cls)


def _cursor_width(types: list[TypeSpec | None]) -> int:
    """The width a cursor's offset is written at, zero-padded, for it to match the patterns
    and lengths the cursor parameter and answer declare (``^(?:[A-Za-z0-9+/]{4})*$``,
    base64, takes ``00000012``, not ``12``; ``minLength: 3`` takes ``001``); 0 (as it is)
    where that fits or no width does."""
    compiled: list[re.Pattern[str]] = []
    shortest, longest = 0, 10**6
    for t in [t for t in types if t is not None]:
        pattern = t.schema.get("pattern")
        low, high = t.schema.get("minLength"), t.schema.get("maxLength")
        shortest = max(shortest, low) if isinstance(low, int) else shortest
        longest = min(longest, high) if isinstance(high, int) else longest
        try:
            compiled += [re.compile(pattern)] if isinstance(pattern, str) else []
        except re.error:  # a pattern Python cannot read decides nothing
            continue
    for width in (0, shortest, 8):
        tokens = [f"{n:0{width}d}" for n in (1, 10, 100, 1000, 10000)]
        if all(p.search(t) for p in compiled for t in tokens) and all(
            shortest <= len(t) <= longest for t in tokens
        ):
            return width
    return 0


def _returned(lines: list[str], wrap: Callable[[str], str]) -> list[str]:
    """Every ``return X`` of a method becomes ``data = X`` then ``return wrap(data)``
    (``data = `` is as long as ``return ``: the statement keeps its layout); ``_out = X``
    where the answer does not use it (a blank answer), as linters ask of an unused name."""
    tree = ast.parse(textwrap.dedent("\n".join(lines)))
    returns = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None),
        key=lambda n: n.lineno,
        reverse=True,
    )
    out = list(lines)
    for node in returns:
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        line = out[first]
        pad = line[: len(line) - len(line.lstrip())]
        answer = wrap("data")
        name = "data" if re.search(r"\bdata\b", answer) else "_out"
        out[first] = pad + f"{name} = " + line.lstrip().removeprefix("return ")
        head, *rest = answer.split("\n")  # a long wrap comes as lines, indented alike
        out[last + 1 : last + 1] = [f"{pad}return {head}", *(f"{pad}{r}" for r in rest)]
    return out


def _enveloped(value: str, layers: tuple[Layer, ...]) -> str:
    """The answer inside its call envelopes, innermost first."""
    for layer in reversed(layers):
        value = layer.wrap(value)
    return value


def _answer_call(value: str, meta: dict[str, str]) -> str:
    """``_answer(data, {...})`` on one line, or one item a line when that is too long."""
    items = [f"{json.dumps(k)}: {v}" for k, v in meta.items()]
    one = f"_answer({value}, {{{', '.join(items)}}})"
    if _fits_return(one):
        return one
    body = [f"{INDENT * 2}{item}," for item in items]
    return "\n".join(["_answer(", f"{INDENT}{value},", f"{INDENT}{{", *body, f"{INDENT}}},", ")"])


def _call_text(head: str, args: list[str]) -> str:
    """``head(a, b)`` on one line, or one argument a line when that is too long."""
    one = f"{head}({', '.join(args)})"
    if _fits_return(one):
        return one
    return "\n".join([f"{head}(", *(f"{INDENT}{a}," for a in args), ")"])


def _fits_return(text: str) -> bool:
    return len(PAD) + len("return ") + len(text) <= WIDTH


def _flat(expr: Expr) -> str:
    return expr.flat() if isinstance(expr, Call) else expr


def _if(test: str, indent: int) -> list[str]:
    pad = INDENT * indent
    line = f"{pad}if {test}:"
    if len(line) <= WIDTH:
        return [line]
    if len(pad + INDENT + test) <= WIDTH or " and " not in test:
        return [f"{pad}if (", f"{pad}{INDENT}{test}", f"{pad}):"]
    first, *rest = test.split(" and ")  # several keys compared: one per line
    body = [f"{pad}{INDENT}{first}", *(f"{pad}{INDENT}and {t}" for t in rest)]
    return [f"{pad}if (", *body, f"{pad}):"]


def _status_name(record: RecordPlan, action: ActionPlan) -> str:
    if action.status_field:
        return action.status_field
    field = status_field(record)
    assert field is not None, "blocked states imply a status field"
    return field.name


def _by_attr(record: RecordPlan, attr: str) -> str:
    return next(n for n, f in record.fields.items() if f.attr == attr)


def _answer_type(marking: dict[str, Any]) -> str:
    """The return annotation of a fixed answer (a probe's ``"ok"``, ``{"status": "ok"}``)."""
    answer = marking.get("answer")
    if isinstance(answer, bool):
        return "bool"
    return "str" if isinstance(answer, str) else "dict[str, Any]"
