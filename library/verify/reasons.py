"""Why a tool was not verified, as a category: the coverage report groups rejections by it.

A rejection reason names the tool's own parameters, resources and values (``output is not a
template record``, ``id parameter 'trainingKey' is int``); the category replaces those with
placeholders so that the same gap, met in many APIs, counts as one row.
"""

from __future__ import annotations

import re

_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), category)
    for pattern, category in (
        (r"^output is not an? .+ record$", "output is not a <resource> record"),
        (r"^output is not a list of .+$", "output is not a list of <resources>"),
        (r"^nothing is known about .+ but their id$", "nothing is known about <x> but their id"),
        (
            r"^no output schema, and nothing is known about .+ but their id$",
            "no output schema, and nothing is known about <x> but their id",
        ),
        (r"^no parameter identifies the .+$", "no parameter identifies the <resource>"),
        (r"^no parameter says what the new .+ holds$", "a create with no field parameter"),
        (r"^lists by the id of one .+$", "lists by the id of one <parent>"),
        (r"^record ids are .+, the runtime's are strings$", "record ids of a non-string type"),
        (r"^record ids must match .+$", "record ids must match a pattern"),
        (r"^record ids have a length .+$", "record ids have a fixed length"),
        (r"^id parameter .+ is .+, record ids are strings$", "id parameter of a non-string type"),
        (r"^page field .+ has no meaning .+$", "page field with no known meaning"),
        (r"^delete output field .+ has no meaning .+$", "delete output field with no meaning"),
        (r"^malformed spec: .+$", "malformed spec"),
        (r"^the output requires .+ but never defines it$", "output requires undefined keys"),
        (r"^compiler error: (\w+).*$", r"compiler error: \1"),
        (r"^belongs to service .+$", "belongs to another service"),
    )
)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\b\d+(\.\d+)?\b")


def reason_category(reason: str) -> str:
    """The reason with its specifics removed: ``valid_call: not_found: no tag with id ...``
    -> ``valid_call: not_found``; skips keep their sentence with names replaced."""
    # the build stage prefixes the tier (``compiler: ``) and appends later tiers' reasons
    text = reason.split("; ")[0].strip().removeprefix("compiler: ")
    check, sep, detail = text.partition(": ")
    if sep and re.fullmatch(r"[a-z_]+", check) and check not in ("compiler error",):
        # a failed conformance check: the check and, for calls, the error code
        code = detail.split(":", 1)[0] if check == "valid_call" else ""
        if check in ("valid_call", "round_trip") and "raised " in detail.split(":", 1)[0]:
            return f"{check}: {detail.split(' raised ', 1)[0]} raised " + _exception(detail)
        if check == "valid_call" and code == "internal":
            return "valid_call: internal (" + _exception(detail) + ")"
        if check == "every_parameter" and ": internal: " in detail:
            return "every_parameter: internal (" + _exception(detail) + ")"
        if check == "every_parameter" and ": output " in detail:
            return "every_parameter: output_schema"
        if check == "output_schema":
            return "output_schema: " + _schema_problem(detail)
        return f"{check}: {code}" if code and " " not in code else check
    for pattern, category in _RULES:
        if pattern.match(text):
            return pattern.sub(category, text)
    return _NUMBER.sub("<n>", _QUOTED.sub("<x>", text))[:90]


def _exception(detail: str) -> str:
    match = re.search(r"\b([A-Z]\w*(?:Error|Exception))\b", detail)
    return match.group(1) if match else "unexpected error"


def _schema_problem(detail: str) -> str:
    message = detail.split(": ", 1)[1] if ": " in detail else detail
    for marker, label in (
        ("is not of type", "wrong type"),
        ("is a required property", "missing required property"),
        ("is not a 'date-time'", "not a date-time"),
        ("is not a 'date'", "not a date"),
        ("is not a 'email'", "not an email"),
        ("does not match", "does not match pattern"),
        ("is not one of", "not in enum"),
        ("Additional properties", "additional properties"),
    ):
        if marker in message:
            return label
    return _NUMBER.sub("<n>", _QUOTED.sub("<x>", message))[:60]
