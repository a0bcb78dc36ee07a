"""The world-model tier wired end to end, over HTTP: the build marks the tools no tier could
verify ``world_model`` (the coding agent's model answered without code), composition makes
tasks over those services, and a rollout of a composed task calls a world-model tool. The
scripted model server on 127.0.0.1 answers both the agent and the world model through
litellm, with a rate limit, a timeout and malformed answers on the way; the answer's patch is
validated in the parent, the accepted state lands in the service's sandbox worker, and a
second run with the server stopped is answered from the answer cache."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from library.coding_agent import CodingAgentSettings
from library.compose import Task
from library.llm import LLMClient, MemoryCallStore
from library.llm.testing import ScriptedModel
from library.rollout import RolloutSettings
from library.world_model import DirectoryAnswerCache
from library.world_model.prompt import SYSTEM as WORLD_MODEL_SYSTEM
from library.world_model.remote import SandboxedWorldModel
from tasks.build import BuildSettings, build_services, current_specs
from tasks.compose import compose_stage
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.library_view import built_services, env_pool
from tasks.llm_store import WarehouseCallStore
from tasks.rollout import load_tasks, rollout_stage
from warehouse import Warehouse

from .test_build import score_output

RATIONALE = "A mid-sized company with a named buyer."
# A judgment no state can compute, added to the bundled CRM: a read of something that is not
# a record, which the publisher declares a write (``x-tool-type``, as tau2 does) since it also
# moves the lead on. The compiler cannot express it (its output is not a lead record).
SCORE_LEAD = {
    "get": {
        "operationId": "score_lead",
        "x-tool-type": "write",
        "summary": "Score a lead",
        "description": "Scores a lead from 0 to 100 by the sales team's judgment of its fit, "
        "and moves it on to working (or nurturing, for a weak fit).",
        "parameters": [
            {
                "name": "lead_id",
                "in": "path",
                "required": True,
                "description": "Unique identifier of the lead.",
                "schema": {"type": "string"},
            }
        ],
        "responses": {
            "200": {
                "description": "The score.",
                "content": {
                    "application/json": {"schema": score_output("lead_id", "rationale", top=100)}
                },
            }
        },
    }
}


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """CRM (with ``score_lead``) and mail, built with a model configured: the coding agent's
    answers hold no code, so what the compiler could not do goes to the world model. Then
    composed."""
    root = tmp_path_factory.mktemp("wm")
    crm = yaml.safe_load((bundled_corpus() / "openapi" / "crm.yaml").read_text())
    crm["paths"]["/leads/{lead_id}/score"] = SCORE_LEAD
    (root / "specs").mkdir()
    (root / "specs" / "crm.yaml").write_text(yaml.safe_dump(crm, sort_keys=False))
    wh = Warehouse(root / "wh")
    ingest_paths(
        [str(root / "specs" / "crm.yaml"), str(bundled_corpus() / "mcp/mail.json")], wh.root
    )
    with ScriptedModel(["I would rather describe the service in words."] * 4) as model:
        settings = BuildSettings(llm=model.settings(), coding=CodingAgentSettings(max_rounds=1))
        build_services(wh, settings)
        assert model.hits >= 1  # a round for each service with a tool left over
    compose_stage(wh, 2, seed=1, min_services=2, workers=1)
    return wh


def crm_task(wh: Warehouse) -> tuple[Task, str]:
    """A composed task that mounts CRM, and a lead of its initial state that the world
    model's patch (status "working") changes: which leads a seed makes is not this test's
    business."""
    for task in load_tasks(wh):
        leads = (task.initial_state.get("crm") or {}).get("leads") or {}
        changed = sorted(k for k, lead in leads.items() if lead.get("status") != "working")
        if changed:
            return task, changed[0]
    raise AssertionError("composition made no task over CRM with a lead not yet working")


class Server:
    """Answers the agent (requests that offer tools) and the world model (its system
    prompt), from the request alone. The world model's first requests meet a rate limit, a
    reply that is not JSON, a timeout, and a patch the State refuses, in that order."""

    def __init__(self, lead: str) -> None:
        self.lead = lead
        self.world_model_faults: list[Any] = [
            429,
            "Converting the lead now!",  # not a JSON object
            "slow",  # answered after the client's timeout
            self.answer("won"),  # status is not one of the lead's states
        ]
        self.world_model_requests = 0

    def answer(self, status: str) -> str:
        result = {"lead_id": self.lead, "score": 72, "rationale": RATIONALE}
        patch = [{"op": "replace", "path": f"/leads/{self.lead}/status", "value": status}]
        return orjson.dumps({"result": result, "state_patch": patch}).decode()

    def __call__(self, body: dict[str, Any]) -> Any:
        messages = body["messages"]
        if messages[0]["content"] == WORLD_MODEL_SYSTEM:
            self.world_model_requests += 1
            fault = self.world_model_faults.pop(0) if self.world_model_faults else None
            if fault == "slow":
                time.sleep(1.5)
                return "too late"
            return fault if fault is not None else self.answer("working")
        if not any(m["role"] == "tool" for m in messages):
            call = {"name": "crm__score_lead", "arguments": {"lead_id": self.lead}}
            return {"content": "Scoring the lead first.", "tool_calls": [call]}
        return "The lead scores 72."


def tool_results(rollout: dict[str, Any]) -> list[dict[str, Any]]:
    messages = rollout["messages"]
    if isinstance(messages, str):
        messages = orjson.loads(messages)
    return [orjson.loads(m["content"]) for m in messages if m["role"] == "tool"]


@pytest.mark.slow  # build, compose and two rollout runs in sandbox workers (~45 s on 2 cores)
def test_a_world_model_tool_is_answered_over_http_validated_and_replayed_from_the_cache(
    composed: Warehouse, tmp_path: Path
) -> None:
    wh = composed
    fates = {
        (r["service"], r["tool"]): r["status"]
        for r in wh.query("select service, tool, status from service_tools").to_pylist()
    }
    assert fates[("crm", "score_lead")] == "world_model", (
        "the compiler now verifies crm.score_lead: give this test a tool it cannot express",
        fates,
    )
    task, lead = crm_task(wh)
    cache_dir = tmp_path / "answers"
    settings = RolloutSettings(mode="direct", group_size=1, concurrency=1)

    server = Server(lead)
    with ScriptedModel([server] * 12) as model:
        world_model = SandboxedWorldModel(
            LLMClient(model.settings(timeout_s=1.0), WarehouseCallStore(wh)),
            cache=DirectoryAnswerCache(cache_dir),
        )
        agent = model.settings()
        first = rollout_stage(
            wh,
            llm=agent,
            settings=settings,
            run="wm",
            task_ids=[task.task_id],
            world_model=world_model,
        )
    assert first.rollouts == 1 and first.statuses == {"finished": 1}, first.to_dict()
    # 429 and timeout retried by the client; the non-JSON reply and the refused patch fed
    # back to the model; the fifth answer is the one taken.
    assert server.world_model_requests == 5
    assert world_model.calls == 1 and world_model.cached == 0
    assert (first.world_model_calls, first.world_model_cached) == (1, 0)
    wm_calls = wh.query(
        "select attempt, error from llm_calls where purpose = 'world_model/crm/score_lead'"
    ).to_pylist()
    assert len(wm_calls) == 5 and sum(c["error"] is not None for c in wm_calls) == 2
    prompts = [orjson.dumps(r["messages"]).decode() for r in model.requests]
    assert any("the patched state is invalid" in p and "leads/" in p for p in prompts)
    assert any("the answer is not a JSON object" in p for p in prompts)

    (row,) = wh.query("select * from rollouts where task_id = $t", {"t": task.task_id}).to_pylist()
    (result,) = tool_results(row)
    assert result == {
        "success": True,
        "data": {"lead_id": lead, "score": 72, "rationale": RATIONALE},
    }
    final = row["final_states"]
    final = orjson.loads(final) if isinstance(final, str) else final
    # The validated patch was applied in the service's worker, and nothing else changed.
    assert final["crm"]["leads"][lead]["status"] == "working"
    expected = orjson.loads(orjson.dumps(task.initial_state["crm"]))
    expected["leads"][lead]["status"] = "working"
    assert final["crm"] == expected

    # A second run, the model server gone: the group is redone (its scores lost), the
    # agent's turns replay from llm_calls, the world-model tool from the answer cache.
    for f in (wh.root / "rollout_scores").rglob("*.parquet"):
        f.unlink()
    silent = SandboxedWorldModel(
        LLMClient(agent.model_copy(update={"timeout_s": 1.0}), WarehouseCallStore(wh)),
        cache=DirectoryAnswerCache(cache_dir),
    )
    again = rollout_stage(
        wh, llm=agent, settings=settings, run="wm", task_ids=[task.task_id], world_model=silent
    )
    assert again.rollouts == 1 and again.statuses == {"finished": 1}, again.to_dict()
    assert silent.calls == 1 and silent.cached == 1
    assert again.to_dict()["world_model_cached"] == 1
    assert silent.client.model_calls == 0 and silent.client.replays == 0
    rows = wh.query("select * from rollouts where task_id = $t", {"t": task.task_id}).to_pylist()
    assert {r["final_state_hash"] for r in rows} == {row["final_state_hash"]}


@pytest.mark.slow  # shares the built and composed warehouse above
def test_gateway_mode_lists_describes_and_calls_a_world_model_tool(composed: Warehouse) -> None:
    wh = composed
    task, lead = crm_task(wh)
    spec = next(s for s in current_specs(wh)["crm"] if s.name == "score_lead")
    with ScriptedModel([Server(lead).answer("working")]) as model:
        world_model = SandboxedWorldModel(LLMClient(model.settings(), MemoryCallStore()))
        pool = env_pool(wh, built_services(wh).values(), world_model=world_model)
        try:
            env = pool()
            env.reset(task, "direct")
            offered = {t["function"]["name"]: t for t in env.tools()}
            assert offered["crm__score_lead"]["function"]["parameters"] == spec.input_schema
            env.reset(task, "gateway")
            listed = env.call("list_tools", {"service": "crm"})["data"]
            assert "crm__score_lead" in {t["name"] for t in listed}
            described = env.call("describe_tool", {"tool_name": "crm__score_lead"})["data"]
            assert described["output_schema"] == spec.output_schema
            assert described["read_only"] is False
            called = env.call(
                "call_tool", {"tool_name": "crm__score_lead", "arguments": {"lead_id": lead}}
            )
            assert called["success"] and called["data"]["score"] == 72
            assert env.final_states()["crm"]["leads"][lead]["status"] == "working"
            unknown = env.call(
                "call_tool", {"tool_name": "crm__score_lead", "arguments": {"lead": lead}}
            )
            assert unknown["error"]["code"] == "invalid_argument"  # checked here, no model
            assert model.hits == 1
            env.close()
        finally:
            pool.close()
