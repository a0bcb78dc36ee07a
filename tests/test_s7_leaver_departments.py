"""A colleague who leaves hands over the work of their own department and the work everyone
has (their calendar, meetings, documents), never a Finance clerk's recruiting pipeline, CRM
accounts and engineering issues at once; the colleague taking it over is of their
department; and which of their records are theirs to hand over is a rule even where none
of their work of a kind was finished yet."""

from __future__ import annotations

import random

import pytest

from library.compose import ComposeConfig, ComposeEnv, make_env
from library.compose.catalog import LOOKUP, UPDATE
from library.compose.coherence import FINAL, status_of
from library.compose.corpus import bundled_library
from library.compose.departments import departments_for, fits_department
from library.compose.roles import PERSON_KEYS, hands_over, role_of
from library.compose.walk import Walker
from tests.compose_walks import finished_walks, forced

SERVICES = [
    "identity",
    "helpdesk",
    "crm",
    "calendar",
    "customer_success",
    "issue_tracker",
    "recruiting",
    "workplace",
    "meetings",
    "todo",
    "docs",
    "sheets",
    "file_storage",
    "mail",
]
WALKS = 120


@pytest.fixture(scope="module")
def env() -> ComposeEnv:
    library = bundled_library(SERVICES)
    return make_env(library.classes, library.nodes, config=ComposeConfig())


@pytest.fixture(scope="module")
def walks(env: ComposeEnv) -> list[Walker]:
    return finished_walks(env, WALKS, "departments", forced("offboarding"))


def _department(env: ComposeEnv, email: object) -> str:
    person = env.person_by_email(str(email))
    return str(getattr(person, "department", "") or "") if person is not None else ""


def test_the_work_a_role_takes_belongs_to_a_department() -> None:
    """Tickets are Support's, CRM accounts Sales', recruiting a recruiter's; a calendar, a
    meeting or a document is anyone's, and any manager hires."""
    assert fits_department("Support", "helpdesk", "assignee")
    assert not fits_department("Finance", "helpdesk", "assignee")
    assert not fits_department("Finance", "crm", "owner")
    assert not fits_department("Finance", "recruiting", "recruiter")
    assert fits_department("People", "recruiting", "recruiter")
    assert fits_department("Finance", "recruiting", "hiring_manager")
    assert fits_department("Legal", "calendar", "owner")
    assert fits_department("Legal", "docs", "owner")
    assert departments_for("issue_tracker", "assignee") == {"Engineering", "Product", "IT"}


def test_a_leaver_hands_over_only_work_of_their_department(
    env: ComposeEnv, walks: list[Walker]
) -> None:
    """Every lookup of the leaver's work finds it by a role someone of their department
    holds there; and such work is found (the check has something to bite on)."""
    departmental = 0
    for walker in walks:
        leaver = walker.leaver_department()
        assert leaver, walker.subjects()
        subjects = walker.subjects()
        for step in walker.steps:
            if step.tool.kind != LOOKUP:
                continue
            for name, value in step.args.items():
                p = step.tool.param(name)
                if p is None or (p.key or p.item_key) not in PERSON_KEYS:
                    continue
                role = role_of(name)
                if not hands_over(role) or env.identity("email", value) not in subjects:
                    continue
                assert fits_department(leaver, step.tool.service, role), (
                    leaver,
                    step.tool.qualified,
                    role,
                )
                departmental += departments_for(step.tool.service, role) is not None
    assert len(walks) >= 15 and departmental >= 5, (len(walks), departmental)


def test_the_colleague_taking_over_is_of_the_leavers_department(
    env: ComposeEnv, walks: list[Walker]
) -> None:
    same = 0
    for walker in walks:
        leaver = walker.leaver_department()
        subjects = walker.subjects()
        for step in walker.steps:
            if step.tool.kind != UPDATE or step.entity is None:
                continue
            for name, value in step.args.items():
                p = step.tool.param(name)
                if p is None or (p.key or p.item_key) != "email" or not hands_over(role_of(name)):
                    continue
                if env.identity("email", value) in subjects:
                    continue
                assert _department(env, value) == leaver, (leaver, value, step.tool.qualified)
                same += 1
    assert same >= 20, same


