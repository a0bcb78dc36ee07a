"""An operation on a nested path with no output of its own (``PUT /organizers/{organizerKey}/
trainings/{trainingKey}/nameDescription``) acts on the record of the deepest path parameter
(the training), not on the parent before it: the compiler updates the training and the
conformance suite calls it on an existing training."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.compiler import plan_service
from library.ingest import ingest_document
from library.verify import build_service


def _key(name: str) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "integer"}}


def _answer(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


ORGANIZER = {
    "type": "object",
    "required": ["organizerKey", "email"],
    "properties": {"organizerKey": {"type": "integer"}, "email": {"type": "string"}},
}
TRAINING = {
    "type": "object",
    "required": ["trainingKey", "name", "description"],
    "properties": {
        "trainingKey": {"type": "integer"},
        "name": {"type": "string"},
        "description": {"type": "string"},
    },
}
BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["name", "description"],
                "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
            }
        }
    },
}
TRAININGS = {
    "openapi": "3.0.0",
    "info": {"title": "Trainings", "version": "1"},
    "paths": {
        "/organizers": {
            "get": {"operationId": "listOrganizers", "responses": _answer(
                {"type": "array", "items": ORGANIZER})},
        },
        "/organizers/{organizerKey}": {
            "get": {"operationId": "getOrganizer", "parameters": [_key("organizerKey")],
                    "responses": _answer(ORGANIZER)},
        },
        "/organizers/{organizerKey}/trainings": {
            "get": {"operationId": "listTrainings", "parameters": [_key("organizerKey")],
                    "responses": _answer({"type": "array", "items": TRAINING})},
        },
        "/organizers/{organizerKey}/trainings/{trainingKey}": {
            "get": {"operationId": "getTraining",
                    "parameters": [_key("organizerKey"), _key("trainingKey")],
                    "responses": _answer(TRAINING)},
        },
        "/organizers/{organizerKey}/trainings/{trainingKey}/nameDescription": {
            "put": {"operationId": "updateTrainingNameDescription",
                    "parameters": [_key("organizerKey"), _key("trainingKey")],
                    "requestBody": BODY, "responses": {"204": {"description": "updated"}}},
        },
    },
}  # fmt: skip


def _specs() -> list:
    specs, _ = ingest_document(orjson.dumps(TRAININGS), source_file="trainings.json")
    return specs


def test_the_deepest_path_parameter_names_the_record() -> None:
    plan = plan_service(_specs())
    tools = {t.name: t for t in plan.tools}
    assert tools["updateTrainingNameDescription"].resource == tools["getTraining"].resource


def test_the_nested_update_verifies() -> None:
    built = build_service(_specs())
    assert "updateTrainingNameDescription" in built.verified, built.outcomes[
        "updateTrainingNameDescription"
    ]


SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_nested_operations_of_a_real_api_verify() -> None:
    """GoToTraining's writes under ``/organizers/{organizerKey}/trainings/{trainingKey}/...``:
    the suite calls them on an existing training (before, on an organizer, with a training
    key drawn at random: ``not_found``)."""
    specs, _ = ingest_document(SPECS / "openapi/getgo.com__gototraining.json")
    built = build_service(specs)
    for name in ("updateTrainingNameDescription", "updateRegistrationSettingsForTraining"):
        assert name in built.verified, built.outcomes[name]
