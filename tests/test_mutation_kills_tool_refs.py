"""A compiled create checks every reference it is given (a mutant of
library/compiler/emit_tools.py that survived the other tests, bench/mutation.py, seed 9):
a task naming a project and an assignee is refused when either names no record, the first
as well as the last, and nothing is stored; named right, it is created."""

from __future__ import annotations

from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_emit_tools import Client, verified_service
from tests.test_mutation_kills_seed_refs import _collection

TEXT = {"type": "string"}
PLANNER = {
    "openapi": "3.0.0",
    "info": {"title": "Planner", "version": "1"},
    "paths": {
        **_collection("projects", "Project", _record(["title"], title=TEXT)),
        **_collection("users", "User", _record(["title"], title=TEXT)),
        **_collection(
            "tasks",
            "Task",
            _record(["title"], title=TEXT, project_id=TEXT, user_id=TEXT),
        ),
    },
}


def test_a_create_refuses_any_reference_to_no_record_the_first_as_well_as_the_last() -> None:
    client = Client(verified_service(PLANNER))
    project = client.ok("createProject", title="Apollo")
    user = client.ok("createUser", title="Ada")
    assert client.refused("createTask", title="A", project_id="prj_nope", user_id=user["id"]) == (
        "not_found"
    )
    assert client.refused("createTask", title="B", project_id=project["id"], user_id="nope") == (
        "not_found"
    )
    made = client.ok("createTask", title="C", project_id=project["id"], user_id=user["id"])
    assert (made["project_id"], made["user_id"]) == (project["id"], user["id"])
