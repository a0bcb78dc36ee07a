"""Curation: which judged rollouts become training data.

Rules, in order; a rollout is dropped for the first rule it breaks, and reasons are counted:

1. not ended by an infrastructure fault (``infra_error``), judged, completed
   (``rollout_scores.completed``), finished, and ending in an answer;
2. its task exists and is in an allowed split (eval tasks must never leak into training);
3. oracle rollouts only when ``keep_oracle``;
4. tool calls whose arguments are not a JSON object cannot be exported, so any one drops the
   rollout; invalid calls (recorded by the engine, or invented: a name not among the tools
   exposed) beyond ``max_invalid_calls`` drop it too;
5. length bounds (messages, tool calls, characters);
6. duplicates: the same task with the same tool-call sequence, the same normalized text on any
   task, or (within a task and exposure mode, so gateway demonstrations stand beside direct
   ones) word 3-shingle Jaccard similarity >= ``near_duplicate_threshold``;
7. balance: caps per task, service, domain and capability.

Rules 6 and 7 keep the best rollouts first (rubric score, reward, fewer tool errors, fewer
steps); ties break on a hash of the id, so the survivor is deterministic and not biased
toward small ids.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from library.rollout.record import INFRA_ERROR
from warehouse import Warehouse

_LOAD = """
SELECT r.rollout_id, r.task_id, r.sample, r.policy, r.mode, r.messages, r.tools, r.steps,
       r.tool_calls, r.invalid_tool_calls, r.tool_errors, r.status,
       s.completed, s.rubric_score, s.reward,
       t.task_id AS task_found, t.services, t.domain, t.capabilities, t.difficulty, t.split
FROM rollouts r
LEFT JOIN rollout_scores s ON s.rollout_id = r.rollout_id
LEFT JOIN tasks t ON t.task_id = r.task_id
{where}
ORDER BY r.rollout_id
"""
_WORD = re.compile(r"\w+")


class CurationSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    splits: tuple[str, ...] = ("sft",)  # task splits whose rollouts may be kept
    keep_oracle: bool = True
    max_invalid_calls: int = Field(0, ge=0)
    min_messages: int = Field(3, ge=1)
    max_messages: int = Field(200, ge=1)
    min_tool_calls: int = Field(1, ge=0)
    max_tool_calls: int = Field(100, ge=0)
    max_chars: int | None = Field(None, ge=1)  # a cheap token-budget proxy
    near_duplicate_threshold: float | None = Field(0.9, gt=0, le=1)  # None: exact dedup only
    max_per_task: int | None = Field(None, ge=1)
    max_per_service: int | None = Field(None, ge=1)
    max_per_domain: int | None = Field(None, ge=1)
    max_per_capability: int | None = Field(None, ge=1)


@dataclass(slots=True)
class CurationResult:
    kept: list[str]  # rollout ids, best first
    dropped: dict[str, int]  # reason -> count
    reasons: dict[str, str]  # rollout id -> the reason it was dropped
    balance: dict[str, dict[str, int]]  # facet (service, domain, ...) -> value -> kept count
    considered: int = 0

    def summary(self) -> dict[str, Any]:
        """What an export report keeps: counts, not per-rollout reasons."""
        return {
            "considered": self.considered,
            "kept": len(self.kept),
            "dropped": self.dropped,
            "balance": self.balance,
        }


# -- reading rollouts --------------------------------------------------------------------------
def load_rollouts(wh: Warehouse, ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Rollouts joined with their score and task, one dict per row, ordered by id."""
    if ids is None:
        return wh.query(_LOAD.format(where="")).to_pylist()
    where = "WHERE list_contains(?::VARCHAR[], r.rollout_id)"
    return wh.query(_LOAD.format(where=where), [sorted(set(ids))]).to_pylist()


def loads(value: Any, default: Any) -> Any:
    """A JSON column's value, or ``default`` when it is null or does not parse."""
    if value is None:
        return default
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return default


