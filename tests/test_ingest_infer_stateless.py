"""Stateless functions (BFCL's math API, unit conversions, tau's calculate / think / hand-over)
recognised at ingest from real specs in ../shared/specs, and computed by a pure function."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import orjson
import pytest

from library.ingest import ingest_document
from library.ingest.infer_output import INFERRED_KEY, VENDOR_KEY
from library.ingest.stateless import STATELESS_KEY
from library.runtime.compute import evaluate
from library.toolspec import ToolSpec
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


# A tool its publisher declares to change no domain state (tau2's ``x-tool-type``).
GENERIC_DOCUMENT = orjson.dumps(
    [
        {
            "type": "function",
            "x-tool-type": "generic",
            "function": {
                "name": "log_feedback",
                "description": "Note the customer's feedback for the quality team.",
                "parameters": {
                    "type": "object",
                    "properties": {"feedback": {"type": "string"}},
                    "required": ["feedback"],
                },
            },
        }
    ]
)


def _tools(relative: str) -> dict[str, ToolSpec]:
    specs, _ = ingest_document(SPECS / relative)
    return {s.name: s for s in specs}


@pytest.fixture(scope="module")
def math_api() -> dict[str, ToolSpec]:
    return _tools("functions/bfcl_multi_turn/math_api.json")


def _run(spec: ToolSpec, **arguments: object) -> float:
    marked = spec.vendor[STATELESS_KEY]
    return evaluate(marked, arguments)[marked["result_key"]]


def test_every_bfcl_math_tool_is_stateless_reads_and_names_no_resource(
    math_api: dict[str, ToolSpec],
) -> None:
    for name, spec in math_api.items():
        marked = spec.vendor.get(STATELESS_KEY)
        assert marked is not None, name
        assert spec.access == "read" and spec.resource is None, name
    kinds = {n: s.vendor[STATELESS_KEY]["kind"] for n, s in math_api.items()}
    assert set(kinds.values()) == {"computation"}
    # the SI / imperial conversions take their units as arguments: ``convert_units``, with a
    # unit pair given as the unit parameters' examples (a valid call the suite can make)
    for name in ("si_unit_conversion", "imperial_si_conversion"):
        marked = math_api[name].vendor[STATELESS_KEY]
        assert marked["operation"] == "convert_units", name
        assert marked["operands"] == {"x": "value", "from": "unit_in", "to": "unit_out"}
        props = math_api[name].input_schema["properties"]
        arguments = {"value": 2.0, "unit_in": props["unit_in"]["examples"][0]}
        arguments["unit_out"] = props["unit_out"]["examples"][0]
        assert evaluate(marked, arguments)["result"] > 0
    imperial = math_api["imperial_si_conversion"].vendor[STATELESS_KEY]
    miles = evaluate(imperial, {"value": 3, "unit_in": "miles", "unit_out": "km"})["result"]
    assert math.isclose(miles, 4.828032)
    fahrenheit = {"value": 212, "unit_in": "Fahrenheit", "unit_out": "celsius"}
    assert math.isclose(evaluate(imperial, fahrenheit)["result"], 100)
    with pytest.raises(ValueError, match="cannot convert length"):
        evaluate(imperial, {"value": 1, "unit_in": "m", "unit_out": "kg"})
    with pytest.raises(ValueError, match="unknown unit"):
        evaluate(imperial, {"value": 1, "unit_in": "m", "unit_out": "furlongs-ish"})


def test_computations_give_the_numbers_their_names_promise(
    math_api: dict[str, ToolSpec],
) -> None:
    assert _run(math_api["add"], a=2, b=3.5) == 5.5
    assert _run(math_api["subtract"], a=2, b=3.5) == -1.5  # a - b, the declared order
    assert _run(math_api["multiply"], a=4, b=2.5) == 10
    assert _run(math_api["divide"], a=1, b=4) == 0.25
    assert _run(math_api["power"], base=2, exponent=10) == 1024
    assert _run(math_api["percentage"], part=1, whole=8) == 12.5
    assert _run(math_api["logarithm"], value=1000, base=10, precision=6) == 3.0
    assert _run(math_api["square_root"], number=2, precision=3) == 1.414
    assert _run(math_api["absolute_value"], number=-7.25) == 7.25
    assert _run(math_api["round_number"], number=2.71828, decimal_places=2) == 2.72
    assert _run(math_api["round_number"], number=2.71828) == 3
    numbers = [3, 1, 4, 1, 5, 9, 2, 6]
    assert _run(math_api["sum_values"], numbers=numbers) == 31
    assert _run(math_api["mean"], numbers=numbers) == 3.875
    assert _run(math_api["max_value"], numbers=numbers) == 9
    assert _run(math_api["min_value"], numbers=numbers) == 1
    got = _run(math_api["standard_deviation"], numbers=numbers)
    assert math.isclose(got, statistics.pstdev(numbers))


@pytest.mark.parametrize(
    ("tool", "arguments", "problem"),
    [
        ("divide", {"a": 1, "b": 0}, "division by zero"),
        ("square_root", {"number": -4, "precision": 2}, "negative"),
        ("logarithm", {"value": 0, "base": 10, "precision": 2}, "positive"),
        ("mean", {"numbers": []}, "empty"),
        ("sum_values", {"numbers": [1e308, 1e308]}, "too large"),
        ("multiply", {"a": 1e308, "b": 10}, "no finite number"),
    ],
)
def test_arguments_outside_an_operation_are_refused_by_name(
    math_api: dict[str, ToolSpec], tool: str, arguments: dict, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        evaluate(math_api[tool].vendor[STATELESS_KEY], arguments)


def test_named_unit_conversions_compute_and_answer_under_the_declared_key() -> None:
    tools = _tools("functions/bfcl_multi_turn/vehicle_control.json")
    to_litres = tools["gallon_to_liter"]
    assert to_litres.vendor[STATELESS_KEY]["result_key"] == "liter"  # BFCL's response key
    assert math.isclose(_run(to_litres, gallon=10), 37.85411784)
    assert math.isclose(_run(tools["liter_to_gallon"], liter=37.85411784), 10)
    # the car's other tools keep their state: they are not functions
    assert STATELESS_KEY not in tools["fillFuelTank"].vendor
    assert STATELESS_KEY not in tools["startEngine"].vendor


def test_tau_calculate_evaluates_arithmetic_and_nothing_else() -> None:
    calculate = _tools("functions/tau2/retail.json")["calculate"]
    assert calculate.vendor[STATELESS_KEY]["operation"] == "expression"
    assert _run(calculate, expression="(2 + 3) * 4 / -8") == -2.5
    hostile_inputs = ("__import__('os').system('true')", "2 ** 1000000", "x + 1", "[1] * 9")
    for hostile in (*hostile_inputs, "9" * 400, "1e308 * 10", "(" * 240 + "1" + ")" * 240):
        with pytest.raises(ValueError):
            evaluate(calculate.vendor[STATELESS_KEY], {"expression": hostile})
    # tau2 declares no output: a computation answers one number, marked inferred
    out = calculate.output_schema
    assert out is not None and out["required"] == ["result"] and INFERRED_KEY in out
    assert VENDOR_KEY in calculate.vendor


def test_think_and_hand_overs_are_stateless_with_nothing_to_compute() -> None:
    tau_bench = _tools("functions/tau_bench/retail.json")
    assert tau_bench["think"].vendor[STATELESS_KEY]["kind"] == "no_op"
    # tau-bench's hand-over carries no tag; tau2's and banking's are named otherwise
    handovers = [
        tau_bench["transfer_to_human_agents"],
        _tools("functions/tau2/retail.json")["transfer_to_human_agents"],
        _tools("functions/tau2/banking_knowledge.json")["request_human_agent_transfer"],
    ]
    for handover in handovers:
        assert handover.vendor[STATELESS_KEY]["kind"] == "handoff", handover.name
        assert handover.resource is None
    with pytest.raises(ValueError, match="nothing to compute"):
        evaluate(handovers[0].vendor[STATELESS_KEY], {"summary": "refund"})


def test_a_tool_its_publisher_calls_generic_is_stateless() -> None:
    document = GENERIC_DOCUMENT
    specs, _ = ingest_document(document, source_file="support.json")
    assert specs[0].vendor[STATELESS_KEY]["kind"] == "generic"
    assert specs[0].access == "read" and specs[0].access_source == "x-tool-type"


def test_the_expression_the_description_states_becomes_an_example() -> None:
    """tau's ``calculate``: "such as '2 + 2'" is the one expression the publisher vouches for;
    it is given as the parameter's JSON Schema example (the conformance suite calls with it)."""
    for path in ("functions/tau2/airline.json", "functions/tau_bench/retail.json"):
        node = _tools(path)["calculate"].input_schema["properties"]["expression"]
        assert node["examples"] == ["2 + 2"], path


