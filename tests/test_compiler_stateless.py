"""Stateless functions (BFCL's math API, tau's calculate / think / hand-over) compiled as tools
that compute their answer from the arguments, with library.runtime.compute, keep nothing, and
are checked against the reference evaluator by the conformance suite."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.ingest.stateless import REASON, STATELESS_KEY
from library.runtime import Service, State, World, tool
from library.runtime.world import qualified
from library.toolspec import ToolSpec
from library.verify import build_service
from library.verify.conformance import run_conformance, verified_tools
from tests.test_ingest_infer_stateless import GENERIC_DOCUMENT

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


def _specs(relative: str) -> list[ToolSpec]:
    specs, _ = ingest_document(SPECS / relative)
    return specs


@pytest.fixture(scope="module")
def math_api() -> list[ToolSpec]:
    return _specs("functions/bfcl_multi_turn/math_api.json")


def _call(cls: type[Service], name: str, **arguments: object) -> dict:
    world = World([cls()], seed=0)
    return world.call(qualified(cls.name, name), arguments)


def test_every_math_tool_is_computed_and_verified(math_api: list[ToolSpec]) -> None:
    build = build_service(math_api)
    assert sorted(build.verified) == sorted(s.name for s in math_api)
    checks = {r.check for r in build.results if r.tool == "divide"}
    assert "computed" in checks  # the answer was compared with the reference evaluator
    source = build.compiled.source if build.compiled else ""
    assert "library.ingest" not in source  # generated code imports the runtime only
    assert "from library.runtime.compute import compute" in source


def test_answers_are_computed_for_arguments_never_seen(math_api: list[ToolSpec]) -> None:
    cls = load_service(compile_service(math_api).source)
    assert not cls.State.collection_types  # nothing stored
    assert _call(cls, "add", a=1234.5, b=0.25) == {"success": True, "data": {"result": 1234.75}}
    root = _call(cls, "square_root", number=2, precision=4)["data"]["result"]
    assert root == 1.4142
    km = _call(cls, "si_unit_conversion", value=5, unit_in="mile", unit_out="km")
    assert math.isclose(km["data"]["result"], 8.04672)
    refused = _call(cls, "divide", a=1, b=0)
    assert refused["success"] is False
    assert refused["error"]["code"] == "invalid_argument"
    assert "division by zero" in refused["error"]["message"]
    unknown = _call(cls, "imperial_si_conversion", value=1, unit_in="m", unit_out="parsec-ish")
    assert unknown["error"]["code"] == "invalid_argument"


def test_tau_calculate_think_and_hand_over_compile_and_verify() -> None:
    specs = _specs("functions/tau_bench/retail.json")
    build = build_service(specs)
    for name in ("calculate", "think", "transfer_to_human_agents"):
        assert name in build.verified, build.outcomes[name]
    assert build.compiled is not None
    cls = load_service(build.compiled.source)
    assert _call(cls, "calculate", expression="(2 + 3) * 4")["data"] == {"result": 20.0}
    hostile = _call(cls, "calculate", expression="__import__('os').getcwd()")
    assert hostile["error"]["code"] == "invalid_argument"
    assert _call(cls, "think", thought="the order is pending")["data"] == ""


def test_a_function_with_nothing_to_compute_is_rejected_with_its_reason() -> None:
    # a publisher's ``generic`` tool: stateless, but no operation the compiler can compute
    document = GENERIC_DOCUMENT
    specs, _ = ingest_document(document, source_file="support.json")
    assert specs[0].vendor[STATELESS_KEY]["kind"] == "generic"
    assert compile_service(specs).skipped == {"log_feedback": REASON}


class _WrongState(State):
    pass


class _WrongMath(Service):
    """A hand-written (or model-written) service whose ``add`` subtracts."""

    name = "math_api"
    State = _WrongState
    state: _WrongState

    @tool
    def add(self, a: float, b: float) -> dict[str, float]:
        """Add two numbers."""
        return {"result": a - b}


def test_conformance_catches_a_function_that_answers_the_wrong_number(
    math_api: list[ToolSpec],
) -> None:
    add = [s for s in math_api if s.name == "add"]
    results = run_conformance(_WrongMath, add)
    assert verified_tools(results) == {"add": False}
    failed = [r for r in results if not r.passed]
    assert [r.check for r in failed] == ["computed"]