def tool_calls(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``function`` part of every assistant tool call, in order."""
    out = []
    for m in messages:
        calls = m.get("tool_calls") if m.get("role") == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            fn = call.get("function") if isinstance(call, dict) else None
            out.append(fn if isinstance(fn, dict) else {})  # {} counts as malformed
    return out


def _arguments(raw: Any) -> dict[str, Any] | None:
    value = loads(raw, None) if isinstance(raw, str) else None
    return value if isinstance(value, dict) else None


def call_sequence(messages: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    """Tool names with canonical arguments: equal for the same calls in any key order."""
    out = []
    for fn in tool_calls(messages):
        args = _arguments(fn.get("arguments"))
        canon = orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode() if args else "{}"
        out.append(f"{fn.get('name')}{canon}")
    return tuple(out)


def normalized_text(messages: Sequence[dict[str, Any]]) -> str:
    """Lower-cased words of every message and call, punctuation and spacing dropped."""
    parts = [m["content"] for m in messages if isinstance(m.get("content"), str)]
    parts += call_sequence(messages)
    return " ".join(_WORD.findall(" ".join(parts).lower()))


def _shingles(text: str, n: int = 3) -> frozenset[str]:
    words = text.split()
    if len(words) < n:
        return frozenset([" ".join(words)])
    return frozenset(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


# -- rules -------------------------------------------------------------------------------------
@dataclass(slots=True)
class _Candidate:
    row: dict[str, Any]
    messages: list[dict[str, Any]]
    text: str = ""
    shingles: frozenset[str] = field(default_factory=frozenset)

    @property
    def id(self) -> str:
        return self.row["rollout_id"]

    def rank(self) -> tuple[Any, ...]:
        r = self.row
        return (-r["rubric_score"], -r["reward"], r["tool_errors"], r["steps"], _digest(self.id))


def _tool_names(tools: Any) -> set[str]:
    if not isinstance(tools, list):
        return set()
    fns = [t.get("function") for t in tools if isinstance(t, dict)]
    return {fn["name"] for fn in fns if isinstance(fn, dict) and isinstance(fn.get("name"), str)}


def _ends_with_answer(messages: Sequence[dict[str, Any]]) -> bool:
    last = messages[-1] if messages else {}
    return last.get("role") == "assistant" and not last.get("tool_calls")


def _row_reason(row: dict[str, Any], messages: list[dict[str, Any]], s: CurationSettings) -> str:
    """The first per-row rule a rollout breaks, or '' when it passes them all."""
    if row["status"] == INFRA_ERROR:
        return "infrastructure"  # the model server failed: never judged, never exported
    if row["completed"] is None:
        return "not_judged"
    if not row["completed"]:
        return "not_completed"
    if row["status"] != "finished" or not _ends_with_answer(messages):
        return "unfinished"
    if row["task_found"] is None:
        return "unknown_task"
    if row["split"] not in s.splits:
        return "wrong_split"
    if row["policy"] == "oracle" and not s.keep_oracle:
        return "oracle"
    calls = tool_calls(messages)
    if any(_arguments(fn.get("arguments")) is None for fn in calls):
        return "malformed_arguments"
    exposed = _tool_names(loads(row["tools"], []))
    invented = sum(1 for fn in calls if fn.get("name") not in exposed)
    if max(row["invalid_tool_calls"], invented) > s.max_invalid_calls:
        return "invalid_tool_calls"
    if len(messages) < s.min_messages or len(calls) < s.min_tool_calls:
        return "too_short"
    if len(messages) > s.max_messages or len(calls) > s.max_tool_calls:
        return "too_long"
    if s.max_chars is not None:
        chars = sum(len(m["content"]) for m in messages if isinstance(m.get("content"), str))
        chars += sum(len(fn.get("arguments") or "") for fn in calls)
        if chars > s.max_chars:
            return "too_long"
    return ""


def _dedup(
    cands: list[_Candidate], s: CurationSettings, reasons: dict[str, str]
) -> list[_Candidate]:
    seen_calls: set[tuple[str, tuple[str, ...]]] = set()
    seen_text: set[str] = set()
    kept_by_task: dict[str, list[_Candidate]] = {}
    out = []
    for c in cands:
        calls_key = (c.row["task_id"], call_sequence(c.messages))
        text_key = _digest(c.text)
        if calls_key in seen_calls or text_key in seen_text:
            reasons[c.id] = "duplicate"
            continue
        # Near-duplicates are looked for within a task and exposure mode: a gateway
        # demonstration (discovery, then call_tool) is not a copy of a direct one.
        peers = kept_by_task.setdefault(f"{c.row['task_id']}\0{c.row['mode']}", [])
        t = s.near_duplicate_threshold
        if t is not None and any(_jaccard(c.shingles, p.shingles) >= t for p in peers):
            reasons[c.id] = "near_duplicate"
            continue
        seen_calls.add(calls_key)
        seen_text.add(text_key)
        peers.append(c)
        out.append(c)
    return out


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _facets(row: dict[str, Any]) -> dict[str, list[str]]:
    return {
        "task": [row["task_id"]],
        "service": list(row["services"] or []),
        "domain": [row["domain"]],
        "capability": list(row["capabilities"] or []),
    }


def _balance(cands: list[_Candidate], s: CurationSettings, reasons: dict[str, str]) -> list[str]:
    caps = {
        "task": s.max_per_task,
        "service": s.max_per_service,
        "domain": s.max_per_domain,
        "capability": s.max_per_capability,
    }
    counts: dict[str, Counter[str]] = {facet: Counter() for facet in caps}
    kept = []
    for c in cands:
        facets = _facets(c.row)
        full = next(
            (
                f
                for f, cap in caps.items()
                if cap is not None and any(counts[f][v] >= cap for v in facets[f])
            ),
            None,
        )
        if full is not None:
            reasons[c.id] = f"cap_{full}"
            continue
        for f, values in facets.items():
            counts[f].update(values)
        kept.append(c.id)
    return kept


def _stats(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    stats: dict[str, Counter[str]] = {k: Counter() for k in ("service", "domain", "capability")}
    stats["policy"] = Counter()
    for row in rows:
        facets = _facets(row)
        for k in ("service", "domain", "capability"):
            stats[k].update(facets[k])
        stats["policy"][row["policy"]] += 1
    return {k: dict(sorted(v.items())) for k, v in stats.items()}


def curate(wh: Warehouse, settings: CurationSettings | None = None) -> CurationResult:
    """Apply the rules above to every rollout in the warehouse."""
    s = settings or CurationSettings()
    rows = load_rollouts(wh)
    reasons: dict[str, str] = {}
    cands: list[_Candidate] = []
    seen: set[str] = set()
    extra_rows = 0
    for row in rows:
        if row["rollout_id"] in seen:  # written twice, or joined to two scores/tasks
            extra_rows += 1  # the quality gate reports these; curation keeps one row
            continue
        seen.add(row["rollout_id"])
        messages = loads(row["messages"], [])
        messages = (
            [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
        )
        reason = _row_reason(row, messages, s)
        if reason:
            reasons[row["rollout_id"]] = reason
            continue
        text = normalized_text(messages)
        cands.append(_Candidate(row, messages, text, _shingles(text)))
    cands.sort(key=_Candidate.rank)
    kept = _balance(_dedup(cands, s, reasons), s, reasons)
    by_id = {c.id: c.row for c in cands}
    dropped = Counter(reasons.values())
    if extra_rows:
        dropped["duplicate_row"] = extra_rows
    return CurationResult(
        kept=kept,
        dropped=dict(sorted(dropped.items())),
        reasons=reasons,
        balance=_stats(by_id[i] for i in kept),
        considered=len(seen),
    )