def test_a_name_alone_does_not_make_a_function() -> None:
    # ``add_contact(user_name)``, ``add_to_watchlist(stock)``: the word, not the parameters
    assert (
        STATELESS_KEY
        not in _tools("functions/bfcl_multi_turn/message_api.json")["add_contact"].vendor
    )
    assert (
        STATELESS_KEY
        not in _tools("functions/bfcl_multi_turn/trading_bot.json")["add_to_watchlist"].vendor
    )


def test_stateless_functions_are_never_stored_as_records(math_api: dict[str, ToolSpec]) -> None:
    """The compiler must not turn ``sum_values`` into a collection of ``values``, nor store
    ``add``'s answers to look up: every math tool is compiled as a computation, and the
    service keeps no collection."""
    build = build_service(list(math_api.values()))
    assert build.compiled is not None and set(build.compiled.compiled_tools) == set(math_api)
    assert "self.state." not in build.compiled.source
    assert "compute(" in build.compiled.source


def test_an_operation_word_over_other_parameters_is_no_function() -> None:
    # ``git_add(repo_path, files)``: "add", but of files to a repository's index
    assert STATELESS_KEY not in _tools("mcp/livemcp/git.json")["git_add"].vendor


def test_an_answer_that_is_more_than_one_number_is_no_pure_function() -> None:
    # a calculator that also answers its running history keeps state between calls
    document = orjson.dumps(
        {
            "tools": [
                {
                    "name": "add",
                    "description": "Add two numbers and record the sum in the history.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                        "required": ["a", "b"],
                    },
                    "outputSchema": {
                        "type": "object",
                        "properties": {
                            "sum": {"type": "number"},
                            "history": {"type": "array", "items": {"type": "number"}},
                        },
                    },
                }
            ]
        }
    )
    specs, _ = ingest_document(document, source_file="calculator.json")
    assert [STATELESS_KEY in s.vendor for s in specs] == [False]
