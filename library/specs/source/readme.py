"""Keep the services table of ``library/specs/README.md`` in step with the catalog."""

from __future__ import annotations

from collections import Counter

from .model import Service
from .render import FORMAT_LABELS, relpath, tool_count

START = "<!-- services:start -->"
END = "<!-- services:end -->"


def services_table(services: tuple[Service, ...]) -> str:
    rows = [
        "| service | title | domain | format | file | tools |",
        "|---|---|---|---|---|---:|",
    ]
    for svc in services:
        rows.append(
            f"| `{svc.name}` | {svc.title} | {svc.domain} | {FORMAT_LABELS[svc.format]} "
            f"| `{relpath(svc)}` | {tool_count(svc)} |"
        )
    total = sum(tool_count(svc) for svc in services)
    rows.append(f"| **{len(services)} services** | | | | | **{total}** |")
    per_format: Counter[str] = Counter()
    tools_per_format: Counter[str] = Counter()
    for svc in services:
        per_format[svc.format] += 1
        tools_per_format[svc.format] += tool_count(svc)
    rows += ["", "| format | services | tools |", "|---|---:|---:|"]
    for fmt, label in FORMAT_LABELS.items():
        rows.append(f"| {label} | {per_format[fmt]} | {tools_per_format[fmt]} |")
    return "\n".join(rows)


def render_readme(text: str, services: tuple[Service, ...]) -> str:
    """``text`` with the block between the markers replaced by the current table."""
    head, sep, rest = text.partition(START)
    if not sep:
        return text
    _, sep2, tail = rest.partition(END)
    if not sep2:
        raise ValueError(f"README has {START} without {END}")
    return f"{head}{START}\n{services_table(services)}\n{END}{tail}"
