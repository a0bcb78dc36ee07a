"""Curation rules, one test per rule; the row builders here are shared with the export and
quality tests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from tasks.curate import CurationSettings, call_sequence, curate, normalized_text
from warehouse import Warehouse

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "crm__find_customer",
            "description": "Find a customer by email.",
            "parameters": {
                "type": "object",
                "properties": {"email": {"type": "string", "format": "email"}},
                "required": ["email"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "mail__send_email",
            "description": "Send an email.",
            "parameters": {
                "type": "object",
                "properties": {
                    "to": {"type": "string"},
                    "subject": {"type": "string"},
                    "body": {"type": "string", "default": ""},
                },
                "required": ["to", "subject"],
            },
        },
    },
]
CALLS = [
    ("crm__find_customer", {"email": "ana@acme.test"}),
    ("mail__send_email", {"to": "ana@acme.test", "subject": "Your order", "body": "Shipped."}),
]


def task_row(task_id: str, **over: Any) -> dict[str, Any]:
    row = {
        "task_id": task_id,
        "seed": 7,
        "services": ["crm", "mail"],
        "distractor_services": ["calendar"],
        "domain": "sales",
        "capabilities": ["lookup", "cross_service"],
        "difficulty": "medium",
        "instruction": "Email Ana at ana@acme.test that her order shipped.",
        "initial_state": {"crm": {"customers": {"c1": {"email": "ana@acme.test"}}}, "mail": {}},
        "gold_plan": [{"tool": name, "args": args} for name, args in CALLS],
        "rubric": [{"kind": "record_created", "service": "mail", "collection": "sent"}],
        "split": "sft",
        "created_at": NOW,
    }
    row.update(over)
    return row


def messages_for(
    instruction: str,
    calls: Sequence[tuple[str, dict[str, Any] | str]] = CALLS,
    answer: str | None = "Done: Ana was told her order shipped.",
) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": instruction},
    ]
    for i, (name, args) in enumerate(calls):
        raw = args if isinstance(args, str) else orjson.dumps(args).decode()
        call = {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": raw}}
        msgs.append({"role": "assistant", "content": None, "tool_calls": [call]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": '{"success": true}'})
    if answer is not None:
        msgs.append({"role": "assistant", "content": answer})
    return msgs


def rollout_row(rollout_id: str, task_id: str, **over: Any) -> dict[str, Any]:
    messages = over.pop("messages", None) or messages_for(task_row(task_id)["instruction"])
    calls = sum(len(m.get("tool_calls") or []) for m in messages)
    row = {
        "rollout_id": rollout_id,
        "task_id": task_id,
        "group_id": f"g-{task_id}",
        "sample": 0,
        "policy": "litellm:qwen3-8b",
        "mode": "direct",
        "messages": messages,
        "tools": TOOLS,
        "final_answer": "Done",
        "steps": calls + 1,
        "tool_calls": calls,
        "invalid_tool_calls": 0,
        "tool_errors": 0,
        "duration_s": 1.5,
        "status": "finished",
        "created_at": NOW,
    }
    row.update(over)
    return row


def score_row(rollout_id: str, task_id: str, **over: Any) -> dict[str, Any]:
    row = {
        "rollout_id": rollout_id,
        "task_id": task_id,
        "group_id": f"g-{task_id}",
        "completed": True,
        "rubric_score": 1.0,
        "reward": 1.0,
        "advantage": 0.0,
    }
    row.update(over)
    return row


def seed(
    wh: Warehouse,
    tasks: Sequence[dict[str, Any]],
    rollouts: Sequence[dict[str, Any]],
    scores: Sequence[dict[str, Any]] | None = None,
) -> None:
    """Write the rows; scores default to 'completed, full marks' for every rollout."""
    if scores is None:
        scores = [score_row(r["rollout_id"], r["task_id"]) for r in rollouts]
    if tasks:
        wh.append("tasks", tasks)
    if rollouts:
        wh.append("rollouts", rollouts)
    if scores:
        wh.append("rollout_scores", scores)
    criteria = [
        {
            "rollout_id": s["rollout_id"],
            "task_id": s["task_id"],
            "criterion": 0,
            "kind": "record_created",
            "description": "An email was sent.",
            "passed": s["completed"],
            "weight": 1.0,
        }
        for s in scores
    ]
    if criteria:
        wh.append("criterion_results", criteria)


def varied(instruction: str, n: int) -> list[dict[str, Any]]:
    """Messages distinct enough not to be near-duplicates of one another."""
    calls = [("crm__find_customer", {"email": f"user{n}@site{n}.test", "note": f"lead {n} " * 5})]
    return messages_for(instruction, calls, answer=f"Report {n}: " + f"item{n} " * 12)


@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    return Warehouse(tmp_path / "wh")


# -- rules ---------------------------------------------------------------------------------------
def test_keeps_completed_and_drops_each_failing_rule(wh: Warehouse) -> None:
    instr = task_row("t1")["instruction"]
    rollouts = [
        rollout_row("r-good", "t1"),
        rollout_row("r-failed", "t1", messages=varied(instr, 1)),
        rollout_row("r-unjudged", "t1", messages=varied(instr, 2)),
        rollout_row("r-maxsteps", "t1", status="max_steps", messages=varied(instr, 3)),
        rollout_row("r-noanswer", "t1", messages=messages_for(instr, answer=None)),
        rollout_row("r-eval", "t-eval"),
        rollout_row("r-orphan", "t-missing"),
        rollout_row("r-invalid", "t1", invalid_tool_calls=2, messages=varied(instr, 4)),
        rollout_row(
            "r-invented",
            "t1",
            messages=messages_for(instr, [*CALLS, ("crm__delete_everything", {})]),
        ),
        rollout_row(
            "r-badjson", "t1", messages=messages_for(instr, [("crm__find_customer", "{oops")])
        ),
        rollout_row("r-short", "t1", messages=messages_for(instr, calls=[])),
    ]
    scores = [
        score_row(r["rollout_id"], r["task_id"])
        for r in rollouts
        if r["rollout_id"] not in ("r-failed", "r-unjudged")
    ]
    scores.append(score_row("r-failed", "t1", completed=False, rubric_score=0.5, reward=0.3))
    seed(wh, [task_row("t1"), task_row("t-eval", split="eval")], rollouts, scores)

    result = curate(wh)

    assert result.kept == ["r-good"]
    assert result.reasons == {
        "r-failed": "not_completed",
        "r-unjudged": "not_judged",
        "r-maxsteps": "unfinished",
        "r-noanswer": "unfinished",
        "r-eval": "wrong_split",
        "r-orphan": "unknown_task",
        "r-invalid": "invalid_tool_calls",
        "r-invented": "invalid_tool_calls",
        "r-badjson": "malformed_arguments",
        "r-short": "too_short",
    }
    assert result.dropped["invalid_tool_calls"] == 2
    assert result.considered == len(rollouts)
    assert result.balance["policy"] == {"litellm:qwen3-8b": 1}


def test_invalid_call_limit_and_oracle_switch(wh: Warehouse) -> None:
    instr = task_row("t1")["instruction"]
    seed(
        wh,
        [task_row("t1")],
        [
            rollout_row("r-one-bad", "t1", invalid_tool_calls=1, messages=varied(instr, 1)),
            rollout_row("r-oracle", "t1", policy="oracle", messages=varied(instr, 2)),
        ],
    )
    assert curate(wh).kept == ["r-oracle"]
    loose = curate(wh, CurationSettings(max_invalid_calls=1))
    assert sorted(loose.kept) == ["r-one-bad", "r-oracle"]
    no_oracle = curate(wh, CurationSettings(max_invalid_calls=1, keep_oracle=False))
    assert no_oracle.kept == ["r-one-bad"] and no_oracle.reasons["r-oracle"] == "oracle"


def test_length_bounds(wh: Warehouse) -> None:
    instr = task_row("t1")["instruction"]
    many = [("crm__find_customer", {"email": f"u{i}@x.test"}) for i in range(6)]
    seed(
        wh,
        [task_row("t1")],
        [
            rollout_row("r-2calls", "t1"),
            rollout_row("r-6calls", "t1", messages=messages_for(instr, many)),
        ],
    )
    assert curate(wh, CurationSettings(max_tool_calls=5)).reasons == {"r-6calls": "too_long"}
    assert curate(wh, CurationSettings(min_tool_calls=3)).reasons == {"r-2calls": "too_short"}
    assert curate(wh, CurationSettings(max_messages=8)).kept == ["r-2calls"]
    assert curate(wh, CurationSettings(max_chars=50)).dropped == {"too_long": 2}


def test_duplicates_keep_the_best_copy(wh: Warehouse) -> None:
    instr = task_row("t1")["instruction"]
    reordered = [(n, dict(reversed(list(a.items())))) for n, a in CALLS]  # same calls, key order
    reworded = messages_for(instr, answer="All done -- ana was told her order SHIPPED!")
    seed(
        wh,
        [task_row("t1"), task_row("t2")],
        [
            rollout_row("r-a", "t1"),
            rollout_row("r-b", "t1", messages=messages_for(instr, reordered)),
            rollout_row("r-c", "t1", messages=reworded),
            rollout_row("r-other-task", "t2", messages=messages_for(instr, answer="Sent it.")),
        ],
        [
            score_row("r-a", "t1", reward=0.7),
            score_row("r-b", "t1", reward=0.9),  # the best of the three copies
            score_row("r-c", "t1", reward=0.8),
            score_row("r-other-task", "t2"),
        ],
    )
    assert call_sequence(messages_for(instr)) == call_sequence(messages_for(instr, reordered))
    result = curate(wh)
    assert sorted(result.kept) == ["r-b", "r-other-task"]
    assert result.reasons == {"r-a": "duplicate", "r-c": "duplicate"}


def test_normalized_text_and_near_duplicates(wh: Warehouse) -> None:
    instr = task_row("t1")["instruction"]
    report = " ".join(f"Order {i} for Ana shipped on day {i}." for i in range(30))
    base = messages_for(instr, [("crm__find_customer", {"email": "a@x.test"})], report)
    near = messages_for(instr, [("crm__find_customer", {"email": "b@x.test"})], report)
    shouted = "  " + report.upper().replace(".", "!")  # same words, other case and punctuation
    same_text = messages_for(instr, [("crm__find_customer", {"email": "a@x.test"})], shouted)
    assert normalized_text(base) == normalized_text(same_text)
    seed(
        wh,
        [task_row("t1"), task_row("t2")],
        [
            rollout_row("r-base", "t1", messages=base),
            rollout_row("r-near", "t1", messages=near),
            rollout_row("r-text", "t2", messages=same_text),  # another task, same text
        ],
        [
            score_row("r-base", "t1", reward=1.0),
            score_row("r-near", "t1", reward=0.9),
            score_row("r-text", "t2", reward=0.8),
        ],
    )
    result = curate(wh)
    assert result.kept == ["r-base"]
    assert result.reasons == {"r-near": "near_duplicate", "r-text": "duplicate"}
    exact_only = curate(wh, CurationSettings(near_duplicate_threshold=None))
    assert exact_only.kept == ["r-base", "r-near"]
    assert exact_only.reasons == {"r-text": "duplicate"}


def test_balance_caps_are_deterministic(wh: Warehouse) -> None:
    tasks = [task_row(f"t{i}", services=["crm", "mail"], domain="sales") for i in range(4)]
    tasks += [
        task_row(f"h{i}", services=["hr"], domain="people", capabilities=["rules"])
        for i in range(2)
    ]
    rollouts = [
        rollout_row(f"r-{t['task_id']}", t["task_id"], messages=varied(t["instruction"], i))
        for i, t in enumerate(tasks)
    ]
    scores = [
        score_row(r["rollout_id"], r["task_id"], reward=1 - i / 10) for i, r in enumerate(rollouts)
    ]
    seed(wh, tasks, rollouts, scores)

    by_service = curate(wh, CurationSettings(max_per_service=2))
    assert by_service.kept == ["r-t0", "r-t1", "r-h0", "r-h1"]  # best rewards first
    assert by_service.dropped == {"cap_service": 2}
    assert by_service.balance["service"] == {"crm": 2, "hr": 2, "mail": 2}
    assert curate(wh, CurationSettings(max_per_service=2)).kept == by_service.kept

    by_domain = curate(wh, CurationSettings(max_per_domain=1))
    assert by_domain.kept == ["r-t0", "r-h0"] and by_domain.balance["domain"] == {
        "people": 1,
        "sales": 1,
    }
    by_capability = curate(wh, CurationSettings(max_per_capability=3))
    assert by_capability.balance["capability"] == {"cross_service": 3, "lookup": 3, "rules": 2}
    assert by_capability.dropped == {"cap_capability": 1}


def test_max_per_task_and_settings_validation(wh: Warehouse) -> None:
    instr = task_row("t1")["instruction"]
    seed(
        wh,
        [task_row("t1")],
        [rollout_row(f"r{i}", "t1", messages=varied(instr, i)) for i in range(3)],
    )
    result = curate(wh, CurationSettings(max_per_task=2))
    assert len(result.kept) == 2 and result.dropped == {"cap_task": 1}
    with pytest.raises(ValueError):
        CurationSettings(near_duplicate_threshold=1.5)
    with pytest.raises(ValueError):
        CurationSettings(unknown_knob=1)  # type: ignore[call-arg]


def test_empty_warehouse(wh: Warehouse) -> None:
    result = curate(wh)
    assert result.kept == [] and result.dropped == {} and result.considered == 0
