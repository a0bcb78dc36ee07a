"""A reviewer's view of one task: what it asks, how the gold plan gets there, what is checked.

``review_task(task)`` turns a ``Task`` into a structured ``TaskReview``: the header (id,
domain, motif, difficulty, split, services, capabilities, the mutation gate's verdict), the
instruction, each plan step with where every argument came from (stated by the user, copied
from an earlier step's output -- which record and which field --, or decided by a threshold
rule), each selection rule with the chosen record beside its decoys, the rubric criteria in
words, the answer facts, the house rules and the initial records the task touches.

It reads only the task: an earlier step's output is not stored, so the record a bind copied
from is found in the initial state (by the id a later step passes on, by the id the step was
called with, or by matching the step's filters; the last is marked ``inferred``). Records the
plan creates are named by the step that creates them.

``renderables(review)`` gives rich renderables for a terminal; ``to_html(review)`` a
self-contained HTML page (inline style, no scripts, no external assets) with the same content.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from library.compose.plan import show
from library.compose.render import SENTENCES
from library.compose.task import Task
from library.rubric import load_criteria
from library.rubric.values import normalize

# How the review names where an argument came from (the provenance words).
FROM_USER = "stated in the instruction"
FROM_STEP = "copied from"
FROM_RULE = "decided by rule"
NO_BIND = "no provenance recorded"

_INDEXED = re.compile(r"^(?P<prefix>.*\[\d+\])(?:\.(?P<field>.+))?$")
_SKIP_DIFF = frozenset({"id"})
_VALUE_WIDTH = 48
_FIELDS_WIDTH = 8  # fields shown per record in the records table


# -- the structured review ------------------------------------------------------------------------
@dataclass(slots=True)
class RecordRef:
    """A record of the task's world: in the initial state, or created by ``created_by``."""

    service: str
    collection: str
    id: str
    record: dict[str, Any] | None = None
    created_by: int | None = None  # the 0-based step that creates it
    inferred: bool = False  # found by matching a step's filters, not by a passed-on id

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.service, self.collection, self.id)

    def name(self) -> str:
        where = f"{self.service}.{self.collection}" if self.collection else self.service
        if self.created_by is not None:
            rid = self.id if self.id else "(new)"
            return f"{where} {rid} (created at step {self.created_by + 1})"
        return f"{where} {self.id}" + (" (inferred)" if self.inferred else "")


@dataclass(slots=True)
class ArgReview:
    """One argument of a step: its value and where it came from."""

    name: str
    value: Any
    source: str  # user | step | rule | none
    detail: str  # the provenance in words


@dataclass(slots=True)
class DecoyView:
    """A selection rule's chosen record beside the records it must be told apart from."""

    highlight: list[str]  # the fields the rule orders or matches by (or that tell them apart)
    fields: list[str]  # the rows shown, highlighted first
    same: int  # fields equal in every record, not shown
    chosen: RecordRef | None
    decoys: list[tuple[RecordRef, str]]  # (record, why: matched | distractor)


@dataclass(slots=True)
class StepReview:
    index: int  # 0-based; shown 1-based
    tool: str
    kind: str
    write: bool
    sentence: str  # what the instruction says of this step
    args: list[ArgReview]
    select: str = ""  # the selection rule in words
    select_text: str = ""  # ... and as the instruction states it
    threshold: str = ""  # a threshold note of the instruction, if any
    output: list[str] = field(default_factory=list)  # records its output showed, in words
    feeds: list[str] = field(default_factory=list)  # later steps / the answer it feeds
    decoys: DecoyView | None = None


@dataclass(slots=True)
class RecordRow:
    ref: RecordRef
    roles: list[str]
    summary: str


@dataclass(slots=True)
class TaskReview:
    task_id: str
    header: list[tuple[str, str]]
    instruction: str
    steps: list[StepReview]
    rubric: list[tuple[str, str]]  # (kind, description)
    answer: list[tuple[str, str, str]]  # (label, value, excludes)
    house_rules: list[tuple[str, str, str]]  # (record, step, text)
    records: list[RecordRow]
    notes: list[str] = field(default_factory=list)  # what the review could not resolve


# -- values ---------------------------------------------------------------------------------------
def _short(value: Any, width: int = _VALUE_WIDTH) -> str:
    if isinstance(value, dict | list) and not (
        isinstance(value, list) and all(isinstance(v, str | int | float) for v in value)
    ):
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    else:
        text = show(value) if value is not None else "null"
        text = f"[{text}]" if isinstance(value, list) else text
    return text if len(text) <= width else text[: width - 1] + "…"


def _split_path(path: str) -> tuple[str, str]:
    """(the record's place in the step output, the field path inside the record)."""
    m = _INDEXED.match(path or "")
    if m:
        return m.group("prefix"), m.group("field") or ""
    return "", path or ""


