"""The coding agent's repair loop with scripted model replies through litellm, a real (if
simple) verifier, and the fallback of tools that never pass to the world model."""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Iterator

import orjson
import pytest

from library.coding_agent import (
    RUNTIME_API,
    CodingAgent,
    CodingAgentSettings,
    VerifyOutcome,
    extract_code,
)
from library.llm import LLMClient, MemoryCallStore
from library.llm.testing import ScriptedModel
from library.runtime import Service, ToolDef, World
from library.toolspec import SpecFormat, ToolSpec, Verb, tool_id
from library.world_model import with_simulated_tools

SERVICE = "memo"

GOOD = '''\
"""Memos: short notes with a title."""

from __future__ import annotations

from library.runtime import DateTime, Record, Ref, Service, State, paginate, tool


class Memo(Record):
    title: str
    body: str
    created_at: DateTime


class MemoState(State):
    memos: dict[str, Memo] = {}


class MemoService(Service):
    name = "memo"
    description = "Short notes with a title."
    State = MemoState
    state: MemoState

    @tool(write=True)
    def create_memo(self, title: str, body: str) -> Memo:
        """Create a memo.

        Args:
            title: The memo's title.
            body: The memo's text.
        """
        memo = Memo(id=self.new_id("memo"), title=title, body=body, created_at=self.now())
        return self.put("memos", memo)

    @tool
    def get_memo(self, memo_id: Ref["memos"]) -> Memo:
        """Get one memo by id.

        Args:
            memo_id: The memo's id.
        """
        return self.get("memos", memo_id)

    @tool
    def list_memos(self, limit: int = 50) -> list[Memo]:
        """List memos, oldest first.

        Args:
            limit: Page size, 1 to 500.
        """
        return paginate(self.state.memos.values(), limit)
'''

# The same module without list_memos: a candidate that fails verification.
MISSING_LIST = GOOD[: GOOD.index("    @tool\n    def list_memos")].rstrip() + "\n"
EXPECTED = ("create_memo", "get_memo", "list_memos")
_names = itertools.count()


def fenced(code: str) -> str:
    return f"Here is the module.\n\n```python\n{code}```\n"


