"""The reward's edges (mutants of library/reward.py that survived the other tests,
bench/mutation.py): a group it cannot score is refused with a reason that says why (no
rollout, no criterion, ragged rows, eps not above 0, alpha outside [0, 1], both bounds of
alpha allowed); full completion earns exactly 1; an empty row scores 0; and GRPO's advantage
divides by the spread plus eps, never less."""

from __future__ import annotations

import pytest

from library.reward import cfrr, group_advantages, rubric_score


@pytest.mark.parametrize(
    ("passes", "options", "why"),
    [
        ([], {}, "cfrr: a group needs at least one rollout"),
        ([[]], {}, "cfrr: a task needs at least one criterion"),
        ([[True, False], [True]], {}, "cfrr: every rollout must be judged on the same criteria"),
        ([[True]], {"eps": 0.0}, "cfrr: eps must be > 0 and alpha in [0, 1]"),
        ([[True]], {"eps": -0.1}, "cfrr: eps must be > 0 and alpha in [0, 1]"),
        ([[True]], {"alpha": 1.5}, "cfrr: eps must be > 0 and alpha in [0, 1]"),
        ([[True]], {"alpha": -0.1}, "cfrr: eps must be > 0 and alpha in [0, 1]"),
    ],
)
def test_a_group_that_cannot_be_scored_is_refused_with_its_reason(
    passes: list[list[bool]], options: dict, why: str
) -> None:
    with pytest.raises(ValueError) as refused:
        cfrr(passes, **options)
    assert str(refused.value) == why


def test_both_bounds_of_alpha_are_allowed() -> None:
    group = [[True, True], [True, False], [False, False]]
    assert cfrr(group, alpha=1.0).rewards == [1.0, 0.0, 0.0]  # completion alone
    partial = cfrr(group, alpha=0.0)
    assert partial.rewards[0] == 1.0 and 0 < partial.rewards[1] < 1 and partial.rewards[2] == 0


def test_full_completion_earns_exactly_one() -> None:
    group = [[True] * 7, [True] * 6 + [False], [False] * 7]
    reward = cfrr(group)
    assert reward.rewards[0] == 1.0 and reward.completed == [True, False, False]
    assert reward.rewards[1] < 0.5 and reward.rewards[2] == 0.0
    assert sum(reward.weights) == pytest.approx(1.0)


def test_an_empty_row_scores_zero() -> None:
    assert rubric_score([]) == 0.0
    assert rubric_score([True, False, True, True]) == 0.75


def test_an_advantage_divides_by_the_spread_plus_eps() -> None:
    low, high = group_advantages([0.0, 1.0], eps=0.1)
    assert (low, high) == (pytest.approx(-0.5 / 0.6), pytest.approx(0.5 / 0.6))
    assert group_advantages([0.3, 0.3, 0.3]) == [0.0, 0.0, 0.0]
