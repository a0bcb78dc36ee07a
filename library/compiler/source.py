"""Small helpers for writing Python source: indented lines, calls, docstrings.

Output follows ``ruff format``'s layout (100 columns, one argument per line with a trailing
comma when a call does not fit), so generated services read like the hand-written ones.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field

WIDTH = 100
INDENT = "    "


def call(head: str, args: Iterable[str], indent: int, *, suffix: str = "") -> list[str]:
    """``head(arg, ...)`` on one line if it fits, else one argument per line."""
    args = list(args)
    pad = INDENT * indent
    one = f"{pad}{head}({', '.join(args)}){suffix}"
    if len(one) <= WIDTH:
        return [one]
    inner = INDENT * (indent + 1)
    return [f"{pad}{head}(", *(f"{inner}{a}," for a in args), f"{pad}){suffix}"]


@dataclass(slots=True)
class Call:
    """A call expression whose arguments may be calls: laid out by ``render``."""

    head: str
    args: list[tuple[str | None, Expr]] = field(default_factory=list)
    brackets: str = "()"  # "[]" for a list display

    def flat(self) -> str:
        inner = ", ".join(_flat_arg(k, v) for k, v in self.args)
        if not self.head and self.brackets == "()" and len(self.args) == 1:
            inner += ","  # a one-element tuple
        return f"{self.head}{self.brackets[0]}{inner}{self.brackets[1]}"


Expr = str | Call


def _flat_arg(key: str | None, value: Expr) -> str:
    text = value.flat() if isinstance(value, Call) else value
    return f"{key}={text}" if key else text


def render(expr: Expr, indent: int, prefix: str = "", suffix: str = "") -> list[str]:
    """An expression on one line if it fits, else each argument on its own line (nested
    calls recursively), as ``ruff format`` lays it out. A call written as text that does not
    fit (``fit_text(pattern_or(...), 1, 50)``) is laid out as a ``Call`` would be."""
    pad = INDENT * indent
    flat = expr.flat() if isinstance(expr, Call) else expr
    if len(pad) + len(prefix) + len(flat) + len(suffix) <= WIDTH:
        return [f"{pad}{prefix}{flat}{suffix}"]
    if not isinstance(expr, Call):
        expr = as_call(flat) or flat
        if not isinstance(expr, Call):
            return [f"{pad}{prefix}{flat}{suffix}"]
    lines = [f"{pad}{prefix}{expr.head}{expr.brackets[0]}"]
    for key, value in expr.args:
        lines += render(value, indent + 1, f"{key}=" if key else "", ",")
    return [*lines, f"{pad}{expr.brackets[1]}{suffix}"]


def as_call(text: str) -> Call | None:
    """The ``Call`` a one-line call expression written as text is (its head and each
    argument's text), or None for any other expression (or a sole generator argument, which
    must keep its call's parentheses)."""
    if "\n" in text:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or not (node.args or node.keywords):
        return None
    parts: list[ast.expr | ast.keyword] = [*node.args, *node.keywords]
    if any(isinstance(n, ast.GeneratorExp) for n in parts):
        return None
    parts.sort(key=lambda n: (n.lineno, n.col_offset))
    args: list[tuple[str | None, Expr]] = []
    for n in parts:
        named = isinstance(n, ast.keyword) and n.arg is not None
        source = ast.get_source_segment(text, n.value if named else n)  # type: ignore[union-attr]
        if source is None:
            return None
        args.append((n.arg if named else None, source))  # type: ignore[union-attr]
    head = ast.get_source_segment(text, node.func)
    return None if head is None else Call(head, args)


def escape_doc(text: str) -> str:
    """Spec text made safe inside a triple-quoted docstring."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text += " "
    return text


def wrap(text: str, width: int) -> list[str]:
    """Paragraphs wrapped to ``width``, blank lines between them kept."""
    out: list[str] = []
    for para in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line.strip() for line in para.split("\n") if line.strip()]
        if not lines:
            continue
        if out:
            out.append("")
        for line in lines:
            out.extend(
                textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False) or [""]
            )
    return out


def docstring(
    summary: str, indent: int, args: Iterable[tuple[str, str]] = (), returns: str = ""
) -> list[str]:
    """A Google-style docstring: the runtime reads the summary as the tool description and
    each ``Args:`` line as its parameter's description."""
    pad = INDENT * indent
    width = WIDTH - len(pad)
    text = escape_doc(_no_sections(summary))
    body = wrap(text, width - 3) or ["(no description)"]
    args = list(args)
    if len(body) == 1 and not args and not returns:
        if len(body[0]) + 6 <= width:
            return [f'{pad}"""{body[0]}"""']
        body = wrap(text, width - 8)  # two lines: ruff format would join a lone closing quote
    lines = [f'{pad}"""{body[0]}', *(f"{pad}{line}" if line else "" for line in body[1:])]
    if args:
        lines += ["", f"{pad}Args:"]
        for name, text in args:
            prose = " ".join(escape_doc(_no_sections(text)).split()) or "-"
            lines += textwrap.wrap(
                prose,
                WIDTH,
                initial_indent=f"{pad}{INDENT}{name}: ",
                subsequent_indent=f"{pad}{INDENT * 2}",
                break_long_words=False,
                break_on_hyphens=False,
            )
    if returns:
        lines += ["", f"{pad}Returns:", f"{pad}{INDENT}{returns}"]
    lines.append(f'{pad}"""')
    return lines


def _no_sections(text: str) -> str:
    """Spec prose must not open a docstring section the runtime would parse (``Args:``)."""
    fixed = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.endswith(":") and stripped[:-1] in (
            "Args", "Arguments", "Parameters", "Returns", "Raises", "Yields", "Example",
            "Examples", "Note", "Notes",
        ):  # fmt: skip
            line = line.replace(":", " -", 1)
        fixed.append(line)
    return "\n".join(fixed)


def comment_block(text: str, indent: int) -> list[str]:
    pad = INDENT * indent
    return [f"{pad}# {line}" for line in wrap(text, WIDTH - len(pad) - 2)]