def test_a_leavers_documents_change_hands(walks: list[Walker]) -> None:
    """A leaver's documents, spreadsheets and folders go to their successor: the owner of
    each is a field an update changes (as any real offboarding transfers a Drive)."""
    moved = {
        step.tool.service
        for walker in walks
        for step in walker.steps
        if step.tool.kind == UPDATE and "owner_email" in step.args
    }
    assert {"docs", "sheets", "file_storage"} <= moved, moved


def test_the_open_work_is_told_from_work_they_finished_where_none_was(env: ComposeEnv) -> None:
    """Where none of a leaver's jobs was closed yet, one of their others becomes one they
    finished (a filled job), so "the open job" is a rule the agent must apply."""
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(7))
    state = world.services["recruiting"].state.jobs
    info = walker._coll("recruiting", "jobs")
    assert info is not None
    leaver = next(p.email for p in env.staff)
    for rid in sorted(state):  # nothing finished yet: every job open, none the leaver's
        state[rid] = state[rid].model_copy(update={"status": "open"})
    base_id = sorted(state)[0]
    state[base_id] = state[base_id].model_copy(update={"hiring_manager_email": leaver})
    made = walker._add_decoys(
        "recruiting", "jobs", state[base_id], info, ["hiring_manager_email"], finished=True
    )
    assert made
    state = world.services["recruiting"].state.jobs  # (an injection writes a new mapping)
    theirs = [r for r in state.values() if r.hiring_manager_email == leaver]
    assert len(theirs) >= 2
    assert any(status_of(r.model_dump()) in FINAL for r in theirs if r.id != base_id)


def test_a_colleague_named_for_a_role_is_one_who_would_hold_it() -> None:
    """The colleague a request names for a role (the agent to escalate a ticket to, the
    recruiter of a hire, the approver of a claim) is of a department that holds it there,
    not a random colleague: a helpdesk ticket goes to Support, not to Legal."""
    library = bundled_library(["identity", "helpdesk", "issue_tracker", "recruiting", "expenses"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    named = 0
    for motif in ("escalation", "hiring", "expenses"):
        for walker in finished_walks(env, 60, "named", forced(motif)):
            for step in walker.steps:
                if not step.write:
                    continue
                for name, value in step.args.items():
                    p = step.tool.param(name)
                    wanted = departments_for(step.tool.service, role_of(name))
                    if p is None or (p.key or p.item_key) != "email" or wanted is None:
                        continue
                    if step.binds.get(name, {}).get("from") != "user":
                        continue  # read from a record: whoever it names
                    assert _department(env, value) in wanted, (step.tool.qualified, name, value)
                    named += 1
    assert named >= 12, named  # (17 before the seeded worlds fitted departments, 14 after)


def test_a_leavers_records_that_name_a_department_are_of_theirs(
    env: ComposeEnv, walks: list[Walker]
) -> None:
    """A job names its department: the job a leaver hires for, and the ones they finished,
    are of their department (where the world has any), not a Marketing job of a Finance
    clerk's."""
    from tests.compose_walks import initial_world

    theirs = others = 0
    for walker in walks:
        leaver = walker.leaver_department()
        subjects = walker.subjects()
        jobs = initial_world(walker).services["recruiting"].state.jobs
        for job in jobs.values():
            if env.identity("email", job.hiring_manager_email) in subjects:
                theirs += job.department == leaver
                others += job.department != leaver
    # (another department's where the world has no free job of theirs: most often, as the
    # world has a few jobs for a dozen departments)
    assert theirs >= 10 and theirs >= others / 5, (theirs, others)


def test_a_colleagues_own_record_made_for_them_says_what_they_do() -> None:
    """A colleague's HR file the request finds, made theirs in the world, carries their
    own job title and department, never the file's first holder's (a recruiter shown as a
    "Senior Software Engineer")."""
    library = bundled_library(["identity", "hr", "recruiting", "meetings", "mail", "expenses"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    checked = 0
    for walker in finished_walks(env, 60, "own files", forced("hiring", "expenses")):
        for injection in walker.injections:
            record = injection.record.model_dump(mode="json")
            person = env.person_by_email(str(record.get("email") or ""))
            if person is None or not person.staff:
                continue
            for name in ("job_title", "title", "department"):
                if isinstance(record.get(name), str):
                    want = person.department if name == "department" else person.title
                    assert record[name] == want, (injection.collection, name, record[name], want)
                    checked += 1
    assert checked >= 5, checked