def _norm_prefix(path: str) -> str:
    """A decoy's path in the form binds use (``data[1]``)."""
    prefix = _split_path(path)[0] if "[" in (path or "") else (path or "")
    return "data" + prefix if prefix.startswith("[") else prefix


def _get(record: Mapping[str, Any] | None, dotted: str) -> Any:
    value: Any = record
    for part in dotted.split(".") if dotted else ():
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _service(tool: str) -> str:
    return tool.split("__", 1)[0]


def _rule_words(select: Mapping[str, Any]) -> str:
    rule, fname = select.get("rule", "?"), select.get("field", "?")
    if rule == "matching":
        return f"matching: the one whose {fname} = {show(select.get('value'))}"
    return f"{rule} by {fname}"


# -- the reviewer -------------------------------------------------------------------------------
class _Reviewer:
    def __init__(self, task: Task) -> None:
        self.task = task
        self.plan = task.gold_plan
        self.state = task.initial_state
        self.roles: dict[tuple[str, str, str], list[str]] = {}
        self.refs: dict[tuple[str, str, str], RecordRef] = {}
        self.notes: list[str] = []
        self._memo: dict[tuple[int, str], RecordRef | None] = {}
        self._id_fields: dict[tuple[str, str], str] = {}
        self.plan_fields = _plan_fields(task)
        # Who reads each step's output: (step, record prefix) -> [(reader step, arg, field path)]
        self.readers: dict[tuple[int, str], list[tuple[int, str, str]]] = {}
        # Who follows the policy a note step found: note step -> [(reader step, arg)]
        self.policy_readers: dict[int, list[tuple[int, str]]] = {}
        for j, step in enumerate(self.plan):
            for name, b in (step.get("binds") or {}).items():
                if isinstance(b.get("step"), int) and b.get("from") in ("step", "rule"):
                    prefix, fpath = _split_path(str(b.get("path", "")))
                    self.readers.setdefault((b["step"], prefix), []).append((j, name, fpath))
                if isinstance(b.get("policy"), int):
                    self.policy_readers.setdefault(b["policy"], []).append((j, name))

    # initial state ------------------------------------------------------------------------------
    def collections(self, service: str) -> dict[str, dict[str, Any]]:
        svc = self.state.get(service)
        if not isinstance(svc, Mapping):
            return {}
        return {k: v for k, v in svc.items() if isinstance(v, Mapping)}

    def find_id(self, service: str, rid: Any) -> RecordRef | None:
        if not isinstance(rid, str):
            return None
        services = [service, *(s for s in self.state if s != service)]
        for svc in services:
            for coll, records in self.collections(svc).items():
                rec = records.get(rid)
                if isinstance(rec, Mapping):
                    return RecordRef(svc, coll, rid, dict(rec))
        return None

    def id_field(self, service: str, coll: str) -> str:
        """The name a record's own id has in ``coll``: ``id``, or the spec's own name for it
        (``task_id``; the catalog's ``CollectionInfo.id_key``), read off the state -- the
        field every record holds its key in -- since the review has no catalog."""
        if (service, coll) not in self._id_fields:
            rows = [(k, r) for k, r in self.collections(service).get(coll, {}).items()]
            rows = [(k, r) for k, r in rows if isinstance(r, Mapping)]
            names = [n for n in (rows[0][1] if rows else {}) if n != "id"]
            self._id_fields[(service, coll)] = next(
                (n for n in ["id", *names] if all(r.get(n) == k for k, r in rows)), "id"
            )
        return self._id_fields[(service, coll)]

    def step_collections(self, k: int) -> set[str]:
        """The collections step ``k`` reads: guessed from its tool, and its decoys'."""
        colls = {self.guess_collection(self.plan[k])}
        colls |= {str(r.get("collection", "")) for r in self.task.decoys if r.get("step") == k}
        return colls - {""}

    def passes_id(self, k: int, fpath: str) -> bool:
        """Whether field ``fpath`` of step ``k``'s output is its record's own id (a record's
        ``task_id`` is; its ``project_id`` names another record)."""
        if fpath == "id":
            return True
        service = _service(self.plan[k]["tool"])
        return any(self.id_field(service, c) == fpath for c in self.step_collections(k))

    def guess_collection(self, step: Mapping[str, Any]) -> str:
        service = _service(step["tool"])
        colls = self.collections(service)
        name = step["tool"].split("__", 1)[-1]
        text = step.get("text") or {}
        words = [str(text[k]) for k in ("nouns", "noun", "label") if isinstance(text.get(k), str)]
        parts = name.split("_")
        # send_message -> message, list_success_plans -> success_plans, then the step's nouns
        tails = ["_".join(parts[i:]) for i in range(len(parts))]
        for option in [*tails, *(w.replace(" ", "_") for w in words)]:
            for form in (option, option + "s", option + "es"):
                if form in colls:
                    return form
        return next((c for c in colls if name.endswith(c) or c.endswith(name)), "")

    def created_id(self, k: int) -> str:
        """The id later steps pass on for the record step ``k`` created."""
        for j, name, fpath in self.readers.get((k, ""), ()):
            if self.passes_id(k, fpath):
                value = self.plan[j]["arguments"].get(name)
                return value[0] if isinstance(value, list) and value else str(value)
        return ""

    # the record behind a step's output ----------------------------------------------------------
    def step_record(self, k: int, prefix: str) -> RecordRef | None:
        if (k, prefix) not in self._memo:
            self._memo[(k, prefix)] = self._step_record(k, prefix)
        return self._memo[(k, prefix)]

    def _step_record(self, k: int, prefix: str) -> RecordRef | None:
        if not 0 <= k < len(self.plan):
            return None
        step = self.plan[k]
        service = _service(step["tool"])
        # 1. a later step passes the record's id on
        for j, name, fpath in self.readers.get((k, prefix), ()):
            if self.passes_id(k, fpath):
                value = self.plan[j]["arguments"].get(name)
                value = value[0] if isinstance(value, list) and value else value
                found = self.find_id(service, value)
                if found is not None and (
                    fpath == "id" or found.collection in self.step_collections(k)
                ):
                    return found
                if step.get("kind") == "create":
                    return RecordRef(service, self.guess_collection(step), str(value), None, k)
        # 2. a record the step creates
        if step.get("kind") == "create" and not prefix:
            coll = self.guess_collection(step)
            return RecordRef(service, coll, self.created_id(k), dict(step["arguments"]), k)
        # 3. a single-record output: the record the step was called on
        if not prefix:
            for b in (step.get("binds") or {}).values():
                if b.get("from") == "step" and isinstance(b.get("step"), int) and b["step"] < k:
                    src_prefix, fpath = _split_path(str(b.get("path", "")))
                    if self.passes_id(b["step"], fpath):
                        found = self.step_record(b["step"], src_prefix)
                        if found is not None and found.service == service:
                            return found
            for value in step.get("arguments", {}).values():
                found = self.find_id(service, value)
                if found is not None and found.service == service:
                    return found
        # 4. a list lookup: the records matching its filters, narrowed by its selection rule
        return self._match(k, prefix)

    def _match(self, k: int, prefix: str) -> RecordRef | None:
        step = self.plan[k]
        service = _service(step["tool"])
        coll = self.guess_collection(step)
        by_id = self.collections(service).get(coll, {})
        records = list(by_id.values())
        args = step.get("arguments") or {}
        for value in args.values():
            if isinstance(value, str) and isinstance(by_id.get(value), Mapping):
                return RecordRef(service, coll, value, dict(by_id[value]))

        def fits(rec: Mapping[str, Any]) -> bool:
            for name, value in args.items():
                if name in rec and name != "id":
                    have = rec[name]
                    if isinstance(have, list) and not isinstance(value, list):
                        if normalize(value) not in normalize(have):
                            return False
                    elif normalize(have) != normalize(value):
                        return False
                elif (
                    isinstance(value, str)
                    and name in ("query", "q", "search", "term", "text")
                    and not any(
                        isinstance(v, str) and normalize(value) in normalize(v)
                        for v in rec.values()
                    )
                ):
                    return False
            return True

        found = [r for r in records if isinstance(r, Mapping) and fits(r)]
        select = step.get("select") or {}
        if len(found) > 1 and select:
            fname = select.get("field", "")
            if select.get("rule") == "matching":
                found = [r for r in found if r.get(fname) == select.get("value")]
            elif all(r.get(fname) is not None for r in found):
                pick = max if select.get("rule") in ("latest", "largest") else min
                found = [pick(found, key=lambda r: normalize(r[fname]))]
        if len(found) == 1:
            rec = found[0]
            rid = str(rec.get(self.id_field(service, coll), ""))
            return RecordRef(service, coll, rid, dict(rec), inferred=True)
        return None

    # provenance ---------------------------------------------------------------------------------
    def step_name(self, k: Any) -> str:
        if isinstance(k, int) and 0 <= k < len(self.plan):
            return f"step {k + 1} ({self.plan[k]['tool']})"
        return f"step {k}"

    def source_words(self, k: int, path: str) -> tuple[str, Any]:
        """'step 1 (crm__search_contacts) → crm.contacts con_1 · owner_email [data[0].owner_email]'
        for the record and field at step ``k``/``path``, and the value read there (None if
        unknown)."""
        prefix, fpath = _split_path(path)
        ref = self.step_record(k, prefix)
        if ref is None:
            return f"{self.step_name(k)} → record not identified [{path}]", None
        words = f"{self.step_name(k)} → {ref.name()} · {fpath or 'the record'} [{path}]"
        return words, _get(ref.record, fpath)

    def arg(self, name: str, value: Any, b: Mapping[str, Any] | None) -> ArgReview:
        if not b:
            return ArgReview(name, value, "none", NO_BIND)
        origin = b.get("from")
        if origin == "user":
            return ArgReview(name, value, "user", FROM_USER)
        if origin == "step":
            words, _ = self.source_words(b.get("step", -1), str(b.get("path", "")))
            part = f" (its {str(b['part']).replace('_', ' ')} part)" if b.get("part") else ""
            return ArgReview(name, value, "step", f"{FROM_STEP} {words}{part}")
        if origin == "rule":
            return ArgReview(name, value, "rule", self.rule_words(b))
        return ArgReview(name, value, str(origin), f"from {origin}: {_short(dict(b), 80)}")

    def rule_words(self, b: Mapping[str, Any]) -> str:
        rule = b.get("rule", "?")
        if rule != "threshold":
            return f"{FROM_RULE} {rule}: {_short(dict(b), 80)}"
        words, read = self.source_words(b.get("step", -1), str(b.get("path", "")))
        limit = b.get("limit")
        text = (
            f"{FROM_RULE} threshold: above {show(limit)} → {show(b.get('above'))}, "
            f"otherwise {show(b.get('otherwise'))}; reads {words}"
        )
        if isinstance(read, int | float) and isinstance(limit, int | float):
            side = "above" if read > limit else "not above"
            text += f" = {show(read)}, {side} {show(limit)}"
        return text

    # steps --------------------------------------------------------------------------------------
    def step(self, k: int, step: Mapping[str, Any]) -> StepReview:
        binds = step.get("binds") or {}
        args = [self.arg(n, v, binds.get(n)) for n, v in (step.get("arguments") or {}).items()]
        text = step.get("text") or {}
        try:
            sentence = SENTENCES[text["kind"]](text) if text.get("kind") in SENTENCES else ""
        except (KeyError, TypeError):
            sentence = ""
        review = StepReview(
            index=k,
            tool=step["tool"],
            kind=str(step.get("kind", "")),
            write=bool(step.get("write")),
            sentence=sentence[:1].upper() + sentence[1:],
            args=args,
        )
        select = step.get("select")
        if select:
            review.select = _rule_words(select)
            review.select_text = str(text.get("rule", ""))
        note = text.get("threshold")
        if isinstance(note, Mapping) and note.get("policy"):
            # the rule lives in a policy note the plan reads, not in the instruction
            review.threshold = (
                f"its {note.get('param', '?')} as the policy note {note['policy']} in "
                f"{note.get('service', '?')} says (see the house rules)"
            )
        elif isinstance(note, Mapping) and note:
            review.threshold = (
                f"If the {note.get('field')} of {note.get('of')} is above {note.get('limit')}, "
                f"its {note.get('param', '?')} must be {note.get('above')}; "
                f"otherwise {note.get('otherwise')}."
            )
        # what its output showed, and who reads it
        verb = "written" if review.write else "read"
        prefixes = sorted({p for (s, p) in self.readers if s == k})
        for prefix in prefixes:
            ref = self.step_record(k, prefix)
            if ref is not None:
                review.output.append(f"{prefix + ': ' if prefix else ''}{ref.name()}")
                self.role(ref, f"{verb} at step {k + 1}")
            readers = self.readers[(k, prefix)]
            for j, name, fpath in readers:
                review.feeds.append(f"step {j + 1} {name} <- {fpath or 'record'}")
        for j, name in self.policy_readers.get(k, ()):
            review.feeds.append(f"step {j + 1} {name} <- the policy the note states")
        service, own = _service(step["tool"]), self.guess_collection(step)
        for value in (step.get("arguments") or {}).values():
            target = self.find_id(service, value)
            if target is None:
                continue
            mine = review.write and step.get("kind") != "create" and target.collection == own
            self.role(target, f"{'written' if mine else 'referenced'} at step {k + 1}")
        if not prefixes and step.get("kind") != "create":
            ref = self._match(k, "")
            self._memo[(k, "?")] = ref
            if ref is not None:
                review.output.append(ref.name())
                self.role(ref, f"{verb} at step {k + 1}")
        for ref in self.output_records(k):
            for label, value in self.answer_fields(ref):
                review.feeds.append(f"the answer ({label}: {value})")
        if not review.feeds and not review.write:
            known = all(r.record is not None for r in self.output_records(k))
            if (known and self.output_records(k)) or not self.task.answer:
                review.feeds.append("nothing: no later argument, rule or answer reads its output")
            else:
                review.feeds.append("no later argument (answer not checked: record not identified)")
        return review

    def output_records(self, k: int) -> list[RecordRef]:
        out = [r for (s, _p), r in self._memo.items() if s == k and r is not None]
        return list({r.key: r for r in out}.values())

    def answer_fields(self, ref: RecordRef) -> list[tuple[str, str]]:
        if ref.record is None:
            return []
        found = []
        for row in self.task.answer:
            value = row.get("value")
            for fname, have in ref.record.items():
                if fname != "id" and have is not None and normalize(have) == normalize(value):
                    found.append((str(row.get("label", "")), f"{fname} = {_short(value)}"))
                    break
        return found

    def role(self, ref: RecordRef, role: str) -> None:
        if ref.created_by is not None or ref.record is None:
            return
        self.refs.setdefault(ref.key, ref)
        roles = self.roles.setdefault(ref.key, [])
        if role not in roles:
            roles.append(role)

    # decoys -------------------------------------------------------------------------------------
    def decoy_view(self, k: int, rows: Sequence[Mapping[str, Any]]) -> DecoyView:
        step = self.plan[k] if 0 <= k < len(self.plan) else {}
        decoys: list[tuple[RecordRef, str]] = []
        for row in rows:
            rid = str(row.get("id", ""))
            svc, coll = str(row.get("service", "")), str(row.get("collection", ""))
            rec = self.collections(svc).get(coll, {}).get(rid)
            ref = RecordRef(svc, coll, rid, dict(rec) if isinstance(rec, Mapping) else None)
            decoys.append((ref, str(row.get("why", ""))))
            self.role(ref, f"decoy ({row.get('why', '?')}) for step {k + 1}")
        decoy_paths = {_norm_prefix(str(r.get("path", ""))) for r in rows}
        chosen = None
        readers = sorted(p for (s, p) in self.readers if s == k and p not in decoy_paths)
        for prefix in [*readers, ""]:
            ref = self.step_record(k, prefix)
            if ref is not None and ref.record is not None:
                chosen = ref
                break
        if chosen is None and step:
            chosen = self._match(k, "")
        colls = {(d.service, d.collection) for d, _ in decoys}
        if chosen is not None and (chosen.service, chosen.collection) not in colls:
            # a distractor of another lookup: compare with the record of its collection
            chosen = next(
                (
                    r
                    for (_s, _p), r in sorted(self._memo.items(), key=lambda kv: kv[0])
                    if r is not None and (r.service, r.collection) in colls and r.record
                ),
                None,
            )
        records = [d.record or {} for d, _ in decoys]
        base = chosen.record if chosen is not None and chosen.record else {}
        every = [base, *records] if base else records
        names = list(dict.fromkeys(n for r in every for n in r))
        # the ids head the columns, whatever the spec names them
        skip = _SKIP_DIFF | {self.id_field(d.service, d.collection) for d, _ in decoys}
        differ = [
            n
            for n in names
            if n not in skip
            and len({orjson.dumps(normalize(r.get(n)), option=orjson.OPT_SORT_KEYS) for r in every})
            > 1
        ]
        select = step.get("select") or {}
        highlight = [str(select["field"])] if select.get("field") else []
        if not highlight and base:
            highlight = [n for n in differ if n not in ("created_at", "updated_at")]
        shown = list(dict.fromkeys([*highlight, *differ]))
        same = len([n for n in names if n not in shown and n not in skip])
        return DecoyView(highlight, shown, same, chosen, decoys)

    # the whole task -----------------------------------------------------------------------------
    def review(self) -> TaskReview:
        task = self.task
        steps = [self.step(k, s) for k, s in enumerate(self.plan)]
        by_step: dict[int, list[Mapping[str, Any]]] = {}
        for row in task.decoys:
            step_no = row.get("step")
            by_step.setdefault(step_no if isinstance(step_no, int) else -1, []).append(row)
        for k, rows in sorted(by_step.items()):
            view = self.decoy_view(k, rows)
            if 0 <= k < len(steps):
                steps[k].decoys = view
            else:
                self.notes.append(f"{len(rows)} decoy(s) name no step of the plan")
        for step in steps:
            if step.select and step.decoys is None:
                self.notes.append(
                    f"step {step.index + 1} has a selection rule but no decoys recorded"
                )
        return TaskReview(
            task_id=task.task_id,
            header=self.header(),
            instruction=task.instruction,
            steps=steps,
            rubric=self.rubric(),
            answer=[
                (
                    str(a.get("label", "")),
                    _short(a.get("value"), 200),
                    ", ".join(_short(v, 80) for v in _as_list(a.get("excludes"))),
                )
                for a in task.answer
            ],
            house_rules=self.house_rules(),
            records=self.records(),
            notes=self.notes,
        )

    def header(self) -> list[tuple[str, str]]:
        t = self.task
        services = ", ".join(t.services)
        if t.distractor_services:
            services += f"  (+ distractors: {', '.join(t.distractor_services)})"
        return [
            ("id", t.task_id),
            ("domain", t.domain),
            ("motif", t.motif or "-"),
            ("difficulty", t.difficulty),
            ("split", t.split),
            ("services", services),
            ("capabilities", ", ".join(t.capabilities)),
            ("mutation", mutation_words(t.mutation)),
        ]

    def rubric(self) -> list[tuple[str, str]]:
        out = []
        for raw in self.task.rubric:
            try:
                (criterion,) = load_criteria([raw])
                text = criterion.describe()
            except Exception as exc:  # an unknown kind still shows, raw
                text = f"(cannot describe: {exc}) {_short(raw, 200)}"
            out.append((str(raw.get("kind", "?")), text))
            svc, coll, rid = (str(raw.get(k, "")) for k in ("service", "collection", "id"))
            rec = self.collections(svc).get(coll, {}).get(rid) if rid else None
            if isinstance(rec, Mapping):
                self.role(RecordRef(svc, coll, rid, dict(rec)), f"checked ({raw['kind']})")
        return out

    def house_rules(self) -> list[tuple[str, str, str]]:
        out = []
        for rule in self.task.house_rules:
            svc, coll, rid = (str(rule.get(k, "")) for k in ("service", "collection", "id"))
            rec = self.collections(svc).get(coll, {}).get(rid)
            if isinstance(rec, Mapping):
                self.role(RecordRef(svc, coll, rid, dict(rec)), "house rule")
            step = rule.get("step")
            where = f"step {step + 1}" if isinstance(step, int) else "-"
            out.append((f"{svc}.{coll} {rid}".strip(), where, str(rule.get("text", ""))))
        return out

    def records(self) -> list[RecordRow]:
        rows = []
        for key in sorted(self.roles):
            ref = self.refs[key]
            rec = ref.record or {}
            own = ("id", self.id_field(ref.service, ref.collection))
            items = [(k, v) for k, v in rec.items() if k not in own and v not in (None, "", [], {})]
            # the fields the plan filters, copies, orders by or checks first
            items.sort(key=lambda kv: kv[0] not in self.plan_fields)
            summary = ", ".join(f"{k}={_short(v, 32)}" for k, v in items[:_FIELDS_WIDTH])
            if len(items) > _FIELDS_WIDTH:
                summary += f", … (+{len(items) - _FIELDS_WIDTH})"
            rows.append(RecordRow(ref, self.roles[key], summary))
        return rows


