"""Walks run to their end for the composition tests: the walkers that became candidate
tasks (rejected walks are left out), each from its own seeded world and random stream."""

from __future__ import annotations

import random

from library.compose import ComposeEnv
from library.compose.walk import Walker
from library.compose.walk_state import Reject


def finished_walks(
    env: ComposeEnv, count: int, tag: str, walker: type[Walker] = Walker
) -> list[Walker]:
    done = []
    for j in range(count):
        world, base = env.world(j % env.config.worlds)
        candidate = walker(env, world, base, random.Random(f"{tag}:{j}"))
        try:
            candidate.walk()
        except Reject:
            continue
        done.append(candidate)
    return done
