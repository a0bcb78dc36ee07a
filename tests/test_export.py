"""Exports: files load with `datasets`, every record is strict OpenAI chat with tools, the
quality gate blocks bad rows, nothing is half-written, reruns record nothing new."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
import pytest
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tasks import export as export_mod
from tasks.curate import curate
from tasks.export import ExportBlocked, export_all
from tests.test_curate import CALLS, messages_for, rollout_row, score_row, seed, task_row, varied
from warehouse import Warehouse

os.environ.setdefault("HF_HUB_OFFLINE", "1")
FILES = ["chat.jsonl", "compoworld.jsonl", "hf_dataset", "rl_tasks.jsonl"]


# -- a strict model of the OpenAI chat-with-tools format --------------------------------------
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Function(Strict):
    name: str = Field(min_length=1)
    arguments: str

    @field_validator("arguments")
    @classmethod
    def _object(cls, v: str) -> str:
        assert isinstance(orjson.loads(v), dict), "arguments must be a JSON object"
        return v


class ToolCall(Strict):
    id: str = Field(min_length=1)
    type: Literal["function"]
    function: Function


class System(Strict):
    role: Literal["system"]
    content: str


class User(Strict):
    role: Literal["user"]
    content: str = Field(min_length=1)


class Assistant(Strict):
    role: Literal["assistant"]
    content: str | None = None
    tool_calls: list[ToolCall] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _says_something(self) -> Assistant:
        assert self.content or self.tool_calls, "an assistant message needs content or calls"
        return self


class ToolMsg(Strict):
    role: Literal["tool"]
    tool_call_id: str = Field(min_length=1)
    content: str


Message = Annotated[System | User | Assistant | ToolMsg, Field(discriminator="role")]


class FunctionDef(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    description: str
    parameters: dict[str, Any]

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, v: dict[str, Any]) -> dict[str, Any]:
        assert v.get("type") == "object", "parameters must be an object schema"
        return v


class Tool(Strict):
    type: Literal["function"]
    function: FunctionDef


class ChatRecord(Strict):
    messages: list[Message] = Field(min_length=2)
    tools: list[Tool]

    @field_validator("tools", mode="before")
    @classmethod
    def _json_string(cls, v: Any) -> Any:
        assert isinstance(v, str), "tools are stored as a JSON string"
        return orjson.loads(v)

    @model_validator(mode="after")
    def _conversation(self) -> ChatRecord:
        roles = [m.role for m in self.messages]
        start = 1 if roles[0] == "system" else 0
        assert roles[start] == "user", "the conversation starts with system/user"
        assert roles[-1] == "assistant", "the conversation ends with the assistant"
        names = {t.function.name for t in self.tools}
        seen: set[str] = set()
        for m in self.messages:
            if isinstance(m, Assistant):
                for call in m.tool_calls or []:
                    assert call.function.name in names, f"{call.function.name} is not a tool"
                    seen.add(call.id)
            if isinstance(m, ToolMsg):
                assert m.tool_call_id in seen, f"{m.tool_call_id} answers no earlier call"
        return self


def without_nulls(value: Any) -> Any:
    """Arrow gives every message every key of the unified struct, null where absent."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


# -- fixtures ----------------------------------------------------------------------------------
@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    wh = Warehouse(tmp_path / "wh")
    instr = task_row("t1")["instruction"]
    tasks = [task_row("t1"), task_row("t2", domain="support", services=["crm"])]
    tasks += [task_row("rl-1", split="rl"), task_row("rl-2", split="rl", seed=9)]
    rollouts = [
        rollout_row("r-model", "t1"),
        rollout_row("r-oracle", "t2", policy="oracle", mode="gateway", messages=varied(instr, 1)),
        rollout_row("r-rl", "rl-1", messages=varied(instr, 2)),  # gives rl-1 its prompt
    ]
    # Provider extras that must not reach the export, and content None on a tool call turn.
    rollouts[0]["messages"][2].update(refusal=None, provider_specific_fields={"x": 1})
    seed(wh, tasks, rollouts)
    return wh


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _load_json(path: Path, cache: Path) -> Any:
    from datasets import load_dataset

    return load_dataset("json", data_files=str(path), split="train", cache_dir=str(cache))