def _plan_fields(task: Task) -> set[str]:
    """Record fields the plan filters by, copies, orders or matches by, or the rubric checks."""
    out: set[str] = set()
    for step in task.gold_plan:
        out.update(step.get("arguments") or {})
        for b in (step.get("binds") or {}).values():
            out.add(_split_path(str(b.get("path", "")))[1].split(".")[0])
        if step.get("select"):
            out.add(str(step["select"].get("field")))
    for criterion in task.rubric:
        out.add(str(criterion.get("field", "")))
        out.update(criterion.get("fields") or {})
    out.discard("")
    out.discard("id")
    return out


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def mutation_words(mutation: Mapping[str, Any]) -> str:
    """``catch rate 92% (11/12); escaped: swap_decoy`` or ``not measured``."""
    if not mutation:
        return "not measured"
    rate = mutation.get("catch_rate")
    text = f"catch rate {rate:.0%}" if isinstance(rate, int | float) else "catch rate ?"
    if mutation.get("mutants") is not None:
        text += f" ({mutation.get('caught', '?')}/{mutation['mutants']})"
    escaped = [str(e) for e in mutation.get("escaped") or ()]
    text += "; escaped: " + (", ".join(escaped) if escaped else "none")
    by_kind = mutation.get("by_kind") or {}
    if by_kind:
        parts = [
            f"{k} {v[0]}/{v[1]}" if isinstance(v, list | tuple) and len(v) == 2 else f"{k} {v}"
            for k, v in sorted(by_kind.items())
        ]
        text += "; by kind: " + ", ".join(parts)
    return text


