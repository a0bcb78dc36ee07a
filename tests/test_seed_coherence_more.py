"""More of a coherent seeded world (see ``test_seed_coherence``), on the bundled services
compiled by the real seed writer: a parent whose total is the sum of its lines adds them
up, and its lines are its person's."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compiler.plan import plan_service
from library.compose.corpus import bundled_specs
from library.runtime import World
from library.runtime.service import Service
from library.seed import seed_pool

SEEDS = (0, 5, 11)
SIZE = 10
# A field whose spec says it adds up other records' money ("Sum of the report's expenses").
SUMMED = re.compile(r"(?i)^\s*(the\s+)?(sum|total) of\b")


@pytest.fixture(scope="module")
def classes() -> list[type[Service]]:
    specs = bundled_specs()
    return [load_service(compile_service(specs[name]).source) for name in sorted(specs)]


@pytest.fixture(scope="module")
def summed() -> dict[tuple[str, str], str]:
    """(service, collection) -> the field its spec describes as a sum of other records'."""
    out = {}
    for name, specs in bundled_specs().items():
        for coll, record in plan_service(specs).records.items():
            for f in record.fields.values():
                if SUMMED.search(str(f.type.schema.get("description") or "")):
                    out[(name, coll)] = f.attr
    return out


@pytest.fixture(scope="module")
def worlds(classes: list[type[Service]]) -> list[World]:
    out = []
    for seed in SEEDS:
        world = World([cls() for cls in classes], seed=seed)
        world.seed_states(seed_pool(seed), SIZE)
        out.append(world)
    return out


def _refs(record: Any) -> dict[str, str]:
    """A record's references: field -> the collection it names (``x-ref``)."""
    out = {}
    for key, node in (type(record).model_json_schema().get("properties") or {}).items():
        for branch in [node, *(node.get("anyOf") or ())]:
            if isinstance(branch.get("x-ref"), str):
                out[key] = branch["x-ref"]
    return out


def lines_of_parents(
    world: World, summed: dict[tuple[str, str], str]
) -> Iterator[tuple[str, str, Any, str, list[Any]]]:
    """(service, parent collection, parent record, its summed field, its lines): every
    record with a field its spec calls a sum, and the records of its service that name it
    and carry an ``amount``."""
    for (name, parent_coll), field in summed.items():
        service = world.services[name]
        colls = service.state.collections()
        parents = colls[parent_coll]
        for coll, items in colls.items():
            child = next(iter(items.values()), None)
            if coll == parent_coll or child is None:
                continue
            refs = [k for k, ref in _refs(child).items() if ref == parent_coll]
            if not refs or "amount" not in type(child).model_fields:
                continue
            for rid, parent in parents.items():
                lines = [c for c in items.values() if getattr(c, refs[0]) == rid]
                yield name, parent_coll, parent, field, lines


def test_a_parent_s_total_is_the_sum_of_its_lines(
    worlds: list[World], summed: dict[tuple[str, str], str]
) -> None:
    """An expense report's total is what its expenses add up to (it was drawn on its own),
    in its currency, and it was last updated no earlier than its latest expense was made."""
    checked, with_lines, bad = 0, 0, []
    for world in worlds:
        for service, coll, parent, field, lines in lines_of_parents(world, summed):
            checked += 1
            with_lines += bool(lines)
            total = getattr(parent, field)
            added = round(sum(line.amount for line in lines), 2)
            if total is None or abs(total - added) > 0.005:
                bad.append((service, coll, parent.id, field, total, added))
            currency = getattr(parent, "currency", None)
            for line in lines:
                if currency is not None and getattr(line, "currency", currency) != currency:
                    bad.append((service, coll, parent.id, "currency", currency, line.currency))
                made, touched = getattr(line, "created_at", None), parent.updated_at
                if made is not None and touched < made:
                    bad.append((service, coll, parent.id, "updated before a line", touched, made))
    assert checked >= 3 * SIZE and with_lines >= SIZE, (checked, with_lines)
    assert not bad, bad[:5]


