"""The ``_seed_<collection>`` methods the seed writer writes for a planner and a CRM, pinned
whole (library/compiler/emit_seed.py, the largest module the mutation bench samples,
bench/mutation.py; most of its mutants change one expression of such a method): a project's
names are drawn distinct and its keys made from them; a task's span, status, creation and
update are drawn in that order, its due date upcoming, its completion and cancellation
stamped only in their states, its assignee and reporter colleagues, its hours in quarters;
a contact is a person from outside, with the person's details, address and company site;
an event is a meeting window with an organizer, attendees and a product it is about. A
change to the seed writer's rules shows here as a diff of generated code: when it is meant,
copy the new method in."""

from __future__ import annotations

import ast
import textwrap

import orjson
import pytest

from library.compiler import compile_service
from library.ingest import ingest_document
from tests.test_mutation_kills_seed_refs import _collection

T = {"type": "string"}
DT = {"type": "string", "format": "date-time"}
D = {"type": "string", "format": "date"}
NDT = {"type": ["string", "null"], "format": "date-time"}
EMAIL = {"type": "string", "format": "email"}
TASK = {
    "type": "object",
    "required": [
        "id",
        "title",
        "status",
        "created_at",
        "updated_at",
        "due_date",
        "start_at",
        "end_at",
    ],
    "properties": {
        "id": T,
        "title": T,
        "status": {"type": "string", "enum": ["todo", "in_progress", "done", "cancelled"]},
        "created_at": DT,
        "updated_at": DT,
        "due_date": D,
        "start_at": DT,
        "end_at": DT,
        "completed_at": NDT,
        "cancelled_at": NDT,
        "assignee_email": EMAIL,
        "reporter_name": T,
        "estimate_hours": {"type": "number"},
        "spent_hours": {"type": "number"},
        "is_urgent": {"type": "boolean"},
        "project_id": T,
        "labels": {"type": "array", "items": T},
        "description": T,
        "priority": {"type": "integer", "minimum": 1, "maximum": 4},
    },
}
PROJECT = {
    "type": "object",
    "required": ["id", "name", "key", "owner_email"],
    "properties": {"id": T, "name": T, "key": T, "owner_email": EMAIL, "created_at": DT},
}
PLANNER = {
    "openapi": "3.0.0",
    "info": {"title": "Planner", "version": "1"},
    "paths": {**_collection("projects", "Project", PROJECT), **_collection("tasks", "Task", TASK)},
}
ADDRESS = {"type": "object", "properties": {"street": T, "city": T, "postal_code": T, "country": T}}
CONTACT = {
    "type": "object",
    "required": ["id", "first_name", "last_name", "email"],
    "properties": {
        "id": T,
        "first_name": T,
        "last_name": T,
        "email": EMAIL,
        "phone": T,
        "company": T,
        "job_title": T,
        "address": ADDRESS,
        "website": {"type": "string", "format": "uri"},
        "birthday": D,
        "lifecycle_stage": {"type": "string", "enum": ["lead", "customer", "churned"]},
        "owner_id": T,
        "linkedin_url": T,
        "notes": T,
        "tags": {"type": "array", "items": T},
        "is_subscribed": {"type": "boolean", "default": True},
    },
}
EVENT = {
    "type": "object",
    "required": ["id", "title", "start_time", "end_time"],
    "properties": {
        "id": T,
        "title": T,
        "start_time": DT,
        "end_time": DT,
        "location": T,
        "organizer_email": EMAIL,
        "attendee_emails": {"type": "array", "items": EMAIL},
        "contact_id": T,
        "timezone": T,
        "all_day": {"type": "boolean"},
        "recurrence": {"type": "string", "enum": ["none", "daily", "weekly"]},
        "reminder_minutes": {"type": "integer"},
    },
}
CRM = {
    "openapi": "3.0.0",
    "info": {"title": "Crm", "version": "1"},
    "paths": {
        **_collection("contacts", "Contact", CONTACT),
        **_collection("events", "Event", EVENT),
    },
}