def load(code: str) -> types.ModuleType:
    """Exec generated code as a module (registered while loading, so pydantic can resolve
    the module's postponed annotations)."""
    module = types.ModuleType(f"generated_{next(_names)}")
    sys.modules[module.__name__] = module
    try:
        exec(compile(code, f"<{module.__name__}>", "exec"), module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    return module


def service_class(module: types.ModuleType) -> type[Service] | None:
    for value in vars(module).values():
        is_service = isinstance(value, type) and issubclass(value, Service)
        if is_service and value is not Service and getattr(value, "name", None) == SERVICE:
            return value
    return None


def verify(code: str) -> VerifyOutcome:
    """Test scaffolding for the sandboxed conformance suite: load the module, check the
    service and its tools exist, and call each through a World."""
    try:
        cls = service_class(load(code))
    except Exception as exc:
        return VerifyOutcome(passed=False, failures=[f"import failed: {type(exc).__name__}: {exc}"])
    if cls is None:
        return VerifyOutcome(passed=False, failures=[f"no Service subclass named {SERVICE!r}"])
    failures = [f"missing tool {name}" for name in EXPECTED if name not in cls.tools]
    world = World([cls()])
    calls = {
        "create_memo": lambda: world.call("memo__create_memo", {"title": "T", "body": "B"}),
        "get_memo": lambda: world.call("memo__get_memo", {"memo_id": created["data"]["id"]}),
        "list_memos": lambda: world.call("memo__list_memos", {}),
    }
    created: dict = {}
    for name, call in calls.items():
        if name not in cls.tools or (name == "get_memo" and not created.get("success")):
            continue
        envelope = call()
        if name == "create_memo":
            created = envelope
        if not envelope["success"]:
            failures.append(f"{name} failed: {envelope['error']['message']}")
    return VerifyOutcome(passed=not failures, failures=failures)


def spec_from(td: ToolDef, verb: Verb) -> ToolSpec:
    """The spec ingestion would produce for a tool (schemas derived from the code)."""
    return ToolSpec(
        id=tool_id(SERVICE, td.name, td.description, td.input_schema, td.output_schema),
        service=SERVICE,
        name=td.name,
        description=td.description,
        input_schema=td.input_schema,
        output_schema=td.output_schema,
        format=SpecFormat.MCP,
        source_file="memo.json",
        source_pointer=f"/tools/{td.name}",
        doc_hash="test",
        resource="memos",
        verb=verb,
        access="write" if td.write else "read",
    )


REFERENCE = service_class(load(GOOD))
assert REFERENCE is not None
VERBS = {"create_memo": Verb.CREATE, "get_memo": Verb.READ, "list_memos": Verb.LIST}
SPECS = [spec_from(REFERENCE.tools[name], VERBS[name]) for name in EXPECTED]


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as server:
        yield server


def agent_for(model: ScriptedModel, store: MemoryCallStore, rounds: int = 3) -> CodingAgent:
    return CodingAgent(LLMClient(model.settings(), store), CodingAgentSettings(max_rounds=rounds))


def test_the_verifier_scaffold_tells_good_from_broken() -> None:
    assert verify(GOOD).passed
    assert verify(MISSING_LIST).failures == ["missing tool list_memos"]


def test_success_at_the_first_try(model: ScriptedModel) -> None:
    model.add(fenced(GOOD))
    result = agent_for(model, MemoryCallStore()).repair(SERVICE, SPECS, None, verify)
    assert result.passed and result.rounds == 1 and result.code == GOOD
    assert model.hits == 1
    (round_1,) = result.transcript
    assert round_1.passed and not round_1.replayed and round_1.prompt_tokens

    prompt = model.prompt_text(0)
    assert "Write the service `memo`" in prompt
    assert '"name": "create_memo"' in prompt and '"x-ref": "memos"' in prompt  # spec JSON
    assert RUNTIME_API.splitlines()[0] in prompt and "self.new_id(prefix)" in prompt
    assert "class Crm(Service):" in prompt  # the exemplar
    assert "None yet: write the module from scratch." in prompt


def test_success_after_one_repair_round(model: ScriptedModel) -> None:
    model.add(fenced(MISSING_LIST), fenced(GOOD))
    result = agent_for(model, MemoryCallStore()).repair(SERVICE, SPECS, None, verify)
    assert result.passed and result.rounds == 2 and result.code == GOOD
    first, second = result.transcript
    assert not first.passed and first.failures == ["missing tool list_memos"]
    assert second.passed
    # The second prompt shows the failing code and what verification said about it.
    prompt = model.prompt_text(1)
    assert "## Verification failures of the current code" in prompt
    assert "1. missing tool list_memos" in prompt
    assert "def get_memo" in prompt and "Round 2 of 3" in prompt


def test_persistent_failure_gives_up_after_k_rounds(model: ScriptedModel) -> None:
    model.add(fenced(MISSING_LIST), "I cannot do that.", fenced("class Broken(:\n    pass\n"))
    result = agent_for(model, MemoryCallStore(), rounds=3).repair(SERVICE, SPECS, None, verify)
    assert not result.passed and result.rounds == 3 and model.hits == 3
    assert [r.passed for r in result.transcript] == [False, False, False]
    assert result.transcript[1].failures[0].startswith("the reply contained no ```python")
    assert result.transcript[2].failures[0].startswith("SyntaxError")
    # The best candidate (fewest failures) comes back, with its failures.
    assert result.code == MISSING_LIST and result.failures == ["missing tool list_memos"]
    assert "SyntaxError" in model.prompt_text(-1) or "no ```python" in model.prompt_text(-1)


def test_persistent_failure_falls_back_to_the_world_model(model: ScriptedModel) -> None:
    model.add(*[fenced(MISSING_LIST)] * 2)
    store = MemoryCallStore()
    result = agent_for(model, store, rounds=2).repair(SERVICE, SPECS, None, verify)
    assert not result.passed and result.code is not None
    best = service_class(load(result.code))
    assert best is not None
    still_failing = [s for s in SPECS if s.name not in best.tools]
    assert [s.name for s in still_failing] == ["list_memos"]

    # The tools that never passed are simulated; the others keep the generated code.
    cls = with_simulated_tools(best, still_failing, LLMClient(model.settings(), store))
    world = World([cls()])
    created = world.call("memo__create_memo", {"title": "Plan", "body": "Ship it"})
    assert created["success"]
    memo = created["data"]
    model.add(orjson.dumps({"result": [memo], "state_patch": []}).decode())
    listed = world.call("memo__list_memos", {"limit": 10})
    assert listed == {"success": True, "data": [memo]}
    assert "world_model/memo/list_memos" in [r.purpose for r in store.records]


def test_current_code_that_passes_needs_no_model(model: ScriptedModel) -> None:
    result = agent_for(model, MemoryCallStore()).repair(SERVICE, SPECS, GOOD, verify)
    assert result.passed and result.rounds == 0 and result.code == GOOD
    assert model.hits == 0


def test_current_code_and_its_failures_are_in_the_first_prompt(model: ScriptedModel) -> None:
    model.add(fenced(GOOD))
    result = agent_for(model, MemoryCallStore()).repair(SERVICE, SPECS, MISSING_LIST, verify)
    assert result.passed and result.rounds == 1
    prompt = model.prompt_text(0)
    assert "## Current code" in prompt and "def create_memo" in prompt
    assert "1. missing tool list_memos" in prompt


def test_a_rerun_with_the_same_inputs_replays_every_round(model: ScriptedModel) -> None:
    model.add(fenced(MISSING_LIST), fenced(GOOD))
    store = MemoryCallStore()
    first = agent_for(model, store).repair(SERVICE, SPECS, None, verify)
    assert model.hits == 2
    # The script is empty now: any model call would fail.
    rerun = agent_for(model, store).repair(SERVICE, SPECS, None, verify)
    assert model.hits == 2
    assert rerun.passed and rerun.code == first.code and rerun.rounds == 2
    assert all(r.replayed for r in rerun.transcript)
    assert [r.call_id for r in rerun.transcript] == [r.call_id for r in first.transcript]


def test_a_crashing_verifier_is_a_failure_not_a_crash(model: ScriptedModel) -> None:
    model.add(fenced(GOOD), fenced(GOOD))

    def boom(code: str) -> VerifyOutcome:
        raise RuntimeError("sandbox died")

    result = agent_for(model, MemoryCallStore(), rounds=2).repair(SERVICE, SPECS, None, boom)
    assert not result.passed
    assert result.transcript[0].failures == ["verifier raised RuntimeError: sandbox died"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("```python\nx = 1\n```", "x = 1\n"),
        ("```py\nclass A: pass\n```", "class A: pass\n"),
        ("text\n```\nclass A: pass\n```\nmore", "class A: pass\n"),
        ("```python\na = 1\n```\n```python\nclass Longer: pass\n```", "class Longer: pass\n"),
        ("class Bare:\n    pass", "class Bare:\n    pass\n"),
        ("No code at all.", None),
        ("class broken(:", None),
    ],
)
def test_extract_code(reply: str, expected: str | None) -> None:
    assert extract_code(reply) == expected
