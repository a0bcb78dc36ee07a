"""Rubric criteria: deterministic checks over exported states and the final answer.

Each kind is a small frozen dataclass with ``describe()`` (one sentence for people and
models) and ``check(initial, final, answer)``. States are what ``World.export_states()``
returns, ``{service: {collection: {id: record}}}``, or any read-only mapping of that shape,
so the judge evaluates rollouts without running service code. Kinds register themselves by
name, which is all ``from_dict`` needs: adding a kind never touches an evaluator.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from library.rubric.values import matches, mentions, normalize, same

States = Mapping[str, Mapping[str, Any]]
C = TypeVar("C", bound="Criterion")

REGISTRY: dict[str, type[Criterion]] = {}


def register(cls: type[C]) -> type[C]:
    if cls.kind in REGISTRY:
        raise ValueError(f"criterion kind {cls.kind!r} is registered twice")
    REGISTRY[cls.kind] = cls
    return cls


def records(states: States, service: str, collection: str) -> Mapping[str, Any]:
    """One collection of exported states; empty when the service or collection is absent."""
    svc = states.get(service)
    if svc is None:
        return {}
    coll = svc.get(collection)
    return coll if isinstance(coll, Mapping) else {}


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _words(name: str) -> str:
    return name.replace("_", " ")


class Criterion(ABC):
    """One requirement of a task. Subclasses are frozen dataclasses with a unique ``kind``."""

    kind: ClassVar[str]

    @abstractmethod
    def describe(self) -> str: ...

    @abstractmethod
    def check(self, initial: States, final: States, answer: str) -> bool: ...

    @property
    def touches_state(self) -> bool:
        """Whether the criterion reads the state (answer criteria read only the reply)."""
        return True

    def to_dict(self) -> dict[str, Any]:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        return {"kind": self.kind, **fields}


def from_dict(data: Mapping[str, Any]) -> Criterion:
    kind = data.get("kind")
    cls = REGISTRY.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown criterion kind {kind!r}; known: {sorted(REGISTRY)}")
    return cls(**{k: v for k, v in data.items() if k != "kind"})


def _label(label: str, collection: str) -> str:
    return label or f"the {_words(collection)} record"


@register
@dataclasses.dataclass(frozen=True, slots=True)
class RecordCreated(Criterion):
    """A record that was not there before exists with these field values."""

    kind: ClassVar[str] = "record_created"
    service: str
    collection: str
    fields: dict[str, Any]
    label: str = ""

    def describe(self) -> str:
        noun = self.label or f"{_words(self.collection)} record"
        if not self.fields:
            return f"A new {noun} exists in {self.service}."
        shown = ", ".join(f"{_words(k)} {_show(v)}" for k, v in sorted(self.fields.items()))
        return f"A new {noun} exists in {self.service} with {shown}."

    def check(self, initial: States, final: States, answer: str) -> bool:
        before = records(initial, self.service, self.collection)
        return any(
            rid not in before and matches(rec, self.fields)
            for rid, rec in records(final, self.service, self.collection).items()
        )


@register
@dataclasses.dataclass(frozen=True, slots=True)
class FieldUpdated(Criterion):
    """A record that existed keeps existing and now has this field value."""

    kind: ClassVar[str] = "field_updated"
    service: str
    collection: str
    id: str
    field: str
    value: Any
    label: str = ""

    def describe(self) -> str:
        who = _label(self.label, self.collection)
        return f"In {self.service}, {who} ({self.id}) has {_words(self.field)} {_show(self.value)}."

    def check(self, initial: States, final: States, answer: str) -> bool:
        record = records(final, self.service, self.collection).get(self.id)
        return record is not None and same(record.get(self.field), self.value)


@register
@dataclasses.dataclass(frozen=True, slots=True)
class RecordDeleted(Criterion):
    kind: ClassVar[str] = "record_deleted"
    service: str
    collection: str
    id: str
    label: str = ""

    def describe(self) -> str:
        who = _label(self.label, self.collection)
        return f"In {self.service}, {who} ({self.id}) has been deleted."

    def check(self, initial: States, final: States, answer: str) -> bool:
        return self.id in records(
            initial, self.service, self.collection
        ) and self.id not in records(final, self.service, self.collection)


@register
@dataclasses.dataclass(frozen=True, slots=True)
class RecordUnchanged(Criterion):
    """A guard: this record is exactly as it was (not edited, not deleted)."""

    kind: ClassVar[str] = "record_unchanged"
    service: str
    collection: str
    id: str
    label: str = ""

    def describe(self) -> str:
        who = _label(self.label, self.collection)
        return f"In {self.service}, {who} ({self.id}) is left unchanged."

    def check(self, initial: States, final: States, answer: str) -> bool:
        before = records(initial, self.service, self.collection).get(self.id)
        after = records(final, self.service, self.collection).get(self.id)
        return before is not None and after is not None and same(before, after)


@register
@dataclasses.dataclass(frozen=True, slots=True)
class CollectionUntouched(Criterion):
    """A guard: nothing in this collection was created, changed or deleted."""

    kind: ClassVar[str] = "collection_untouched"
    service: str
    collection: str

    def describe(self) -> str:
        return f"No {_words(self.collection)} in {self.service} is created, changed or deleted."

    def check(self, initial: States, final: States, answer: str) -> bool:
        before = records(initial, self.service, self.collection)
        after = records(final, self.service, self.collection)
        if len(before) != len(after):
            return False
        for rid, rec in before.items():
            other = after.get(rid)
            if other is None or (other is not rec and normalize(other) != normalize(rec)):
                return False
        return True


@register
@dataclasses.dataclass(frozen=True, slots=True)
class AnswerContains(Criterion):
    """The final reply states a value (numbers compared by value)."""

    kind: ClassVar[str] = "answer_contains"
    value: Any
    label: str = ""

    @property
    def touches_state(self) -> bool:
        return False

    def describe(self) -> str:
        what = f" as {self.label}" if self.label else ""
        return f"The final answer states {_show(self.value)}{what}."

    def check(self, initial: States, final: States, answer: str) -> bool:
        return mentions(answer or "", self.value)
