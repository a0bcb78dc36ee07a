"""Rejection reasons as categories (mutants of library/verify/reasons.py that survived the
other tests, bench/mutation.py): a reason names one gap however many APIs meet it, so the
tool's own names, values and numbers are replaced; a failed check keeps its name and, for a
call, the error code or the exception; an output that fails its schema says how; only the
first tier's reason counts."""

from __future__ import annotations

import pytest

from library.verify.reasons import reason_category

CASES = [
    ("output is not a template record", "output is not a <resource> record"),
    ("output is not an invoice record", "output is not a <resource> record"),
    ("output is not a list of templates", "output is not a list of <resources>"),
    ("nothing is known about tags but their id", "nothing is known about <x> but their id"),
    (
        "no output schema, and nothing is known about keys but their id",
        "no output schema, and nothing is known about <x> but their id",
    ),
    ("no parameter identifies the user", "no parameter identifies the <resource>"),
    ("no parameter says what the new note holds", "a create with no field parameter"),
    ("lists by the id of one board: it reads...", "lists by the id of one <parent>"),
    ("record ids are integers, the runtime's are strings", "record ids of a non-string type"),
    ("record ids must match '^[a-f0-9]{24}$'", "record ids must match a pattern"),
    ("record ids have a length of 24", "record ids have a fixed length"),
    (
        "id parameter 'trainingKey' is int, record ids are strings",
        "id parameter of a non-string type",
    ),
    ("page field 'cursor_x' has no meaning the compiler knows", "page field with no known meaning"),
    ("delete output field 'gone' has no meaning known", "delete output field with no meaning"),
    ("malformed spec: no paths", "malformed spec"),
    ("the output requires 'a', 'b' but never defines it", "output requires undefined keys"),
    ("compiler error: KeyError: 'x'", "compiler error: KeyError"),
    ("belongs to service crm", "belongs to another service"),
    # a failed check: its name and, for a call, the code or the exception
    ("compiler: valid_call: not_found: no tag with id 'x'", "valid_call: not_found"),
    ("valid_call: internal: t raised KeyError: 'x'", "valid_call: internal (KeyError)"),
    ("valid_call: internal: it broke", "valid_call: internal (unexpected error)"),
    ("valid_call: seeding raised RuntimeError: no", "valid_call: seeding raised RuntimeError"),
    ("round_trip: check raised ValueError: x", "round_trip: check raised ValueError"),
    ("round_trip: the state reloaded from JSON hashes differently", "round_trip"),
    ("valid_call: no valid call: ValueError: x", "valid_call"),
    (
        "every_parameter: with a=1: internal: t raised TypeError: no",
        "every_parameter: internal (TypeError)",
    ),
    (
        "every_parameter: with a=1: output 'x' is not of type 'integer'",
        "every_parameter: output_schema",
    ),
    ("every_parameter: with a=1: a read tool changed the state", "every_parameter"),
    ("read_only: a read tool changed the state", "read_only"),
    ("output_schema: output id: '11' is not of type 'integer'", "output_schema: wrong type"),
    (
        "output_schema: output: 'id' is a required property",
        "output_schema: missing required property",
    ),
    ("output_schema: output at: 'x' is not a 'date-time'", "output_schema: not a date-time"),
    ("output_schema: output at: 'x' is not a 'date'", "output_schema: not a date"),
    ("output_schema: output to: 'x' is not a 'email'", "output_schema: not an email"),
    ("output_schema: output k: 'x' does not match '^a'", "output_schema: does not match pattern"),
    ("output_schema: output s: 'x' is not one of ['a']", "output_schema: not in enum"),
    (
        "output_schema: output: Additional properties are not allowed",
        "output_schema: additional properties",
    ),
    ("output_schema: output n: 12 is too long 'x'", "output_schema: <n> is too long <x>"),
    ("output_schema: 3 is odd", "output_schema: <n> is odd"),
    # only the first tier's reason, names and numbers replaced in any other sentence
    ("no resource recognised; no model configured for the tiers", "no resource recognised"),
    ("tool 'x_1' takes 3 arguments, not \"4.5\"", "tool <x> takes <n> arguments, not <x>"),
    ("Compiler Error: lowercase only: x", "Compiler Error: lowercase only: x"),
]


@pytest.mark.parametrize(("reason", "category"), CASES, ids=[c for _, c in CASES])
def test_a_reason_names_its_gap_without_the_tools_own_names(reason: str, category: str) -> None:
    assert reason_category(reason) == category


def test_a_long_reason_is_cut() -> None:
    assert reason_category("x" * 200) == "x" * 90
    assert reason_category("output_schema: output: " + "y" * 100) == "output_schema: " + "y" * 60
