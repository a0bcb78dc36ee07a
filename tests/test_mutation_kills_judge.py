"""The judge's edges (mutants of library/judge.py that survived the other tests,
bench/mutation.py): a group with nothing to judge is refused with a reason naming it; rollouts
the infrastructure failed are left out and listed, and a group of nothing else is skipped,
the next one still judged; the reward's eps and alpha reach the reward; tasks may be given by
id or as a list, and a group's missing task is named; no answer passes no answer check."""

from __future__ import annotations

import pytest

from library.judge import check_rollout, judge_group, judge_rollouts
from library.reward import cfrr
from library.rollout.record import INFRA_ERROR
from library.rubric import load_criteria

from .test_judge import GROUP, SMALL, rollout


def _down(sample: int, group: str = "g") -> object:
    return rollout(sample, "CTO", "Sales", "42", group=group).model_copy(
        update={"status": INFRA_ERROR, "rollout_id": f"down{sample}"}
    )


def test_a_group_with_nothing_to_judge_is_refused_with_its_reason() -> None:
    with pytest.raises(ValueError) as empty:
        judge_group(SMALL, [])
    assert str(empty.value) == "judge_group: no rollouts"
    with pytest.raises(ValueError) as down:
        judge_group(SMALL, [_down(0), _down(1)])
    assert str(down.value) == (
        "judge_group: every rollout of group g ended on an infrastructure fault; "
        "there is nothing to judge"
    )


def test_rollouts_the_infrastructure_failed_are_left_out_and_listed() -> None:
    judged = judge_group(SMALL, [_down(7), *GROUP[:2], _down(8)])
    assert judged.rollout_ids == ["r0", "r1"] and judged.excluded == ("down7", "down8")
    assert judge_group(SMALL, GROUP).excluded == ()


def test_a_group_of_failed_rollouts_is_skipped_and_the_next_judged() -> None:
    other = [rollout(i, "CTO", "Sales", "42", group="h") for i in range(2)]
    judged = judge_rollouts([SMALL], [_down(0, group="f"), *other, *GROUP])
    assert [j.group_id for j in judged] == ["h", "g"]
    assert [j.group_id for j in judge_rollouts({SMALL.task_id: SMALL}, GROUP)] == ["g"]


def test_a_groups_missing_task_is_named() -> None:
    with pytest.raises(KeyError) as missing:
        judge_rollouts([], GROUP[:1])
    assert missing.value.args == ("judge_rollouts: no task 't-small' for its rollouts",)


def test_eps_and_alpha_reach_the_reward() -> None:
    for options in ({"eps": 0.5}, {"alpha": 1.0}, {"eps": 0.3, "alpha": 0.2}):
        want = cfrr(judge_group(SMALL, GROUP).passes, **options)
        assert judge_group(SMALL, GROUP, **options).reward == want
        (judged,) = judge_rollouts([SMALL], GROUP, **options)
        assert judged.reward == want


def test_no_answer_passes_no_answer_check() -> None:
    criteria = load_criteria([{"kind": "answer_contains", "value": "X"}])
    silent = GROUP[1]  # no final answer
    assert silent.final_answer is None
    assert check_rollout(criteria, SMALL.initial_state, silent) == [False]
    said = silent.model_copy(update={"final_answer": "X marks it"})
    assert check_rollout(criteria, SMALL.initial_state, said) == [True]
