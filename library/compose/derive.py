"""The rubric of a task, derived from what its gold plan did (the state diff), what it must
not do (guards) and what it must say (answer facts)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from library.compose.catalog import singular, words
from library.compose.context import Entity, Fact, field_words
from library.compose.plan import Step
from library.rubric import (
    AnswerContains,
    CollectionUntouched,
    Criterion,
    FieldUpdated,
    RecordCreated,
    RecordDeleted,
    RecordUnchanged,
    same,
)
from library.rubric.criteria import new_record
from library.rubric.values import timestamp
from library.runtime import WorldDiff

# Bookkeeping fields a tool sets on every write: checking them would test the clock.
VOLATILE = frozenset(
    {"created_at", "updated_at", "modified_at", "last_modified_at", "version", "etag"}
)


def _arguments(steps: Sequence[Step]) -> dict[str, dict[str, list[Any]]]:
    out: dict[str, dict[str, list[Any]]] = {}
    for step in steps:
        if step.write:
            per = out.setdefault(step.tool.service, {})
            for name, value in step.args.items():
                per.setdefault(name, []).append(value)
    return out


def changed_fields(
    diff: WorldDiff, args: dict[str, list[Any]] | None = None
) -> set[tuple[str, str, str, str]]:
    """(service, collection, id, field) of every meaningful update: bookkeeping fields and
    timestamps taken from the clock do not count."""
    out = set()
    for svc, colls in diff.services.items():
        for coll, d in colls.items():
            for rid, changes in d.updated.items():
                for name, (_, new) in changes.items():
                    if name in VOLATILE:
                        continue
                    given = (args or {}).get(name, ())
                    if timestamp(new) is not None and not any(same(new, a) for a in given):
                        continue
                    out.add((svc, coll, rid, name))
    return out


def _created_as(steps: Sequence[Step]) -> dict[tuple[str, str], dict[str, Any]]:
    """(service, id) -> the record as the step that returned it first showed it."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for step in steps:
        data = (step.envelope or {}).get("data")
        if step.write and isinstance(data, dict) and isinstance(data.get("id"), str):
            out.setdefault((step.tool.service, data["id"]), data)
    return out


def _settable(steps: Sequence[Step]) -> dict[tuple[str, str | None], set[str]]:
    """Fields an agent may set as it likes where the instruction says nothing: the
    parameters of the step that created a record (keyed by service and record id), and of
    every write tool of a service for records no step returned (keyed by service, None)."""
    out: dict[tuple[str, str | None], set[str]] = {}
    for step in steps:
        if not step.write:
            continue
        names = {p.name for p in step.tool.params}
        out.setdefault((step.tool.service, None), set()).update(names)
        data = (step.envelope or {}).get("data")
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            out.setdefault((step.tool.service, data["id"]), set()).update(names)
    return out


def state_criteria(
    diff: WorldDiff,
    steps: Sequence[Step],
    labels: dict[tuple[str, str, str], str],
    identifier: Callable[[str, str, str], bool] = lambda svc, coll, name: False,
) -> list[Criterion]:
    """One criterion per effect: records created, fields updated, records deleted.

    A created record is described by the fields the plan chose plus the fields the tools
    derive deterministically (a forwarded subject, a folder), so two similar records cannot
    stand in for each other; left out are values the agent could choose differently without
    the instruction saying otherwise, values from the clock, and generated identifiers
    (``identifier(service, collection, field)``), which depend on how many records an agent
    happened to create before.
    """
    given = _arguments(steps)
    free = _settable(steps)
    first = _created_as(steps)
    out: list[Criterion] = []
    meaningful = set()
    for svc in diff.services:
        meaningful |= {c for c in changed_fields(diff, given.get(svc)) if c[0] == svc}
    for svc in sorted(diff.services):
        args = given.get(svc, {})
        # ids of the records the plan creates here: a field holding one is checked as "a
        # new record of that collection", since another order of creates gives other ids
        made = {rid: coll for coll, d in diff.services[svc].items() for rid in d.added}

        def as_checked(value: Any, made: dict[str, str] = made) -> Any:
            return new_record(made[value]) if isinstance(value, str) and value in made else value

        def chosen(name: str, value: Any, args: dict[str, list[Any]] = args) -> bool:
            return any(same(value, a) for a in args.get(name, ()))

        for coll in sorted(diff.services[svc]):
            d = diff.services[svc][coll]
            noun = words(singular(coll))

            for rid in sorted(d.added):
                record = d.added[rid]
                settable = free.get((svc, rid), free.get((svc, None), set()))
                born = first.get((svc, rid))

                def later(name: str, value: Any, born: dict[str, Any] | None = born) -> bool:
                    """Changed by a later step of the plan (closed after it was opened)."""
                    return (
                        born is not None
                        and not same(born.get(name), value)
                        and (timestamp(value) is None)
                    )

                def derived(
                    name: str, value: Any, coll: str = coll, svc: str = svc, free=settable
                ) -> bool:
                    return (
                        name not in free
                        and timestamp(value) is None
                        and not identifier(svc, coll, name)
                    )

                fields = {
                    k: as_checked(v)
                    for k, v in sorted(record.items())
                    if k != "id"
                    and k not in VOLATILE
                    and v is not None
                    and (chosen(k, v) or derived(k, v) or later(k, v))
                }
                out.append(RecordCreated(svc, coll, fields, label=noun))
            for rid in sorted(d.updated):
                label = labels.get((svc, coll, rid), f"the {noun}")
                for name, (_, new) in sorted(d.updated[rid].items()):
                    if (svc, coll, rid, name) in meaningful:
                        out.append(FieldUpdated(svc, coll, rid, name, as_checked(new), label=label))
            for rid in sorted(d.deleted):
                label = labels.get((svc, coll, rid), f"the {noun}")
                out.append(RecordDeleted(svc, coll, rid, label=label))
    return out


def guard_criteria(
    decoys: Iterable[Entity], untouched: Iterable[tuple[str, str]]
) -> list[Criterion]:
    out: list[Criterion] = [
        RecordUnchanged(d.service, d.collection, d.id, label=f"the other {d.label}") for d in decoys
    ]
    out += [CollectionUntouched(svc, coll) for svc, coll in untouched]
    return out


def answer_criteria(facts: Iterable[Fact]) -> list[Criterion]:
    return [
        AnswerContains(f.value, label=f"the {field_words(f.field)} of {f.entity.the}")
        for f in facts
    ]
