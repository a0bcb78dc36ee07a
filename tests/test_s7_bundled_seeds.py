"""Seeded worlds of the bundled corpus that a strict reviewer finds coherent, each rule read
from a record's fields, states and roles, never from one service:

- a bill's own issue date is not in the future, and its due date follows the terms its
  customer states (due = issued + ``payment_terms_days``);
- a record still in its first state (a ``new`` ticket, a ``draft``) carries its requester's
  words, no note of work done on it;
- one person holds one stay (one rental) under way at a time;
- a colleague's own record (HR file, account) carries their pool title; a colleague who
  holds work has started, only the pool's joiners are onboarding and they hold none; an
  active account was used lately.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.corpus import bundled_specs
from library.runtime import World
from library.seed import seed_pool

SEEDS = (0, 1, 2, 3)


@functools.cache
def _cls(service: str) -> Any:
    return load_service(compile_service(bundled_specs([service])[service]).source)


def _world(services: tuple[str, ...], seed: int, size: int = 12) -> tuple[dt.datetime, dict]:
    """(now, service -> collection -> id -> record as a dict) of bundled services seeded
    together in one world."""
    world = World([_cls(s)() for s in services], seed=seed)
    world.seed_states(seed_pool(seed), size)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name, service in world.services.items():
        state = service.state
        out[name] = {
            c: {rid: r.model_dump(mode="python") for rid, r in getattr(state, c).items()}
            for c in type(state).collection_types
        }
    return world.now(), out


def _day(value: Any) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


# -- dates against the clock and terms ---------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_a_bill_is_issued_by_now_and_due_on_its_customers_terms(seed: int) -> None:
    """No invoice is issued after today (a draft is dated today or before); one whose
    customer states ``payment_terms_days`` falls due that many days after its issue."""
    now, state = _world(("invoicing",), seed)
    invoicing = state["invoicing"]
    checked = 0
    for invoice in invoicing["invoices"].values():
        issued, due = _day(invoice["issue_date"]), _day(invoice["due_date"])
        assert issued <= now.date(), invoice
        terms = invoicing["customers"][invoice["customer_id"]].get("payment_terms_days")
        if terms:
            assert (due - issued).days == terms, (invoice, terms)
            checked += 1
    assert checked >= 6, checked


# -- states that agree with their text ---------------------------------------------------------
def _bodies() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(service, collection, body field, record) of every record with a status and a free
    text body across some bundled services and seeds."""
    from library.seed import vocab

    out = []
    services = ("helpdesk", "issue_tracker", "crm", "leave", "expenses", "todo")
    for seed in SEEDS:
        _, state = _world(services, seed)
        for service, collections in state.items():
            for collection, records in collections.items():
                for record in records.values():
                    for name, value in record.items():
                        said = vocab.meaning(name, f"{service}.{collection}") or ""
                        if isinstance(value, str) and said.startswith("body:"):
                            out.append((service, collection, name, record))
    return out


def test_a_record_in_its_first_state_carries_no_note_of_work_done() -> None:
    """A ``new`` ticket's description is the customer's words ("The customer reports ..."),
    never "Asked the customer for more details" (work already done on it); records past
    their first state may carry such notes."""
    from library.seed import vocab

    first = later = 0
    for service, collection, name, record in _bodies():
        status = next((record[k] for k in ("status", "state") if k in record), None)
        status = str(getattr(status, "value", status) or "").lower()
        if status in vocab.FIRST_STATES:
            first += 1
            assert record[name] not in vocab.WORK_NOTES, (service, collection, record)
        elif record[name] in vocab.WORK_NOTES:
            later += 1
    assert first >= 20 and later >= 5, (first, later)