# -- tests -------------------------------------------------------------------------------------
def test_exports_load_and_validate(wh: Warehouse, tmp_path: Path) -> None:
    from datasets import load_from_disk

    result = curate(wh)
    assert sorted(result.kept) == ["r-model", "r-oracle"]
    out = tmp_path / "out"
    records = export_all(wh, out, result.kept, curation=result)
    assert [r.kind for r in records] == ["chat_jsonl", "hf_dataset", "compoworld", "rl_tasks"]
    assert sorted(p.name for p in out.iterdir()) == FILES  # no temporary leftovers

    chat = _lines(out / "chat.jsonl")
    assert len(chat) == 2 and all(set(r) == {"messages", "tools"} for r in chat)
    for record in chat:
        ChatRecord.model_validate(record)
    assert "refusal" not in chat[0]["messages"][2]  # rows are sorted: r-model first
    assert chat[0]["messages"][2]["content"] == ""

    cache = tmp_path / "hf-cache"
    loaded = _load_json(out / "chat.jsonl", cache)
    assert loaded.num_rows == 2 and loaded.column_names == ["messages", "tools"]
    for row in loaded:
        ChatRecord.model_validate(without_nulls(row))
    disk = load_from_disk(str(out / "hf_dataset"))
    assert [without_nulls(r) for r in disk] == [without_nulls(r) for r in loaded]

    compo = _lines(out / "compoworld.jsonl")
    assert [r["source"] for r in compo] == ["compoworld/litellm:qwen3-8b", "compoworld/oracle"]
    meta = compo[1]["meta"]
    assert meta["task_id"] == "t2" and meta["services"] == ["crm"] and meta["domain"] == "support"
    assert meta["rubric_score"] == 1.0 and meta["policy"] == "oracle" and meta["mode"] == "gateway"
    assert meta["counts"]["tool_calls"] == 1 and meta["counts"]["criteria_passed"] == 1
    for r in compo:
        ChatRecord.model_validate({"messages": r["messages"], "tools": r["tools"]})
    assert _load_json(out / "compoworld.jsonl", cache).num_rows == 2

    rl = _lines(out / "rl_tasks.jsonl")
    assert [r["task_id"] for r in rl] == ["rl-1", "rl-2"]
    assert _load_json(out / "rl_tasks.jsonl", cache).num_rows == 2
    for r in rl:
        assert [m["role"] for m in r["prompt"]] == ["system", "user"]
        assert orjson.loads(r["initial_state"])["crm"] and orjson.loads(r["rubric"])
        assert r["services"] == ["crm", "mail"] and r["distractor_services"] == ["calendar"]
    rl_tools = [[t["function"]["name"] for t in orjson.loads(r["tools"])] for r in rl]
    assert rl_tools[0] == ["crm__find_customer", "mail__send_email"] and rl[0]["mode"] == "direct"
    assert rl_tools[1] == ["list_services", "list_tools", "describe_tool", "call_tool"]
    assert rl[1]["mode"] == "gateway" and "list_services" in rl[1]["prompt"][0]["content"]

    rows = wh.query("SELECT * FROM exports ORDER BY kind").to_pylist()
    assert [(r["kind"], r["records"]) for r in rows] == [
        ("chat_jsonl", 2),
        ("compoworld", 2),
        ("hf_dataset", 2),
        ("rl_tasks", 2),
    ]
    report = orjson.loads(rows[0]["report"])
    assert rows[0]["rollout_ids"] == ["r-model", "r-oracle"] and report["quality"]["success"]
    assert report["sources"] == {"compoworld/litellm:qwen3-8b": 1, "compoworld/oracle": 1}
    assert report["curation"]["kept"] == 2 and rows[3]["task_ids"] == ["rl-1", "rl-2"]


def test_rerun_records_nothing_new(wh: Warehouse, tmp_path: Path) -> None:
    first = export_all(wh, tmp_path / "out", ["r-model"])
    again = export_all(wh, tmp_path / "out", ["r-model"])
    assert [r.export_id for r in first] == [r.export_id for r in again]
    assert all(r.new for r in first) and not any(r.new for r in again)
    assert wh.count("exports") == 4
    bigger = export_all(wh, tmp_path / "out", ["r-model", "r-oracle"])
    assert [r.new for r in bigger] == [True, True, True, False]  # the RL set did not change
    assert wh.count("exports") == 7


