"""The state of one walk in progress, and the bookkeeping every kind of step shares:
calling tools, injecting records, naming the records the agent has in hand."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from library.compose.catalog import (
    CollectionInfo,
    Param,
    ToolInfo,
    singular,
    title,
    words,
)
from library.compose.context import Entity, Fact, facts_of
from library.compose.departments import filed_in_department
from library.compose.env import ComposeEnv
from library.compose.inject import Injection, clone, new_id, put
from library.compose.matters import Matters
from library.compose.motifs import Motif
from library.compose.plan import Bound, Step
from library.runtime import World
from library.runtime.service import Record
from library.runtime.world import Snapshot


class Reject(Exception):
    """A walk that cannot become a task; the reason is counted."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def as_record(data: Any, id_key: str = "id") -> dict[str, Any] | None:
    """A record as composition reads it: its id under ``id`` whatever the output calls it
    (``id_key``: ``project_id``, ``sid``); None if ``data`` is no record."""
    if not isinstance(data, dict):
        return None
    if id_key != "id" and id_key in data:
        return {("id" if k == id_key else k): v for k, v in data.items()}
    return data if "id" in data else None


def found_records(data: Any, many: bool, id_key: str = "id") -> list[tuple[str, dict[str, Any]]]:
    """(path inside the output data, record) for each record a lookup returned; each
    record's id is under ``id`` (see ``as_record``)."""
    if not many:
        record = as_record(data, id_key)
        return [("", record)] if record is not None else []
    items, base = [], ""
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        for name, value in data.items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                items, base = value, name
                break
    out = []
    for i, item in enumerate(items):
        record = as_record(item, id_key)
        if record is not None:
            out.append((f"{base}[{i}]", record))
    return out


def compatible(p: Param, value: Any) -> bool:
    """Whether a seen value can be passed as ``p`` (a list only to an array)."""
    if isinstance(value, list):
        return p.type == "array"
    if isinstance(value, bool):
        return p.type == "boolean"
    if isinstance(value, int | float):
        return p.type in ("number", "integer") or p.item_type in ("number", "integer")
    return isinstance(value, str) and (p.type in ("string", None) or p.item_type == "string")


# Collections whose time ranges span days (a stay, a rental, a leave); others span hours.
_LONG_SPANS = frozenset(
    {"rental", "rentals", "reservation", "reservations", "booking", "bookings", "leave",
     "trip", "trips", "stay", "stays", "requests", "subscriptions", "contracts", "campaigns",
     "projects", "sprints", "milestones", "periods", "policies", "plans"}
)  # fmt: skip


def ordered_times(tool: ToolInfo, bound: dict[str, Bound]) -> dict[str, Bound]:
    """Stated times in parameter order (start before end), so a call is not refused for
    ending before it starts; a stated end follows its start by a plausible span (an hour
    or two for a meeting, days for a stay or a rental), not by weeks."""
    names = [
        p.name
        for p in tool.params
        if p.name in bound
        and bound[p.name].fact is None
        and (p.key in ("date", "datetime") or p.fmt in ("date", "date-time"))
    ]
    values = sorted(bound[n].value for n in names)
    if len(values) == 2 and all(isinstance(v, str) for v in values):
        values[1] = _plausible_end(tool, values[0], values[1])
    return {**bound, **{n: Bound.literal(v) for n, v in zip(names, values, strict=True)}}


def _plausible_end(tool: ToolInfo, start: str, end: str) -> str:
    """An end a plausible span after ``start``, derived from both (deterministic)."""
    try:
        if len(start) == 10:
            day = dt.date.fromisoformat(start)
            nights = 1 + (dt.date.fromisoformat(end) - day).days % 7
            return (day + dt.timedelta(days=nights)).isoformat()
        at = dt.datetime.fromisoformat(start.replace("Z", "+00:00"))
        later = dt.datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return end
    words = set(str(tool.collection or "").split("_")) | set(tool.name.split("_"))
    if words & _LONG_SPANS:
        span = dt.timedelta(days=1 + (later - at).days % 9, hours=2)
    else:
        span = dt.timedelta(minutes=30 * (1 + (later - at).days % 4))
    return (at + span).strftime("%Y-%m-%dT%H:%M:%SZ")


def name_tokens(name: str) -> set[str]:
    return {t for t in name.lower().split("_") if t and t not in ("id", "ids")}


