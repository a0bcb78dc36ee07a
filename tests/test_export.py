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
from tasks.export import ExportBlocked, ToolsPolicy, export_all
from tests.test_curate import (
    CALLS,
    TOOLS,
    messages_for,
    rollout_row,
    score_row,
    seed,
    task_row,
    varied,
)
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


class CompoCall(Strict):
    id: str = Field(min_length=1)
    type: Literal["function"]
    function: CompoFunction


class CompoFunction(Strict):
    name: str = Field(min_length=1)
    arguments: dict[str, Any]  # an object, as the CompoWorld sample has it


class CompoAssistant(Strict):
    role: Literal["assistant"]
    content: str | None = None
    tool_calls: list[CompoCall] | None = Field(None, min_length=1)


class CompoTool(Strict):
    role: Literal["tool"]
    tool_call_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    content: str


CompoMessage = Annotated[System | User | CompoAssistant | CompoTool, Field(discriminator="role")]


class CompoMeta(BaseModel):
    """The sample's meta fields (ours may stand beside them)."""

    model_config = ConfigDict(strict=True)

    src: str = Field(min_length=1)
    rollout_idx: int = Field(ge=0)
    net_score: float = Field(ge=0, le=1)
    n_real_tool_calls: int = Field(ge=0)
    discover_mode: Literal["direct", "gateway"]
    finish_reason: str = Field(min_length=1)
    tools_policy: str
    task_id: str


class CompoRecord(Strict):
    tools: list[Tool]  # objects, not a JSON string
    messages: list[CompoMessage] = Field(min_length=2)
    meta: CompoMeta
    source: str

    @model_validator(mode="after")
    def _names(self) -> CompoRecord:
        offered = {t.function.name for t in self.tools}
        called: dict[str, str] = {}
        for m in self.messages:
            if isinstance(m, CompoAssistant):
                called |= {c.id: c.function.name for c in m.tool_calls or []}
                assert all(c.function.name in offered for c in m.tool_calls or [])
            if isinstance(m, CompoTool):
                assert m.name == called[m.tool_call_id], "a tool message names its call's tool"
        return self


CompoCall.model_rebuild()


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
        CompoRecord.model_validate(r)
    # The CompoWorld sample's fields, with their types.
    assert {k: meta[k] for k in ("src", "rollout_idx", "net_score", "discover_mode")} == {
        "src": "oracle",
        "rollout_idx": 0,
        "net_score": 1.0,
        "discover_mode": "gateway",
    }
    assert (meta["n_real_tool_calls"], meta["finish_reason"], meta["tools_policy"]) == (
        1,
        "stop",
        "all",
    )
    first = compo[0]
    assert isinstance(first["tools"], list) and isinstance(first["tools"][0]["function"], dict)
    call = first["messages"][2]["tool_calls"][0]
    assert call["function"]["arguments"] == CALLS[0][1]  # an object, not a string
    assert first["messages"][3]["name"] == CALLS[0][0]
    # The chat export of the same rollout keeps OpenAI's strings (TRL reads them so).
    assert (
        chat[0]["messages"][2]["tool_calls"][0]["function"]["arguments"]
        == orjson.dumps(CALLS[0][1]).decode()
    )

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
    assert report["modes"] == {"direct": 1, "gateway": 1} and report["tools_policy"] == "all"
    assert report["json_strings"] == ["tools", "tool_calls.function.arguments"]
    assert orjson.loads(rows[1]["report"])["json_strings"] == []  # compoworld: objects
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


# -- the tools policy, gateway rollouts -------------------------------------------------------
def _tool(name: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} does one thing.",
            "parameters": {"type": "object", "properties": {}},
        },
    }


# Offered order: the called tool sits in the middle, distractors of its service around it.
WIDE = [
    _tool("crm__get_customer"),
    _tool("helpdesk__open_ticket"),
    TOOLS[0],  # crm__find_customer: the one called
    _tool("billing__refund"),
    _tool("crm__delete_customer"),
    TOOLS[1],  # mail__send_email
    _tool("calendar__create_event"),
]
GATEWAY_CALLS: list[tuple[str, dict[str, Any] | str]] = [
    ("list_services", {}),
    ("list_tools", {"service": "crm"}),
    ("describe_tool", {"tool_name": "crm__find_customer"}),
    ("call_tool", {"tool_name": "crm__find_customer", "arguments": CALLS[0][1]}),
]
LONG_ANSWER = "Here is what I did: " + " ".join(f"fact{i}" for i in range(150))


def _meta_tools() -> list[dict[str, Any]]:
    from library.rollout.env import meta_tool_schemas

    return [dict(t) for t in meta_tool_schemas()]


@pytest.fixture
def mixed(wh: Warehouse) -> Warehouse:
    """The same task (t1) done directly with many tools offered, and through the gateway:
    texts alike enough to be near-duplicates, were modes not told apart."""
    instr = task_row("t1")["instruction"]
    direct = messages_for(instr, CALLS[:1], answer=LONG_ANSWER)
    gateway = messages_for(instr, GATEWAY_CALLS, answer=LONG_ANSWER)
    rows = [
        rollout_row("r-wide", "t1", messages=direct, tools=WIDE, sample=1),
        rollout_row("r-gw", "t1", messages=gateway, tools=_meta_tools(), mode="gateway"),
    ]
    seed(wh, [], rows)
    return wh


