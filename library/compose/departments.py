"""Which of our departments does a piece of work: who plausibly handles a record in a role.

A helpdesk ticket's assignee works in Support, a CRM account's owner in Sales, an
engineering issue's assignee in Engineering; a calendar, a meeting or a to-do is anyone's.
A colleague who leaves hands over work of their own department and the work everyone has,
never a Finance clerk's recruiting pipeline, CRM accounts and engineering issues at once;
and the colleague who takes a role on is someone who would hold it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from typing import Any

from library.compose.catalog import Catalog, CollectionInfo
from library.compose.domains import service_domain
from library.compose.inject import clone, fresh_key, new_id
from library.compose.roles import is_staff_role, names_person, role_of
from library.runtime import World
from library.seed.pool import Person, SeedPool, follows
from library.seed.vocab import DEPARTMENTS, is_person_resource
from library.seed.vocab import role_of as vocab_role

# The departments whose people handle the records of a domain's services (in roles no
# entry below names). Domains not listed (collaboration, travel, people's desk bookings
# and HR files) are everyone's.
DOMAIN_DEPARTMENTS: dict[str, frozenset[str]] = {
    "sales": frozenset({"Sales", "Customer Success", "Marketing"}),
    "support": frozenset({"Support", "Customer Success", "Field Service"}),
    "engineering": frozenset({"Engineering", "Product", "IT"}),
    "finance": frozenset({"Finance", "Operations"}),
    "commerce": frozenset({"Operations", "Support", "Sales"}),
}
# Roles whose department is theirs wherever the record is (None: anyone's): recruiting is
# People's, but any manager hires and interviews; anyone organises a meeting or a trip.
ROLE_DEPARTMENTS: dict[str, frozenset[str] | None] = {
    "recruiter": frozenset({"People"}),
    "technician": frozenset({"Field Service"}),
    "csm": frozenset({"Customer Success"}),
    "hiring_manager": None,
    "interviewer": None,
    "manager": None,
    "employee": None,
    "organizer": None,
    "organiser": None,
    "host": None,
    "attendee": None,
    "mentor": None,
    "buddy": None,
}


def departments_for(service: str, role: str) -> frozenset[str] | None:
    """The departments whose people hold ``role`` on a record of ``service``; None: any."""
    if role in ROLE_DEPARTMENTS:
        return ROLE_DEPARTMENTS[role]
    return DOMAIN_DEPARTMENTS.get(service_domain(service))


def fits_department(department: str | None, service: str, role: str) -> bool:
    """Whether a colleague of ``department`` would hold ``role`` on a record of ``service``
    (a colleague whose department no one recorded fits anywhere)."""
    wanted = departments_for(service, role)
    return not department or wanted is None or department in wanted


# -- a seeded world made to agree with who does what ---------------------------------------
# The seed fills a record's staff roles from the departments ``vocab.ROLE_DEPARTMENTS`` names
# for the role alone (an ``owner`` anywhere is Sales'), and files a colleague's HR record under
# any department: a Finance clerk held helpdesk tickets and CRM accounts, and a Support
# Specialist was filed under Marketing. ``fit_departments`` moves each such record to a
# colleague who would hold it, and files each colleague under their own department.


def fit_departments(
    world: World, catalog: Catalog, pool: SeedPool, away: frozenset[str] = frozenset()
) -> None:
    """Make ``world`` (freshly seeded) agree with our departments: a record's colleague in a
    role ``departments_for`` gives departments to is one of them (the same stand-in for one
    colleague throughout, so what one person held stays one person's), and a colleague's own
    record points at the department record of their own department, whose head is of it.
    ``away``: e-mails of colleagues who are away or gone, who are given no work."""
    rng = random.Random(f"{world.seed}:departments")
    stand_ins = _StandIns(pool, rng, away)
    for service in sorted(world.services):
        state = world.services[service].state.clone()
        world.services[service].state = state  # (changed in place below)
        changed = _file_under_departments(world, service, catalog, pool, stand_ins)
        for coll in sorted(type(state).collection_types):
            info = catalog.collection(service, coll)
            if info is None or is_person_resource(coll) or _department_names(state, coll):
                continue  # a colleague's own record is theirs; a department's, done above
            groups = {
                role: fields
                for role, fields in _role_fields(info).items()
                if departments_for(service, role) is not None
            }
            records = getattr(state, coll)
            for rid in sorted(records):
                update = _fitted(records[rid], service, groups, pool, stand_ins)
                if update:
                    records[rid] = records[rid].model_copy(update=update)
                    changed = True
        if changed:
            world.invalidate(service)


class _StandIns:
    """Who takes a colleague's place in a role their department does not hold: one colleague
    per (colleague, departments) pair, drawn once per world, working and not away."""

    def __init__(self, pool: SeedPool, rng: random.Random, away: frozenset[str]) -> None:
        self.pool = pool
        self.rng = rng
        self.away = away
        self.chosen: dict[tuple[str, frozenset[str]], Person] = {}

    def of(self, holder: Person, wanted: frozenset[str], taken: set[str]) -> Person | None:
        """A colleague of ``wanted`` for ``holder``'s place, none of ``taken`` (e-mails of
        people already on the record: one person holds one role there)."""
        key = (holder.email, wanted)
        person = self.chosen.get(key)
        if person is not None and person.email.casefold() not in taken:
            return person
        free = [
            p
            for p in self.pool.working
            if p.department in wanted
            and p.email.casefold() not in self.away
            and p.email.casefold() not in taken
        ]
        if not free:
            return None
        person = self.rng.choice(free)
        self.chosen.setdefault(key, person)
        return person


def _role_fields(info: CollectionInfo, staff: bool = True) -> dict[str, dict[str, str | None]]:
    """A collection's fields naming a person in a role (a staff role, with ``staff``), by
    role: ``assignee`` -> {``assignee_email``: "email", ``assignee_name``: "person_name"}."""
    attrs = info.record_type.model_fields
    out: dict[str, dict[str, str | None]] = {}
    for name, meta in info.fields.items():
        role = role_of(name)
        fits = is_staff_role(role) if staff else bool(role)
        if name in attrs and fits and names_person(name, meta.key):
            out.setdefault(vocab_role(name), {})[name] = meta.key
    return {role: fields for role, fields in out.items() if "email" in fields.values()}


def _holder(pool: SeedPool, record: Any, fields: Mapping[str, str | None]) -> Person | None:
    """The colleague a role's e-mail field names, or None (an outsider, nobody)."""
    for name, key in fields.items():
        value = getattr(record, name, None)
        if key == "email" and isinstance(value, str):
            person = pool.person_by_email(value)
            return person if person is not None and person.staff else None
    return None


