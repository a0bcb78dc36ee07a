"""Which fields a compiled create keeps unique, read from their descriptions (mutants of
library/compiler/records.py that survived the other tests, bench/mutation.py): "The unique
name of the project." on a project makes its name a natural key (a second project of that
name is refused and changes nothing); "The unique name of a team." names another thing, and
"A unique identifier in the partner's system." is an id, not a key of ours: neither refuses a
repeated value."""

from __future__ import annotations

import pytest

from tests.test_mutation_kills_emit_tools import Client, verified_service
from tests.test_mutation_kills_seed_refs import _collection

PROJECT = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string", "description": "The unique name of the project."},
        "team": {"type": "string", "description": "The unique name of a team."},
        "partner_ref": {
            "type": "string",
            "description": "A unique identifier in the partner's system.",
        },
    },
}
PROJECTS = {
    "openapi": "3.0.0",
    "info": {"title": "Projects", "version": "1"},
    "paths": _collection("projects", "Project", PROJECT),
}


# Built for each test, not once per module (see test_mutation_kills_emit_tools).
@pytest.fixture
def client() -> Client:
    return Client(verified_service(PROJECTS))


def test_a_name_described_as_the_records_unique_name_refuses_a_duplicate(
    client: Client,
) -> None:
    client.ok("createProject", name="Apollo")
    assert client.refused("createProject", name="Apollo") == "conflict"


def test_a_unique_name_of_another_thing_or_an_identifier_may_repeat(client: Client) -> None:
    first = client.ok("createProject", name="Apollo", team="Core", partner_ref="P-1")
    second = client.ok("createProject", name="Gemini", team="Core", partner_ref="P-1")
    assert first["id"] != second["id"]
    assert (second["team"], second["partner_ref"]) == ("Core", "P-1")
