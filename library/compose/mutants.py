"""Mutants of a gold plan, and how many of them a task's rubric catches.

A rubric has holes when a wrong episode passes it. To find them we run plausible wrong
episodes, mutants of the gold plan, and judge each: a mutant is *caught* when at least one
criterion fails on its final state and answer (the gold run passes all of them).

Mutants run **dynamically**, as an agent would: each argument bound from an earlier step
(``{"from": "step", "step": k, "path": p}``, optionally ``"part"``) or decided by a rule
(``{"from": "rule", "rule": "threshold", ...}``) is resolved from what the earlier steps
returned *in this run*, so a changed read changes what later steps receive. A step whose
bound value cannot be found there is skipped: the agent would be stuck. Literals the user
states (``{"from": "user"}``) are taken from the step as written.

Kinds (``KINDS``): ``drop_write``, ``change_literal``, ``change_binding``, ``pick_decoy``,
``collateral_write``, ``duplicate_create`` (state mutants) and ``wrong_answer``,
``answer_dump``, ``no_answer`` (answer mutants, only for tasks with answer rows).

The mutant's reply: answer mutants state their own; the others reply as the gold reply does,
except that where answer rows say where each value was read (``step``, ``path``) the value
is read from the mutant's own run (an agent that picked the decoy reports the decoy's
amount; a value it cannot find, it does not state).

A mutant whose final state and reply equal the gold run's changed nothing (a duplicate
create the service refused as a conflict, a collateral action the record's state machine
refused, a decoy identical to the chosen record in every field read later); it is counted
as *equivalent*, per kind, and left out of the catch rate.

Speed: the gold run keeps a snapshot before each step, so a mutant that first differs at
step ``i`` restarts from there; a later call made on the very state object, with the same
arguments, clock and RNG as the gold call is not made again (its result and end state are
the gold ones); and results of criteria that read one service are memoized by the identity
of that service's state (states are copy-on-write, so a service the mutant did not change
keeps the gold run's object).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from library.compose.binding import NAME_PARTS
from library.compose.catalog import ACTION, CREATE, DELETE, UPDATE
from library.compose.realism import number_text
from library.compose.task import Task
from library.graph.nodes import schema_fields
from library.rubric import Criterion, collections_of, same
from library.rubric.values import timestamp
from library.runtime import Service, Snapshot, World

States = Mapping[str, Any]

KINDS = (
    "drop_write",
    "change_literal",
    "change_binding",
    "pick_decoy",
    "collateral_write",
    "duplicate_create",
    "wrong_answer",
    "answer_dump",
    "no_answer",
)
ANSWER_KINDS = frozenset({"wrong_answer", "answer_dump", "no_answer"})
UNRESOLVED = "unresolved"  # the error code of a step the agent could not make

_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
_INDEXED = re.compile(r"^(.*)\[(\d+)\]$")
_MISSING: Any = object()
_CODES = {3: ("USD", "EUR", "GBP", "JPY", "CAD", "AUD"), 2: ("US", "GB", "DE", "FR", "CA")}


# -- resolving binds ------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _tokens(path: str) -> tuple[int | str, ...]:
    """``items[2].email`` -> ``("items", 2, "email")`` (paths repeat: parse each once)."""
    return tuple(int(i) if i else n for i, n in _TOKEN.findall(path))


def lookup(data: Any, path: str) -> Any:
    """The value at ``path`` (``items[2].email``, ``[0]``, ``owner_email``, ``""`` for the
    whole) inside an envelope's data, or ``_MISSING``."""
    for token in _tokens(path or ""):
        if type(token) is int:
            if not isinstance(data, list) or token >= len(data):
                return _MISSING
            data = data[token]
        else:
            if not isinstance(data, Mapping) or token not in data:
                return _MISSING
            data = data[token]
    return data


def _part(value: Any, part: str | None) -> Any:
    """A first or last name taken from a full name, as ``binding._name_part`` bound it."""
    if not part or part not in NAME_PARTS:
        return value
    index = NAME_PARTS[part]
    if index is None:
        return value
    words = value.split() if isinstance(value, str) else []
    return words[index] if words else _MISSING


def _shape(value: Any, gold: Any) -> Any:
    # An array parameter bound from a scalar fact carries it as a one-item list.
    if isinstance(gold, list) and not isinstance(value, list) and value is not _MISSING:
        return [value]
    return value


def resolve(bind: Mapping[str, Any], gold: Any, envelopes: Sequence[Mapping[str, Any]]) -> Any:
    """The value of one argument in this run: ``gold`` (the step's written argument) for a
    user literal, else read from the earlier envelopes; ``_MISSING`` if not there."""
    source = bind.get("from")
    if source not in ("step", "rule"):
        return gold
    k = bind.get("step")
    if not isinstance(k, int) or not 0 <= k < len(envelopes):
        return _MISSING
    envelope = envelopes[k]
    if not envelope.get("success"):
        return _MISSING
    value = lookup(envelope.get("data"), str(bind.get("path") or ""))
    if value is _MISSING:
        return _MISSING
    if source == "rule":
        if bind.get("rule") != "threshold":
            return _MISSING
        if isinstance(value, bool) or not isinstance(value, int | float):
            return _MISSING
        return bind.get("above") if float(value) > float(bind["limit"]) else bind.get("otherwise")
    return _shape(_part(value, bind.get("part")), gold)


