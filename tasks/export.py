"""Exports: curated rollouts and RL tasks as training files, each recorded in ``exports``.

Under ``out_dir``:

- ``chat.jsonl``: ``{"messages", "tools"}`` per kept rollout, the OpenAI chat format that SFT
  trainers (TRL, OpenAI fine-tuning) take; lines sorted by rollout id, which the ``exports``
  row lists in line order.
- ``hf_dataset/``: the same records as a Hugging Face ``datasets`` folder (``save_to_disk``).
- ``compoworld.jsonl``: the CompoWorld public sample's shape ``{"tools", "messages", "meta",
  "source"}``: ``tools`` and tool-call ``arguments`` are JSON objects, tool messages carry the
  ``name`` of the tool they answer, and ``meta`` has the sample's fields (``src``,
  ``rollout_idx``, ``net_score``, ``n_real_tool_calls``, ``discover_mode``, ``finish_reason``)
  beside ours; ``source`` is ``compoworld/<policy>``, so oracle data stays labelled as oracle.
- ``rl_tasks.jsonl``: one line per RL task: the prompt (system + user), the tools, and what an
  environment needs to reset (services, initial state, rubric).

JSON columns of the training files (``chat.jsonl``, ``hf_dataset/``, ``rl_tasks.jsonl``): Arrow,
hence ``datasets.load_dataset("json")``, unifies dict values across rows into one struct type,
fills missing keys with nulls and fails on conflicting types. Tool JSON Schemas, initial states
and rubrics differ per row, so ``tools``, ``initial_state`` and ``rubric`` are JSON strings
(TRL ``json.loads`` a string ``tools``; STACK.md §5.2), and tool-call ``arguments`` are JSON
strings as the OpenAI format has them. ``messages`` stays a list of objects (TRL recognises
conversations by it) with a fixed key set per role; the only thing Arrow adds on load is null
for the keys a role does not have.

Both exposure modes are exported: a gateway rollout's tools are the four meta-tools. The tools
policy (``--tools``) trims a direct rollout's tool list: ``all`` (default) keeps every tool the
agent was offered; ``called+N`` keeps the tools it called plus N it did not (distractors, those
of the called tools' services first), in their offered order; ``meta.tools_policy`` says what
each record got. ``all`` is the default because it is what the agent saw, and what an RL
prompt or a direct-mode evaluation shows; trimming is for cheaper SFT (tool schemas are most
of a direct sample's tokens) at the cost of an easier choice of tool.

The CompoWorld shape keeps objects, as the sample does, so ``datasets.load_dataset("json")``
may not load it (its schemas differ per row); read it as JSON lines.

Nothing is written unless the quality gate passes and every record is valid; files are written
under temporary names and renamed into place, and an export's id is a hash of its kind and
content, so a rerun of the same export adds no ``exports`` row.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from library.rollout.record import chat_features
from library.runtime import Gateway, World
from tasks.curate import CurationResult, load_rollouts, loads
from warehouse import Warehouse
from warehouse.quality import QualityReport, messages_problem, tools_problem, validate_tables

Record = dict[str, Any]
ALL_TOOLS = "all"
# The gateway's discovery tools: calls to them find tools, they do not do the task.
DISCOVERY_TOOLS = frozenset({"list_services", "list_tools", "describe_tool"})
META_TOOLS = DISCOVERY_TOOLS | {"call_tool"}
# Our rollout status -> the OpenAI-style finish reason of the sample's meta.
FINISH_REASONS = {"finished": "stop", "max_steps": "length"}
# A prompt for an RL task: (opening messages, tools, mode).
PromptFn = Callable[[Record], tuple[list[Record], list[Record], str]]


class ExportBlocked(Exception):
    """The quality gate or the format check failed; ``markdown`` says which rows and why."""

    def __init__(self, markdown: str, report: QualityReport | None = None) -> None:
        super().__init__(markdown)
        self.markdown = markdown
        self.report = report


@dataclass(slots=True)
class ExportRecord:
    export_id: str
    kind: str  # chat_jsonl | hf_dataset | compoworld | rl_tasks
    path: str
    records: int
    rollout_ids: list[str]
    task_ids: list[str]
    report: dict[str, Any]
    created_at: dt.datetime
    new: bool = True  # False when a rerun found this export already recorded

    def row(self) -> dict[str, Any]:
        return {
            k: getattr(self, k)
            for k in (
                "export_id",
                "kind",
                "path",
                "records",
                "rollout_ids",
                "task_ids",
                "report",
                "created_at",
            )
        }


# -- OpenAI chat format ------------------------------------------------------------------------
def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return orjson.dumps(content).decode()


def chat_message(m: dict[str, Any]) -> dict[str, Any]:
    """One message with exactly the keys its role has in the OpenAI format. Extras are
    dropped: provider fields (``refusal``, ...) and ``reasoning_content``, which is not part
    of the format (the warehouse keeps it for trainers that want it)."""
    role = m["role"]
    out: dict[str, Any] = {"role": role, "content": _text(m.get("content"))}
    if role == "assistant" and m.get("tool_calls"):
        out["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {
                    "name": c["function"]["name"],
                    "arguments": c["function"]["arguments"],
                },
            }
            for c in m["tool_calls"]
        ]
    elif role == "tool":
        out["tool_call_id"] = m["tool_call_id"]
    return out


def chat_tools(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for t in tools:
        fn = t["function"]
        parameters = fn.get("parameters") or {"type": "object", "properties": {}}
        function = {"name": fn["name"], "description": fn.get("description") or ""}
        out.append({"type": "function", "function": {**function, "parameters": parameters}})
    return out


def record_problem(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str | None:
    """Why a record is not valid chat-with-tools training data, or None."""
    problem = messages_problem(orjson.dumps(messages)) or tools_problem(orjson.dumps(tools))
    if problem:
        return problem
    for m in messages:
        for c in m.get("tool_calls") or []:
            if not isinstance(loads(c["function"]["arguments"], None), dict):
                return f"arguments of tool call {c['id']!r} are not a JSON object"
    if messages[-1]["role"] != "assistant" or messages[-1].get("tool_calls"):
        return "does not end with an assistant answer"
    return None


# -- the tools policy --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ToolsPolicy:
    """Which tools a record keeps: every one offered (``distractors`` None, ``all``), or the
    called ones plus ``distractors`` uncalled ones (``called+N``)."""

    distractors: int | None = None

    @classmethod
    def parse(cls, value: str | ToolsPolicy | None) -> ToolsPolicy:
        if isinstance(value, ToolsPolicy):
            return value
        text = (value or ALL_TOOLS).strip().lower()
        if text == ALL_TOOLS:
            return cls()
        head, plus, n = text.partition("+")
        if head == "called" and (not plus or n.isdigit()):
            return cls(int(n) if plus else 0)
        raise ValueError(f"tools policy must be 'all' or 'called+N' (N >= 0), not {value!r}")

    def __str__(self) -> str:
        return ALL_TOOLS if self.distractors is None else f"called+{self.distractors}"


def _name(tool: Record) -> str:
    return str(tool["function"]["name"])


def _rank(key: str, name: str) -> str:
    return hashlib.blake2b(f"{key}\0{name}".encode(), digest_size=8).hexdigest()


def trim_tools(
    tools: list[Record], messages: Sequence[Record], policy: ToolsPolicy, key: str
) -> tuple[list[Record], str]:
    """(the tools a record keeps, the policy it got). The called tools and ``N`` distractors:
    first those of the called tools' services (the near misses a model must tell apart),
    then the others, each in an order hashed from ``key`` (the rollout id: deterministic,
    and no tool is always the one kept). The offered order stays, so a tool's position says
    nothing of whether it was called. A gateway rollout keeps its four meta-tools: they are
    the interface, not a catalogue to choose from."""
    names = [_name(t) for t in tools]
    if policy.distractors is None or set(names) <= META_TOOLS:
        return tools, ALL_TOOLS
    called = {c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
    services = {n.split("__", 1)[0] for n in called}
    rest = [n for n in names if n not in called]
    rest.sort(key=lambda n: (n.split("__", 1)[0] not in services, _rank(key, n)))
    keep = called | set(rest[: policy.distractors])
    return [t for t in tools if _name(t) in keep], str(policy)


# -- records -----------------------------------------------------------------------------------
def _source(policy: str) -> str:
    return f"compoworld/{policy}"


def _criteria_counts(wh: Warehouse, ids: Sequence[str]) -> dict[str, tuple[int, int]]:
    table = wh.query(
        "SELECT rollout_id, count(*) AS n, count(*) FILTER (WHERE passed) AS passed "
        "FROM criterion_results WHERE list_contains(?::VARCHAR[], rollout_id) GROUP BY 1",
        [list(ids)],
    )
    return {r["rollout_id"]: (r["n"], r["passed"]) for r in table.to_pylist()}


def _call_names(messages: Sequence[Record]) -> list[str]:
    return [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []]


def _meta(
    row: dict[str, Any],
    messages: list[dict[str, Any]],
    crit: tuple[int, int],
    tools_policy: str,
    tools: tuple[int, int],
) -> dict:
    """Ours, and the CompoWorld sample's fields (``src``: the policy that produced the
    trajectory; ``rollout_idx``: its sample index in its group; ``net_score``: the rubric
    score, the share of criteria passed; ``n_real_tool_calls``: calls that are not gateway
    discovery; ``discover_mode``: direct | gateway; ``finish_reason``: stop, or our status)."""
    calls = _call_names(messages)
    return {
        "src": row["policy"],
        "rollout_idx": int(row.get("sample") or 0),
        "net_score": float(row["rubric_score"]),
        "n_real_tool_calls": sum(1 for name in calls if name not in DISCOVERY_TOOLS),
        "discover_mode": row["mode"],
        "finish_reason": FINISH_REASONS.get(row["status"], row["status"]),
        "tools_policy": tools_policy,
        "task_id": row["task_id"],
        "rollout_id": row["rollout_id"],
        "services": list(row["services"]),
        "domain": row["domain"],
        "capabilities": list(row["capabilities"]),
        "difficulty": row["difficulty"],
        "rubric_score": row["rubric_score"],
        "reward": row["reward"],
        "completed": row["completed"],
        "policy": row["policy"],
        "mode": row["mode"],
        "counts": {
            "messages": len(messages),
            "steps": row["steps"],
            "tool_calls": row["tool_calls"],
            "invalid_tool_calls": row["invalid_tool_calls"],
            "tool_errors": row["tool_errors"],
            "criteria": crit[0],
            "criteria_passed": crit[1],
            "tools": tools[0],
            "tools_offered": tools[1],
        },
    }


def compoworld_messages(messages: Sequence[Record]) -> list[Record]:
    """Chat messages in the sample's shape: tool-call ``arguments`` as objects, and the
    called tool's ``name`` on each tool message (as the call named it: ``call_tool`` in
    gateway mode)."""
    names: dict[str, str] = {}
    out: list[Record] = []
    for m in messages:
        m = dict(m)
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                fn = c["function"]
                names[c["id"]] = fn["name"]
                function = {"name": fn["name"], "arguments": loads(fn["arguments"], {})}
                calls.append({"id": c["id"], "type": "function", "function": function})
            m["tool_calls"] = calls
        elif m["role"] == "tool":
            m["name"] = names.get(m["tool_call_id"], "")
        out.append(m)
    return out


def _rollout_records(
    wh: Warehouse, rows: list[Record], policy: ToolsPolicy
) -> tuple[list[Record], list[Record]]:
    """(chat records, CompoWorld records), or ExportBlocked naming every invalid rollout."""
    crit = _criteria_counts(wh, [r["rollout_id"] for r in rows])
    chat: list[Record] = []
    compo: list[Record] = []
    bad: list[tuple[str, str]] = []
    for row in rows:
        try:
            messages = [chat_message(m) for m in loads(row["messages"], [])]
            offered = chat_tools(loads(row["tools"], []))
            tools, tools_policy = trim_tools(offered, messages, policy, row["rollout_id"])
        except (KeyError, TypeError, AttributeError) as exc:
            bad.append((row["rollout_id"], f"cannot be converted ({type(exc).__name__}: {exc})"))
            continue
        problem = record_problem(messages, tools) if messages else "has no messages"
        if problem:
            bad.append((row["rollout_id"], problem))
            continue
        chat.append({"messages": messages, "tools": orjson.dumps(tools).decode()})
        counts = (len(tools), len(offered))
        meta = _meta(row, messages, crit.get(row["rollout_id"], (0, 0)), tools_policy, counts)
        compo.append(
            {
                "tools": tools,
                "messages": compoworld_messages(messages),
                "meta": meta,
                "source": _source(row["policy"]),
            }
        )
    if bad:
        lines = ["## Export blocked: records are not valid OpenAI chat with tools", ""]
        lines += [f"- `{rid}`: {why}" for rid, why in bad]
        raise ExportBlocked("\n".join(lines) + "\n")
    return chat, compo


def _rollout_prompts(
    wh: Warehouse, task_ids: Sequence[str]
) -> dict[str, tuple[list[Record], list[Record], str]]:
    """Per task, the opening (up to the first user message), tools and mode of its first
    rollout: the prompt the rollout engine actually gave agents."""
    table = wh.query(
        "SELECT task_id, messages, tools, mode FROM rollouts "
        "WHERE list_contains(?::VARCHAR[], task_id) ORDER BY rollout_id",
        [list(task_ids)],
    )
    out: dict[str, tuple[list[Record], list[Record], str]] = {}
    for r in table.to_pylist():
        messages = loads(r["messages"], [])
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if r["task_id"] in out or not users:
            continue
        opening = [chat_message(m) for m in messages[: users[0] + 1]]
        out[r["task_id"]] = (opening, chat_tools(loads(r["tools"], [])), r["mode"])
    return out


def default_prompt(task: Record) -> tuple[list[Record], list[Record], str]:
    """For a task nobody has rolled out: the rollout engine's gateway-mode system prompt and
    the four gateway meta-tools, whose schemas do not depend on the services mounted."""
    from library.rollout.prompt import system_prompt  # pulls in composition: only when needed

    messages = [
        {"role": "system", "content": system_prompt("gateway")},
        {"role": "user", "content": task["instruction"]},
    ]
    return messages, Gateway(World([])).tool_schemas(), "gateway"


def _rl_records(wh: Warehouse, tasks: list[Record], prompt: PromptFn | None) -> list[Record]:
    known = _rollout_prompts(wh, [t["task_id"] for t in tasks]) if prompt is None else {}
    out: list[Record] = []
    for t in tasks:
        messages, tools, mode = (
            (prompt or default_prompt)(t) if t["task_id"] not in known else known[t["task_id"]]
        )
        out.append(
            {
                "task_id": t["task_id"],
                "prompt": messages,
                "tools": orjson.dumps(chat_tools(tools)).decode(),
                "mode": mode,
                "services": list(t["services"]),
                "distractor_services": list(t["distractor_services"] or []),
                "domain": t["domain"],
                "capabilities": list(t["capabilities"]),
                "difficulty": t["difficulty"],
                "seed": t["seed"],
                "initial_state": t["initial_state"],  # already a JSON string in the warehouse
                "rubric": t["rubric"],
                "source": "compoworld",
            }
        )
    return out


# -- writing -----------------------------------------------------------------------------------
def _jsonl(records: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _export_id(kind: str, path: Path, content: bytes) -> str:
    """Same kind, place and content: same id, so a rerun is recorded once."""
    head = f"{kind}\0{path}\0".encode()
    return hashlib.blake2b(head + content, digest_size=16).hexdigest()


def _write_hf(tmp: Path, records: list[dict[str, Any]]) -> None:
    import datasets
    from datasets import Dataset

    features = chat_features()
    was_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # a pipeline log is no place for a bar per export
    try:
        Dataset.from_list(records, features=features).save_to_disk(str(tmp))
    finally:
        if was_on:
            datasets.enable_progress_bars()


def _swap_in(tmp: Path, final: Path) -> None:
    """Move a written file or folder into place; an older one is replaced whole."""
    if tmp.is_file():
        os.replace(tmp, final)
        return
    old = final.with_name(f".{final.name}.old-{uuid.uuid4().hex}")
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def export_all(
    wh: Warehouse,
    out_dir: str | os.PathLike[str],
    kept_ids: Iterable[str],
    *,
    curation: CurationResult | None = None,
    rl_split: str = "rl",
    rl_prompt: PromptFn | None = None,
    tools: str | ToolsPolicy = ALL_TOOLS,
) -> list[ExportRecord]:
    """Gate, then write the four exports and record each in ``exports``.

    ``tools``: the tools policy of the rollout records (``all`` | ``called+N``; see the
    module docstring); the RL tasks keep every tool. ``rl_prompt`` builds an RL task's
    (messages, tools, mode); by default a task's first rollout supplies them, else
    ``default_prompt``. Raises ``ExportBlocked`` before writing anything when a data-quality
    expectation or the chat-format check fails.
    """
    policy = ToolsPolicy.parse(tools)  # a bad policy fails before anything is read
    ids = sorted(set(kept_ids))
    rows = load_rollouts(wh, ids)
    rl_tasks = wh.query("SELECT * FROM tasks WHERE split = ? ORDER BY task_id", [rl_split])
    rl_rows = rl_tasks.to_pylist()
    missing = sorted(set(ids) - {r["rollout_id"] for r in rows})
    if missing:
        raise ExportBlocked(f"## Export blocked: unknown rollout ids\n\n{', '.join(missing)}\n")
    task_ids = {r["task_id"] for r in rows} | {t["task_id"] for t in rl_rows}
    report = validate_tables(wh, rollout_ids=ids, task_ids=task_ids)
    if not report.success:
        raise ExportBlocked(report.to_markdown(), report)

    chat, compo = _rollout_records(wh, rows, policy)
    rl = _rl_records(wh, rl_rows, rl_prompt)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chat_bytes = _jsonl(chat)
    payloads = {
        "chat_jsonl": ("chat.jsonl", chat_bytes),
        "hf_dataset": ("hf_dataset", chat_bytes),  # same records, hence the same content
        "compoworld": ("compoworld.jsonl", _jsonl(compo)),
        "rl_tasks": ("rl_tasks.jsonl", _jsonl(rl)),
    }
    if not chat:  # `datasets` cannot save an empty dataset; the JSONL exports still say 0
        del payloads["hf_dataset"]
    tmps: dict[str, Path] = {}
    try:
        for kind, (name, content) in payloads.items():
            tmp = tmps[kind] = out / f".{name}.tmp-{uuid.uuid4().hex}"
            if kind == "hf_dataset":
                _write_hf(tmp, chat)
            else:
                tmp.write_bytes(content)
        for kind, (name, _) in payloads.items():
            _swap_in(tmps.pop(kind), out / name)
    finally:
        for tmp in tmps.values():  # a failure before every rename: leave nothing behind
            if tmp.is_dir():
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                tmp.unlink(missing_ok=True)

    rollout_task_ids = sorted({r["task_id"] for r in rows})
    sources = dict(sorted(Counter(_source(r["policy"]) for r in rows).items()))
    modes = dict(sorted(Counter(r["mode"] for r in rows).items()))
    base = {
        "quality": report.to_dict(),
        "curation": curation.summary() if curation else None,
        "tools_policy": str(policy),
    }
    chat_strings = ["tools", "tool_calls.function.arguments"]
    json_strings = {
        "chat_jsonl": chat_strings,
        "hf_dataset": chat_strings,
        "compoworld": [],  # objects, as the CompoWorld sample has them
        "rl_tasks": ["tools", "initial_state", "rubric"],
    }
    now = dt.datetime.now(dt.UTC)
    records = []
    for kind, (name, content) in payloads.items():
        rl_kind = kind == "rl_tasks"
        path = (out / name).resolve()
        rec = ExportRecord(
            export_id=_export_id(kind, path, content),
            kind=kind,
            path=str(path),
            records=len(rl) if rl_kind else len(chat),
            rollout_ids=[] if rl_kind else ids,
            task_ids=[t["task_id"] for t in rl_rows] if rl_kind else rollout_task_ids,
            report={
                **base,
                "json_strings": json_strings[kind],
                "sources": {"compoworld": len(rl)} if rl_kind else sources,
                "modes": {} if rl_kind else modes,
            },
            created_at=now,
        )
        rec.new = wh.append("exports", [rec.row()], batch_id=rec.export_id)
        records.append(rec)
    return records