def review_task(task: Task) -> TaskReview:
    """The reviewer's view of ``task`` (pure: reads only the task)."""
    return _Reviewer(task).review()


# -- rich -----------------------------------------------------------------------------------------
_SOURCE_STYLE = {"user": "green", "step": "cyan", "rule": "magenta", "none": "red"}


def _kv(rows: Iterable[tuple[str, str]]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for key, value in rows:
        grid.add_row(key, escape(value))
    return grid


def _decoy_table(view: DecoyView) -> Table:
    table = Table(show_lines=False, pad_edge=False, box=None, padding=(0, 1))
    table.add_column("field", style="bold")
    chosen = view.chosen
    table.add_column(f"chosen {chosen.id}" if chosen else "chosen (not identified)", style="green")
    for ref, why in view.decoys:
        table.add_column(f"decoy {ref.id} ({why})", style="red")
    for name in view.fields:
        style = "bold yellow" if name in view.highlight else None
        marker = "▶ " if name in view.highlight else "  "
        cells = [_short(_get(chosen.record, name), 32) if chosen and chosen.record else "?"]
        cells += [_short(_get(r.record, name), 32) if r.record else "?" for r, _ in view.decoys]
        table.add_row(marker + name, *(escape(c) for c in cells), style=style)
    if view.same:
        table.add_row(f"  ({view.same} other fields equal)", *([""] * (1 + len(view.decoys))))
    return table


def _step_renderable(step: StepReview) -> RenderableType:
    parts: list[RenderableType] = []
    head = Text()
    head.append(f"{step.index + 1}. ", style="bold")
    head.append(step.tool, style="bold cyan")
    head.append(f"  [{step.kind}{', write' if step.write else ''}]", style="dim")
    parts.append(head)
    if step.sentence:
        parts.append(Text("   says: " + step.sentence, style="italic"))
    if step.args:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(style="bold")
        grid.add_column()
        grid.add_column()
        for a in step.args:
            grid.add_row(
                "  ",
                a.name,
                escape(_short(a.value)),
                Text("← " + a.detail, style=_SOURCE_STYLE.get(a.source, "")),
            )
        parts.append(grid)
    if step.threshold:
        parts.append(Text("   threshold: " + step.threshold, style="magenta"))
    if step.select:
        parts.append(Text(f"   select: {step.select}", style="yellow"))
        if step.select_text:
            parts.append(Text(f"           “{step.select_text}”", style="dim"))
    if step.output:
        parts.append(Text("   output: " + "; ".join(step.output), style="dim"))
    if step.feeds:
        bad = step.feeds[0].startswith("nothing")
        parts.append(Text("   feeds: " + "; ".join(step.feeds), style="red" if bad else "dim"))
    if step.decoys is not None:
        parts.append(Text("   chosen vs decoys (▶ = what the rule orders or matches by):"))
        parts.append(Padding(_decoy_table(step.decoys), (0, 0, 0, 3)))
    return Group(*parts)


def renderables(review: TaskReview) -> list[RenderableType]:
    """The review as rich renderables, in reading order."""
    out: list[RenderableType] = [Rule(f"task {review.task_id}", align="left"), _kv(review.header)]
    out += [Rule("instruction", align="left"), Text(review.instruction)]
    out.append(Rule(f"plan ({len(review.steps)} steps)", align="left"))
    for step in review.steps:
        out += [_step_renderable(step), Text("")]
    rubric = Table("#", "kind", "criterion", show_lines=False)
    for i, (kind, text) in enumerate(review.rubric, 1):
        rubric.add_row(str(i), kind, escape(text))
    out += [Rule("rubric", align="left"), rubric]
    out.append(Rule("answer", align="left"))
    if review.answer:
        answer = Table("label", "value", "excludes")
        for label, value, excludes in review.answer:
            answer.add_row(escape(label), escape(value), escape(excludes or "-"))
        out.append(answer)
    else:
        out.append(Text("no answer required", style="dim"))
    out.append(Rule("house rules", align="left"))
    if review.house_rules:
        rules = Table("record", "step", "rule")
        for rec, step, text in review.house_rules:
            rules.add_row(escape(rec), step, escape(text))
        out.append(rules)
    else:
        out.append(Text("none", style="dim"))
    out.append(Rule(f"initial records ({len(review.records)})", align="left"))
    records = Table("record", "roles", "fields")
    for row in review.records:
        records.add_row(
            escape(f"{row.ref.service}.{row.ref.collection} {row.ref.id}"),
            escape("; ".join(row.roles)),
            escape(row.summary),
        )
    out.append(records)
    if review.notes:
        out += [
            Rule("notes", align="left"),
            *(Text("• " + n, style="yellow") for n in review.notes),
        ]
    return out


# -- HTML -----------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#1d1d1f;background:#fff;line-height:1.4}
h1{font-size:1.3em}h2{font-size:1.1em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:.2em .5em;
text-align:left;vertical-align:top}th{background:#f4f4f6}
.kv td:first-child{font-weight:bold;white-space:nowrap}
.instruction{background:#f7f7fa;padding:.8em;border-left:4px solid #4a6cf7}
.step{margin:1em 0;padding:.5em .8em;border:1px solid #e2e2e8;border-radius:6px}
.tool{font-family:monospace;font-weight:bold;color:#0b5cad}.kind{color:#777}
.says{font-style:italic;color:#444}.mono{font-family:monospace}
.user{color:#1a7f37}.step-src{color:#0b6e8a}.rule{color:#8e24aa}.none{color:#c62828}
.select{color:#9a6700}.dim{color:#777}.bad{color:#c62828}
tr.hl td{background:#fff3b0;font-weight:bold}.chosen{color:#1a7f37}.decoy{color:#c62828}
.note{color:#9a6700}
"""
_SOURCE_CLASS = {"user": "user", "step": "step-src", "rule": "rule", "none": "none"}


def _e(value: Any) -> str:
    return html.escape(str(value))


def _html_step(step: StepReview) -> str:
    out = [
        '<div class="step">',
        f'<div><b>{step.index + 1}.</b> <span class="tool">{_e(step.tool)}</span> '
        f'<span class="kind">[{_e(step.kind)}{", write" if step.write else ""}]</span></div>',
    ]
    if step.sentence:
        out.append(f'<div class="says">says: {_e(step.sentence)}</div>')
    if step.args:
        out.append("<table><tr><th>argument</th><th>value</th><th>came from</th></tr>")
        for a in step.args:
            cls = _SOURCE_CLASS.get(a.source, "")
            out.append(
                f'<tr><td class="mono">{_e(a.name)}</td><td class="mono">{_e(_short(a.value))}'
                f'</td><td class="{cls}">{_e(a.detail)}</td></tr>'
            )
        out.append("</table>")
    if step.threshold:
        out.append(f'<div class="rule">threshold: {_e(step.threshold)}</div>')
    if step.select:
        out.append(f'<div class="select">select: {_e(step.select)}</div>')
        if step.select_text:
            out.append(f'<div class="dim">“{_e(step.select_text)}”</div>')
    if step.output:
        out.append(f'<div class="dim">output: {_e("; ".join(step.output))}</div>')
    if step.feeds:
        cls = "bad" if step.feeds[0].startswith("nothing") else "dim"
        out.append(f'<div class="{cls}">feeds: {_e("; ".join(step.feeds))}</div>')
    view = step.decoys
    if view is not None:
        chosen = view.chosen
        out.append("<div>chosen vs decoys (highlighted: what the rule orders or matches by)</div>")
        head = f"chosen {chosen.id}" if chosen else "chosen (not identified)"
        out.append(f'<table><tr><th>field</th><th class="chosen">{_e(head)}</th>')
        out += [f'<th class="decoy">decoy {_e(r.id)} ({_e(w)})</th>' for r, w in view.decoys]
        out.append("</tr>")
        for name in view.fields:
            cls = ' class="hl"' if name in view.highlight else ""
            cells = [_short(_get(chosen.record, name), 32) if chosen and chosen.record else "?"]
            cells += [_short(_get(r.record, name), 32) if r.record else "?" for r, _ in view.decoys]
            out.append(
                f"<tr{cls}><td>{_e(name)}</td>"
                + "".join(f"<td>{_e(c)}</td>" for c in cells)
                + "</tr>"
            )
        if view.same:
            span = 1 + len(view.decoys)
            out.append(
                f'<tr><td class="dim">({view.same} other fields equal)</td>'
                f'<td colspan="{span}"></td></tr>'
            )
        out.append("</table>")
    out.append("</div>")
    return "\n".join(out)


def _html_table(headers: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table{attr}>{'<tr>' + head + '</tr>' if headers else ''}{body}</table>"


def to_html(review: TaskReview) -> str:
    """The review as one self-contained HTML page (inline style; no scripts, no links)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>task {_e(review.task_id)}</title><style>{_CSS}</style></head><body>",
        f"<h1>task {_e(review.task_id)}</h1>",
        _html_table([], review.header, "kv"),
        "<h2>instruction</h2>",
        f'<p class="instruction">{_e(review.instruction)}</p>',
        f"<h2>plan ({len(review.steps)} steps)</h2>",
        *(_html_step(s) for s in review.steps),
        "<h2>rubric</h2>",
        _html_table(
            ["#", "kind", "criterion"],
            ((str(i), k, t) for i, (k, t) in enumerate(review.rubric, 1)),
        ),
        "<h2>answer</h2>",
        _html_table(
            ["label", "value", "excludes"], ((lab, v, x or "-") for lab, v, x in review.answer)
        )
        if review.answer
        else '<p class="dim">no answer required</p>',
        "<h2>house rules</h2>",
        _html_table(["record", "step", "rule"], review.house_rules)
        if review.house_rules
        else '<p class="dim">none</p>',
        f"<h2>initial records ({len(review.records)})</h2>",
        _html_table(
            ["record", "roles", "fields"],
            (
                (f"{r.ref.service}.{r.ref.collection} {r.ref.id}", "; ".join(r.roles), r.summary)
                for r in review.records
            ),
        ),
    ]
    if review.notes:
        parts.append("<h2>notes</h2><ul>")
        parts += [f'<li class="note">{_e(n)}</li>' for n in review.notes]
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
