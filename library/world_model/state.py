"""The state a simulated tool acts on, as the world model sees it: a typed ``State`` in this
process, or the JSON document of a service that lives in a sandbox worker.

A ``StateView`` lists collections and records, gives the record schemas the prompt shows,
hashes the state for the answer cache, and applies a patch, refusing any result the service
could not hold. ``ModelState`` validates with the service's own ``State`` model (trusted
classes, in process). ``DocumentState`` never loads the service's code: the patch is applied
to the JSON document here and the result checked here against the JSON schema of the
service's ``State`` (reported by the worker as data), so the decision to accept an answer is
taken outside the untrusted code (patterns aside: a regular expression from untrusted code is
never run here); the worker then loads the accepted state through its own model as well.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import jsonpatch
import jsonpointer
import orjson
from jsonschema import exceptions as js_exceptions
from jsonschema import validators

from library.runtime import State
from library.runtime.world import hash_state

MAX_ERRORS = 5


class InvalidAnswer(ValueError):
    """Why an answer was rejected; the message is fed back to the model verbatim."""


@runtime_checkable
class StateView(Protocol):
    def collection_names(self) -> list[str]: ...

    def record_ids(self, collection: str) -> list[str]: ...

    def records(self, collection: str, ids: list[str]) -> dict[str, Any]:
        """The records with these ids, as JSON, in that order."""
        ...

    def scalars(self) -> dict[str, Any]:
        """The state's fields that are not collections (``seq``, settings), as JSON."""
        ...

    def record_schema(self, collection: str) -> dict[str, Any] | None: ...

    def digest(self) -> str:
        """``hash_state`` of the state: what the answer cache keys on."""
        ...

    def patched(self, patch: list[dict[str, Any]]) -> StateView:
        """The state after the RFC 6902 patch, validated; raises ``InvalidAnswer``."""
        ...

    @property
    def value(self) -> Any:
        """What the caller installs: a ``State`` or a JSON document."""
        ...


def _apply(doc: Any, patch: list[dict[str, Any]]) -> Any:
    try:
        return jsonpatch.apply_patch(doc, patch, in_place=True)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
        raise InvalidAnswer(f"state_patch cannot be applied: {exc}") from None
    except (TypeError, KeyError, ValueError) as exc:  # malformed ops that jsonpatch lets through
        raise InvalidAnswer(f"state_patch is malformed: {type(exc).__name__}: {exc}") from None


def _check_keys(collections: Mapping[str, Mapping[str, Any]]) -> None:
    for name, records in collections.items():
        for key, record in records.items():
            rid = record.get("id") if isinstance(record, Mapping) else getattr(record, "id", None)
            if key != rid:
                raise InvalidAnswer(
                    f"the patched state is invalid: {name}/{key} holds a record whose id is "
                    f"{rid!r}; a record's key must equal its id"
                )


class ModelState:
    """A typed ``State`` (trusted classes in this process)."""

    def __init__(self, state: State) -> None:
        self.state = state

    @property
    def value(self) -> State:
        return self.state

    def collection_names(self) -> list[str]:
        return list(self.state.collections())

    def record_ids(self, collection: str) -> list[str]:
        return list(self.state.collections()[collection])

    def records(self, collection: str, ids: list[str]) -> dict[str, Any]:
        found = self.state.collections()[collection]
        return {k: found[k].model_dump(mode="json") for k in ids}

    def scalars(self) -> dict[str, Any]:
        return self.state.model_dump(mode="json", exclude=set(self.state.collections()))

    def record_schema(self, collection: str) -> dict[str, Any] | None:
        record = type(self.state).collection_types.get(collection)
        return None if record is None else record.model_json_schema()

    def digest(self) -> str:
        return hash_state(self.state)

    def patched(self, patch: list[dict[str, Any]]) -> ModelState:
        from pydantic import ValidationError

        from library.runtime.world import describe_validation_error

        doc = _apply(self.state.model_dump(mode="json"), patch)
        try:
            new = type(self.state).model_validate(doc)
        except ValidationError as exc:
            parts = describe_validation_error(exc).split("; ")
            more = f" (and {len(parts) - MAX_ERRORS} more)" if len(parts) > MAX_ERRORS else ""
            shown = "; ".join(parts[:MAX_ERRORS])
            raise InvalidAnswer(f"the patched state is invalid: {shown}{more}") from None
        _check_keys(new.collections())
        return ModelState(new)


