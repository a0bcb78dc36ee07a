"""Google-style docstring parsing: a summary plus per-argument descriptions."""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str], str]:
    """Return (description, {arg: description}, returns description)."""
    text = inspect.cleandoc(doc or "")
    summary: list[str] = []
    args: dict[str, str] = {}
    returns: list[str] = []
    section: str | None = None
    current: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        header = _SECTION.match(line.strip())
        if header and not raw.startswith(" "):
            section, current = header.group(1), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters"):
            match = _ARG.match(line.strip())
            indent = len(line) - len(line.lstrip())
            if match and indent <= 4:
                current = match.group(1).lstrip("*")
                args[current] = match.group(2).strip()
            elif current and line.strip():
                args[current] = f"{args[current]} {line.strip()}".strip()
        elif section == "Returns" and line.strip():
            returns.append(line.strip())
    description = "\n".join(summary).strip()
    return description, args, " ".join(returns)