def _people_on(record: Any, info_fields: Iterable[str]) -> set[str]:
    """The e-mails of everyone a record names in ``info_fields``."""
    out: set[str] = set()
    for name in info_fields:
        value = getattr(record, name, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and "@" in v:
                out.add(v.casefold())
    return out


def _fitted(
    record: Any,
    service: str,
    groups: Mapping[str, Mapping[str, str | None]],
    pool: SeedPool,
    stand_ins: _StandIns,
) -> dict[str, Any]:
    """The changes that give each of ``record``'s roles ``groups`` names to a colleague of a
    department that holds it (its department text, where it named the holder's, follows)."""
    update: dict[str, Any] = {}
    fields = type(record).model_fields
    for role, names in sorted(groups.items()):
        wanted = departments_for(service, role)
        holder = _holder(pool, record, names)
        if wanted is None or holder is None or holder.department in wanted:
            continue
        taken = _people_on(record, fields)
        person = stand_ins.of(holder, wanted, taken)
        if person is None:
            continue
        update |= pool.person_fields(person, dict(names), role)
        for name in ("department", "department_name"):
            if name in fields and getattr(record, name, None) == holder.department:
                update[name] = person.department
    return update


def _department_names(state: Any, coll: str) -> dict[str, str]:
    """A collection of our departments (each record's ``name`` one of ours): name -> id;
    {} for any other collection."""
    records = getattr(state, coll)
    names = {rid: getattr(r, "name", None) for rid, r in records.items()}
    if not names or not all(n in DEPARTMENTS for n in names.values()):
        return {}
    return {str(n): rid for rid, n in sorted(names.items(), reverse=True)}


def _file_under_departments(
    world: World, service: str, catalog: Catalog, pool: SeedPool, stand_ins: _StandIns
) -> bool:
    """Point each colleague's own record at their own department's record (one is added,
    a copy of another, for a department the seed drew none of), and give each department's
    people fields (its head) to colleagues of it. Whether anything changed."""
    changed = False
    state = world.services[service].state
    colls = sorted(type(state).collection_types)
    for coll in colls:
        by_name = _department_names(state, coll)
        info = catalog.collection(service, coll)
        if not by_name or info is None:
            continue
        records = getattr(state, coll)
        working = sorted({p.department for p in pool.working})
        for department in (d for d in working if d not in by_name):
            rid = _copied_department(world, service, info, department, by_name, stand_ins.rng)
            if rid is not None:
                by_name[department] = rid
                changed = True
        for name, rid in sorted(by_name.items()):
            update: dict[str, Any] = {}
            for role, names in sorted(_role_fields(info, staff=False).items()):
                holder = _holder(pool, records[rid], names)
                if holder is None or holder.department == name:
                    continue
                taken = _people_on(records[rid], type(records[rid]).model_fields)
                person = stand_ins.of(holder, frozenset({name}), taken)
                if person is not None:
                    update |= pool.person_fields(person, dict(names), role)
            if update:
                records[rid] = records[rid].model_copy(update=update)
                changed = True
    for own in colls:  # (after every department has its record)
        own_info = catalog.collection(service, own)
        if own_info is None or not is_person_resource(own):
            continue
        people = getattr(state, own)
        for rid in sorted(people):
            update = own_department_refs(state, own_info, people[rid], pool)
            if update:
                people[rid] = people[rid].model_copy(update=update)
                changed = True
    return changed


def own_department_refs(
    state: Any, info: CollectionInfo, record: Any, pool: SeedPool
) -> dict[str, str]:
    """The changes that point a colleague's own record (their HR file, in ``info``'s
    collection of ``state``) at the record of their own department: {} where it is no
    colleague's, or already does."""
    person = pool.person_by_email(str(getattr(record, "email", "") or ""))
    if person is None or not person.staff or not is_person_resource(info.name):
        return {}
    out: dict[str, str] = {}
    colls = type(state).collection_types
    for name, meta in info.fields.items():
        key = meta.key or ""
        if not key.startswith("id:") or key[3:] not in colls:
            continue
        rid = _department_names(state, key[3:]).get(person.department)
        if rid is not None and getattr(record, name, None) != rid:
            out[name] = rid
    return out


def filed_in_department(
    state: Any, info: CollectionInfo, record: Any, pool: SeedPool
) -> dict[str, Any]:
    """The changes that keep a record a walk puts in the world (in ``info``'s collection of
    ``state``) true to our departments: a colleague's own record points at their own
    department's (``own_department_refs``); a record naming a department as text (a job's)
    names that of its colleague in a role any department fills (its hiring manager), and
    a title of that department's: a Legal counsel's job to hire for is a Legal one, not the
    Account Executive post of the Sales job it was copied from."""
    out: dict[str, Any] = dict(own_department_refs(state, info, record, pool))
    named = getattr(record, "department", None)
    if is_person_resource(info.name) or named not in DEPARTMENTS:
        return out
    holder = next(
        (
            person
            for role, fields in sorted(_role_fields(info).items())
            if follows(role) and (person := _holder(pool, record, fields)) is not None
        ),
        None,
    )
    if holder is None or holder.department == named or holder.department not in DEPARTMENTS:
        return out
    out["department"] = holder.department
    title = getattr(record, "title", None)
    if isinstance(title, str) and title in DEPARTMENTS[named]:
        held = {getattr(r, "title", None) for r in getattr(state, info.name).values()}
        titles = DEPARTMENTS[holder.department]
        out["title"] = next((t for t in titles if t not in held), titles[0])
    return out


def _copied_department(
    world: World,
    service: str,
    info: CollectionInfo,
    department: str,
    by_name: Mapping[str, str],
    rng: random.Random,
) -> str | None:
    """Add a record for ``department``: a copy of another department's, its unique codes
    (a cost centre) drawn anew. Its id, or None where no copy could be made."""
    records = getattr(world.services[service].state, info.name)
    base = records[min(by_name.values())]
    data = base.model_dump()
    changes: dict[str, Any] = {"name": department}
    for name, value in data.items():
        meta = info.fields.get(name)
        if meta is None or (meta.key or "").startswith("id:") or names_person(name, meta.key):
            continue
        if isinstance(value, str) and re.search(r"\d", value):  # a code (a cost centre)
            taken = {str(getattr(r, name, "")) for r in records.values()}
            fresh = fresh_key(value, taken, rng)
            if fresh is None:
                return None
            changes[name] = fresh
    rid = new_id(world, service, info.name, base.id, rng)
    try:
        records[rid] = clone(base, rid, changes)
    except ValueError:
        return None
    return rid