def test_quality_gate_blocks_and_names_rows(wh: Warehouse, tmp_path: Path) -> None:
    bad = [
        rollout_row("r-orphan", "t-missing"),
        rollout_row("r-greedy", "t1", messages=varied("x", 5)),
    ]
    seed(
        wh,
        [task_row("t-empty", instruction="", split="rl")],
        bad,
        [score_row("r-orphan", "t-missing"), score_row("r-greedy", "t1", reward=1.7)],
    )
    out = tmp_path / "out"
    with pytest.raises(ExportBlocked) as info:
        export_all(wh, out, ["r-model", "r-orphan", "r-greedy"])
    md = info.value.markdown
    assert info.value.report is not None and not info.value.report.success
    assert "r-orphan" in md and "not in the tasks table" in md
    assert "r-greedy" in md and "1.7" in md
    assert "t-empty" in md and "instruction must not be empty" in md  # an RL task
    assert not out.exists() and wh.count("exports") == 0


def test_format_check_blocks_uncurated_rows(wh: Warehouse, tmp_path: Path) -> None:
    instr = task_row("t1")["instruction"]
    broken = messages_for(instr, [("crm__find_customer", '["not", "an", "object"]')])
    seed(wh, [], [rollout_row("r-broken", "t1", messages=broken)])
    with pytest.raises(ExportBlocked, match=r"r-broken.*not a JSON object"):
        export_all(wh, tmp_path / "out", ["r-model", "r-broken"])
    with pytest.raises(ExportBlocked, match="unknown rollout ids"):
        export_all(wh, tmp_path / "out", ["r-nope"])
    assert not (tmp_path / "out").exists()


def test_failed_write_leaves_the_previous_export(
    wh: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    export_all(wh, out, ["r-model"])
    before = {name: (out / name).stat().st_mtime_ns for name in FILES}
    chat_before = (out / "chat.jsonl").read_bytes()

    def boom(tmp: Path, records: list[dict[str, Any]]) -> None:
        tmp.mkdir()
        (tmp / "partial.arrow").write_bytes(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(export_mod, "_write_hf", boom)
    with pytest.raises(OSError, match="disk full"):
        export_all(wh, out, ["r-model", "r-oracle"])
    assert sorted(p.name for p in out.iterdir()) == FILES
    assert {name: (out / name).stat().st_mtime_ns for name in FILES} == before
    assert (out / "chat.jsonl").read_bytes() == chat_before and wh.count("exports") == 4


def test_strict_model_rejects_what_it_should() -> None:
    good = {
        "messages": messages_for("hi"),
        "tools": orjson.dumps(
            [
                {
                    "type": "function",
                    "function": {"name": n, "description": "", "parameters": {"type": "object"}},
                }
                for n, _ in CALLS
            ]
        ).decode(),
    }
    ChatRecord.model_validate(good)
    for mutate in (
        lambda r: r["messages"][2]["tool_calls"][0]["function"].update(arguments="[1]"),
        lambda r: r["messages"][3].update(tool_call_id="nope"),
        lambda r: r["messages"][2].update(role="robot"),
        lambda r: r.update(tools=orjson.loads(r["tools"])),
    ):
        record = orjson.loads(orjson.dumps(good))
        mutate(record)
        with pytest.raises(ValueError):
            ChatRecord.model_validate(record)


def test_nothing_kept_still_exports_the_rl_tasks(wh: Warehouse, tmp_path: Path) -> None:
    records = {r.kind: r for r in export_all(wh, tmp_path / "empty", [])}
    assert "hf_dataset" not in records  # `datasets` cannot save an empty dataset
    assert records["chat_jsonl"].records == 0
    assert (tmp_path / "empty" / "chat.jsonl").read_bytes() == b""
    assert records["rl_tasks"].records == len(_lines(tmp_path / "empty" / "rl_tasks.jsonl"))
