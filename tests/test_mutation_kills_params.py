"""What a compiled tool does with its parameters (mutants of library/compiler/tools.py,
emit_tools.py and types.py that survived the other tests, bench/mutation.py): a parent's id
in an update's path scopes the update (a task is updated under its own project only, and an
update under another project is refused and changes nothing, rather than moving the task); a
declared maximum is enforced; and a parameter whose type is too long for the signature line
(an enum of many values, bounds on a long name) still takes exactly its values."""

from __future__ import annotations

import copy

import pytest

from tests.test_mutation_kills_emit_tools import (
    PROJECTS,
    Client,
    _body,
    _path,
    _query,
    verified_service,
)

LEVELS = [f"level_{n}_of_the_escalation_ladder" for n in range(1, 9)]
LONG = "preferred_number_of_projects_to_show_at_once_in_the_listing"


def _document() -> dict:
    document = copy.deepcopy(PROJECTS)
    paths = document["paths"]
    task = paths["/projects/{project_id}/tasks"]["post"]["responses"]
    paths["/projects/{project_id}/tasks/{id}"]["patch"] = {
        "operationId": "updateTask",
        "parameters": [_path("project_id"), _path("id")],
        "requestBody": _body({"type": "object", "properties": {"title": {"type": "string"}}}),
        "responses": task,
    }
    changes = paths["/projects/{id}"]["patch"]["requestBody"]["content"]["application/json"]
    changes["schema"]["properties"]["budget"] = {"type": "integer", "maximum": 1000}
    paths["/projects"]["get"]["parameters"] += [
        _query("level", {"type": "string", "enum": LEVELS}),
        _query(LONG, {"type": "integer", "minimum": 1, "maximum": 50}),
    ]
    return document


# Built for each test, not once per module (see test_mutation_kills_emit_tools).
@pytest.fixture
def client() -> Client:
    return Client(verified_service(_document()))


def test_an_update_under_a_parent_is_scoped_to_it(client: Client) -> None:
    a = client.ok("createProject", name="Apollo", slug="apollo")
    b = client.ok("createProject", name="Gemini", slug="gemini")
    task = client.ok("createTask", project_id=a["id"], title="Plan")
    assert client.refused("updateTask", project_id=b["id"], id=task["id"], title="X") == "not_found"
    changed = client.ok("updateTask", project_id=a["id"], id=task["id"], title="Plan v2")
    assert changed == task | {"title": "Plan v2"}


def test_a_declared_maximum_is_enforced(client: Client) -> None:
    made = client.ok("createProject", name="Apollo", slug="apollo")
    assert client.ok("updateProject", id=made["id"], budget=1000)["budget"] == 1000
    assert client.refused("updateProject", id=made["id"], budget=1001) == "invalid_argument"


def test_a_parameter_with_a_long_type_takes_exactly_its_values(client: Client) -> None:
    client.ok("createProject", name="Apollo", slug="apollo")
    assert isinstance(client.ok("listProjects", level=LEVELS[-1]), list)
    assert client.refused("listProjects", level="level_9") == "invalid_argument"
    assert isinstance(client.ok("listProjects", **{LONG: 50}), list)
    assert client.refused("listProjects", **{LONG: 51}) == "invalid_argument"
