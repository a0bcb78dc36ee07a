"""Curation's rules at their edges, on rows built here, without a warehouse (mutants of
tasks/curate.py that survived the other tests, bench/mutation.py): each per-row rule drops a
rollout with its own reason, in order, and a bound is inclusive (as many messages, calls or
characters as allowed is kept, one more is dropped); duplicates keep the best-ranked copy and
near-duplicates are looked for within one task and mode only, a similarity at the threshold
counting as near; a cap keeps exactly that many; and the text and call keys compare what was
said and called, not how it was written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from library.rollout.record import INFRA_ERROR
from tasks.curate import (
    CurationSettings,
    _balance,
    _Candidate,
    _dedup,
    _jaccard,
    _row_reason,
    _shingles,
    call_sequence,
    loads,
    normalized_text,
    tool_calls,
)

TOOLS = json.dumps([{"type": "function", "function": {"name": "find"}}])


def _call(name: str = "find", arguments: str = '{"q": "x"}') -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def _messages(*calls: dict[str, Any], answer: str = "Done.") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "Find x."}]
    for call in calls:
        out += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "content": "ok"},
        ]
    return [*out, {"role": "assistant", "content": answer}]


def _row(**changes: Any) -> dict[str, Any]:
    row = {
        "rollout_id": "r1", "task_id": "t1", "policy": "model", "mode": "direct",
        "status": "finished", "completed": True, "task_found": "t1", "split": "sft",
        "tools": TOOLS, "invalid_tool_calls": 0, "rubric_score": 1.0, "reward": 1.0,
        "tool_errors": 0, "steps": 3, "services": ["crm"], "domain": "sales",
        "capabilities": ["lookup"],
    }  # fmt: skip
    return row | changes


ONE_CALL = _messages(_call())  # 4 messages, 1 call


def _reason(
    messages: list[dict[str, Any]] = ONE_CALL, s: CurationSettings | None = None, **row: Any
) -> str:
    return _row_reason(_row(**row), messages, s or CurationSettings())


def test_a_rollout_that_breaks_no_rule_is_kept() -> None:
    assert _reason() == ""


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ({"status": INFRA_ERROR, "completed": None}, "infrastructure"),
        ({"completed": None}, "not_judged"),
        ({"completed": False}, "not_completed"),
        ({"status": "max_steps"}, "unfinished"),
        ({"task_found": None, "split": None}, "unknown_task"),
        ({"split": "eval"}, "wrong_split"),
        ({"invalid_tool_calls": 1}, "invalid_tool_calls"),
        ({"tools": "[]"}, "invalid_tool_calls"),  # a call of a tool never exposed: invented
    ],
)
def test_each_rule_drops_with_its_own_reason(row: dict[str, Any], reason: str) -> None:
    assert _reason(**row) == reason


def test_the_first_rule_broken_is_the_reason() -> None:
    assert _reason(status=INFRA_ERROR, completed=False, split="eval") == "infrastructure"
    assert _reason(completed=False, split="eval") == "not_completed"
    assert _reason(task_found=None, split="eval") == "unknown_task"
    assert _reason(split="eval", policy="oracle", s=CurationSettings(keep_oracle=False)) == (
        "wrong_split"
    )


def test_a_rollout_must_end_in_an_answer() -> None:
    no_answer = ONE_CALL[:-1]  # ends with the tool's result
    assert _reason(no_answer) == "unfinished"
    asking = [*ONE_CALL[:-1], {"role": "assistant", "content": "", "tool_calls": [_call()]}]
    assert _reason(asking) == "unfinished"
    assert _reason([]) == "unfinished"


def test_oracle_rollouts_are_kept_only_when_asked() -> None:
    assert _reason(policy="oracle") == ""
    assert _reason(policy="oracle", s=CurationSettings(keep_oracle=False)) == "oracle"
    assert _reason(policy="model", s=CurationSettings(keep_oracle=False)) == ""


def test_arguments_that_are_not_an_object_drop_the_rollout() -> None:
    for bad in ("[1]", "not json", ""):
        assert _reason(_messages(_call(arguments=bad))) == "malformed_arguments"
    assert _reason(_messages({"type": "function"})) == "malformed_arguments"  # no function


def test_invalid_calls_up_to_the_limit_are_allowed() -> None:
    allow_one = CurationSettings(max_invalid_calls=1)
    assert _reason(invalid_tool_calls=1, s=allow_one) == ""
    assert _reason(invalid_tool_calls=2, s=allow_one) == "invalid_tool_calls"
    invented = _messages(_call("nope"), _call("nope"))
    assert _reason(invented, s=allow_one) == "invalid_tool_calls"
    assert _reason(invented[:3] + invented[-1:], s=allow_one) == ""


def test_length_bounds_are_inclusive() -> None:
    two_calls = _messages(_call(), _call())  # 6 messages, 2 calls
    fits = CurationSettings(min_messages=6, max_messages=6, min_tool_calls=2, max_tool_calls=2)
    assert _reason(two_calls, s=fits) == ""
    assert _reason(two_calls, s=fits.model_copy(update={"min_messages": 7})) == "too_short"
    assert _reason(two_calls, s=fits.model_copy(update={"min_tool_calls": 3})) == "too_short"
    assert _reason(two_calls, s=fits.model_copy(update={"max_messages": 5})) == "too_long"
    assert _reason(two_calls, s=fits.model_copy(update={"max_tool_calls": 1})) == "too_long"
    chars = sum(len(m["content"] or "") for m in two_calls) + 2 * len('{"q": "x"}')
    assert _reason(two_calls, s=CurationSettings(max_chars=chars)) == ""
    assert _reason(two_calls, s=CurationSettings(max_chars=chars - 1)) == "too_long"


def _cand(
    rid: str, task: str = "t1", text: str = "", mode: str = "direct", **row: Any
) -> _Candidate:
    messages = _messages(_call(arguments=json.dumps({"q": rid})), answer=text or rid)
    said = normalized_text(messages)
    return _Candidate(
        _row(rollout_id=rid, task_id=task, mode=mode, **row), messages, said, _shingles(said)
    )


def test_candidates_rank_by_score_reward_errors_then_steps() -> None:
    ranked = [
        _cand("a", rubric_score=0.5),
        _cand("b", reward=0.5),
        _cand("c", tool_errors=2),
        _cand("d", steps=9),
        _cand("e"),
    ]
    assert [c.id for c in sorted(ranked, key=_Candidate.rank)] == ["e", "d", "c", "b", "a"]


def test_a_duplicate_is_dropped_and_the_first_kept() -> None:
    same_calls = _Candidate(_row(rollout_id="x2"), ONE_CALL, "other words", frozenset({"o"}))
    first = _Candidate(_row(rollout_id="x1"), ONE_CALL, "some words", frozenset({"s"}))
    reasons: dict[str, str] = {}
    later = _cand("x5")  # what follows a duplicate is still looked at
    assert _dedup([first, same_calls, later], CurationSettings(), reasons) == [first, later]
    assert reasons == {"x2": "duplicate"}
    other_task = _Candidate(_row(rollout_id="x3", task_id="t2"), ONE_CALL, "third", frozenset())
    same_text = _Candidate(_row(rollout_id="x4", task_id="t3"), [], "some words", frozenset())
    kept = _dedup([first, other_task, same_text], CurationSettings(), reasons)
    assert [c.id for c in kept] == ["x1", "x3"] and reasons["x4"] == "duplicate"


def test_near_duplicates_are_looked_for_within_a_task_and_mode_at_the_threshold() -> None:
    words = "alpha beta gamma delta epsilon zeta eta theta"
    a = _cand("a", text=words)
    b = _cand("b", text=words + " iota")
    similarity = _jaccard(a.shingles, b.shingles)
    assert 0 < similarity < 1
    at = CurationSettings(near_duplicate_threshold=similarity)
    reasons: dict[str, str] = {}
    assert [c.id for c in _dedup([a, b, _cand("z")], at, reasons)] == ["a", "z"]
    assert reasons == {"b": "near_duplicate"}
    above = CurationSettings(near_duplicate_threshold=min(1.0, similarity + 0.01))
    assert [c.id for c in _dedup([a, b], above, {})] == ["a", "b"]
    exact_only = CurationSettings(near_duplicate_threshold=None)
    assert [c.id for c in _dedup([a, b], exact_only, {})] == ["a", "b"]
    elsewhere = [
        a,
        _cand("c", task="t2", text=words + " iota"),
        _cand("d", mode="gateway", text=words + " iota"),
    ]
    assert [c.id for c in _dedup(elsewhere, at, {})] == ["a", "c", "d"]


@pytest.mark.parametrize(
    ("cap", "facet"),
    [("max_per_task", "task"), ("max_per_service", "service"),
     ("max_per_domain", "domain"), ("max_per_capability", "capability")],
)  # fmt: skip
def test_a_cap_keeps_exactly_that_many(cap: str, facet: str) -> None:
    cands = [_cand(f"r{k}") for k in range(4)]
    reasons: dict[str, str] = {}
    assert _balance(cands, CurationSettings(**{cap: 2}), reasons) == ["r0", "r1"]
    assert reasons == {"r2": f"cap_{facet}", "r3": f"cap_{facet}"}
    assert _balance(cands, CurationSettings(), {}) == ["r0", "r1", "r2", "r3"]


def test_a_cap_counts_each_value_apart() -> None:
    cands = [
        _cand("a", services=["crm", "mail"]),
        _cand("b", task="t2", services=["mail"]),
        _cand("c", task="t3", services=["crm"]),
        _cand("d", task="t4", services=["chat"]),
    ]
    reasons: dict[str, str] = {}
    assert _balance(cands, CurationSettings(max_per_service=1), reasons) == ["a", "d"]
    assert reasons == {"b": "cap_service", "c": "cap_service"}


def test_calls_compare_by_name_and_arguments_in_any_key_order() -> None:
    one = _messages(_call(arguments='{"a": 1, "b": 2}'))
    other = _messages(_call(arguments='{"b": 2,  "a": 1}'))
    assert call_sequence(one) == call_sequence(other) == ('find{"a":1,"b":2}',)
    assert call_sequence(_messages(_call(arguments="[]"))) == ("find{}",)
    assert call_sequence(_messages(_call("get"))) != call_sequence(_messages(_call()))
    # only an assistant's calls count, and a call without a function is an empty one
    user = {"role": "user", "content": "x", "tool_calls": [_call()]}
    odd = {"role": "assistant", "tool_calls": [{"type": "function"}, "junk"]}
    assert tool_calls([user, odd]) == [{}, {}]
    assert tool_calls([{"role": "assistant", "tool_calls": "x"}]) == []


def test_text_is_compared_by_its_words() -> None:
    a = [{"role": "user", "content": "Find  the  Invoice!"}]
    b = [{"role": "user", "content": "find the invoice"}]
    assert normalized_text(a) == normalized_text(b) == "find the invoice"
    assert _shingles("a b c d") == frozenset({"a b c", "b c d"})
    assert _shingles("a b") == frozenset({"a b"})
    assert _jaccard(frozenset({"x"}), frozenset({"x", "y"})) == 0.5
    assert _jaccard(frozenset(), frozenset()) == 1.0
    assert _jaccard(frozenset(), frozenset({"x"})) == 0.0


def test_a_json_column_that_does_not_parse_reads_as_its_default() -> None:
    assert loads('{"a": 1}', None) == {"a": 1}
    assert loads(None, []) == [] and loads("{nope", "d") == "d"
