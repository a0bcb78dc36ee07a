"""Walks run to their end for the composition tests: the walkers that became candidate
tasks (rejected walks are left out), each from its own seeded world and random stream."""

from __future__ import annotations

import random

from library.compose import ComposeEnv
from library.compose.inject import put
from library.compose.motifs import BY_NAME, Motif
from library.compose.walk import Walker
from library.compose.walk_state import Reject
from library.runtime import World


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


def initial_world(walker: Walker) -> World:
    """The walk's world as the request found it, records the walk changed in place
    included (the walk's own world has moved on)."""
    world = walker.world
    world.restore(walker.base)
    for injection in walker.injections:
        put(world, injection)
    return world


def forced(*workflows: str) -> type[Walker]:
    """A walker that always takes one of ``workflows`` (drawn per walk when several)."""

    class Forced(Walker):
        def _choose_workflow(self) -> Motif | None:
            name = workflows[0] if len(workflows) == 1 else self.rng.choice(workflows)
            return BY_NAME[name]

    return Forced