def test_a_line_is_its_parent_s_person_s(
    worlds: list[World], summed: dict[tuple[str, str], str]
) -> None:
    """An expense on a report names the report's employee (and whoever else the two
    name alike): one person's report holds only their expenses."""
    checked, bad = 0, []
    for world in worlds:
        for service, coll, parent, _, lines in lines_of_parents(world, summed):
            shown = parent.model_dump()
            people = [k for k, v in shown.items() if isinstance(v, str) and "@" in v]
            for line in lines:
                for key in people:
                    if key in type(line).model_fields:
                        checked += 1
                        if getattr(line, key) != shown[key]:
                            bad.append((service, coll, parent.id, key, getattr(line, key)))
    assert checked >= 2 * SIZE, checked
    assert not bad, bad[:5]


# -- a colleague's own account comes before what they handle -----------------------------
def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return None


def _named(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, e-mail) for every address a record names, on its own or in a list."""
    for key, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and "@" in item:
                yield key, item


def test_a_colleague_s_account_predates_what_they_handle(worlds: list[World]) -> None:
    """Nobody is assigned a ticket, owns a deal or hosts a meeting before their account
    exists: a colleague's own record (the identity user, the technician profile, the HR
    file whose ``email`` is theirs) was made no later than any record naming them in a
    role. Records of the org chart (an HR file's manager, a department's head) name who
    holds the post now: made before that person may have joined, they were updated since."""
    checked, kinds, bad = 0, set(), []
    for world in worlds:
        pool = seed_pool(world.seed)
        accounts: dict[str, list[tuple[str, str, dt.datetime]]] = {}
        chart: set[tuple[str, str]] = set()  # (service, collection) of the org chart
        for service, svc in world.services.items():
            for coll, items in svc.state.collections().items():
                for record in items.values():
                    email, made = (
                        getattr(record, "email", None),
                        _when(record.model_dump().get("created_at")),
                    )
                    person = pool.person_by_email(email) if isinstance(email, str) else None
                    if person is None or not person.staff or made is None:
                        continue
                    accounts.setdefault(person.email, []).append((service, coll, made))
                    chart.add((service, coll))
                    chart |= {(service, ref) for ref in _refs(record).values()}
        for service, svc in world.services.items():
            for coll, items in svc.state.collections().items():
                for record in items.values():
                    data = record.model_dump()
                    made, touched = _when(data.get("created_at")), _when(data.get("updated_at"))
                    if made is None:
                        continue
                    for key, email in _named(data):
                        if key == "email":
                            continue  # the record's own person
                        for where, what, opened in accounts.get(email, ()):
                            checked += 1
                            kinds.add((where, what))
                            since = touched if (service, coll) in chart and touched else made
                            if since < opened:
                                bad.append((email, where, what, opened, service, coll, key, since))
    assert checked >= 300 and {("identity", "users"), ("hr", "employees")} <= kinds, (
        checked,
        kinds,
    )
    assert not bad, bad[:5]


# -- one person, one place ------------------------------------------------------------------
# States of a happening one attends that say it is under way (a meeting live, a room checked
# into, a call ringing or in progress).
UNDER_WAY = frozenset({"live", "in_progress", "checked_in", "started", "ringing", "on_hold"})


def _under_way(data: dict[str, Any], now: dt.datetime) -> bool:
    """Whether a record is of something under way now: its status says so and it began
    (or was made) within the last twelve hours."""
    if str(data.get("status") or "").lower() not in UNDER_WAY:
        return False
    began = [
        _when(v) for k, v in data.items() if "start" in k.lower() or k in ("created_at", "created")
    ]
    return any(b is not None and now - dt.timedelta(hours=12) <= b <= now for b in began)


def test_a_person_is_under_way_in_one_place_at_a_time(classes: list[type[Service]]) -> None:
    """At 09:00 nobody hosts two live meetings, is checked into two rooms, or takes two
    calls at once: of one collection's records under way now, no two name one person."""
    seen, bad = 0, []
    for seed in range(20):
        world = World([cls() for cls in classes], seed=seed)
        # 4x the records: few of them are under way now (``pool.happening_state``)
        world.seed_states(seed_pool(seed), 4 * SIZE)
        now = world.now()
        for service, svc in world.services.items():
            for coll, items in svc.state.collections().items():
                where: dict[str, str] = {}  # e-mail -> the record under way it is on
                for rid, record in items.items():
                    data = record.model_dump()
                    if not _under_way(data, now):
                        continue
                    seen += 1
                    for email in {e for _, e in _named(data)}:
                        if email in where:
                            bad.append((seed, service, coll, email, where[email], rid))
                        where[email] = rid
    assert seen >= 200, seen
    assert not bad, bad[:5]
