"""Which object of an answer is the record (mutants of library/compiler/records.py that
survived the other tests, bench/mutation.py): beside call metadata, the one object is the
answer whatever its key, and metadata is any plain value, a number (``status_code: 200``,
``took_ms``) or a flag (``cached``) as well as text (test_compiler_envelopes); beside a
second object, no key says which is the record, and the read is not planned."""

from __future__ import annotations

import orjson
import pytest

from library.compiler import plan_service
from library.compiler.model import Shape
from library.ingest import ingest_document
from tests.test_compiler_envelopes import _op

TEXT = {"type": "string"}
ACTION = {"type": "object", "properties": {"id": TEXT, "description": TEXT}}


def _read_shape(metadata: dict) -> tuple[Shape, str | None] | None:
    """How the planned read ``describeAction`` finds its record in the answer (None: it
    is not planned, no record found)."""
    answer = {
        "type": "object",
        "required": [*metadata, "response"],
        "properties": {**metadata, "response": ACTION},
    }
    document = {
        "openapi": "3.0.0",
        "info": {"title": "Actions", "version": "1"},
        "paths": {
            "/actions/{id}": {"get": _op("describeAction", answer, path_id=True)},
            "/actions": {
                "post": _op(
                    "createAction", ACTION, {"type": "object", "properties": {"description": TEXT}}
                )
            },
        },
    }
    specs, errors = ingest_document(orjson.dumps(document), source_file="actions.json")
    assert specs, errors
    read = next((t for t in plan_service(specs).tools if t.name == "describeAction"), None)
    return (read.output.shape, read.output.items) if read is not None else None


@pytest.mark.parametrize(
    "kind", [{"type": "integer"}, {"type": "number"}, {"type": "boolean"}, TEXT]
)
def test_the_one_object_beside_plain_metadata_of_any_type_is_the_answer(kind: dict) -> None:
    assert _read_shape({"api": TEXT, "status_code": kind}) == (Shape.ENVELOPE, "response")


def test_beside_another_object_no_key_says_which_is_the_record() -> None:
    request = {"type": "object", "properties": {"path": TEXT}}
    assert _read_shape({"api": TEXT, "request": request}) is None
