"""The Completion-Focused Rubric Reward on hand-computed groups."""

from __future__ import annotations

import pytest

from library.reward import cfrr, group_advantages, rubric_score


def test_all_pass_earns_one() -> None:
    out = cfrr([[True, True, True]] * 4)
    assert out.pass_rates == [1.0, 1.0, 1.0]
    assert out.weights == pytest.approx([1 / 3] * 3)
    assert out.rewards == pytest.approx([1.0] * 4)


def test_all_fail_earns_zero() -> None:
    out = cfrr([[False, False]] * 3)
    assert out.weights == pytest.approx([0.5, 0.5])
    assert out.rewards == [0.0, 0.0, 0.0]
    assert out.completed == [False] * 3


def test_a_criterion_nobody_passes_weighs_most() -> None:
    # p = [1, 0] -> raw = [0.1, 1.1] -> w = [1/12, 11/12]; nobody completes.
    out = cfrr([[True, False], [True, False]])
    assert out.weights == pytest.approx([1 / 12, 11 / 12])
    assert out.rewards == pytest.approx([0.5 / 12, 0.5 / 12])


def test_mixed_group_completion_dominates() -> None:
    # p = [1, 0.5] -> raw = [0.1, 0.6] -> w = [1/7, 6/7]
    out = cfrr([[True, True], [True, False]])
    assert out.weights == pytest.approx([1 / 7, 6 / 7])
    assert out.rewards == pytest.approx([1.0, 0.5 / 7])


def test_passing_the_hard_criterion_beats_passing_the_easy_one() -> None:
    # p = [0.75, 0.25]: rollout 1 passes only the hard one, rollout 2 only an easy one.
    out = cfrr([[True, False], [False, True], [True, False], [True, False]])
    assert out.rewards[1] > out.rewards[0]
    # raw = [0.35, 0.85] -> w = [0.35/1.2, 0.85/1.2]
    assert out.rewards == pytest.approx(
        [0.5 * 0.35 / 1.2, 0.5 * 0.85 / 1.2, 0.5 * 0.35 / 1.2, 0.5 * 0.35 / 1.2]
    )


def test_parameters_and_bad_groups() -> None:
    assert cfrr([[True, False]], alpha=1.0).rewards == [0.0]
    assert cfrr([[True, True]], alpha=0.0).rewards == pytest.approx([1.0])
    for bad in ([], [[]], [[True], [True, False]]):
        with pytest.raises(ValueError, match="cfrr"):
            cfrr(bad)


def test_rubric_score_and_advantages() -> None:
    assert rubric_score([True, False, True, True]) == 0.75
    adv = group_advantages([1.0, 0.0])
    assert adv == pytest.approx([1.0, -1.0], abs=1e-5)
    assert group_advantages([0.5, 0.5]) == [0.0, 0.0]