@dataclass(frozen=True, slots=True)
class ListedId(Fact):
    """The one id a record lists of records nothing else finds (a user's only order, in
    ``order_ids``): read at ``order_ids[0]``, named "the order listed on the user"."""

    noun: str = ""

    @property
    def path(self) -> str:
        name = f"{self.field}[0]"
        return f"{self.entity.path}.{name}" if self.entity.path else name

    def phrase(self) -> str:
        return f"the {self.noun} listed on {self.entity.the}"


def listed_ids(entity: Entity, lists: dict[str, str], info: CollectionInfo | None) -> list[Fact]:
    """Facts for the records an entity lists by id (``ComposeEnv.owned_lists``), where it
    lists exactly one: which of several is meant would need a rule the task cannot state."""
    out: list[Fact] = []
    for name, target in sorted(lists.items()):
        value = entity.record.get(name)
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            noun = words(singular(target))
            out.append(ListedId(entity, name, value[0], f"id:{target}", "string", noun))
    return out


@dataclass(frozen=True, slots=True)
class Mark:
    """The state of a walk between two steps, to go back to: what the world held and how
    long each list of the walk was (entities changed later are undone from the journal)."""

    world: Snapshot
    entities: int
    facts: list[Fact]
    injections: int
    decoys: int
    written: frozenset[tuple[str, str, str, str]]
    staff_roles: dict[str, Any]
    steps: int
    services: int
    used: frozenset[str]
    house_rules: int
    journal: int


