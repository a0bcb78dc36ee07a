"""Plan steps in the shape composition writes them, for tests of the wording built from them."""

from __future__ import annotations

from typing import Any


def plan_step(
    tool: str, text: dict[str, Any], stated: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A plan step as composition writes it (``stated`` arguments from the user)."""
    return {
        "tool": tool,
        "write": text["kind"] not in ("lookup", "fetch"),
        "arguments": dict(stated or {}),
        "binds": {name: {"from": "user"} for name in stated or {}},
        "text": {"service": tool.split(".")[0].title(), **text},
    }


def find_step(tool: str, noun: str, by: list[list[str]], **more: Any) -> dict[str, Any]:
    """A lookup step finding a ``noun`` by the ``by`` pairs (label, said value)."""
    text = {"kind": "lookup", "noun": noun, "nouns": f"{noun}s", "label": noun, "by": by}
    return plan_step(tool, {**text, **more})
