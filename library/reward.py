"""The Completion-Focused Rubric Reward (CFRR), shared by the judge stage and RL training.

Within a group of G rollouts of one task, with x[i, c] = 1 when rollout i passes criterion c:

    p_c = mean_i x[i, c]                                    the criterion's pass rate
    w_c = (1 - p_c + eps) / sum_c' (1 - p_c' + eps)          rarer passes weigh more
    r_i = alpha * all_c x[i, c] + (1 - alpha) * sum_c w_c * x[i, c]

Defaults: eps = 0.1, alpha = 0.5. Full completion earns at least ``alpha`` more than any
partial rollout of the group; among partial ones, passing the criteria that the group finds
hard (the ones that block completion) is worth the most. eps keeps criteria everyone passes
from weighing exactly zero. GRPO then normalizes r within the group (``group_advantages``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

EPS = 0.1
ALPHA = 0.5


@dataclass(frozen=True, slots=True)
class GroupReward:
    pass_rates: list[float]  # p_c per criterion
    weights: list[float]  # w_c per criterion (sum to 1)
    completed: list[bool]  # all_c x[i, c] per rollout
    rewards: list[float]  # r_i per rollout


def cfrr(
    passes: Sequence[Sequence[bool]], *, eps: float = EPS, alpha: float = ALPHA
) -> GroupReward:
    """The reward of each rollout of one group; ``passes[i][c]`` is x[i, c]."""
    if not passes:
        raise ValueError("cfrr: a group needs at least one rollout")
    n_criteria = len(passes[0])
    if n_criteria == 0:
        raise ValueError("cfrr: a task needs at least one criterion")
    if any(len(row) != n_criteria for row in passes):
        raise ValueError("cfrr: every rollout must be judged on the same criteria")
    if eps <= 0 or not 0 <= alpha <= 1:
        raise ValueError("cfrr: eps must be > 0 and alpha in [0, 1]")
    g = len(passes)
    rates = [sum(bool(row[c]) for row in passes) / g for c in range(n_criteria)]
    raw = [1.0 - p + eps for p in rates]
    total = sum(raw)
    weights = [w / total for w in raw]
    completed = [all(row) for row in passes]
    # A rollout that passes every criterion earns the whole weighted part: exactly 1, not a
    # float sum that falls short of it.
    rewards = [
        alpha * float(done)
        + (1 - alpha) * (1.0 if done else sum(w for w, x in zip(weights, row, strict=True) if x))
        for row, done in zip(passes, completed, strict=True)
    ]
    return GroupReward(rates, weights, completed, rewards)


def rubric_score(row: Sequence[bool]) -> float:
    """The plain share of criteria passed (reported beside the reward)."""
    return sum(map(bool, row)) / len(row) if row else 0.0


def group_advantages(rewards: Sequence[float], eps: float = 1e-6) -> list[float]:
    """GRPO's normalization within a group: (r - mean) / (std + eps)."""
    n = len(rewards)
    mean = sum(rewards) / n
    std = (sum((r - mean) ** 2 for r in rewards) / n) ** 0.5
    return [(r - mean) / (std + eps) for r in rewards]
