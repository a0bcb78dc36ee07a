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
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from library.rubric.values import matches, mentions, normalize, same, says

States = Mapping[str, Mapping[str, Any]]
C = TypeVar("C", bound="Criterion")

# Bookkeeping fields a tool sets on every write: they say when, not what, was changed.
VOLATILE = frozenset(
    {"created_at", "updated_at", "modified_at", "last_modified_at", "version", "etag"}
)

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


def source(collection: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The immutable record objects behind a read-only view of a collection, when the view
    exposes them as ``source`` (``library.compose.views`` does): the same object on both
    sides means the same record, which saves exporting either to compare them."""
    src = getattr(collection, "source", None)
    return src if isinstance(src, Mapping) else None


def _identical(
    src_before: Mapping[str, Any] | None, src_after: Mapping[str, Any] | None, rid: str
) -> bool:
    """Whether record ``rid`` is provably unchanged by identity (False: compare values)."""
    return (
        src_before is not None
        and src_after is not None
        and src_before.get(rid) is src_after.get(rid)
    )


# A value that is the id of a record the plan created: ids come from a per-service counter,
# so an agent that makes the records in another order (the TSIG key before the zone) gets
# other ids. Such a value is checked as "a record new in this collection", not compared.
NEW = "$new"


def new_record(collection: str) -> dict[str, str]:
    """The expected value "the id of a record created in ``collection``"."""
    return {NEW: collection}


def _holds(value: Any, expected: Any, initial: States, final: States, service: str) -> bool:
    """Whether ``value`` is what a criterion expects: ``expected`` itself, or, for
    ``new_record(collection)``, the id of a record of that collection that is new."""
    if isinstance(expected, Mapping) and set(expected) == {NEW}:
        coll = str(expected[NEW])
        return (
            isinstance(value, str)
            and value in records(final, service, coll)
            and value not in records(initial, service, coll)
        )
    return same(value, expected)


def _show(value: Any) -> str:
    if isinstance(value, Mapping) and set(value) == {NEW}:
        return f"a new {_words(str(value[NEW]))} record's id"
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
        after = records(final, self.service, self.collection)
        # Old records first by id, so only new ones are exported and compared.
        if not any(isinstance(v, Mapping) and NEW in v for v in self.fields.values()):
            return any(rid not in before and matches(after[rid], self.fields) for rid in after)
        return any(
            rid not in before
            and all(
                _holds(after[rid].get(k), v, initial, final, self.service)
                for k, v in self.fields.items()
            )
            for rid in after
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
        return record is not None and _holds(
            record.get(self.field), self.value, initial, final, self.service
        )


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
        coll_before = records(initial, self.service, self.collection)
        coll_after = records(final, self.service, self.collection)
        if self.id not in coll_before or self.id not in coll_after:
            return False
        if _identical(source(coll_before), source(coll_after), self.id):
            return True
        before, after = coll_before[self.id], coll_after[self.id]
        return before is after or same(before, after)


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
        src_before, src_after = source(before), source(after)
        for rid in before:
            if rid not in after:
                return False
            if _identical(src_before, src_after, rid):
                continue
            rec, other = before[rid], after[rid]
            if other is not rec and normalize(other) != normalize(rec):
                return False
        return True


@register
@dataclasses.dataclass(frozen=True, slots=True)
class OtherServicesUnchanged(Criterion):
    """A guard over the services the agent can reach but the request does not involve (a
    gateway episode mounts a dozen besides the task's): none of them changes. Their states
    are not part of the task (they are seeded as composition seeded them), so an
    environment exports such a service's final state only when the episode changed it
    (``library.rollout.env``): its presence in the final states is the change."""

    kind: ClassVar[str] = "other_services_unchanged"
    services: list[str] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "services", sorted(str(s) for s in self.services))

    def describe(self) -> str:
        return (
            "Nothing changes in the other services the agent can reach ("
            + ", ".join(self.services)
            + ")."
        )

    def check(self, initial: States, final: States, answer: str) -> bool:
        return all(
            s not in final or (s in initial and same(initial[s], final[s])) for s in self.services
        )


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


def collections_of(states: States, service: str) -> dict[str, Mapping[str, Any]]:
    """The record collections of one service: its entries that map ids to records. ``seq``
    and other scalars, and maps of scalars (a per-collection id counter, the selected
    record of each collection), are bookkeeping, not records: a new record moves the
    counter, which no request asks for and no reward may count as a change."""
    svc = states.get(service)
    if not isinstance(svc, Mapping):
        return {}
    return {
        name: coll
        for name, coll in svc.items()
        if isinstance(coll, Mapping)
        # (a view over a state's collections says so: no record is read to find out)
        and (
            getattr(coll, "holds_records", False)
            or all(isinstance(r, Mapping) for r in coll.values())
        )
    }


def _changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Fields whose values differ between two versions of a record."""
    return sorted(
        k
        for k in before.keys() | after.keys()
        if normalize(before.get(k)) != normalize(after.get(k))
    )


@register
@dataclasses.dataclass(frozen=True, slots=True)
class OnlyRequestedChanges(Criterion):
    """A guard over a whole service: nothing differs from the initial state except what the
    gold plan changed. ``added``: how many records the plan creates per collection (their
    content is ``record_created``'s business, so new records are only counted: a duplicate
    or an extra create changes the count); ``updated``: per collection, the records the plan
    updates and the fields it may change on each; ``deleted``: per collection, the records
    it deletes. Bookkeeping fields (``VOLATILE``) of updated records are not compared."""

    kind: ClassVar[str] = "only_requested_changes"
    service: str
    added: dict[str, int] = dataclasses.field(default_factory=dict)
    updated: dict[str, dict[str, list[str]]] = dataclasses.field(default_factory=dict)
    deleted: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        # JSON shapes only (lists, sorted), so a round trip gives an equal criterion.
        object.__setattr__(
            self, "added", {str(c): int(n) for c, n in sorted(self.added.items()) if n}
        )
        object.__setattr__(
            self,
            "updated",
            {
                str(c): {str(r): sorted(f) for r, f in sorted(ids.items())}
                for c, ids in sorted(self.updated.items())
                if ids
            },
        )
        object.__setattr__(
            self, "deleted", {str(c): sorted(ids) for c, ids in sorted(self.deleted.items()) if ids}
        )

    def describe(self) -> str:
        return (
            f"Nothing else in {self.service} is created, changed or deleted beyond the "
            "requested changes."
        )

    def check(self, initial: States, final: States, answer: str) -> bool:
        svc_before, svc_after = initial.get(self.service), final.get(self.service)
        before_colls = collections_of(initial, self.service)
        after_colls = collections_of(final, self.service)
        for name in before_colls.keys() | after_colls.keys():
            before, after = before_colls.get(name), after_colls.get(name)
            # A collection on one side only: a representation difference (a settings mapping
            # in JSON, absent from a view) unless the whole service is missing there.
            if before is None:
                if svc_before is not None:
                    continue
                before = {}
            if after is None:
                if svc_after is not None:
                    continue
                after = {}
            if not self._collection_ok(name, before, after):
                return False
        return True

    def _collection_ok(
        self, name: str, before: Mapping[str, Any], after: Mapping[str, Any]
    ) -> bool:
        if type(before) is dict and type(after) is dict and before == after:
            # Plain JSON on both sides and equal: nothing changed (a judge's usual case;
            # comparing is C-speed, normalising every record is not).
            return self.added.get(name, 0) == 0
        may_delete = self.deleted.get(name, ())
        may_update = self.updated.get(name, {})
        src_before, src_after = source(before), source(after)
        gone = 0
        for rid in before:
            if rid not in after:
                if rid not in may_delete:
                    return False
                gone += 1
                continue
            if _identical(src_before, src_after, rid):
                continue
            rec, other = before[rid], after[rid]
            if other is rec or (type(rec) is dict and rec == other):
                continue  # the same object (a view over an unchanged record) or equal JSON
            fields = may_update.get(rid)
            if fields is None:
                if normalize(other) != normalize(rec):
                    return False
            elif any(k not in VOLATILE and k not in fields for k in _changed(rec, other)):
                return False
        # New records: counted, never compared (generated ids and timestamps differ).
        return len(after) - (len(before) - gone) == self.added.get(name, 0)


def only_requested_changes(
    initial: States, final: States, services: Iterable[str]
) -> list[Criterion]:
    """One ``OnlyRequestedChanges`` per service, allowing exactly what a gold run changed
    from ``initial`` to ``final``. Give every service the plan may touch, read-only ones
    included: a write to a service the plan only reads is then caught too."""
    out: list[Criterion] = []
    for service in services:
        added: dict[str, int] = {}
        updated: dict[str, dict[str, list[str]]] = {}
        deleted: dict[str, list[str]] = {}
        before_colls = collections_of(initial, service)
        after_colls = collections_of(final, service)
        for name in sorted(before_colls.keys() | after_colls.keys()):
            before = before_colls.get(name) or {}
            after = after_colls.get(name) or {}
            new = sum(1 for rid in after if rid not in before)
            if new:
                added[name] = new
            src_before, src_after = source(before), source(after)
            for rid in before:
                if rid not in after:
                    deleted.setdefault(name, []).append(rid)
                    continue
                if _identical(src_before, src_after, rid):
                    continue
                rec, other = before[rid], after[rid]
                if other is not rec and normalize(other) != normalize(rec):
                    fields = [f for f in _changed(rec, other) if f not in VOLATILE]
                    updated.setdefault(name, {})[rid] = fields
        out.append(OnlyRequestedChanges(service, added, updated, deleted))
    return out


@register
@dataclasses.dataclass(frozen=True, slots=True)
class AnswerOmits(Criterion):
    """The final reply states none of ``values``: the values other records (decoys, the
    records a rule set aside) have in the field the task asks about. A reply that recites
    every value it saw then fails, as it should."""

    kind: ClassVar[str] = "answer_omits"
    values: list[Any]
    label: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", list(self.values))

    @property
    def touches_state(self) -> bool:
        return False

    def describe(self) -> str:
        shown = [_show(v) for v in self.values[:5]]
        if len(self.values) > 5:
            shown.append(f"{len(self.values) - 5} more")
        listed = (
            " or ".join(shown) if len(shown) < 3 else ", ".join(shown[:-1]) + " or " + shown[-1]
        )
        what = f" (other records' values, not the {self.label})" if self.label else ""
        return f"The final answer does not state {listed or 'anything else'}{what}."

    def check(self, initial: States, final: States, answer: str) -> bool:
        return not any(says(answer or "", v) for v in self.values)


def answer_omits(rows: Iterable[Mapping[str, Any]], gold_answer: str = "") -> list[Criterion]:
    """One ``AnswerOmits`` per answer row with ``excludes`` (``{"label", "value",
    "excludes": [...]}``), keeping only values that differ from the asked value and that
    the gold reply (when given) does not state itself."""
    out: list[Criterion] = []
    for row in rows:
        value = row.get("value")
        keep = [
            v
            for v in row.get("excludes") or ()
            if not same(v, value)
            and not (isinstance(value, str) and says(value, v))  # "Ann" is in "Ann Lee"
            and not (gold_answer and says(gold_answer, v))
        ]
        unique: list[Any] = []
        for v in keep:
            if not any(same(v, u) for u in unique):
                unique.append(v)
        if unique:
            out.append(AnswerOmits(unique, label=str(row.get("label") or "")))
    return out
