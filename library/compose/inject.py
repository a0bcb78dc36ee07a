"""Adding records to a World's seeded state: decoys (near-duplicates a rule must tell apart),
distractors (near-duplicates a lookup must not return) and the record a cross-service
lookup needs. Every change goes through a cloned state, as tool writes do, so snapshots
taken before stay valid."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from library.runtime import World
from library.runtime.service import Record


@dataclass(frozen=True, slots=True)
class Injection:
    service: str
    collection: str
    record: Record
    # A record made someone else's under an id of their own name: the id it had goes.
    replaces: str | None = None


def new_id(world: World, service: str, collection: str, like: str, rng: random.Random) -> str:
    """An id in the style of ``like`` (same prefix and length) that is not taken: a number
    where it is one (tau's order '#W4316490' gives '#W' and seven digits), else hex."""
    taken = getattr(world.services[service].state, collection)
    prefix, _, tail = like.rpartition("_")
    number = re.search(r"\d{3,}$", like)
    head = like[: number.start()] if number else ""
    if number and (tail.isdigit() or len(re.sub(r"[^A-Za-z0-9]", "", head)) <= 2):
        width = len(number.group())
        while (rid := f"{head}{rng.randrange(10**width):0{width}d}") in taken:
            pass
        return rid
    width = max(6, len(tail))
    while True:
        suffix = f"{rng.getrandbits(4 * width):0{width}x}"
        rid = f"{prefix}_{suffix}" if prefix else suffix
        if rid not in taken:
            return rid


def clone(record: Record, rid: str, changes: dict[str, Any]) -> Record:
    """A copy of ``record`` with another id and some fields changed (validated)."""
    data = record.model_dump()
    data.update(changes)
    # A record whose id the spec names after it (``user_id``) dumps it under that alias;
    # setting ``id`` beside it would be an extra field, and the copy would be refused.
    meta = type(record).model_fields.get("id")
    alias = meta.alias if meta is not None else None
    data[alias if alias and alias in data else "id"] = rid
    return type(record).model_validate(data)


def put(world: World, injection: Injection) -> None:
    svc = world.services[injection.service]
    state = svc.state.clone()
    records = getattr(state, injection.collection)
    if injection.replaces is not None and injection.replaces in records:
        del records[injection.replaces]
    records[injection.record.id] = injection.record
    svc.state = state
    world.invalidate(injection.service)


def record(world: World, service: str, collection: str, rid: str) -> Record | None:
    return getattr(world.services[service].state, collection).get(rid)


def shifted(value: Any, rng: random.Random, taken: set[Any]) -> Any:
    """Another value of the same kind: timestamps move by days, numbers scale."""
    for _ in range(20):
        if isinstance(value, dt.datetime):
            new: Any = value + dt.timedelta(days=rng.choice((-1, 1)) * rng.randint(2, 40))
        elif isinstance(value, dt.date):
            new = value + dt.timedelta(days=rng.choice((-1, 1)) * rng.randint(2, 40))
        elif isinstance(value, bool):
            return None
        elif isinstance(value, int):
            new = max(1, int(value * rng.choice((rng.uniform(0.3, 0.8), rng.uniform(1.3, 2.5)))))
        elif isinstance(value, float):
            new = round(value * rng.choice((rng.uniform(0.3, 0.8), rng.uniform(1.3, 2.5))), 2)
        else:
            return None
        if new not in taken:
            return new
    return None


def fresh_key(value: str, taken: set[str], rng: random.Random) -> str | None:
    """Another business key in the style of ``value``: its last run of digits drawn anew
    (``INV-2026-2618`` -> ``INV-2026-7305``), none that is ``taken``."""
    runs = list(re.finditer(r"\d+", value))
    if not runs:
        return None
    last = runs[-1]
    width = len(last.group())
    for _ in range(50):
        digits = f"{rng.randrange(10**width):0{width}d}"
        if width > 1 and last.group()[0] != "0" and digits[0] == "0":
            continue  # no leading zero where the original had none
        new = value[: last.start()] + digits + value[last.end() :]
        if new not in taken:
            return new
    return None
