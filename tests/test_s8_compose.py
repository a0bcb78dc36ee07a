"""Composition: no work thrown away (a long walk that wandered stops), thresholds a log of
the work may carry, copies that keep the world coherent, and a walker whose parts do not
shadow one another."""

from __future__ import annotations

import contextlib
import random

from library.compose import ComposeConfig, make_env
from library.compose.walk import WANDER_KEPT, WANDER_STEPS, Reject, Walker, wandered
from tests.libraries import bundled_library


def test_a_walk_has_wandered_once_most_of_its_steps_are_reads_nothing_uses():
    assert not wandered(WANDER_STEPS - 1, 0)  # too early to tell
    assert wandered(WANDER_STEPS, 0)
    assert wandered(WANDER_STEPS, int(WANDER_KEPT * WANDER_STEPS) - 1)
    assert not wandered(WANDER_STEPS, int(WANDER_KEPT * WANDER_STEPS) + 1)
    assert not wandered(20, 12)


def test_a_long_walk_takes_no_step_after_it_has_wandered():
    """Every walk aims for the hard band here: none asks for another step once the steps
    it has taken are mostly reads nothing uses (``_back_to_one_matter`` would throw the
    rest away), and some walks do wander (the check is not vacuous)."""
    lib = bundled_library()
    env = make_env(lib.classes, lib.nodes, config=ComposeConfig(hard_share=1.0))
    after: list[tuple[int, int]] = []  # extending steps asked for by a wandered walk
    stopped = 0  # walks whose extending step left them wandered
    for j in range(40):
        world, base = env.world(j % env.config.worlds)
        walker = Walker(env, world, base, random.Random(j))
        extend = walker._next

        def spy(*args, _walker=walker, _extend=extend, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal stopped
            # the extending loop alone passes ``writes_only`` by name (False until it
            # stalls); the last-chance writes and the widening that follow it do not
            extending = kwargs.get("writes_only") is False
            if extending and wandered(len(_walker.steps), _walker._kept_steps(True)):
                after.append((len(_walker.steps), _walker._kept_steps(True)))
            step = _extend(*args, **kwargs)
            if extending and wandered(len(_walker.steps), _walker._kept_steps(True)):
                stopped += 1
            return step

        walker._next = spy  # type: ignore[method-assign]
        with contextlib.suppress(Reject):
            walker.walk()
    assert stopped, "no walk wandered: the check is vacuous"
    assert not after, after


def test_how_urgent_a_log_of_the_work_is_may_follow_the_record_it_logs():
    """A follow-up task logging a renewal is about the subscription its text names: a
    threshold on that subscription (its MRR) may decide the task's priority, though no id
    ties the two."""
    from library.compose import compose_tasks

    lib = bundled_library(["subscriptions", "todo", "crm", "mail", "knowledge_base"])
    env = make_env(lib.classes, lib.nodes)
    decided = []
    for seed in (0, 1):
        for task in compose_tasks([], 30, env=env, seed=seed).tasks:
            plan = task.gold_plan
            for step in plan:
                if step["kind"] != "create" or not step["write"]:
                    continue
                for bind in step["binds"].values():
                    if bind.get("rule") != "threshold":
                        continue
                    source = plan[bind["step"]]
                    service = source["tool"].split("__")[0]
                    # the log names the record the threshold read, in its text
                    texts = [v for v in step["arguments"].values() if isinstance(v, str)]
                    decided.append((step["tool"], source["tool"], service, texts))
        if len(decided) >= 2:
            break
    logs = [d for d in decided if d[0] == "todo__create_task"]
    assert logs, decided
    assert all(d[2] != "todo" for d in logs)


def test_a_decoy_copy_never_books_its_guest_twice_for_the_same_nights():
    """A record made beside a seeded one (a decoy for a selection rule, a stay moved to the
    request's person) is refused where its guest would hold two stays on the same nights;
    a copy on other nights, or for another guest, is made."""
    import datetime as dt

    import pytest

    lib = bundled_library(["hotels", "mail"])
    env = make_env(lib.classes, lib.nodes)
    world, base = env.world(0)
    walker = Walker(env, world, base, random.Random(0))
    info = env.catalog.collection("hotels", "reservations")
    assert info is not None
    stays = world.services["hotels"].state.reservations
    stay = next(r for r in stays.values() if r.status == "confirmed")
    with pytest.raises(ValueError, match="twice"):
        walker._copy("hotels", info, stay, "res_copy", {"confirmation_number": "ZZ000001"})
    later = {
        "check_in": stay.check_in + dt.timedelta(days=40),
        "check_out": stay.check_out + dt.timedelta(days=40),
    }
    assert walker._copy("hotels", info, stay, "res_copy", later).id == "res_copy"
    other = {
        "guest_email": "someone.else@example.org",
        "guest_name": "Someone Else",
        "guest_phone": "+15550100999",
    }
    assert walker._copy("hotels", info, stay, "res_copy", other).id == "res_copy"


def test_no_part_of_the_walker_overrides_another_s_method_with_other_parameters():
    """The walker is made of parts (bindings, lookups, writes): a method one part defines
    under a name another part already uses, with other parameters, silently replaces it
    for every caller (``Writes._current(entity)`` once shadowed ``Binding._current(entity,
    p)``, and every real-spec walk that reached it failed with a TypeError)."""
    import inspect

    clashes = []
    mro = [c for c in Walker.__mro__ if c.__module__.startswith("library.")]
    for i, cls in enumerate(mro):
        for name, fn in vars(cls).items():
            if not inspect.isfunction(fn) or name.startswith("__"):
                continue
            for base in mro[i + 1 :]:
                other = vars(base).get(name)
                if inspect.isfunction(other):
                    mine = list(inspect.signature(fn).parameters)
                    theirs = list(inspect.signature(other).parameters)
                    if mine != theirs:
                        clashes.append(f"{cls.__name__}.{name}{mine} over {base.__name__}")
    assert not clashes, clashes