def test_gateway_rollouts_are_curated_and_exported_beside_direct_ones(
    mixed: Warehouse, tmp_path: Path
) -> None:
    result = curate(mixed)
    assert {"r-wide", "r-gw"} <= set(result.kept), result.reasons
    export_all(mixed, tmp_path / "out", result.kept, curation=result)
    compo = {r["meta"]["rollout_id"]: r for r in _lines(tmp_path / "out" / "compoworld.jsonl")}
    gw, wide = compo["r-gw"], compo["r-wide"]
    for record in (gw, wide):
        CompoRecord.model_validate(record)
    assert gw["meta"]["discover_mode"] == "gateway" and wide["meta"]["discover_mode"] == "direct"
    # Discovery finds tools; only call_tool does the task.
    assert (gw["meta"]["counts"]["tool_calls"], gw["meta"]["n_real_tool_calls"]) == (4, 1)
    assert [m["name"] for m in gw["messages"] if m["role"] == "tool"] == [
        "list_services",
        "list_tools",
        "describe_tool",
        "call_tool",
    ]
    assert gw["messages"][-3]["tool_calls"][0]["function"]["arguments"] == GATEWAY_CALLS[3][1]
    assert wide["meta"]["rollout_idx"] == 1 and wide["meta"]["n_real_tool_calls"] == 1


def test_tools_called_plus_n_trims_each_sample_and_says_so(
    mixed: Warehouse, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    records = export_all(mixed, out, ["r-wide", "r-gw", "r-model"], tools="called+2")
    compo = {r["meta"]["rollout_id"]: r for r in _lines(out / "compoworld.jsonl")}
    chat = dict(zip(["r-gw", "r-model", "r-wide"], _lines(out / "chat.jsonl"), strict=True))
    wide = compo["r-wide"]
    names = [t["function"]["name"] for t in wide["tools"]]
    # The called tool and two distractors, of its own service first, in the offered order.
    assert names == ["crm__get_customer", "crm__find_customer", "crm__delete_customer"]
    assert [t["function"]["name"] for t in orjson.loads(chat["r-wide"]["tools"])] == names
    ChatRecord.model_validate(chat["r-wide"])
    assert wide["meta"]["tools_policy"] == "called+2"
    assert (wide["meta"]["counts"]["tools"], wide["meta"]["counts"]["tools_offered"]) == (3, 7)
    # r-model called both of its two tools: nothing else to add, nothing dropped.
    assert len(compo["r-model"]["tools"]) == 2
    # A gateway sample keeps its four meta-tools: they are the interface.
    assert len(compo["r-gw"]["tools"]) == 4 and compo["r-gw"]["meta"]["tools_policy"] == "all"
    report = orjson.loads(mixed.query("SELECT report FROM exports LIMIT 1").column(0)[0].as_py())
    assert report["tools_policy"] == "called+2"
    assert {r.kind for r in records} >= {"chat_jsonl", "compoworld"}
    # called+0: only what was called; the same rollout always gets the same distractors.
    export_all(mixed, tmp_path / "bare", ["r-wide"], tools="called+0")
    [bare] = _lines(tmp_path / "bare" / "compoworld.jsonl")
    assert [t["function"]["name"] for t in bare["tools"]] == ["crm__find_customer"]
    export_all(mixed, tmp_path / "again", ["r-wide"], tools="called+2")
    [again] = _lines(tmp_path / "again" / "compoworld.jsonl")
    assert again["tools"] == wide["tools"]


def test_tools_policy_parses_and_refuses() -> None:
    assert str(ToolsPolicy.parse("all")) == "all" and ToolsPolicy.parse(None).distractors is None
    assert ToolsPolicy.parse("called+5").distractors == 5 and str(ToolsPolicy.parse("called")) == (
        "called+0"
    )
    for bad in ("some", "called+", "called+-1", "called+x", "all+2"):
        with pytest.raises(ValueError, match="called"):
            ToolsPolicy.parse(bad)


def test_export_command_takes_the_tools_policy(
    mixed: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer
    from typer.testing import CliRunner

    from flows.export_command import export

    app = typer.Typer()
    app.command()(export)
    monkeypatch.setenv("COMPOWORLD_WAREHOUSE", str(mixed.location))
    monkeypatch.setenv("COMPOWORLD_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    result = runner.invoke(app, ["--tools", "called+2"])
    assert result.exit_code == 0, result.output
    compo = _lines(tmp_path / "home" / "exports" / "compoworld.jsonl")
    policies = {r["meta"]["rollout_id"]: r["meta"]["tools_policy"] for r in compo}
    assert policies["r-wide"] == "called+2" and policies["r-gw"] == "all"
    assert "called+2" in result.output
    refused = runner.invoke(app, ["--tools", "some"])
    assert refused.exit_code == 2 and "called+N" in refused.output
