"""A world-model answer, and the checks it must pass before it touches any state.

An answer is ``{"result": ..., "state_patch": [RFC 6902 ops]}`` or, for a call that must
fail, ``{"error": {"code", "message"}}``. The result is checked against the tool's output
schema; the patch is applied to the state's JSON document and the outcome validated by the
service's own ``State`` model, or by its JSON schema for a service in a sandbox worker
(``library.world_model.state``), so a simulated tool can only ever produce a state the real
service could hold.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from jsonschema import exceptions as js_exceptions
from jsonschema import validators
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from library.runtime import ErrorCode, State
from library.runtime.world import describe_validation_error
from library.world_model.state import MAX_ERRORS, InvalidAnswer, ModelState

_FENCED = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)
__all__ = ["Answer", "AnswerError", "InvalidAnswer", "SchemaCheck", "apply_patch", "parse_answer"]


class AnswerError(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: ErrorCode
    message: str


class Answer(BaseModel):
    """A parsed answer (not yet checked against schemas or state)."""

    model_config = ConfigDict(frozen=True)

    result: Any = None
    state_patch: list[dict[str, Any]] = Field(default_factory=list)
    error: AnswerError | None = None


def parse_answer(text: str) -> Answer:
    """The JSON object in a reply: the whole reply, a fenced block, or the outermost braces."""
    candidates = [text.strip(), *(m.strip() for m in _FENCED.findall(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    data: Any = None
    for candidate in candidates:
        try:
            data = orjson.loads(candidate)
            break
        except orjson.JSONDecodeError:
            continue
    if not isinstance(data, dict):
        raise InvalidAnswer("the answer is not a JSON object")
    if "error" in data and data["error"] is not None:
        if data.get("state_patch"):
            raise InvalidAnswer("an error answer must not carry a state_patch")
        try:
            return Answer(error=AnswerError.model_validate(data["error"]))
        except ValidationError as exc:
            codes = ", ".join(c.value for c in ErrorCode)
            raise InvalidAnswer(
                f"error: {describe_validation_error(exc)} (code is one of {codes})"
            ) from None
    if "result" not in data:
        raise InvalidAnswer('the answer needs "result" and "state_patch" (or "error")')
    patch = data.get("state_patch") or []
    if not isinstance(patch, list) or not all(isinstance(op, dict) for op in patch):
        raise InvalidAnswer("state_patch must be a list of RFC 6902 operation objects")
    return Answer(result=data["result"], state_patch=patch)


class SchemaCheck:
    """A compiled JSON-schema validator with messages a model can act on."""

    def __init__(self, schema: dict[str, Any] | None, what: str) -> None:
        self.what = what
        self.validator = None
        if schema:
            cls = validators.validator_for(schema)
            cls.check_schema(schema)
            self.validator = cls(schema)

    def errors(self, value: Any) -> list[str]:
        if self.validator is None:
            return []
        found = sorted(self.validator.iter_errors(value), key=js_exceptions.relevance)
        return [_describe(self.what, err) for err in found[:MAX_ERRORS]]


def _describe(what: str, err: js_exceptions.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return f"{what}{path}: {err.message}"


def apply_patch(state: State, patch: list[dict[str, Any]]) -> State:
    """The state after the patch, validated by its own model; the input is not touched."""
    return ModelState(state).patched(patch).state