class DocumentState:
    """A service state as a JSON document, with the JSON schema of its ``State`` model and
    the names of its collections: what the parent knows of a service in a sandbox worker."""

    def __init__(
        self,
        doc: dict[str, Any],
        schema: dict[str, Any],
        collections: list[str],
        *,
        validator: Any = None,
    ) -> None:
        self.doc = doc
        self.schema = schema
        self.collections = [c for c in collections if isinstance(doc.get(c), dict)]
        if validator is None:
            checked = without_patterns(schema)
            cls = validators.validator_for(checked)
            cls.check_schema(checked)
            validator = cls(checked)
        self._validator = validator

    @property
    def value(self) -> dict[str, Any]:
        return self.doc

    def collection_names(self) -> list[str]:
        return list(self.collections)

    def record_ids(self, collection: str) -> list[str]:
        return list(self.doc[collection])

    def records(self, collection: str, ids: list[str]) -> dict[str, Any]:
        found = self.doc[collection]
        return {k: found[k] for k in ids}

    def scalars(self) -> dict[str, Any]:
        return {k: v for k, v in self.doc.items() if k not in self.collections}

    def record_schema(self, collection: str) -> dict[str, Any] | None:
        node = (self.schema.get("properties") or {}).get(collection) or {}
        item = node.get("additionalProperties")
        if not isinstance(item, dict):
            return None
        defs = self.schema.get("$defs") or {}
        ref = str(item.get("$ref", ""))
        record = defs.get(ref.removeprefix("#/$defs/")) if ref.startswith("#/$defs/") else item
        if not isinstance(record, dict):
            return None
        # A record refers to other definitions (nested models, enums): carry them along.
        return {**record, "$defs": defs} if "$ref" in orjson.dumps(record).decode() else record

    def digest(self) -> str:
        payload = orjson.dumps(self.doc, option=orjson.OPT_SORT_KEYS)
        return hashlib.blake2b(payload, digest_size=16).hexdigest()

    def patched(self, patch: list[dict[str, Any]]) -> DocumentState:
        doc = _apply(copy.deepcopy(self.doc), patch)
        if not isinstance(doc, dict):
            raise InvalidAnswer("the patched state is invalid: it is no longer an object")
        found = sorted(self._validator.iter_errors(doc), key=js_exceptions.relevance)
        if found:
            shown = "; ".join(_describe(e) for e in found[:MAX_ERRORS])
            more = f" (and {len(found) - MAX_ERRORS} more)" if len(found) > MAX_ERRORS else ""
            raise InvalidAnswer(f"the patched state is invalid: {shown}{more}")
        _check_keys({c: doc[c] for c in self.collections if isinstance(doc.get(c), dict)})
        return DocumentState(doc, self.schema, self.collections, validator=self._validator)


def without_patterns(schema: Any) -> Any:
    """The schema without regular expressions (``pattern``, ``patternProperties``). The schema
    of a sandboxed service comes from its (untrusted) code, and a pattern built to backtrack
    for ever would hang the parent's validator; the worker checks patterns itself when it
    loads the state through its own model."""
    if isinstance(schema, list):
        return [without_patterns(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("pattern", "patternProperties"):
            continue
        if key in _DATA:
            out[key] = value  # values, not schemas
        elif key in _NAMED_SCHEMAS and isinstance(value, dict):
            # Maps of names (properties, definitions): a property may be called "pattern".
            out[key] = {name: without_patterns(sub) for name, sub in value.items()}
        else:
            out[key] = without_patterns(value)
    return out


_NAMED_SCHEMAS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_DATA = frozenset({"enum", "const", "default", "examples"})


def _describe(err: js_exceptions.ValidationError) -> str:
    path = "/".join(str(p) for p in err.absolute_path)
    return f"{path or '(state)'}: {err.message}"


def as_view(state: State | StateView) -> StateView:
    return ModelState(state) if isinstance(state, State) else state
