"""What a compiled service seeds into lists (library/compiler/emit_seed.py, ``_list`` and
``_items``, whose mutants survive in many small places, bench/mutation.py): a list of
references names one to three different records seeded before; a list of tags holds one to
three different words; a list of people (their e-mails, or objects with an e-mail) holds
different people from outside, the record's subject first; a list of nested records that have ids of
their own is left empty (they are records, not parts); a list the spec says holds at least
two items holds two or more; and a list's items keep their declared length."""

from __future__ import annotations

from typing import Any

import orjson

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_refs import _collection

TEXT = {"type": "string"}
EMAIL = {"type": "string", "format": "email"}


def _list(item: dict, **more: Any) -> dict:
    return {"type": "array", "items": item, **more}


USER = _record(["name", "email"], name=TEXT, email=EMAIL)
LISTS = {
    "user_ids": _list(TEXT),
    "tags": _list(TEXT),
    "contacts": _list({"type": "object", "properties": {"name": TEXT, "email": EMAIL}}),
    "attendee_emails": _list(EMAIL),
    "milestones": _list({"type": "object", "properties": {"id": TEXT, "title": TEXT}}),
    "gizmos": _list(TEXT, minItems=2),
    "labels": _list({"type": "string", "maxLength": 3}),
}
PROJECT = _record(["title", *LISTS], title=TEXT, **LISTS)


def _seeded_state() -> dict[str, dict[str, Any]]:
    document = {
        "openapi": "3.0.0",
        "info": {"title": "Planner", "version": "1"},
        "paths": {
            **_collection("users", "User", USER),
            **_collection("projects", "Project", PROJECT),
        },
    }
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=10)
    return world.services[cls.name].state.model_dump(mode="json", by_alias=True)


def test_each_list_holds_what_its_name_and_items_say() -> None:
    pool = seed_pool()
    state = _seeded_state()
    users = set(state["users"])
    for project in state["projects"].values():
        ids = project["user_ids"]
        assert 1 <= len(ids) <= 3 and len(set(ids)) == len(ids) and set(ids) <= users, project
        tags = project["tags"]
        assert 1 <= len(tags) <= 3 and len(set(tags)) == len(tags) and all(tags), project
        emails = [c["email"] for c in project["contacts"]]
        for group in (emails, project["attendee_emails"]):
            people = [pool.person_by_email(e) for e in group]
            assert group and len(set(group)) == len(group), project
            assert all(p is not None and not p.staff for p in people), project
        assert emails[0] == project["attendee_emails"][0], project  # the subject, first
        assert project["milestones"] == [], project
        assert len(project["gizmos"]) >= 2 and all(project["gizmos"]), project
        assert all(len(label) <= 3 for label in project["labels"]), project
    spread = {len(p["user_ids"]) for p in state["projects"].values()}
    assert len(spread) > 1, spread  # drawn, not always one