class WalkState:
    """One candidate task being built: injections, entities, facts and steps so far."""

    def __init__(self, env: ComposeEnv, world: World, base: Snapshot, rng: random.Random):
        self.env = env
        self.cfg = env.config
        self.catalog = env.catalog
        self.world = world
        self.base = base
        self.rng = rng
        self.steps: list[Step] = []
        self.entities: list[Entity] = []
        self.facts: list[Fact] = []
        self.services: list[str] = []
        self.injections: list[Injection] = []
        self.decoys: list[tuple[Entity, str]] = []  # (near-duplicate, why it is there)
        self.used: set[str] = set()
        self.written: set[tuple[str, str, str, str]] = set()
        self.failures: dict[str, int] = {}
        self.call_people: dict[str, str] = {}  # person -> role, within the call being bound
        self.call_subject = ""  # what the call's bare person fields are about ("candidate")
        self.call_writes = False  # whether the call being bound writes (a lookup only finds)
        self.call_answers: set[str] = set()  # who a reply being bound goes to (the sender)
        self.successor: Bound | None = None  # who takes over a leaver's work (offboarding)
        self.staff_roles: dict[str, Any] = {}  # staff role -> the colleague holding it
        self.pending_sources: list[int] = []  # policy-note steps the step being built uses
        self.house_rules: list[dict[str, Any]] = []  # rules moved into the environment
        self.motif: Motif | None = None  # the workflow the walk carries out
        # Services at their share cap in this run: the walk adds none of them (balance).
        self.avoid: frozenset[str] = frozenset()
        self.avoid_domains: frozenset[str] = frozenset()  # domains at theirs
        # How likely the walk is to try opening on a tool, for its workflow (``Balance``).
        self.opening_odds: Callable[[str, str], float] | None = None
        self.subject_cache: tuple[Step, set[str]] | None = None  # who the request is about
        self.fact_index: tuple[list[Fact], dict[Any, list[Fact]], dict[Any, list[Fact]]] | None
        self.fact_index = None  # ``Binding._fact_index``
        # Whether a record is the subject's own, of the kind the work is about (found by
        # them): ``Binding._in_story``.
        self.story_records: dict[Entity, bool] = {}
        self.asked_reason = ""  # the reason the e-mail asking for the work gives, if any
        self.by_mail = False  # whether the request is a customer's e-mail asking for the work
        # How many matters the writes may work on (``matters``; None: any), how many when the
        # request covers a colleague's plate, and the kinds of work the request is made of.
        self.max_matters: int | None = 1
        self.colleague_matters: int | None = None
        self.works: tuple[str, ...] = ()
        self.matters_memo: tuple[tuple[int, int], Matters] | None = None
        # The state before each step the walk kept (``rewind``), and the earlier versions
        # of entities later steps changed: (entity, record, step, path, deleted).
        self.marks: list[Mark] = []
        self.journal: list[tuple[Entity, dict[str, Any], int, str, bool]] = []

    @property
    def avoid_start(self) -> frozenset[str]:
        """Services a walk does not open in."""
        return self.avoid

    def mark(self) -> Mark:
        return Mark(
            self.world.snapshot(),
            len(self.entities),
            self.facts,
            len(self.injections),
            len(self.decoys),
            frozenset(self.written),
            dict(self.staff_roles),
            len(self.steps),
            len(self.services),
            frozenset(self.used),
            len(self.house_rules),
            len(self.journal),
        )

    def person_rows(self) -> Iterator[dict[str, Any]]:
        """Every person record of every service in the world as it stands, as JSON rows
        (whose wishes and whereabouts the request must respect)."""
        return self.env.person_rows(s.state for s in self.world.services.values())

    def rewind(self, mark: Mark) -> None:
        """Back to the state ``mark`` took: the world, every list, and the entities later
        steps changed (injections included)."""
        self.world.restore(mark.world)
        while len(self.journal) > mark.journal:
            entity, record, step, path, deleted = self.journal.pop()
            entity.record, entity.step, entity.path, entity.deleted = record, step, path, deleted
        kept = self.entities[: mark.entities]
        for entity in self.entities[mark.entities :]:
            for other in entity.links:
                if other in kept:
                    other.links.remove(entity)
        del self.entities[mark.entities :]
        del self.injections[mark.injections :]
        del self.decoys[mark.decoys :]
        self.facts, self.written = mark.facts, set(mark.written)
        self.staff_roles = dict(mark.staff_roles)
        del self.steps[mark.steps :]
        del self.services[mark.services :]
        del self.house_rules[mark.house_rules :]
        self.used = set(mark.used)
        del self.marks[sum(1 for m in self.marks if m.steps < mark.steps) :]

    def remember(self, entity: Entity) -> None:
        """Journal ``entity`` as it is before a step changes it (``rewind`` restores it)."""
        self.journal.append((entity, entity.record, entity.step, entity.path, entity.deleted))

    def _did_core_work(self) -> bool:
        """Whether a write so far is the workflow's own work (True: no workflow)."""
        if self.motif is None:
            return True
        core = self.env.core_tools(self.motif)
        return any(s.write and s.tool.qualified in core for s in self.steps)

    def _call(self, tool: ToolInfo, args: dict[str, Any]) -> dict[str, Any]:
        envelope = self.world.call(tool.qualified, args)
        if not envelope.get("success"):
            raise Reject(f"call_failed:{(envelope.get('error') or {}).get('code')}")
        return envelope

    def _inject(
        self, service: str, collection: str, record: Record, replaces: str | None = None
    ) -> None:
        record = self._own_children(service, collection, record, replaces)
        info = self._coll(service, collection)
        if info is not None:  # made someone's: of their department (their HR file, a job)
            state = self.world.services[service].state
            filed = filed_in_department(state, info, record, self.env.pool)
            record = record.model_copy(update=filed) if filed else record
        was = self._state_record(service, collection, record.id)
        injection = Injection(service, collection, record, replaces)
        put(self.world, injection)
        self.injections.append(injection)
        self._with_its_parent(service, collection, record)
        if was is not None:
            self._children_follow(service, collection, was, record)

    def _with_its_parent(self, service: str, collection: str, record: Record) -> None:
        """A line is its report's: a record put in the world that names another of its
        service by id (an expense its report) holds that record's person and currency
        wherever the seeds hold them alike (``ComposeEnv.kin``), or the walk does not put
        it there."""
        state = self.world.services[service].state
        for link, parent_coll, alike in self.env.kin(service, collection, self._seeded(service)):
            parent = getattr(state, parent_coll).get(getattr(record, link, None))
            if parent is not None and any(
                getattr(parent, f, None) != getattr(record, f, None) for f in alike
            ):
                raise Reject("lookup_empty")

    def _children_follow(self, service: str, collection: str, was: Record, now: Record) -> None:
        """A record made someone else's in place takes its own records along: the lines
        under an expense report (records naming it by id) move to the report's new person
        and currency (the fields ``ComposeEnv.kin`` finds they share)."""
        state = self.world.services[service].state
        seeded = self._seeded(service)
        for coll in sorted(type(state).collection_types):
            for link, parent_coll, alike in self.env.kin(service, coll, seeded):
                if parent_coll != collection:
                    continue
                moved = {
                    f: getattr(now, f, None)
                    for f in alike
                    if getattr(now, f, None) != getattr(was, f, None)
                }
                if not moved:
                    continue
                for child in list(getattr(state, coll).values()):
                    if getattr(child, link, None) != was.id:
                        continue
                    if any(e.id == child.id and e.collection == coll for e in self.entities):
                        raise Reject("lookup_empty")  # already read as it was
                    self._inject(service, coll, clone(child, child.id, moved))

    def _seeded(self, service: str) -> Any:
        """``service``'s state as seeded, before the walk put anything in it."""
        return self.base.states[service]

    def _own_children(
        self, service: str, collection: str, record: Record, replaces: str | None = None
    ) -> Record:
        """A copy of a person's record (a customer a lookup must find, a decoy) lists the
        records it owns (``order_ids``): where another record already lists them, the copy
        gets copies of its own, so no order is two customers' (``ComposeEnv.owned_lists``)."""
        lists = self.env.owned_lists.get((service, collection))
        if not lists:
            return record
        state = self.world.services[service].state
        gone = {record.id, replaces}  # (a record re-keyed keeps what it listed)
        others = [r for rid, r in getattr(state, collection).items() if rid not in gone]
        changes: dict[str, Any] = {}
        for field, target in sorted(lists.items()):
            ids = getattr(record, field, None) or []
            taken = {i for r in others for i in (getattr(r, field, None) or [])}
            back = self.env._owner_field(service, target, collection)
            children = getattr(state, target)
            if not set(ids) & taken:
                if replaces is not None and back:
                    self._renamed_owner(service, target, back, ids, replaces, record.id)
                continue
            copies = []
            for cid in ids:
                child = children.get(cid)
                if child is None:
                    continue
                new = new_id(self.world, service, target, cid, self.rng)
                tied = {back: record.id} if back else {}
                copy = clone(child, new, tied)
                put(self.world, injection := Injection(service, target, copy))
                self.injections.append(injection)
                copies.append(new)
            changes[field] = copies
        return record.model_copy(update=changes) if changes else record

    def _renamed_owner(
        self, service: str, target: str, back: str, ids: list[str], old: str, new: str
    ) -> None:
        """The records a re-keyed record lists name it by its new id (an order's user)."""
        children = getattr(self.world.services[service].state, target)
        for cid in ids:
            child = children.get(cid)
            if child is not None and getattr(child, back, None) == old:
                put(
                    self.world,
                    injection := Injection(service, target, clone(child, cid, {back: new})),
                )
                self.injections.append(injection)

    def _state_record(self, service: str, collection: str, rid: str) -> Record | None:
        return getattr(self.world.services[service].state, collection).get(rid)

    def _coll(self, service: str, collection: str | None) -> CollectionInfo | None:
        return self.catalog.collection(service, collection) if collection else None

    def _add_entity(self, entity: Entity) -> None:
        info = self._coll(entity.service, entity.collection)
        if info is not None:
            entity.id_key = info.id_key  # where later steps read its id in the output
        self.entities.append(entity)
        # Rebound, not extended: an attempt that fails restores the list it started with.
        self.facts = self.facts + self._facts_of(entity)

    def _refresh(self, entity: Entity, record: dict[str, Any], step: int, path: str) -> None:
        """A write returned the entity's new version: later steps see its new values."""
        self.remember(entity)
        entity.record, entity.step, entity.path = record, step, path
        kept = [f for f in self.facts if f.entity is not entity]
        self.facts = kept + self._facts_of(entity)

    def _facts_of(self, entity: Entity) -> list[Fact]:
        info = self._coll(entity.service, entity.collection)
        lists = self.env.owned_lists.get((entity.service, entity.collection))
        return facts_of(entity, info) + (listed_ids(entity, lists, info) if lists else [])

    def _label(self, service: str, collection: str, created: bool) -> str:
        info = self._coll(service, collection)
        noun = info.noun if info else words(collection)
        taken = {e.label for e in self.entities}
        for label in (noun, f"new {noun}" if created else f"{title(service)} {noun}"):
            if label not in taken:
                return label
        raise Reject("label_taken")

    def _has_entity(self, service: str, collection: str | None) -> bool:
        return any(e.service == service and e.collection == collection for e in self.entities)