# -- one guest, one stay at a time -------------------------------------------------------------
@pytest.mark.parametrize(("service", "collection", "who"), [
    ("hotels", "reservations", "guest_email"),
    ("car_rental", "rentals", "driver_email"),
])  # fmt: skip
def test_one_person_holds_one_stay_under_way_at_a_time(
    service: str, collection: str, who: str
) -> None:
    """More records than people (identities repeat): no guest is checked in to two hotel
    stays at once, no driver has two cars picked up; a second one under way is over or
    ahead instead (``pool.one_place``)."""
    from library.seed.pool import place_of

    live_seen = 0
    for seed in SEEDS[:2]:
        _, state = _world((service,), seed, size=200)
        holders: dict[str, int] = {}
        for record in state[service][collection].values():
            status = str(getattr(record["status"], "value", record["status"]))
            if place_of(status) == "live":
                holders[record[who]] = holders.get(record[who], 0) + 1
                live_seen += 1
        assert all(n == 1 for n in holders.values()), {k: n for k, n in holders.items() if n > 1}
    assert live_seen >= 20, live_seen


# -- a colleague's own record says who they are ------------------------------------------------
_PEOPLE_SERVICES = ("hr", "identity", "recruiting", "helpdesk", "crm", "todo", "issue_tracker")


def _work_holders(state: dict[str, Any]) -> set[str]:
    """E-mails of colleagues named on records other than their own (HR files, accounts)."""
    out: set[str] = set()
    for service, collections in state.items():
        if service in ("hr", "identity"):
            continue
        for records in collections.values():
            for record in records.values():
                for name, value in record.items():
                    if isinstance(value, str) and name != "email" and "@" in value:
                        out.add(value)
                    elif isinstance(value, list):
                        out |= {v for v in value if isinstance(v, str) and "@" in v}
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_a_colleague_who_holds_work_has_started_and_joiners_hold_none(seed: int) -> None:
    """An HR file or account of a colleague who recruits, owns or is assigned anything in
    the world is no ``onboarding``/``staged`` one with a start ahead; only the pool's
    joiners are, and they hold no work; every file carries its person's pool title."""
    from library.seed.pool import NOT_JOINED

    now, state = _world(_PEOPLE_SERVICES, seed, size=20)
    pool = seed_pool(seed)
    holders = _work_holders(state)
    joiners = {p.email for p in pool.staff if p.joiner}
    assert joiners and not joiners & holders, joiners & holders
    files = [*state["hr"]["employees"].values(), *state["identity"]["users"].values()]
    started = 0
    for record in files:
        person = pool.person_by_email(record["email"])
        status = str(getattr(record["status"], "value", record["status"])).lower()
        assert (status in NOT_JOINED) == person.joiner, (record, person)
        if "job_title" in record:
            assert record["job_title"] == person.title, (record, person)
        if record.get("start_date") is not None and not person.joiner:
            assert _day(record["start_date"]) <= now.date(), record
            started += 1
    assert started >= 10, started


@pytest.mark.parametrize("seed", SEEDS)
def test_an_active_account_was_used_lately(seed: int) -> None:
    """An active colleague's account was last used hours to days ago, not months."""
    now, state = _world(("identity",), seed, size=20)
    active = [u for u in state["identity"]["users"].values() if u["status"] == "active"]
    assert active
    for user in active:
        assert now - dt.timedelta(days=7) <= user["last_login_at"] <= now, user


# -- a record that names a department is handled by its colleagues -----------------------------
def test_colleagues_of_a_record_naming_a_department_are_of_it() -> None:
    """A record naming a department (``team``): its colleagues in roles any department
    fills (hiring manager, owner, interviewer) are of one department, the record's; a
    recruiter stays People's."""
    import random

    pool = seed_pool(0)
    roles = ("recruiter", "hiring_manager", "owner", "interviewer")
    for k in range(40):
        cast = pool.cast(random.Random(k))
        recruiter, *team = cast.colleagues(4, roles=roles, team=True)
        assert recruiter.department == "People", recruiter
        assert len({p.department for p in team}) == 1, team


@pytest.mark.parametrize("seed", SEEDS)
def test_a_job_names_its_hiring_managers_department(seed: int) -> None:
    _, state = _world(("recruiting",), seed)
    pool = seed_pool(seed)
    for job in state["recruiting"]["jobs"].values():
        manager = pool.person_by_email(job["hiring_manager_email"])
        assert manager.department == job["department"], (job, manager)
