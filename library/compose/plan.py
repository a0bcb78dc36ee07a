"""Plan steps: one tool call with its bound arguments, where each argument came from, and
what the instruction says about it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from library.compose.catalog import WRITE_KINDS, ToolInfo
from library.compose.context import Entity, Fact
from library.compose.realism import Rule, number_text

USER_KEYS = frozenset({"email", "phone", "person_name", "company", "url"})
QUERY_PARAMS = frozenset({"query", "q", "search", "term", "keyword", "keywords", "text"})


def user_knowable(key: str | None) -> bool:
    """Values a person could state from memory or a document: contact details, names,
    business identifiers. Never a record id."""
    return key is not None and (key in USER_KEYS or key.startswith("key:"))


def id_alone(record: dict[str, Any]) -> bool:
    """Whether a found record is known by its id alone (a read answering the id only, as
    ``find_user_id_by_email`` does): what else it holds is read by fetching it."""
    return set(record) == {"id"}


def show(value: Any) -> str:
    """How a literal reads in the instruction."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, list):
        return ", ".join(show(v) for v in value)
    return str(value)


def literal_texts(value: Any) -> list[str]:
    """The exact strings an instruction must contain to state ``value``."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [number_text(value)]
    if isinstance(value, list):
        return [t for v in value for t in literal_texts(v)]
    return []


@dataclass(frozen=True, slots=True)
class Bound:
    """One argument: its value, its provenance, how the instruction phrases it."""

    value: Any
    bind: dict[str, Any]
    phrase: str
    literals: tuple[str, ...] = ()
    fact: Fact | None = None

    @classmethod
    def literal(cls, value: Any) -> Bound:
        return cls(value, {"from": "user"}, show(value), tuple(literal_texts(value)))

    @classmethod
    def of(cls, fact: Fact, as_list: bool = False) -> Bound:
        value = [fact.value] if as_list and not isinstance(fact.value, list) else fact.value
        bind = {"from": "step", "step": fact.step, "path": fact.path}
        return cls(value, bind, fact.phrase(), (), fact)


@dataclass(slots=True)
class Step:
    tool: ToolInfo
    args: dict[str, Any]
    binds: dict[str, dict[str, Any]]
    text: dict[str, Any]
    literals: list[str] = field(default_factory=list)
    envelope: dict[str, Any] | None = None
    entity: Entity | None = None
    rule: Rule | None = None
    threshold: bool = False
    sources: list[Fact] = field(default_factory=list)  # facts the arguments came from
    # Earlier steps this one depends on besides its bound arguments (the policy note a
    # house rule lives in).
    extra_sources: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return str(self.tool.kind)

    @property
    def write(self) -> bool:
        return self.tool.kind in WRITE_KINDS

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool": self.tool.qualified,
            "arguments": self.args,
            "write": self.write,
            "kind": self.kind,
            "binds": self.binds,
            "text": self.text,
        }
        if self.rule is not None:
            out["select"] = self.rule.to_dict()
        if self.extra_sources:
            out["uses"] = list(self.extra_sources)
        return out
