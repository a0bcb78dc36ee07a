"""Output validation against a spec's JSON Schema, with validators compiled once per schema."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match

# Formats worth enforcing on tool output: the ones agents parse. Unknown formats pass.
_FORMATS = FormatChecker(["date", "date-time", "email"])


@lru_cache(maxsize=4096)
def _validator(text: bytes) -> Draft202012Validator:
    schema = orjson.loads(text)
    return Draft202012Validator(schema, format_checker=_FORMATS)


def validate(data: Any, schema: dict[str, Any]) -> str | None:
    """None if ``data`` matches ``schema``, else a one-line reason naming the failing path."""
    try:
        validator = _validator(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS))
        error = best_match(validator.iter_errors(data))
    except Exception:  # a schema jsonschema cannot use (bad regex, dangling $ref) fails no tool
        return None
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"output {where}: {error.message[:300]}"