SEED_PROJECTS = """\
    cast = pool.cast(rng)
    name_list = pool.distinct("project_name", rng, size)
    keys = pool.keys(name_list, 10)
    for i in range(size):
        staff = cast.colleagues(1, roles=("owner",))
        created = pool.created(rng, now)
        self.put(
            "projects",
            Project(
                id=self.new_id("pro"),
                name=name_list[i],
                key=keys[i],
                owner_email=staff[0].email,
                created_at=created,
            ),
        )
"""
SEED_TASKS = """\
    projects_ids = list(self.state.projects)
    cast = pool.cast(rng)
    title_list = pool.distinct("task_title", rng, size)
    for i in range(size):
        staff = cast.colleagues(2, roles=("assignee", "reporter"))
        project = self.state.projects[rng.choice(projects_ids)]
        span = pool.window("time", rng, now)
        status = _pick_state(rng, ("todo", "in_progress"), get_args(Status))
        span = pool.placed(span, status, rng, now)
        created = pool.created(rng, now, span[0], after=project.created_at)
        completed_at = pool.stamp(rng, now, created, status in ("done",))
        cancelled_at = pool.stamp(
            rng,
            now,
            pool.latest(created, completed_at),
            status in ("cancelled",),
        )
        updated = pool.moment(
            "past",
            rng,
            now,
            pool.latest(created, completed_at, cancelled_at, pool.began(span, status, now)),
        )
        self.put(
            "tasks",
            Task(
                id=self.new_id("tas"),
                title=title_list[i],
                status=status,
                created_at=created,
                updated_at=updated,
                due_date=pool.moment("upcoming", rng, now, created).date(),
                start_at=span[0],
                end_at=span[1],
                completed_at=completed_at,
                cancelled_at=cancelled_at,
                assignee_email=staff[0].email,
                reporter_name=staff[1].full_name,
                estimate_hours=0.5 + 0.25 * rng.randint(0, 30),
                spent_hours=0.5 + 0.25 * rng.randint(0, 30),
                is_urgent=rng.random() < 0.5,
                project_id=project.id,
                labels=pool.sample("issue_label", rng, rng.randint(1, 3)),
                description=pool.text("body:project", rng),
                priority=rng.randint(1, 4),
            ),
        )
"""
SEED_CONTACTS = """\
    cast = pool.cast(rng)
    for _ in range(size):
        person = cast.subject()
        company = pool.company(person.company)
        record_id = self.new_id("con")
        self.put(
            "contacts",
            Contact(
                id=record_id,
                first_name=person.first_name,
                last_name=person.last_name,
                email=person.email,
                phone=person.phone,
                company=person.company,
                job_title=person.title,
                address=ContactAddress(
                    street=person.street,
                    city=person.city,
                    postal_code=person.postal_code,
                    country=person.country,
                ),
                website=company.website,
                birthday=person.born.date(),
                lifecycle_stage=rng.choice(get_args(LifecycleStage)),
                linkedin_url=pool.url("linkedin", rng, person),
                notes=pool.text("body:sales", rng),
                tags=pool.sample("tag", rng, rng.randint(1, 3)),
                is_subscribed=rng.random() < 0.8,
            ),
        )
        owners[record_id] = person
"""
SEED_EVENTS = """\
    contacts_ids = list(self.state.contacts)
    cast = pool.cast(rng)
    title_taken: set[str] = set()
    for _ in range(size):
        person = cast.subject()
        staff = cast.colleagues(1, person, roles=("organizer",))
        attendee_emails = cast.others(rng.randint(1, 3), person, staff, staff=True)
        product = rng.choice(pool.products)
        span = pool.window("meeting", rng, now)
        self.put(
            "events",
            Event(
                id=self.new_id("eve"),
                title=pool.fresh(title_taken, "meeting_topic", rng, person, product),
                start_time=span[0],
                end_time=span[1],
                location=pool.text("meeting_location", rng),
                organizer_email=staff[0].email,
                attendee_emails=[p.email for p in attendee_emails],
                contact_id=rng.choice(contacts_ids),
                timezone=pool.org.timezone,
                all_day=rng.random() < 0.5,
                recurrence=rng.choice(get_args(Recurrence)),
                reminder_minutes=rng.randrange(15, 121, 15),
            ),
        )
"""


SIGNATURE = """\
def {name}(
    self,
    pool: SeedPool,
    rng: random.Random,
    size: int,
    now: dt.datetime,
    owners: dict[str, Any],
) -> None:
"""


def _methods(document: dict) -> dict[str, str]:
    """Each ``_seed_<collection>`` method's body, after its signature (the same for all)."""
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    source = compile_service(specs).source
    bodies = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_seed_"):
            text = textwrap.dedent(str(ast.get_source_segment(source, node, padded=True)))
            head = SIGNATURE.format(name=node.name)
            assert text.startswith(head), text[: len(head)]
            bodies[node.name] = text.removeprefix(head)
    return bodies


@pytest.mark.parametrize(
    ("document", "name", "want"),
    [
        (PLANNER, "_seed_projects", SEED_PROJECTS),
        (PLANNER, "_seed_tasks", SEED_TASKS),
        (CRM, "_seed_contacts", SEED_CONTACTS),
        (CRM, "_seed_events", SEED_EVENTS),
    ],
)
def test_the_seed_method_written_for_a_collection(document: dict, name: str, want: str) -> None:
    assert _methods(document)[name].splitlines() == want.splitlines()
