"""What a compiled create does with an object parameter whose shape differs from the record's
nested field of the same name (mutants of library/compiler/tools.py that survived the other
tests, or that no test reached, bench/mutation.py): an input object with a key the record's
field cannot hold (``address.zip``) is another thing: the call with it is valid and succeeds,
the value is not stored; an input object with fewer keys than the field (``billing`` without
a city) is stored as given; and a text parameter compared with a moment (``opened_after`` of
a date-time ``opened_at``, ``opened_on`` of a date) is read as a moment, so a list filters by
it instead of failing."""

from __future__ import annotations

import pytest

from tests.test_mutation_kills_emit_tools import Client, _query, verified_service
from tests.test_mutation_kills_seed_refs import _collection

TEXT = {"type": "string"}
PLACE = {"type": "object", "properties": {"street": TEXT, "city": TEXT}}
SITE = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": TEXT,
        "name": TEXT,
        "address": PLACE,
        "billing": PLACE,
        "opened_at": {"type": "string", "format": "date-time"},
        "opened_on": {"type": "string", "format": "date"},
    },
}


def _sites() -> dict:
    document = {
        "openapi": "3.0.0",
        "info": {"title": "Sites", "version": "1"},
        "paths": _collection("sites", "Site", SITE),
    }
    body = document["paths"]["/sites"]["post"]["requestBody"]["content"]["application/json"]
    body["schema"]["properties"] |= {
        "address": {"type": "object", "properties": {"street": TEXT, "city": TEXT, "zip": TEXT}},
        "billing": {"type": "object", "properties": {"street": TEXT}},
    }
    lister = document["paths"]["/sites"]["get"]
    lister["parameters"] = [_query("opened_after", TEXT), _query("opened_on", TEXT)]
    return document


# Built for each test, not once per module (see test_mutation_kills_emit_tools).
@pytest.fixture
def client() -> Client:
    return Client(verified_service(_sites()))


def test_an_input_object_the_field_cannot_hold_is_accepted_not_stored(client: Client) -> None:
    made = client.ok("createSite", name="Depot", address={"street": "Main 1", "zip": "1234"})
    assert made["name"] == "Depot" and "address" not in made


def test_an_input_object_narrower_than_the_field_is_stored(client: Client) -> None:
    made = client.ok("createSite", name="Depot", billing={"street": "Main 1"})
    assert made["billing"] == {"street": "Main 1"}


def test_a_text_filter_on_a_moment_compares_moments(client: Client) -> None:
    made = client.ok(
        "createSite", name="Depot", opened_at="2024-05-01T09:00:00Z", opened_on="2024-05-01"
    )
    assert client.ok("listSites", opened_after="2024-01-01T00:00:00Z") == [made]
    assert client.ok("listSites", opened_after="2025-01-01T00:00:00Z") == []
    assert client.ok("listSites", opened_on="2024-05-01") == [made]
    assert client.ok("listSites", opened_on="2024-05-02") == []
