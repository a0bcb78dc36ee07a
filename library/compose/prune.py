"""Purposeful plans: a read whose result feeds nothing (no later argument, rule, threshold or
answer) is not part of the task. Pruning works backwards, so a read that only fed a pruned
read goes too, and renumbers the step references that remain."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from library.compose.plan import Step


def purposeful(steps: Sequence[Step], answer_steps: Iterable[int]) -> list[int]:
    """Indices of the steps to keep: every write, and every read that a kept step or the
    answer depends on."""
    needed = set(answer_steps)
    keep: list[int] = []
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        if not step.write and i not in needed:
            continue
        keep.append(i)
        for bind in step.binds.values():
            k = bind.get("step")
            if isinstance(k, int):
                needed.add(k)
        for k in step.extra_sources:
            needed.add(k)
    return sorted(keep)


def renumber(steps: Sequence[Step], keep: Sequence[int]) -> dict[int, int]:
    """Rewrite the step references of the kept steps (in place); old index -> new index."""
    new = {old: i for i, old in enumerate(keep)}
    for old in keep:
        step = steps[old]
        for bind in step.binds.values():
            k = bind.get("step")
            if isinstance(k, int):
                bind["step"] = new[k]
            note = bind.get("policy")  # the policy note a threshold is read from
            if isinstance(note, int) and note in new:
                bind["policy"] = new[note]
        step.extra_sources = [new[k] for k in step.extra_sources]
    return new
