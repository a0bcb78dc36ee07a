"""The tier cascade's rules (mutants of library/verify/build.py that survived the other tests,
bench/mutation.py), with a verifier and a coding agent that are stand-ins, so every branch is
reached in milliseconds: the compiler tier is asked only when it compiled something; each tool
gets one fate, with the reason of every tier that tried it; the coding agent's code is adopted
only when it keeps every tool the compiler verified and verifies more; a model outage is
recorded, not raised; and the compiler tier alone (``build_service``) says skipped, failed or
verified."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

import library.verify.build as build
from library.coding_agent.agent import AgentResult
from library.compiler import CompiledService
from library.llm import LLMError
from library.toolspec import SpecFormat, ToolSpec
from library.verify import CheckResult
from library.verify.build import (
    CODING_AGENT,
    COMPILER,
    NO_MODEL,
    NO_OUTPUT_SCHEMA,
    REJECTED,
    VERIFIED,
    WORLD_MODEL,
    Verdict,
    build_service,
    run_cascade,
)

OUTPUT = {"type": "object", "properties": {"id": {"type": "string"}}}


def _spec(name: str, output: dict | None = OUTPUT) -> ToolSpec:
    return ToolSpec(
        id=f"id-{name}",
        service="memos",
        name=name,
        input_schema={"type": "object", "properties": {}},
        output_schema=output,
        format=SpecFormat.MCP,
        source_file="memos.json",
        source_pointer=f"/tools/{name}",
        doc_hash="h",
        access="read",
    )


A, B, C = _spec("a"), _spec("b"), _spec("c", output=None)


def _verdict(code: str, passed: dict[str, bool | None], refused: str = "") -> Verdict:
    """Two checks per tool, the first failing with a detail naming the code; a tool whose
    verdict is None was not judged (no check at all)."""
    judged = {t: ok for t, ok in passed.items() if ok is not None}
    results = [
        CheckResult("memos", t, "schema", ok, "" if ok else f"{t} {code}")
        for t, ok in judged.items()
    ]
    results += [CheckResult("memos", t, "later", False, "second") for t in judged]
    return Verdict({t: bool(ok) for t, ok in passed.items()}, results, refused)


@dataclass
class Verifier:
    """Verdicts by code: ``{code: {tool: passed}}`` (False where not said); records what it
    was asked."""

    by_code: dict[str, dict[str, bool | None]]
    refused: dict[str, str] = field(default_factory=dict)
    asked: list[tuple[str, list[str]]] = field(default_factory=list)

    def __call__(self, code: str, specs: list[ToolSpec]) -> Verdict:
        self.asked.append((code, [s.name for s in specs]))
        passed = {s.name: self.by_code.get(code, {}).get(s.name, False) for s in specs}
        return _verdict(code, passed, self.refused.get(code, ""))


@dataclass
class Agent:
    """A coding agent that answers ``code`` after ``rounds`` rounds, or raises ``error``."""

    code: str | None
    rounds: int = 2
    error: Exception | None = None
    calls: list[tuple[str, str | None, list[str]]] = field(default_factory=list)
    checked: list[tuple[bool, list[str]]] = field(default_factory=list)

    def repair(self, service: str, specs: list[ToolSpec], code: str | None, check: Any) -> Any:
        self.calls.append((service, code, [s.name for s in specs]))
        if self.error is not None:
            raise self.error
        if self.code is not None:  # the agent judges its candidates with the cascade's check
            outcome = check(self.code)
            self.checked.append((outcome.passed, outcome.failures))
        return AgentResult(code=self.code, passed=False, rounds=self.rounds, transcript=[])


def _fates(cascade: Any) -> dict[str, tuple[str, str | None, str]]:
    return {f.tool: (f.status, f.tier, f.reason) for f in cascade.fates}


def test_nothing_compiled_asks_no_compiler_verdict() -> None:
    verify = Verifier({})
    skipped = {"a": "no record", "b": "no id"}
    for code, skips in (("", {}), ("module", skipped | {"c": "no output"})):
        cascade = run_cascade("memos", [A, B, C], code, skips, verify)
        assert cascade.compiler is None and cascade.checks == [] and verify.asked == []
        assert {f.status for f in cascade.fates} == {REJECTED}
    assert _fates(cascade)["a"] == (REJECTED, None, f"no record; {NO_MODEL}")


def test_each_tool_gets_the_compiler_fate_with_its_first_failure() -> None:
    verify = Verifier({"module": {"a": True}})
    cascade = run_cascade("memos", [A, B, C], "module", {"c": "no output"}, verify)
    assert verify.asked == [("module", ["a", "b"])]  # the skipped tool is not judged
    fates = _fates(cascade)
    assert fates["a"] == (VERIFIED, COMPILER, "")
    assert fates["b"] == (REJECTED, None, f"compiler: schema: b module; {NO_MODEL}")
    assert fates["c"] == (REJECTED, None, f"no output; {NO_MODEL}")
    assert cascade.verified == ["a"] and cascade.code == "module"
    assert {r["tier"] for r in cascade.checks} == {COMPILER} and len(cascade.checks) == 4
    assert cascade.compiler is not None and cascade.compiler.verified == {"a": True, "b": False}


def test_a_refused_verdict_keeps_its_own_reason() -> None:
    verify = Verifier({"module": {"a": True}}, refused={"module": "sandbox: killed"})
    fates = _fates(run_cascade("memos", [A, B], "module", {}, verify))
    assert fates["b"] == (REJECTED, None, f"sandbox: killed; {NO_MODEL}")


def test_a_world_model_takes_the_tools_left_that_have_an_output_schema() -> None:
    verify = Verifier({"module": {"a": True}})
    cascade = run_cascade(
        "memos", [A, B, C], "module", {"c": "no output"}, verify, world_model=True
    )
    fates = _fates(cascade)
    assert fates["a"] == (VERIFIED, COMPILER, "")
    assert fates["b"] == (WORLD_MODEL, WORLD_MODEL, "compiler: schema: b module")
    assert fates["c"] == (REJECTED, None, f"no output; {NO_OUTPUT_SCHEMA}")


def test_the_agents_code_is_adopted_when_it_keeps_all_and_verifies_more() -> None:
    verify = Verifier({"module": {"a": True}, "better": {"a": True, "b": True}})
    agent = Agent("better", rounds=3)
    cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=agent)
    assert agent.calls == [("memos", "module", ["a", "b"])]  # every tool, not only those left
    assert agent.checked == [(True, ["a: later: second", "b: later: second"])]
    assert cascade.code == "better" and cascade.attempts == 3
    fates = _fates(cascade)
    assert fates["a"] == (VERIFIED, COMPILER, "") and fates["b"] == (VERIFIED, CODING_AGENT, "")
    assert {r["tier"] for r in cascade.checks} == {CODING_AGENT}
    assert cascade.model_failure == ""


def test_the_agents_code_is_refused_when_it_loses_a_verified_tool() -> None:
    verify = Verifier({"module": {"a": True}, "other": {"b": True}})
    cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=Agent("other"))
    assert cascade.code == "module"
    fates = _fates(cascade)
    assert fates["a"] == (VERIFIED, COMPILER, "")
    # ``b`` verified in the agent's code, which is not adopted: still rejected
    assert fates["b"][0] == REJECTED
    assert fates["b"][2].startswith("compiler: schema: b module; coding agent: ")
    assert {r["tier"] for r in cascade.checks} == {COMPILER}


def test_the_agents_code_that_verifies_nothing_more_is_refused_with_its_failure() -> None:
    verify = Verifier({"module": {"a": True}, "same": {"a": True}})
    cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=Agent("same"))
    assert cascade.code == "module"
    assert _fates(cascade)["b"] == (
        REJECTED, None, f"compiler: schema: b module; coding agent: schema: b same; {NO_MODEL}",
    )  # fmt: skip


def test_an_agent_without_a_new_candidate_says_so() -> None:
    verify = Verifier({"module": {"a": True}})
    for answer in (None, "module"):
        cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=Agent(answer, rounds=2))
        why = _fates(cascade)["b"][2]
        assert why == (
            "compiler: schema: b module; "
            f"coding agent: no candidate verified more in 2 rounds; {NO_MODEL}"
        )
        assert cascade.attempts == 2 and cascade.code == "module"


def test_the_agents_check_passes_only_when_every_tool_verifies() -> None:
    verify = Verifier({"module": {"a": True}})
    agent = Agent("module")
    run_cascade("memos", [A, B], "module", {}, verify, agent=agent)
    assert agent.checked == [(False, ["b: schema: b module", "a: later: second"])]
    refused = Verifier({"module": {"a": True}}, refused={"bad": "load error: x"})
    agent = Agent("bad")
    cascade = run_cascade("memos", [A, B], "module", {}, refused, agent=agent)
    assert agent.checked == [(False, ["load error: x"])]
    assert _fates(cascade)["b"][2] == (
        f"compiler: schema: b module; coding agent: load error: x; {NO_MODEL}"
    )


def test_a_tool_no_check_judged_is_not_verified() -> None:
    verify = Verifier({"module": {"a": True, "b": None}, "better": {"a": True, "b": None}})
    cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=Agent("better"))
    assert _fates(cascade)["b"][2] == (
        f"compiler: not verified; coding agent: not verified; {NO_MODEL}"
    )
    bare = run_cascade("memos", [A, B], "", {}, verify, world_model=True)
    assert _fates(bare)["a"] == (WORLD_MODEL, WORLD_MODEL, "")  # no tier said anything
    assert _fates(run_cascade("memos", [A], "", {}, verify))["a"][2] == f"not verified; {NO_MODEL}"


def test_a_fate_carries_the_tools_id_and_access() -> None:
    verify = Verifier({"module": {"a": True}})
    for world_model in (False, True):
        cascade = run_cascade("memos", [A, B, C], "module", {}, verify, world_model=world_model)
        assert [(f.tool, f.tool_id, f.access) for f in cascade.fates] == [
            ("a", "id-a", "read"), ("b", "id-b", "read"), ("c", "id-c", "read"),
        ]  # fmt: skip
        assert cascade.attempts == 0 and cascade.model_failure == ""


def test_a_model_outage_is_recorded_not_raised() -> None:
    verify = Verifier({"module": {"a": True}})
    agent = Agent(None, error=LLMError("down, key sk-abcdefghijklmnopqrstuvwxyz0123"))
    cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=agent)
    assert cascade.model_failure.startswith("coding agent: LLMError: down")
    assert "sk-abcdefghijklmnopqrstuvwxyz0123" not in cascade.model_failure
    assert cascade.attempts == 0 and cascade.code == "module"
    assert _fates(cascade)["b"] == (REJECTED, None, f"compiler: schema: b module; {NO_MODEL}")


def test_the_agent_is_asked_only_for_the_tools_left() -> None:
    verify = Verifier({"module": {"a": True, "b": True}})
    agent = Agent("better")
    cascade = run_cascade("memos", [A, B], "module", {}, verify, agent=agent)
    assert agent.calls == [] and cascade.verified == ["a", "b"]
    nothing = Agent("better")
    run_cascade(
        "memos", [A], "", {"a": "no record"}, Verifier({"better": {"a": True}}), agent=nothing
    )
    assert nothing.calls == [("memos", None, ["a"])]  # no compiled code: the agent starts from none


def test_the_first_failure_of_each_tool_is_its_first_failing_check() -> None:
    verdict = Verdict(
        {"a": False, "b": False, "c": True},
        [
            CheckResult("s", "a", "one", True),
            CheckResult("s", "a", "two", False, "bad"),
            CheckResult("s", "a", "three", False, "worse"),
            CheckResult("s", "b", "one", False),
            CheckResult("s", "c", "one", True),
        ],
    )
    assert verdict.first_failures() == {"a": "two: bad", "b": "one: failed"}
    assert [r["check"] for r in verdict.rows()] == ["one", "two", "three", "one", "one"]


def _compiler(
    monkeypatch: pytest.MonkeyPatch, source: str, tools: list[str], skipped: dict[str, str]
) -> None:
    def compile_service(specs: list[ToolSpec]) -> CompiledService:
        return CompiledService("memos", source, "hash", tools, skipped)

    monkeypatch.setattr(build, "compile_service", compile_service)


def test_the_compiler_tier_alone_says_verified_skipped_or_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _compiler(monkeypatch, "module", ["a", "b"], {"c": "no output"})
    verify = Verifier({"module": {"a": True}})
    monkeypatch.setattr(build, "verify_in_process", lambda seed: verify)
    out = build_service([A, B, C, _spec("d")])
    assert {t: (o.outcome, o.reason) for t, o in out.outcomes.items()} == {
        "a": ("verified", ""),
        "b": ("failed", "schema: b module"),
        "c": ("skipped", "no output"),
        "d": ("skipped", "not planned by the compiler"),
    }
    assert out.verified == ["a"] and len(out.results) == 4
    assert verify.asked == [("module", ["a", "b"])]
    assert out.rows()[2] == {
        "service": "memos", "tool": "c", "outcome": "skipped", "reason": "no output",
    }  # fmt: skip


def test_a_compiler_bug_fails_every_tool_of_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    _compiler(monkeypatch, "raise SyntaxError('nope')\n", ["a", "b"], {})
    out = build_service([A, B])
    why = "compiler error: load error: SyntaxError: nope"
    assert {t: (o.outcome, o.reason) for t, o in out.outcomes.items()} == {
        "a": ("failed", why), "b": ("failed", why),
    }  # fmt: skip
    assert out.verified == [] and out.results == [] and out.compiled is not None

    def crash(specs: list[ToolSpec]) -> CompiledService:
        raise RuntimeError("planner crashed")

    monkeypatch.setattr(build, "compile_service", crash)
    out = build_service([A, B])
    why = "compiler error: RuntimeError: planner crashed"
    assert [(o.outcome, o.reason) for o in out.outcomes.values()] == [("failed", why)] * 2
    assert out.compiled is None
