"""The build stage end to end: specs in the warehouse -> services verified in sandboxes, with
the coding-agent tier driven by a scripted model through the real litellm path."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
import pytest

from library.coding_agent import CodingAgentSettings
from library.llm.testing import ScriptedModel
from tasks.build import BuildSettings, build_services, current_specs
from tasks.ingest import bundled_corpus, ingest_paths
from warehouse import Warehouse

from .conftest import SHARED_SPECS
from .test_sandbox import sandbox_workers

MEMO_ID_INPUT = {
    "type": "object",
    "properties": {"memo_id": {"type": "string", "description": "The memo's id."}},
    "required": ["memo_id"],
}


def score_output(id_field: str, why_field: str, top: int) -> dict:
    """The output schema of a tool that scores a record: a judgment, not a record."""
    return {
        "type": "object",
        "properties": {
            id_field: {"type": "string"},
            "score": {"type": "integer", "minimum": 0, "maximum": top},
            why_field: {"type": "string"},
        },
        "required": [id_field, "score", why_field],
    }


MEMOS_SPEC = {
    "tools": [
        {
            "name": "create_memo",
            "description": "Create a memo.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "Title of the memo."},
                    "body": {"type": "string", "description": "Text of the memo."},
                },
                "required": ["title"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["id", "title"],
            },
        },
        {
            "name": "get_memo",
            "description": "Get a memo by id.",
            "inputSchema": MEMO_ID_INPUT,
            "outputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["id", "title"],
            },
        },
        {
            "name": "count_memos",
            "description": "Count the memos in the workspace.",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {
                "type": "object",
                "properties": {"count": {"type": "integer"}},
                "required": ["count"],
            },
        },
        {
            # A judgment, not a record: left to the coding agent (the compiler finds no record
            # it reads, nor a verb it knows).
            "name": "score_memo",
            "description": "Score a memo.",
            "inputSchema": MEMO_ID_INPUT,
            "outputSchema": score_output("memo_id", "reason", top=10),
            "annotations": {"readOnlyHint": True},
        },
    ]
}

GOOD_MEMOS = '''
"""Memos, written by the (scripted) coding agent."""

import random

from pydantic import BaseModel, Field

from library.runtime import ErrorCode, Record, Ref, Service, State, ToolError, tool
from library.seed import SeedPool

MemoId = Ref["memos"]


class Memo(Record):
    title: str
    body: str = ""


class Count(BaseModel):
    count: int


class Score(BaseModel):
    memo_id: str
    score: int = Field(ge=0, le=10)
    reason: str


class MemosState(State):
    memos: dict[str, Memo] = {}


class Memos(Service):
    name = "memos"
    description = "Short memos."
    State = MemosState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> MemosState:
        self.state = MemosState()
        for person in pool.people[: max(1, size)]:
            self.put("memos", Memo(id=self.new_id("memo"), title=f"Call {person.full_name}"))
        return self.state

    @tool(write=True)
    def create_memo(self, title: str, body: str = "") -> Memo:
        """Create a memo.

        Args:
            title: Title of the memo.
            body: Text of the memo.
        """
        if not title.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "title: must not be empty")
        return self.put("memos", Memo(id=self.new_id("memo"), title=title, body=body))

    @tool
    def get_memo(self, memo_id: MemoId) -> Memo:
        """Get a memo by id.

        Args:
            memo_id: The memo's id.
        """
        return self.get("memos", memo_id)

    @tool
    def count_memos(self) -> Count:
        """Count the memos in the workspace."""
        return Count(count=len(self.state.memos))

    @tool
    def score_memo(self, memo_id: MemoId) -> Score:
        """Score a memo.

        Args:
            memo_id: The memo's id.
        """
        memo = self.get("memos", memo_id)
        words = len(f"{memo.title} {memo.body}".split())
        return Score(memo_id=memo.id, score=min(10, words), reason=f"{words} words")
'''

BROKEN_MEMOS = GOOD_MEMOS.replace("return Score(memo_id=memo.id,", "return 'high'  # (")


def fence(code: str) -> str:
    return f"Here is the service.\n```python\n{code}\n```"


def memos_warehouse(root: Path) -> Warehouse:
    """A warehouse under ``root`` with the memos spec ingested."""
    spec = root / "specs" / "memos.json"
    spec.parent.mkdir()
    spec.write_bytes(orjson.dumps(MEMOS_SPEC))
    wh = Warehouse(root / "wh")
    ingest_paths([str(spec)], wh.root)
    return wh


@pytest.fixture
def memos_wh(tmp_path: Path) -> Warehouse:
    return memos_warehouse(tmp_path)


def tools_table(wh: Warehouse) -> dict[str, dict]:
    return {r["tool"]: r for r in wh.query("select * from service_tools").to_pylist()}


def test_bundled_services_build_verify_and_rerun_adds_nothing(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    ingest_paths(
        [str(bundled_corpus() / "openapi" / n) for n in ("crm.yaml", "helpdesk.yaml")], wh.root
    )
    summary = build_services(
        wh, BuildSettings(llm=BuildSettings().llm.model_copy(update={"model": None}))
    )
    specs = current_specs(wh)
    assert summary.services_built == 2 and set(specs) == {"crm", "helpdesk"}
    # The build records which sandbox layers held (the allowlist and dropped capabilities
    # need only seccomp and prctl, which every supported kernel has).
    held = summary.to_dict()["sandbox_protections"]
    assert held["seccomp_allowlist"] and held["no_capabilities"] and held["no_new_privs"]
    rows = wh.query("select service, tool, status, tier, reason from service_tools").to_pylist()
    assert Counter((r["service"], r["tool"]) for r in rows) == Counter(
        (s.service, s.name) for group in specs.values() for s in group
    )  # every tool exactly once
    for r in rows:
        assert r["status"] in ("verified", "rejected")
        assert (r["tier"] == "compiler") == (r["status"] == "verified")
        assert r["status"] == "verified" or "no model configured" in r["reason"]
    assert sum(r["status"] == "verified" for r in rows) / len(rows) >= 0.9
    services = wh.query("select name, status, code from services").to_pylist()
    assert {s["name"] for s in services} == {"crm", "helpdesk"}
    assert all("class " in s["code"] for s in services)
    checks = wh.count("service_checks")
    assert checks > 0
    again = build_services(wh)
    assert again.services_built == 0 and again.services_skipped == 2
    assert wh.count("service_tools") == len(rows) and wh.count("service_checks") == checks


def test_every_tool_of_real_specs_ends_in_exactly_one_outcome(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    # Specs nobody here wrote (the bundled corpus is built by the compiler tests): every third
    # document of ../shared/specs, every format, and both airlines (the same service name in
    # two documents). A worker per service makes the whole set a minute of CPU; the coverage
    # over all of it is bench/real_specs.py's figure.
    documents = sorted(SHARED_SPECS.rglob("*.json"))
    chosen = documents[::3] + [d for d in documents if d.stem == "airline"]
    assert {d.relative_to(SHARED_SPECS).parts[0] for d in chosen} == {"openapi", "functions", "mcp"}
    ingest_paths(sorted({str(d) for d in chosen}), wh.root)
    summary = build_services(
        wh, BuildSettings(llm=BuildSettings().llm.model_copy(update={"model": None}))
    )
    assert summary.to_dict()["tools"] > 200
    assert sandbox_workers() == []  # the build left no worker process behind
    tools = wh.query("select service, tool, status, tier, reason from service_tools").to_pylist()
    specs = current_specs(wh)
    assert Counter((t["service"], t["tool"]) for t in tools) == Counter(
        (s.service, s.name) for group in specs.values() for s in group
    )
    assert "tau_bench_airline" in specs or "tau2_airline" in specs  # same name, kept apart
    for t in tools:
        if t["status"] == "verified":
            assert t["tier"] == "compiler"
        else:
            assert t["status"] == "rejected" and t["reason"]
    verified = sum(t["status"] == "verified" for t in tools)
    assert 0 < verified < len(tools)


def test_coding_agent_implements_what_the_compiler_skipped(memos_wh: Warehouse) -> None:
    with ScriptedModel([fence(GOOD_MEMOS)]) as model:
        settings = BuildSettings(llm=model.settings(), coding=CodingAgentSettings(max_rounds=2))
        summary = build_services(memos_wh, settings)
        assert len(model.requests) == 1
        prompt = json.dumps(model.requests[0]["messages"])
        assert "score_memo" in prompt  # the spec the compiler could not express
    tools = tools_table(memos_wh)
    assert tools["score_memo"]["status"] == "verified"
    assert tools["score_memo"]["tier"] == "coding_agent"
    assert tools["create_memo"]["tier"] == "compiler"
    assert summary.to_dict()["tiers"][1]["verified"] == 1
    code = memos_wh.query("select code, tier from services").to_pylist()[0]
    assert "def score_memo" in code["code"] and code["tier"] == "mixed"
    assert memos_wh.count("llm_calls") == 1


def test_persistent_failure_falls_back_to_the_world_model(memos_wh: Warehouse) -> None:
    with ScriptedModel([fence(BROKEN_MEMOS), fence(BROKEN_MEMOS)]) as model:
        settings = BuildSettings(llm=model.settings(), coding=CodingAgentSettings(max_rounds=2))
        build_services(memos_wh, settings)
        assert len(model.requests) == 2
        second = json.dumps(model.requests[1]["messages"])
        assert "score_memo" in second  # the failure was fed back
    tools = tools_table(memos_wh)
    assert tools["score_memo"]["status"] == "world_model"
    assert tools["create_memo"]["status"] == "verified"
    assert memos_wh.count("llm_calls") == 2


def test_a_rebuild_replays_recorded_model_answers(memos_wh: Warehouse, tmp_path: Path) -> None:
    with ScriptedModel([fence(GOOD_MEMOS)]) as model:
        settings = BuildSettings(llm=model.settings(), coding=CodingAgentSettings(max_rounds=2))
        build_services(memos_wh, settings)
    # Same inputs, a fresh copy of the results tables: the model is not called again.
    for table in ("services", "service_tools", "service_checks"):
        for f in (memos_wh.root / table).rglob("*.parquet"):
            f.unlink()
    with ScriptedModel([]) as silent:
        build_services(memos_wh, BuildSettings(llm=silent.settings(), coding=settings.coding))
        assert silent.requests == []
    assert tools_table(memos_wh)["score_memo"]["tier"] == "coding_agent"
