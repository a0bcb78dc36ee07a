"""One tier cascade (``library.verify.build.run_cascade``) for production and tests, and its
coding-agent tier end to end over HTTP: the build stage against a scripted OpenAI-compatible
server on 127.0.0.1 through litellm, with rate limits, timeouts, malformed answers and an
outage."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from library.coding_agent import CodingAgentSettings
from library.coding_agent.agent import NO_CODE
from library.llm.testing import ScriptedModel
from library.verify import build_service
from tasks.build import BuildSettings, build_services, current_specs
from tasks.ingest import bundled_corpus, ingest_paths
from warehouse import Warehouse

from .test_build import GOOD_MEMOS, fence, memos_warehouse, tools_table

AGENT = CodingAgentSettings(max_rounds=2)


@pytest.fixture
def memos_wh(tmp_path: Path) -> Warehouse:
    """Memos: the compiler verifies what it can; score_memo is left to the coding agent."""
    return memos_warehouse(tmp_path)


def slow(body: dict) -> str:
    """An answer that comes after the client has given up."""
    time.sleep(1.5)
    return fence(GOOD_MEMOS)


def test_production_and_the_compiler_tests_run_the_same_cascade(tmp_path: Path) -> None:
    """The build stage (sandboxed verifier) and ``library.verify.build_service`` (in process)
    reach the same verdict on every tool and every check of a service."""
    path = bundled_corpus() / "mcp" / "mail.json"
    wh = Warehouse(tmp_path / "wh")
    ingest_paths([str(path)], wh.root)
    build_services(wh, BuildSettings(llm=BuildSettings().llm.model_copy(update={"model": None})))
    production = {
        r["tool"]: (r["status"], r["tier"])
        for r in wh.query("select tool, status, tier from service_tools").to_pylist()
    }
    production_checks = sorted(
        (r["tool"], r["check"], r["passed"], r["detail"])
        for r in wh.query('select tool, "check", passed, detail from service_checks').to_pylist()
    )
    (specs,) = current_specs(wh).values()
    in_process = build_service(specs)
    assert set(in_process.verified) == {t for t, (s, _) in production.items() if s == "verified"}
    assert all(tier in ("compiler", None) for _, tier in production.values())
    assert sorted((r.tool, r.check, r.passed, r.detail) for r in in_process.results) == (
        production_checks
    )


def test_the_coding_agent_gets_through_rate_limits_timeouts_and_malformed_answers(
    memos_wh: Warehouse,
) -> None:
    no_choices = (200, {"id": "chatcmpl-x", "object": "chat.completion", "choices": []})
    replies = [
        429,
        slow,
        no_choices,
        "Happy to help! A memo scores by its length.",  # an answer without code
        fence(GOOD_MEMOS),
    ]
    with ScriptedModel(replies) as model:
        settings = BuildSettings(llm=model.settings(timeout_s=1.0), coding=AGENT)
        summary = build_services(memos_wh, settings)
        assert model.hits == 5
        # The reply without code was answered by saying so, in the second round's prompt.
        assert NO_CODE in json.dumps(model.requests[-1]["messages"])
    assert summary.model_failures == {}
    tools = tools_table(memos_wh)
    assert tools["score_memo"]["status"] == "verified"
    assert tools["score_memo"]["tier"] == "coding_agent"
    calls = memos_wh.query(
        "select attempt, error from llm_calls where purpose = 'coding_agent/memos' "
        "order by created_at"
    ).to_pylist()
    errors = [c["error"] or "" for c in calls]
    assert len(calls) == 5 and [c["attempt"] for c in calls] == [1, 2, 3, 4, 1]
    assert "RateLimitError" in errors[0] and "Timeout" in errors[1]
    assert "EmptyResponse" in errors[2] and errors[3:] == ["", ""]


def test_a_model_outage_leaves_the_service_for_the_next_run(memos_wh: Warehouse) -> None:
    with ScriptedModel([503, 503]) as down:
        settings = BuildSettings(llm=down.settings(max_retries=1), coding=AGENT)
        summary = build_services(memos_wh, settings)
        assert down.hits == 2
    assert list(summary.model_failures) == ["memos"]
    assert "ServiceUnavailableError" in summary.model_failures["memos"]
    # Nothing written: the compiler's verdict alone would pass for the whole build.
    assert memos_wh.count("services") == 0 and memos_wh.count("service_tools") == 0
    with ScriptedModel([fence(GOOD_MEMOS)]) as back:
        again = build_services(memos_wh, BuildSettings(llm=back.settings(), coding=AGENT))
        assert back.hits == 1
    assert again.services_built == 1 and again.model_failures == {}
    assert tools_table(memos_wh)["score_memo"]["tier"] == "coding_agent"