def _unresolved(step: int, arg: str) -> dict[str, Any]:
    return {
        "success": False,
        "error": {"code": UNRESOLVED, "message": f"step {step}: no value for {arg!r}"},
    }


def _strict_eq(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (``1`` is not ``1.0`` nor ``True`` to a
    tool's validation)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_strict_eq(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_strict_eq(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@dataclass
class _Gold:
    """The gold run, step by step: the world before each step (and after the last), the
    arguments each call got, the envelopes. A mutant's call that meets the gold call's exact
    conditions (its service's state object, arguments, clock and RNG) is not made again:
    its result is the gold one, and its service takes the gold state object after it, which
    keeps identity (and so the judge's memo) for everything the mutant did not change.

    Tools do not draw from the World's RNG (seeding does), so rather than compare RNG states
    at every call (costly), reuse is on only when no gold call moved the RNG, and a mutant
    run whose RNG moved all the same is run again without reuse (``rng_moved``)."""

    snaps: list[Snapshot] = field(default_factory=list)
    args: list[dict[str, Any] | None] = field(default_factory=list)
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    reuse: bool = False

    def finish(self) -> None:
        rng = self.snaps[0].rng_state
        self.reuse = all(s.rng_state == rng for s in self.snaps[1:])

    def rng_moved(self, world: World) -> bool:
        return world.rng.getstate() != self.snaps[0].rng_state

    def replay(self, world: World, tool: str, args: dict[str, Any], g: int) -> bool:
        if not self.reuse or g >= len(self.args) or self.args[g] is None:
            return False
        service = _service(tool)
        before = self.snaps[g]
        svc = world.services.get(service)
        if svc is None or svc.state is not before.states.get(service):
            return False
        if world.now() != before.clock or not _strict_eq(args, self.args[g]):
            return False
        after = self.snaps[g + 1]
        if after.clock == before.clock:
            svc.state = after.states[service]  # what World.restore does, for one service
        else:
            world.restore(Snapshot({service: after.states[service]}, after.clock, after.rng_state))
        return True


def _run(
    world: World,
    plan: Sequence[Mapping[str, Any]],
    envelopes: list[dict[str, Any]],
    start: int,
    overrides: Mapping[int, Mapping[str, Any]],
    skip: Mapping[int, Mapping[str, Any]],
    gold: _Gold | None = None,
    inserted: int | None = None,
    record: _Gold | None = None,
) -> list[dict[str, Any]]:
    """Run ``plan`` from step ``start`` (``envelopes`` holds the earlier outputs).
    ``record``: fill it as the gold run; ``gold``: reuse its calls where they would repeat
    exactly, ``inserted`` being the step the mutant added (later steps are the gold's one
    further on)."""
    for i in range(start, len(plan)):
        if record is not None:
            record.snaps.append(world.snapshot())
        if i in skip:
            envelopes.append(dict(skip[i]))
            if record is not None:
                record.args.append(None)
            continue
        step = plan[i]
        forced = overrides.get(i) or {}
        args = {**(step.get("arguments") or {}), **forced}
        missing = None
        for name, bind in (step.get("binds") or {}).items():
            if name in forced:
                continue  # a forced value needs no bind
            value = resolve(bind, args.get(name), envelopes)
            if value is _MISSING:
                missing = name
                break
            args[name] = value
        if record is not None:
            record.args.append(None if missing is not None else args)
        if missing is not None:
            envelopes.append(_unresolved(i, missing))
            continue
        g = i if inserted is None or i < inserted else (None if i == inserted else i - 1)
        if gold is not None and g is not None and gold.replay(world, step["tool"], args, g):
            envelopes.append(gold.envelopes[g])
            continue
        envelopes.append(world.call(step["tool"], args))
    if record is not None:
        record.snaps.append(world.snapshot())
        record.envelopes = envelopes
        record.finish()
    return envelopes


def run_plan_dynamic(
    world: World,
    plan: Sequence[Mapping[str, Any]],
    *,
    overrides: Mapping[int, Mapping[str, Any]] | None = None,
    skip: Mapping[int, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Run ``plan`` on ``world`` from its current state, resolving each bind from this
    run's outputs; one envelope per step. ``overrides``: step -> {argument: value} forced
    whatever the binds say; ``skip``: step -> the envelope later binds see in its place (the
    step is not called). A step with an unresolvable bind is not called either; its envelope
    fails with code ``unresolved``, so steps that read from it are skipped in turn."""
    return _run(world, plan, [], 0, overrides or {}, skip or {})


# -- mutants --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mutant:
    """One wrong episode: the gold plan changed (``plan``: None for the gold plan itself,
    with ``overrides`` and ``skip`` as in ``run_plan_dynamic``) and the reply given
    (``answer``: None for the gold reply). Steps before ``start`` are the gold run's."""

    kind: str
    note: str
    plan: list[dict[str, Any]] | None = None
    overrides: dict[int, dict[str, Any]] = field(default_factory=dict)
    skip: dict[int, dict[str, Any]] = field(default_factory=dict)
    answer: str | None = None
    # Where the reply's values are read (answer rows with ``step`` and ``path``); None: the
    # gold rows. With tracked rows and no fixed ``answer``, the reply is read from the run.
    rows: list[dict[str, Any]] | None = None
    start: int = 0
    inserted: int | None = None  # the step ``plan`` adds to the gold plan, if any

    @property
    def runs(self) -> bool:
        """Whether the mutant acts differently (else the gold final state is its own)."""
        return self.plan is not None or bool(self.overrides) or bool(self.skip)


def _service(tool: str) -> str:
    return tool.split("__", 1)[0]


def _collection_of(states: States, service: str, rid: Any, created: bool = True) -> str | None:
    """The collection of ``service`` holding record ``rid`` in ``states``; for a record the
    plan created (``created``: allowed), the collection whose ids share its prefix
    (``tic_``)."""
    if not isinstance(rid, str):
        return None
    colls = collections_of(states, service)
    for name, records in colls.items():
        if rid in records:
            return name
    if not created:
        return None
    prefix = rid.split("_", 1)[0] + "_" if "_" in rid else None
    for name, records in colls.items():
        if prefix and any(str(other).startswith(prefix) for other in records):
            return name
    return None


def _split(path: str) -> tuple[str, str | None]:
    """``data[0].email`` -> (``data[0]``, ``email``); the record and the field read."""
    if not path or path.endswith("]"):
        return path, None
    head, _, leaf = path.rpartition(".")
    return head, leaf


def _insert(plan: Sequence[Mapping[str, Any]], at: int, step: Mapping[str, Any]) -> list[dict]:
    """``plan`` with ``step`` inserted at ``at``; binds to later steps renumbered."""

    def shifted(s: Mapping[str, Any]) -> dict[str, Any]:
        binds = {
            name: {**b, "step": b["step"] + 1}
            if isinstance(b.get("step"), int) and b["step"] >= at
            else b
            for name, b in (s.get("binds") or {}).items()
        }
        return {**s, "binds": binds}

    return [*plan[:at], dict(step), *(shifted(s) for s in plan[at:])]


def _nodes(schema: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Resolved schema nodes by path (``to``, ``to[]``) of a tool's input schema."""
    return {path: node for path, node, _ in schema_fields(schema)}


def _fits(value: Any, node: Mapping[str, Any]) -> bool:
    """Whether ``value`` obeys the schema constraints we can check cheaply."""
    if isinstance(value, str):
        if node.get("maxLength") is not None and len(value) > node["maxLength"]:
            return False
        if node.get("minLength") is not None and len(value) < node["minLength"]:
            return False
        pattern = node.get("pattern")
        if pattern:
            try:
                return re.search(pattern, value) is not None
            except re.error:
                return True
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        lo = node.get("minimum", node.get("exclusiveMinimum"))
        hi = node.get("maximum", node.get("exclusiveMaximum"))
        return (lo is None or value >= lo) and (hi is None or value <= hi)
    return True


def _shift_day(value: str) -> str | None:
    try:
        day = dt.date.fromisoformat(value[:10]) + dt.timedelta(days=1)
    except ValueError:
        return None
    return day.isoformat() + value[10:]


def _typo(text: str) -> str | None:
    """``text`` with its last letter or digit changed: ``Review 85`` -> ``Review 86``."""
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch.isdigit():
            new = str((int(ch) + 1) % 10)
        elif "a" <= ch.lower() <= "z":
            nxt = chr((ord(ch.lower()) - ord("a") + 1) % 26 + ord("a"))
            new = nxt.upper() if ch.isupper() else nxt
        else:
            continue
        return text[:i] + new + text[i + 1 :]
    return None


def perturb(value: Any, node: Mapping[str, Any] | None = None) -> Any:
    """Another valid-looking value of the same type: another enum option, the other boolean,
    a scaled number, the next day, another currency or country code, a one-letter typo; a
    list with its first item changed. ``_MISSING`` when there is none."""
    node = node or {}
    options = [o for o in node.get("enum") or () if o is not None and not same(o, value)]
    if options:
        return options[0]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        if isinstance(value, int):
            tries: list[Any] = [value * 2 if value else 1, value + 1, value - 1]
        else:
            tries = [round(value * 1.5, 2) if value else 1.0, round(value + 1, 2)]
        return next((t for t in tries if t != value and _fits(t, node)), _MISSING)
    if isinstance(value, str):
        tries = []
        if timestamp(value) is not None:
            tries.append(_shift_day(value))
        if re.fullmatch(r"[A-Z]{2,3}", value):
            tries += [c for c in _CODES[len(value)] if c != value]
        tries.append(_typo(value))
        return next((t for t in tries if t and t != value and _fits(t, node)), _MISSING)
    if isinstance(value, list) and value:
        first = perturb(value[0], node.get("items") if isinstance(node.get("items"), dict) else {})
        return _MISSING if first is _MISSING else [first, *value[1:]]
    return _MISSING


def _item_node(nodes: Mapping[str, dict[str, Any]], arg: str) -> dict[str, Any]:
    node = dict(nodes.get(arg) or {})
    if f"{arg}[]" in nodes:
        node["items"] = nodes[f"{arg}[]"]
    return node


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _drop_writes(plan: Sequence[Mapping[str, Any]], gold: Sequence[dict]) -> list[Mutant]:
    return [
        Mutant("drop_write", f"step {i} {s['tool']} not done", skip={i: gold[i]}, start=i)
        for i, s in enumerate(plan)
        if s.get("write")
    ]


def _change_literals(
    plan: Sequence[Mapping[str, Any]], nodes_of: Callable[[str], dict[str, dict[str, Any]]]
) -> list[Mutant]:
    out = []
    for i, step in enumerate(plan):
        nodes = nodes_of(step["tool"])
        binds = step.get("binds") or {}
        for name, value in (step.get("arguments") or {}).items():
            if (binds.get(name) or {}).get("from", "user") != "user":
                continue
            new = perturb(value, _item_node(nodes, name))
            if new is _MISSING:
                continue
            note = f"step {i} {step['tool']}: {name} {_short(value)} -> {_short(new)}"
            out.append(Mutant("change_literal", note, overrides={i: {name: new}}, start=i))
    return out


def _other_value(
    bind: Mapping[str, Any],
    gold_value: Any,
    plan: Sequence[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any]],
    initial: States,
) -> tuple[Any, str]:
    """The same field's value in another record of the collection the bind read from (in
    id order), with where it came from; ``_MISSING`` if no record has another value."""
    k = bind.get("step")
    if not isinstance(k, int) or not 0 <= k < len(gold):
        return _MISSING, ""
    container, leaf = _split(str(bind.get("path") or ""))
    record = lookup(gold[k].get("data"), container)
    if leaf is None or not isinstance(record, Mapping):
        return _MISSING, ""
    service = _service(plan[k]["tool"])
    coll = _collection_of(initial, service, record.get("id"))
    if coll is None:
        return _MISSING, ""
    records = collections_of(initial, service)[coll]
    for rid in sorted(records):
        if rid == record.get("id"):
            continue
        value = records[rid].get(leaf) if isinstance(records[rid], Mapping) else None
        if value is None:
            continue
        value = _shape(_part(value, bind.get("part")), gold_value)
        if value is not _MISSING and not same(value, gold_value):
            return value, f"{coll} {rid}"
    return _MISSING, ""


def _change_bindings(
    plan: Sequence[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any]],
    initial: States,
    nodes_of: Callable[[str], dict[str, dict[str, Any]]],
) -> list[Mutant]:
    out = []
    for i, step in enumerate(plan):
        args = step.get("arguments") or {}
        nodes = nodes_of(step["tool"])
        for name, bind in (step.get("binds") or {}).items():
            gold_value = args.get(name)
            if bind.get("from") == "rule":
                # The rule decided wrongly: the other outcome.
                above, otherwise = bind.get("above"), bind.get("otherwise")
                new, where = (otherwise if same(gold_value, above) else above), "rule flipped"
            elif bind.get("from") == "step":
                new, where = _other_value(bind, gold_value, plan, gold, initial)
                if new is _MISSING:
                    new, where = perturb(gold_value, _item_node(nodes, name)), "perturbed"
            else:
                continue
            if new is _MISSING or same(new, gold_value):
                continue
            note = (
                f"step {i} {step['tool']}: {name} {_short(gold_value)} -> {_short(new)} ({where})"
            )
            out.append(Mutant("change_binding", note, overrides={i: {name: new}}, start=i))
    return out


def _tracked(rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether answer rows say where each value was read (``step``, ``path``), so a mutant's
    reply can be read from its own run."""
    return bool(rows) and all(
        isinstance(r.get("step"), int) and isinstance(r.get("path"), str) for r in rows
    )


def _redirect(
    reads: re.Pattern[str], source: Any, where: Any, k: int, base: str, j: int
) -> tuple[str, int] | None:
    """(the path that reads decoy ``j`` where ``where`` read the chosen record of step
    ``k``'s list at ``base``, the chosen index), or None if it reads something else."""
    hit = reads.match(str(where or "")) if source == k else None
    if hit is None or int(hit.group(1)) == j:
        return None
    return f"{base}[{j}]{hit.group(2)}", int(hit.group(1))


def _pick_decoys(
    plan: Sequence[Mapping[str, Any]],
    decoys: Iterable[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any]],
    answer_rows: Sequence[Mapping[str, Any]],
    reply: Callable[[Sequence[dict[str, Any]]], str],
) -> list[Mutant]:
    out = []
    tracked = _tracked(answer_rows)
    for decoy in decoys:
        k, path = decoy.get("step"), str(decoy.get("path") or "")
        m = _INDEXED.match(path)
        if not isinstance(k, int) or not 0 <= k < len(plan) or not plan[k].get("select") or not m:
            continue
        base, j = m.group(1), int(m.group(2))
        reads = re.compile(re.escape(base) + r"\[(\d+)\](.*)$")

        def redirect(source: Any, where: Any) -> tuple[str, int] | None:
            return _redirect(reads, source, where, k, base, j)  # noqa: B023 (used in-loop only)

        new_plan: list[dict[str, Any]] = []
        start, chosen = None, None
        for i, step in enumerate(plan):
            binds = dict(step.get("binds") or {})
            for name, bind in binds.items():
                moved = redirect(bind.get("step"), bind.get("path"))
                if moved is not None:
                    binds[name] = {**bind, "path": moved[0]}
                    chosen = moved[1]
                    start = i if start is None else start
            new_plan.append({**step, "binds": binds})
        # The agent that picked the decoy also reports the decoy's values.
        rows, answer = None, None
        if tracked:
            rows = [dict(r) for r in answer_rows]
            moved_rows = [(r, redirect(r["step"], r["path"])) for r in rows]
            for row, moved in moved_rows:
                if moved is not None:
                    row["path"] = moved[0]
            if all(moved is None for _, moved in moved_rows):
                rows = None
        else:
            answer = _decoy_answer(gold, k, path, base, chosen, answer_rows, reply)
        if start is None and rows is None and answer is None:
            continue  # nothing reads the selected record: the choice changes nothing
        note = f"step {plan[k]['tool']}: the record at {path} ({decoy.get('id')}) instead"
        out.append(
            Mutant(
                "pick_decoy",
                note,
                plan=new_plan if start is not None else None,
                answer=answer,
                rows=rows,
                start=start if start is not None else len(plan),
            )
        )
    return out


def _decoy_answer(
    gold: Sequence[Mapping[str, Any]],
    k: int,
    path: str,
    base: str,
    chosen: int | None,
    answer_rows: Sequence[Mapping[str, Any]],
    reply: Callable[[Sequence[dict[str, Any]]], str],
) -> str | None:
    """For answer rows that do not say where they were read: the reply with each value the
    chosen record holds replaced by the decoy's value in the same field."""
    data = gold[k].get("data") if k < len(gold) else None
    picked = lookup(data, path)
    selected = lookup(data, f"{base}[{chosen}]") if chosen is not None else _MISSING
    if not isinstance(picked, Mapping) or not isinstance(selected, Mapping):
        return None
    rows, changed = [dict(r) for r in answer_rows], False
    for row in rows:
        for fname, value in selected.items():
            if fname != "id" and same(value, row.get("value")):
                other = picked.get(fname)
                if other is not None and not same(other, value):
                    row["value"], changed = other, True
                break
    return reply(rows) if changed else None


def _ids(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, str)}
    return set()


def _collateral_writes(
    plan: Sequence[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any]],
    initial: States,
    decoys: Iterable[Mapping[str, Any]],
) -> list[Mutant]:
    touched: set[str] = {str(d.get("id")) for d in decoys}  # guarded already
    for step in plan:
        for value in (step.get("arguments") or {}).values():
            touched |= _ids(value)
    for step, envelope in zip(plan, gold, strict=False):
        data = envelope.get("data")
        if step.get("write") and isinstance(data, Mapping) and isinstance(data.get("id"), str):
            touched.add(data["id"])
    out = []
    for i, step in enumerate(plan):
        if step.get("kind") not in (UPDATE, ACTION, DELETE):
            continue
        service = _service(step["tool"])
        binds = step.get("binds") or {}
        # The argument naming the record acted on: an id read from an earlier step first.
        names = sorted(
            (step.get("arguments") or {}),
            key=lambda n: not str((binds.get(n) or {}).get("path") or "").endswith("id"),
        )
        for name in names:
            value = step["arguments"][name]
            # Only an argument read as an id may name a record the plan created.
            read_id = str((binds.get(name) or {}).get("path") or "").endswith("id")
            coll = _collection_of(initial, service, value, created=read_id)
            if coll is None:
                continue
            others = [
                rid for rid in sorted(collections_of(initial, service)[coll]) if rid not in touched
            ]
            if not others:
                break
            twin = {**step, "binds": {n: b for n, b in binds.items() if n != name}}
            note = f"step {i} {step['tool']} also on {coll} {others[0]}"
            out.append(
                Mutant(
                    "collateral_write",
                    note,
                    plan=_insert(plan, i + 1, twin),
                    overrides={i + 1: {name: others[0]}},
                    start=i + 1,
                    inserted=i + 1,
                )
            )
            break
    return out


def _duplicate_creates(plan: Sequence[Mapping[str, Any]]) -> list[Mutant]:
    return [
        Mutant(
            "duplicate_create",
            f"step {i} {s['tool']} twice",
            plan=_insert(plan, i + 1, s),
            start=i + 1,
            inserted=i + 1,
        )
        for i, s in enumerate(plan)
        if s.get("kind") == CREATE
    ]


def _scalars(value: Any, out: dict[str, None]) -> None:
    if isinstance(value, Mapping):
        for v in value.values():
            _scalars(v, out)
    elif isinstance(value, list):
        for v in value:
            _scalars(v, out)
    elif isinstance(value, str):
        if value.strip():
            out[value] = None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out[number_text(value)] = None


def _answer_mutants(
    answer_rows: Sequence[Mapping[str, Any]],
    gold_answer: str,
    gold: Sequence[Mapping[str, Any]],
    render: Callable[[Sequence[dict[str, Any]]], str],
) -> list[Mutant]:
    if not answer_rows:
        return []
    out = []
    for n, row in enumerate(answer_rows):
        value = row.get("value")
        wrong = next((v for v in row.get("excludes") or () if not same(v, value)), _MISSING)
        if wrong is _MISSING:
            wrong = perturb(value)
        if wrong is _MISSING:
            continue
        rows = [dict(r) for r in answer_rows]
        rows[n]["value"] = wrong
        note = f"{row.get('label')}: {_short(value)} -> {_short(wrong)}"
        out.append(Mutant("wrong_answer", note, answer=render(rows), start=len(gold)))
    seen: dict[str, None] = {}
    for envelope in gold:
        _scalars(envelope.get("data"), seen)
    dump = gold_answer + " Everything I saw: " + "; ".join(seen) + "."
    out.append(Mutant("answer_dump", f"{len(seen)} values appended", answer=dump, start=len(gold)))
    out.append(Mutant("no_answer", "empty reply", answer="", start=len(gold)))
    return out


def _replier(
    answer_rows: Sequence[Mapping[str, Any]],
    gold_answer: str,
    render: Callable[[Sequence[dict[str, Any]]], str],
) -> Callable[[Sequence[dict[str, Any]]], str]:
    """rows -> the reply stating them: the gold reply with its answer part re-rendered (a
    summary before it is kept)."""
    old = render([dict(r) for r in answer_rows]) if answer_rows else ""

    def reply(rows: Sequence[dict[str, Any]]) -> str:
        new = render(rows)
        return gold_answer.replace(old, new) if old and old in gold_answer else new

    return reply


def _read_reply(
    m: Mutant,
    answer_rows: Sequence[Mapping[str, Any]],
    envelopes: Sequence[Mapping[str, Any]],
    gold_answer: str,
    reply: Callable[[Sequence[dict[str, Any]]], str],
) -> str:
    """What the agent of mutant ``m`` replies: each asked value read where the gold reply
    read it, in this run's outputs (a value it cannot find, it does not state)."""
    rows = m.rows if m.rows is not None else answer_rows
    said: list[dict[str, Any]] = []
    for row in rows:
        k = row["step"] + (1 if m.inserted is not None and row["step"] >= m.inserted else 0)
        value = resolve({"from": "step", "step": k, "path": row["path"]}, row["value"], envelopes)
        if value is not _MISSING:
            said.append({**row, "value": value})
    if len(said) == len(answer_rows) and all(
        _strict_eq(r["value"], g["value"]) for r, g in zip(said, answer_rows, strict=True)
    ):
        return gold_answer
    return reply(said)


def plan_mutants(
    plan: Sequence[Mapping[str, Any]],
    answer_rows: Sequence[Mapping[str, Any]],
    decoys: Iterable[Mapping[str, Any]],
    initial_states: States,
    gold_answer: str,
    gold_envelopes: Sequence[Mapping[str, Any]],
    *,
    tools: Mapping[str, Mapping[str, Any]] | None = None,
    render: Callable[[Sequence[dict[str, Any]]], str] = Task.gold_answer_for,
    most: Mapping[str, int] | None = None,
) -> list[Mutant]:
    """Every mutant of a gold plan, in ``KINDS`` order (at most ``most[kind]`` of a kind,
    spread evenly over the plan, where given). ``initial_states``: the exported
    initial state (or a view of it), where other records are found; ``gold_envelopes``: the
    gold run's outputs; ``tools``: qualified tool name -> input JSON schema, for valid
    replacement literals (enum options, patterns, bounds); ``render``: answer rows -> reply,
    as the gold reply was written."""
    decoys = list(decoys)
    schemas = tools or {}
    cached: dict[str, dict[str, dict[str, Any]]] = {}

    def nodes_of(tool: str) -> dict[str, dict[str, Any]]:
        if tool not in cached:
            cached[tool] = _nodes(schemas.get(tool))
        return cached[tool]

    reply = _replier(answer_rows, gold_answer, render)
    out = [
        *_drop_writes(plan, list(gold_envelopes)),
        *_change_literals(plan, nodes_of),
        *_change_bindings(plan, gold_envelopes, initial_states, nodes_of),
        *_pick_decoys(plan, decoys, gold_envelopes, answer_rows, reply),
        *_collateral_writes(plan, gold_envelopes, initial_states, decoys),
        *_duplicate_creates(plan),
        *_answer_mutants(answer_rows, gold_answer, gold_envelopes, reply),
    ]
    return _capped(out, most) if most else out


def _capped(mutants: list[Mutant], most: Mapping[str, int]) -> list[Mutant]:
    """At most ``most[kind]`` mutants of each capped kind, every k-th one (deterministic,
    spread over the plan rather than its first steps)."""
    by_kind: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_kind.setdefault(m.kind, []).append(m)
    keep: set[int] = set()
    for kind, group in by_kind.items():
        cap = most.get(kind)
        if cap is None or len(group) <= cap:
            keep |= {id(m) for m in group}
            continue
        step = len(group) / cap
        keep |= {id(group[int(i * step)]) for i in range(cap)}
    return [m for m in mutants if id(m) in keep]


def infer_decoys(
    plan: Sequence[Mapping[str, Any]], envelopes: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Decoy rows for tasks composed before decoys were recorded: for each selection step,
    the other records of the list that later binds pick one record from."""
    out = []
    for k, step in enumerate(plan):
        if not step.get("select") or k >= len(envelopes):
            continue
        chosen: dict[str, int] = {}
        for later in plan[k + 1 :]:
            for bind in (later.get("binds") or {}).values():
                if bind.get("step") != k:
                    continue
                m = re.match(r"^(.*?)\[(\d+)\]", str(bind.get("path") or ""))
                if m:
                    chosen.setdefault(m.group(1), int(m.group(2)))
        for base, index in chosen.items():
            items = lookup(envelopes[k].get("data"), base)
            if not isinstance(items, list):
                continue
            for j, item in enumerate(items):
                if j != index and isinstance(item, Mapping) and "id" in item:
                    out.append(
                        {
                            "step": k,
                            "service": _service(step["tool"]),
                            "collection": "",
                            "id": item["id"],
                            "path": f"{base}[{j}]",
                            "why": "matched",
                        }
                    )
    return out


# -- judging --------------------------------------------------------------------------------
_COST = {
    "answer_contains": 0,
    "answer_omits": 0,
    "field_updated": 1,
    "record_deleted": 1,
    "record_unchanged": 1,
    "record_created": 2,
    "collection_untouched": 2,
    "only_requested_changes": 3,
}


class _Judge:
    """Whether an end state and reply pass every criterion, cheapest criteria first.

    A criterion with a ``service`` field reads only that service's state (every kind in
    ``library.rubric`` does), so its verdict is memoized by the identity of that state."""

    def __init__(
        self, criteria: Sequence[Criterion], start: States, view: Callable[[Snapshot], States]
    ) -> None:
        self.order = sorted(enumerate(criteria), key=lambda ic: _COST.get(ic[1].kind, 2))
        self.start = start
        self.view = view
        self.memo: dict[tuple[int, int], tuple[object, bool]] = {}
        self.said: dict[tuple[int, str], bool] = {}  # answer criteria, by reply

    def passes(self, snap: Snapshot, answer: str) -> bool:
        final: States | None = None
        for idx, c in self.order:
            if not c.touches_state:
                said = self.said.get((idx, answer))
                if said is None:
                    said = self.said[(idx, answer)] = c.check(self.start, self.start, answer)
                ok = said
            else:
                service = getattr(c, "service", None)
                state = snap.states.get(service) if isinstance(service, str) else None
                hit = self.memo.get((idx, id(state))) if state is not None else None
                if hit is not None and hit[0] is state:
                    ok = hit[1]
                else:
                    final = final if final is not None else self.view(snap)
                    ok = c.check(self.start, final, answer)
                    if state is not None:
                        self.memo[(idx, id(state))] = (state, ok)
            if not ok:
                return False
        return True


@dataclass
class MutationReport:
    """The mutation gate's verdict on one task.

    ``by_kind``: kind -> [caught, total]; ``escaped``: kinds with at least one mutant that
    passed every criterion (``notes`` says which); ``equivalent``: kind -> mutants that
    ended exactly as the gold run (left out of the counts); ``gold_passes``: False when the
    gold run itself fails a criterion (then nothing else is measured)."""

    mutants: int = 0
    caught: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    escaped: list[str] = field(default_factory=list)
    equivalent: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    gold_passes: bool = True

    @property
    def catch_rate(self) -> float:
        """Caught / mutants; 1.0 when there is nothing to catch (and 0.0 if the gold fails)."""
        if not self.gold_passes:
            return 0.0
        return self.caught / self.mutants if self.mutants else 1.0

    def to_dict(self) -> dict[str, Any]:
        """The ``Task.mutation`` form."""
        return {
            "mutants": self.mutants,
            "caught": self.caught,
            "catch_rate": round(self.catch_rate, 4),
            "by_kind": {k: list(v) for k, v in self.by_kind.items()},
            "escaped": list(self.escaped),
            "equivalent": dict(self.equivalent),
            "gold_passes": self.gold_passes,
        }


def _same_end(world: World, a: Snapshot, b: Snapshot) -> bool:
    return not world.diff(a, b)


def mutation_report(
    criteria: Sequence[Criterion],
    plan: Sequence[Mapping[str, Any]],
    answer_rows: Sequence[Mapping[str, Any]],
    decoys: Iterable[Mapping[str, Any]] | None,
    gold_answer: str,
    world: World,
    initial_snapshot: Snapshot,
    view: Callable[[Snapshot], States],
    *,
    render: Callable[[Sequence[dict[str, Any]]], str] = Task.gold_answer_for,
    most: Mapping[str, int] | None = None,
) -> MutationReport:
    """Run every mutant of ``plan`` on ``world`` (restored to ``initial_snapshot`` first;
    left in an arbitrary state) and judge it with ``criteria``. ``view(snapshot)`` gives
    the exported-state mapping criteria read (a ``StateView`` sharing one ``DumpCache``);
    ``decoys``: the task's decoy rows, or None to infer them from the gold run."""
    world.restore(initial_snapshot)
    start = view(initial_snapshot)
    run = _Gold()
    gold = _run(world, plan, [], 0, {}, {}, record=run)
    snaps = run.snaps
    judge = _Judge(criteria, start, view)
    report = MutationReport()
    if not judge.passes(snaps[-1], gold_answer):
        report.gold_passes = False
        return report
    tools = {}
    for step in plan:
        route = world.tool(step["tool"])
        if route is not None:
            tools[step["tool"]] = route[1].input_schema
    rows = decoys if decoys is not None else infer_decoys(plan, gold)
    mutants = plan_mutants(
        plan, answer_rows, rows, start, gold_answer, gold, tools=tools, render=render, most=most
    )
    tracked = _tracked(answer_rows)
    reply = _replier(answer_rows, gold_answer, render)
    for m in mutants:
        envelopes: Sequence[Mapping[str, Any]] = gold
        if m.runs:
            world.restore(snaps[m.start])
            steps = m.plan or plan
            envelopes = list(gold[: m.start])
            _run(world, steps, envelopes, m.start, m.overrides, m.skip, run, m.inserted)
            if run.reuse and run.rng_moved(world):  # a tool drew from the RNG after all
                world.restore(snaps[m.start])
                envelopes = list(gold[: m.start])
                _run(world, steps, envelopes, m.start, m.overrides, m.skip, None, m.inserted)
            end = world.snapshot()
        else:
            end = snaps[-1]
        if m.answer is not None:
            answer = m.answer
        elif tracked and (m.runs or m.rows is not None):
            answer = _read_reply(m, answer_rows, envelopes, gold_answer, reply)
        else:
            answer = gold_answer
        caught = not judge.passes(end, answer)
        if (
            not caught
            and answer == gold_answer
            and (not m.runs or _same_end(world, snaps[-1], end))
        ):
            report.equivalent[m.kind] = report.equivalent.get(m.kind, 0) + 1
            continue
        counts = report.by_kind.setdefault(m.kind, [0, 0])
        counts[1] += 1
        report.mutants += 1
        if caught:
            counts[0] += 1
            report.caught += 1
        else:
            if m.kind not in report.escaped:
                report.escaped.append(m.kind)
            report.notes.append(f"{m.kind}: {m.note}")
    return report


def task_mutation_report(
    task: Task,
    classes: Mapping[str, type[Service]] | Iterable[type[Service]],
    *,
    criteria: Sequence[Criterion] | None = None,
) -> MutationReport:
    """``mutation_report`` for a stored task (its rubric unless ``criteria`` is given), on a
    World built with ``task_world``; for benches and tests."""
    from library.compose.run import task_world  # run imports verify; keep this module light
    from library.compose.views import DumpCache, StateView

    world = task_world(task, classes)
    cache = DumpCache()

    def view(snap: Snapshot) -> States:
        return StateView(snap, task.services, cache)

    return mutation_report(
        task.criteria() if criteria is None else criteria,
        task.gold_plan,
        task.answer,
        task.decoys or None,
        task.gold_answer(),
        world,
        world.snapshot(),
        view,
    )
