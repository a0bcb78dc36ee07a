"""LLMClient against a scripted OpenAI-compatible server: the real litellm HTTP path, no
network beyond 127.0.0.1, no model."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from library.llm import (
    CallRecord,
    LLMCallError,
    LLMClient,
    LLMSettings,
    MemoryCallStore,
    ModelNotConfigured,
    prompt_hash,
)
from library.llm.testing import ScriptedModel

HELLO = [{"role": "user", "content": "Say hello."}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as server:
        yield server


def test_settings_come_from_env_variables_named_after_fields() -> None:
    env = {
        "COMPOWORLD_LLM_MODEL": "hosted_vllm/qwen3",
        "COMPOWORLD_LLM_API_BASE": "http://127.0.0.1:8000/v1",
        "COMPOWORLD_LLM_TEMPERATURE": "0.7",
        "COMPOWORLD_LLM_MAX_RETRIES": "5",
        "COMPOWORLD_LLM_INPUT_COST_PER_TOKEN": "1e-6",
        "COMPOWORLD_LLM_REPLAY_ONLY": "true",
        "COMPOWORLD_LLM_TIMEOUT_S": "",  # empty means unset
    }
    s = LLMSettings.from_env(env)
    assert s.configured
    assert (s.model, s.api_base, s.temperature, s.max_retries) == (
        "hosted_vllm/qwen3",
        "http://127.0.0.1:8000/v1",
        0.7,
        5,
    )
    assert s.input_cost_per_token == 1e-6 and s.replay_only and s.timeout_s == 120.0
    assert not LLMSettings.from_env({}).configured


def test_no_model_raises_model_not_configured_naming_the_variables() -> None:
    client = LLMClient(LLMSettings(), MemoryCallStore())
    with pytest.raises(ModelNotConfigured) as info:
        client.complete(HELLO, purpose="coding_agent/crm")
    message = str(info.value)
    assert "coding_agent/crm" in message
    assert "COMPOWORLD_LLM_MODEL" in message and "COMPOWORLD_LLM_API_BASE" in message


def test_a_call_is_recorded_and_a_rerun_replays_it_without_the_model(
    model: ScriptedModel,
) -> None:
    model.add("Hello!")
    store = MemoryCallStore()
    settings = model.settings(input_cost_per_token=1e-6, output_cost_per_token=2e-6)

    first = LLMClient(settings, store).complete(HELLO, purpose="greet")
    assert first.content == "Hello!" and not first.replayed
    assert model.hits == 1
    (rec,) = store.records
    assert rec.purpose == "greet" and rec.model == "hosted_vllm/scripted" and rec.ok
    assert rec.prompt_hash == prompt_hash("hosted_vllm/scripted", HELLO, None, 0.0)
    assert rec.prompt_tokens and rec.completion_tokens and rec.latency_s > 0
    expected_cost = rec.prompt_tokens * 1e-6 + rec.completion_tokens * 2e-6
    assert rec.cost_usd == pytest.approx(expected_cost)
    assert rec.message() == {"role": "assistant", "content": "Hello!"}

    # A fresh client (a rerun) on the same store: the script is empty, so any model call
    # would fail with HTTP 400; the answer must come from the recording.
    rerun = LLMClient(settings, store)
    second = rerun.complete(HELLO, purpose="greet")
    assert second.replayed and second.message == first.message
    assert second.record.call_id == rec.call_id
    assert model.hits == 1 and rerun.model_calls == 0 and rerun.replays == 1
    assert len(store) == 1  # replays are not recorded again


def test_replay_only_answers_from_the_store_and_refuses_the_rest(model: ScriptedModel) -> None:
    model.add("recorded")
    store = MemoryCallStore()
    LLMClient(model.settings(), store).complete(HELLO)
    offline = LLMClient(model.settings(replay_only=True), MemoryCallStore(store.records))
    assert offline.complete(HELLO).content == "recorded"
    with pytest.raises(ModelNotConfigured, match="REPLAY_ONLY"):
        offline.complete([{"role": "user", "content": "Something new."}])
    assert model.hits == 1


def test_transient_errors_are_retried_and_every_attempt_recorded(model: ScriptedModel) -> None:
    model.add(503, 429, "finally")
    store = MemoryCallStore()
    client = LLMClient(model.settings(max_retries=3), store)
    reply = client.complete(HELLO, purpose="retry")
    assert reply.content == "finally" and reply.record.attempt == 3
    assert model.hits == 3 and client.model_calls == 3
    errors = [r.error.split(":")[0] for r in store.records if r.error]
    assert errors == ["ServiceUnavailableError", "RateLimitError"]
    assert [r.attempt for r in store.records] == [1, 2, 3]


def test_a_timeout_is_transient(model: ScriptedModel) -> None:
    def slow(_body: dict) -> str:
        time.sleep(1.0)
        return "too late"

    model.add(slow, "in time")
    reply = LLMClient(model.settings(timeout_s=0.3), MemoryCallStore()).complete(HELLO)
    assert reply.content == "in time" and reply.record.attempt == 2


def test_retries_stop_after_max_retries(model: ScriptedModel) -> None:
    model.add(503, 503, 503)
    store = MemoryCallStore()
    with pytest.raises(LLMCallError, match="after 2 attempts") as info:
        LLMClient(model.settings(max_retries=1), store).complete(HELLO)
    assert info.value.attempts == 2 and model.hits == 2
    assert len(store) == 2 and not any(r.ok for r in store.records)


def test_other_errors_are_not_retried_and_never_replayed(model: ScriptedModel) -> None:
    model.add(401, "after the fix")
    store = MemoryCallStore()
    client = LLMClient(model.settings(max_retries=3), store)
    with pytest.raises(LLMCallError, match="AuthenticationError"):
        client.complete(HELLO)
    assert model.hits == 1 and store.records[0].error
    # The failed call is on record but is no answer: the same prompt goes to the model.
    assert client.complete(HELLO).content == "after the fix"
    assert model.hits == 2


def test_tool_calls_come_back_and_tools_are_part_of_the_prompt_hash(
    model: ScriptedModel,
) -> None:
    model.add({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    client = LLMClient(model.settings(), MemoryCallStore())
    reply = client.complete(HELLO, tools=[WEATHER_TOOL])
    (call,) = reply.tool_calls
    assert call["function"]["name"] == "get_weather"
    assert call["function"]["arguments"] == '{"city":"Paris"}'
    assert model.requests[0]["tools"][0]["function"]["name"] == "get_weather"
    assert reply.record.request_tools is not None
    assert reply.record.prompt_hash != prompt_hash("hosted_vllm/scripted", HELLO, None, 0.0)


def test_async_complete_records_and_replays(model: ScriptedModel) -> None:
    model.add("async hello")
    client = LLMClient(model.settings(), MemoryCallStore())

    async def twice() -> tuple[bool, bool]:
        a = await client.acomplete(HELLO)
        b = await client.acomplete(HELLO)
        return a.replayed, b.replayed

    assert asyncio.run(twice()) == (False, True)
    assert model.hits == 1


def test_prompt_hash_covers_model_messages_tools_temperature_and_salt() -> None:
    base = prompt_hash("m", HELLO, None, 0.0)
    reordered = [{"content": "Say hello.", "role": "user"}]
    assert prompt_hash("m", reordered, None, 0.0) == base  # key order does not matter
    assert prompt_hash("m", HELLO, [], 0.0) == base  # no tools == empty tools
    others = {
        prompt_hash("n", HELLO, None, 0.0),
        prompt_hash("m", [{"role": "user", "content": "Hi."}], None, 0.0),
        prompt_hash("m", HELLO, [WEATHER_TOOL], 0.0),
        prompt_hash("m", HELLO, None, 0.5),
        prompt_hash("m", HELLO, None, 0.0, salt="sample-2"),
    }
    assert base not in others and len(others) == 5


def test_records_round_trip_as_rows() -> None:
    rec = CallRecord(
        purpose="p",
        prompt_hash="h",
        model="m",
        temperature=0.0,
        request_messages="[]",
        response_message='{"role":"assistant","content":"x"}',
        latency_s=0.1,
    )
    assert CallRecord.model_validate(rec.to_row()) == rec
    store = MemoryCallStore([rec])
    assert store.lookup("h") == rec and store.lookup("other") is None
