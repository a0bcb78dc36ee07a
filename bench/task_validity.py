"""An independent audit of composed tasks: does each one hold up to a reviewer?

    .venv/bin/python bench/task_validity.py [--n 1000] [--workers 2] [--seed 0]
                                            [--examples K] [--from-warehouse PATH]
                                            [--specs PATH ...]

Composes ``--n`` tasks on the bundled corpus in-process (as ``bench/compose.py`` does; with
``--specs``, over the services compiled from a user's spec files or folders instead) or
reads the ``tasks`` table of a warehouse, then replays every task and measures it with
detectors of its own: nothing here calls composition's checks (``review``, ``roles``,
``verify``...), so a bug there shows up here. Prints one table, every figure a share plus
its counts, and with ``--examples K`` up to K offending examples per figure (task id and the
offending part). Figures (the README of the audit; the code below is the definition):

1.  single identity: person-valued arguments (schema ``x-semantic-type`` email / phone /
    person_name, or a name that says so) spanning >= 2 roles (argument name minus
    ``_email``/``_name``/``_phone``; bare ``email``/``name``/``mobile`` and the record's own
    details such as ``personal_email`` take the tool's noun; a few synonyms merge: requester
    = customer, host = organizer) that all resolve to one identity (same e-mail; a name or
    phone of the same pool person or of the same seeded record; a name whose tokens are an
    e-mail's local part); a message to the first person the plan names (a reply to the
    customer who asked) is that person's own role. Also: two roles of ONE call that are
    one person, and two roles (e-mail fields) of one record the plan created or changed
    that hold one e-mail. 1d: person arguments of writes bound from a record found through
    another record (a read whose arguments are not all stated), that no write acts on, or
    from a policy note, other than the request's own person: a role given to someone the
    request has no part for ("host: the hiring manager of the job of the application").
2.  purposeless reads: read steps no later bind (step or threshold), answer row or house
    rule reads from; also transitively (every consumer is itself a purposeless read).
3.  uncheckable selection rules: the plan replayed with later binds reading each decoy
    (task ``decoys``; else the chosen record's siblings in the step output) instead of the
    chosen record; a rule is uncheckable when some decoy passes every criterion.
4.  placeholder literals: literals, quoted instruction values and user-bound string
    arguments that read as placeholders; also the share of placeholder strings among the
    string values of the gold run's tool outputs.
5.  unverifiable stated literals: each user-bound argument replaced (another enum value,
    an altered string, a shifted number or time) and the plan replayed; unverifiable when
    every criterion still passes. Alternatives the tool refuses are skipped, and so are
    alternatives of a read that return exactly the gold output (a search that tolerates a
    reworded query finds the same note: an agent using it sees and does the same); an
    argument whose every alternative is skipped is inconclusive.
6.  terminal-state edits: update / action / delete steps on a record whose status-like
    field holds a terminal value just before the step, the step not being a way out of it.
6b. story breaks: a write that edits (updates) a record the plan itself created, or that
    touches (as its target or any id argument) a record an earlier action step moved on.
7.  unrelated thresholds: threshold binds whose source record is neither the record the
    step writes nor linked to it by an id (either way) or a shared business key.
8.  inverted ranges: (start, end)-like pairs with end < start in records the plan created
    or changed (the pair's values changed, or it was ordered before), and in the seeded
    initial state.
9.  pre-seeded future ids: an id the gold plan creates appearing anywhere in the initial
    state.
10. name / e-mail disagreement: a person's name paired with an e-mail (same prefix: ``email``
    with ``name``/``first_name``+``last_name``, ``x_email`` with ``x_name``) whose local part
    shares no token with it, in a call, in a record the plan wrote (the pair created or
    changed by the plan), or in a seeded record. 10c: a seeded record tied by one ``*_id``
    to a record with its own ``email`` (a payment to a customer) whose outside-person
    e-mail fields (any ``*_email`` but a colleague's role or address) hold another e-mail.
    10d: a seeded record naming one e-mail in two ``*_email`` fields (two roles).
11. mutation catch rate: ``library.compose.mutants.task_mutation_report`` when present.
12. shape: services, capabilities (recomputed from the plan and rubric), hard band, motifs,
    openings, templates, sizes, composition speed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import importlib
import math
import multiprocessing as mp
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from library.compose import (  # noqa: E402
    CAPABILITIES,
    ComposeConfig,
    ComposeEnv,
    Task,
    compose_tasks,
    make_env,
    merge_tasks,
    shard_size,
)
from library.compose.corpus import bundled_library  # noqa: E402
from library.compose.roles import is_staff_role  # noqa: E402
from library.compose.run import task_world  # noqa: E402
from library.compose.spec_library import spec_library  # noqa: E402
from library.rubric import Criterion, collections_of, load_criteria  # noqa: E402
from library.runtime import Service, World  # noqa: E402
from library.seed import seed_pool  # noqa: E402

# ---------------------------------------------------------------------------------------
# Vocabulary (the auditor's own, deliberately not imported from composition)
# ---------------------------------------------------------------------------------------


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


PERSON_TYPES = frozenset({"email", "phone", "person_name"})
EMAIL_NAMES = frozenset(
    {"email", "emails", "to", "cc", "bcc", "from", "sender", "recipient", "recipients"}
)
NAME_PART_INDEX: dict[str, int | None] = {
    "first_name": 0,
    "given_name": 0,
    "last_name": -1,
    "family_name": -1,
    "surname": -1,
    "full_name": None,
    "display_name": None,
    "contact_name": None,
    "name": None,
}
PERSON_PREFIXES = _word_set(
    "customer contact assignee owner host guest candidate employee manager recipient "
    "sender requester reporter attendee user author approver reviewer buyer seller "
    "patient driver passenger traveler traveller member agent organizer interviewer "
    "recruiter payee payer signer holder client tenant student teacher doctor rep "
    "hiring_manager account_manager billing_contact booker invitee participant subscriber "
    "lead submitter creator person primary_contact emergency_contact referrer speaker "
    "applicant"
)
NON_PERSON_NAMES = _word_set(
    "company product file account project team channel item plan bank vendor supplier org "
    "organization organisation workspace folder board list tag label event venue hotel "
    "room airline carrier merchant store brand domain host_name business campaign segment "
    "template field sheet tab queue group department location city country street "
    "property"
)
GENERIC_LOCALS = _word_set(
    "info sales support admin contact hello billing team noreply no-reply office hr jobs "
    "careers accounts finance help ops marketing press security it service orders "
    "invoices payments"
)
COMPANY_WORDS = _word_set(
    "inc llc ltd plc group corp co company and sons partners associates gmbh sa ag bv "
    "limited holdings"
)

TERMINAL = _word_set(
    "closed canceled cancelled void voided paid refunded completed complete done archived "
    "deleted rejected declined terminated resolved expired delivered closed_won "
    "closed_lost withdrawn returned"
)
# Ways out of a terminal value (the step that leaves it is no violation).
EXIT_VERBS = tuple(
    sorted(
        _word_set(
            "reopen restore unarchive reactivate undelete resume recover reinstate revert "
            "unvoid renew refund return retry undo"
        )
    )
)
STATUS_FIELDS = frozenset({"status", "state", "stage", "lifecycle_stage", "phase"})
BUSINESS_KEY = re.compile(
    r"^(sku|skus|code|reference|ref|external_id|tracking_number|confirmation_code|"
    r"[a-z_]*_number|[a-z_]*_ref|[a-z_]*_reference|[a-z_]*_code|[a-z_]*_sku)$"
)
# Fields that name a record (its name, its company) and fields of free text that log work.
NAMED_BY = re.compile(r"^(name|title|subject|company|company_name|display_name|[a-z_]*_name)$")
LOG_TEXT = re.compile(r"^(notes?|description|details|body|comment|memo|summary|text)$")
ID_VALUE = re.compile(r"^[a-z]{2,6}_[0-9a-z]{6,}$")

# Range families: a key holding a "low side" token pairs with the key holding the family's
# "high side" token and otherwise the same tokens.
RANGE_SIDES: dict[str, tuple[str, str]] = {}
for _fam, _lo, _hi in (
    ("se", ("start", "starts", "begin", "begins", "started"), ("end", "ends", "finish", "ended")),
    ("ft", ("from",), ("to", "until", "till", "thru")),
    ("mm", ("min", "minimum"), ("max", "maximum")),
    ("pd", ("pickup",), ("dropoff",)),
    ("da", ("departure", "departs", "depart", "departing"), ("arrival", "arrives", "arrive")),
    ("cc", ("checkin",), ("checkout",)),
    ("id", ("issue", "issued"), ("due",)),
):
    for _t in _lo:
        RANGE_SIDES[_t] = (_fam, "lo")
    for _t in _hi:
        RANGE_SIDES[_t] = (_fam, "hi")

# Placeholder detection.
_STRONG_PLACEHOLDER = _word_set(
    "foo foobar baz qux quux lorem ipsum asdf qwerty placeholder dummy xxx yyy zzz tbd "
    "changeme fixme todo"
)
_WEAK_PLACEHOLDER = _word_set(
    "test testing example sample demo bar value user item name title string text data "
    "record field new my thing object entry default"
)
_TOKEN_NUMBER = re.compile(
    r"^(value|user|item|test|foo|bar|baz|qux|string|text|sample|example|dummy|placeholder|"
    r"name|title|temp|tmp|abc|xyz|asdf|entry|record|object|field|thing)[\s_\-]?\d*$",
    re.IGNORECASE,
)
_WORDS_NUMBER = re.compile(r"^([A-Za-z][A-Za-z'\-]*)((?: [A-Za-z][A-Za-z'\-]*){0,4}) (\d{1,5})$")
_NUMBERED_OK = _word_set(
    "room suite gate floor terminal building platform seat level phase sprint week day "
    "version release chapter section round lane dock bay zone aisle table unit apartment "
    "apt hall door track bus route flight pier berth wing block lot box q quarter windows "
    "iphone model series year tier part volume vol episode season grade class step stage"
)
_PLACEHOLDER_DOMAINS = re.compile(r"@(example|test|foo|sample|domain|email)\.(com|org|net)$", re.I)
_DATEISH = re.compile(r"^\d{4}-\d{2}-\d{2}")
_QUOTED = re.compile(r'"([^"]+)"')
_CODE = re.compile(r"^[A-Z0-9]+(?:[-_/][A-Z0-9]+)+$")


def placeholder(
    value: str, fieldname: str | None = None, declared: frozenset[str] = frozenset()
) -> str | None:
    """Why ``value`` reads as a placeholder, or None. ``declared``: values a schema
    enumerates (an enum value such as status "new" is the API's own word, never a
    placeholder)."""
    v = value.strip()
    if not v or len(v) > 200 or v in declared:
        return None
    if fieldname and re.search(r"(^|_)(address|line\d|street)", fieldname.lower()):
        return None  # "Kerkstraat 141": a street and a house number
    low = v.lower()
    if re.search(r"\blorem\b|\bipsum\b|dolor sit amet", low):
        return "lorem ipsum"
    if "@" in v and " " not in v:
        return "placeholder domain" if _PLACEHOLDER_DOMAINS.search(v) else None
    if low.startswith(("http://", "https://")) or _DATEISH.match(v) or ID_VALUE.match(v):
        return None
    if _CODE.match(v):
        return None  # an upper-case code (SKU-1038, INV-2025-0042): a business key
    if fieldname:
        words = fieldname.replace("_", " ").lower().strip()
        if low in (words, fieldname.lower()):
            return "the field name itself"
        if re.fullmatch(rf"{re.escape(words)}[\s_\-]*\d+", low):
            return "field name + number"
    if _TOKEN_NUMBER.match(v):
        return "placeholder token"
    m = _WORDS_NUMBER.match(v)
    if m:
        last = (m.group(2).split() or [m.group(1)])[-1].lower()
        year = 1900 <= int(m.group(3)) <= 2100 and len(m.group(3)) == 4
        # "Terminal 5", "Roadmap 2026": the word before the number says what it counts.
        if not year and m.group(1).lower() not in _NUMBERED_OK and last not in _NUMBERED_OK:
            return "<Words> <number>"
    tokens = [t for t in re.split(r"[^a-z0-9]+", low) if t]
    words_only = [t for t in tokens if not t.isdigit()]
    if any(t in _STRONG_PLACEHOLDER for t in words_only):
        return "placeholder word"
    if (
        words_only
        and len(words_only) <= 2
        and all(t in _WEAK_PLACEHOLDER or t in _STRONG_PLACEHOLDER for t in words_only)
    ):
        return "placeholder word"
    return None


# ---------------------------------------------------------------------------------------
# Paths, binds and the dynamic replay
# ---------------------------------------------------------------------------------------

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


def parse_path(path: str) -> list[str | int]:
    return [
        m.group(1) if m.group(1) is not None else int(m.group(2))
        for m in _PATH_TOKEN.finditer(path)
    ]


def resolve(data: Any, path: str) -> tuple[bool, Any]:
    cur = data
    for tok in parse_path(path or ""):
        if isinstance(tok, int):
            if isinstance(cur, list) and -len(cur) <= tok < len(cur):
                cur = cur[tok]
            else:
                return False, None
        elif isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        else:
            return False, None
    return True, cur


def record_at(data: Any, path: str) -> dict[str, Any] | None:
    """The innermost record (a dict with an ``id``) on the way to ``path``."""
    cur = data
    best = cur if isinstance(cur, dict) and "id" in cur else None
    for tok in parse_path(path or ""):
        if isinstance(tok, int):
            cur = cur[tok] if isinstance(cur, list) and -len(cur) <= tok < len(cur) else None
        else:
            cur = cur.get(tok) if isinstance(cur, dict) else None
        if cur is None:
            break
        if isinstance(cur, dict) and "id" in cur:
            best = cur
    return best


def find_path(data: Any, value: Any, prefix: str = "") -> str | None:
    """The first path under ``data`` to a leaf equal to ``value``."""
    if isinstance(data, dict):
        for k, v in data.items():
            p = find_path(v, value, f"{prefix}.{k}" if prefix else str(k))
            if p is not None:
                return p
    elif isinstance(data, list):
        for i, v in enumerate(data):
            p = find_path(v, value, f"{prefix}[{i}]")
            if p is not None:
                return p
    elif type(data) is type(value) and _same(data, value):
        return prefix
    return None


def name_part(value: Any, part: str | None) -> Any:
    if not part or not isinstance(value, str):
        return value
    index = NAME_PART_INDEX.get(part)
    toks = value.split()
    return toks[index] if index is not None and toks else value


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


@dataclass
class Swap:
    """Later binds reading ``container[i]...`` of step ``step`` read ``target`` instead."""

    step: int
    container: str
    target: str

    def rewrite(self, path: str) -> str:
        m = re.match(rf"^{re.escape(self.container)}\[(\d+)\]", path)
        return self.target + path[m.end() :] if m else path


@dataclass
class Replay:
    """One task loaded into a World, with the gold run recorded for fast partial replays."""

    task: Task
    world: World
    criteria: list[Criterion]
    snaps: list[Any]  # before each step, then after the last
    outs: list[Any]  # envelope data per step (None on failure)
    envelopes: list[dict[str, Any]]
    final: dict[str, Any]
    answer: str
    arg_mismatch: list[str] = field(default_factory=list)
    sources: list[tuple[int, str] | None] = field(default_factory=list)
    cache: DumpCache = field(default_factory=lambda: DumpCache())
    initial_view: Mapping[str, Any] | None = None

    @classmethod
    def load(cls, task: Task, classes: Mapping[str, type[Service]]) -> Replay:
        world = task_world(task, classes)
        snaps, outs, envs = [], [], []
        for step in task.gold_plan:
            snaps.append(world.snapshot())
            env = world.call(step["tool"], step["arguments"])
            envs.append(env)
            outs.append(env.get("data") if env.get("success") else None)
        snaps.append(world.snapshot())
        final = export(world, task.services)
        rep = cls(task, world, load_criteria(task.rubric), snaps, outs, envs, final, "")
        rep.sources = rep._answer_sources()
        rep.answer = Task.gold_answer_for(task.answer)
        rep.arg_mismatch = rep._check_binds()
        return rep

    def answer_rows(self, outs: Sequence[Any], swap: Swap | None = None) -> list[dict[str, Any]]:
        """The answer rows, each value re-read from where it came from in ``outs``."""
        rows = []
        for row, source in zip(self.task.answer, self.sources, strict=False):
            if source is not None:
                k, path = source
                if swap is not None and swap.step == k:
                    path = swap.rewrite(path)
                ok, value = resolve(outs[k], path) if 0 <= k < len(outs) else (False, None)
                row = {**row, "value": value if ok else None}
            rows.append(row)
        return rows

    def _answer_sources(self) -> list[tuple[int, str] | None]:
        """(step, path) of each answer row: its own ``step``/``path`` when it has them, else
        the latest read whose gold output holds the value."""
        plan, out = self.task.gold_plan, []
        for row in self.task.answer:
            k, path = row.get("step"), row.get("path")
            if isinstance(k, int) and isinstance(path, str):
                out.append((k, path))
                continue
            steps = (
                [k]
                if isinstance(k, int)
                else [i for i in reversed(range(len(plan))) if not plan[i].get("write")]
            )
            found = None
            for i in steps:
                if 0 <= i < len(self.outs):
                    p = find_path(self.outs[i], row.get("value"))
                    if p is not None:
                        found = (i, p)
                        break
            out.append(found)
        return out

    def _check_binds(self) -> list[str]:
        """Binds whose recorded source does not give the gold argument (a composition bug,
        and a sign the dynamic replays below would drift)."""
        bad = []
        for i, step in enumerate(self.task.gold_plan):
            args = step.get("arguments") or {}
            for name, bind in (step.get("binds") or {}).items():
                ok, value = self._bind_value(i, args.get(name), bind, self.outs, None)
                if ok and not _same(value, args.get(name)):
                    bad.append(
                        f"step {i} {step['tool']}.{name}: bind gives {value!r}, "
                        f"plan has {args.get(name)!r}"
                    )
        return bad

    @staticmethod
    def _bind_value(
        i: int, gold: Any, bind: Mapping[str, Any], outs: Sequence[Any], swap: Swap | None
    ) -> tuple[bool, Any]:
        """(resolvable, value) of one bind over step outputs ``outs``; (True, gold) for
        binds that read no step."""
        source = bind.get("from")
        k = bind.get("step")
        if source not in ("step", "rule") or not isinstance(k, int) or not 0 <= k < i:
            return True, gold
        path = str(bind.get("path") or "")
        if swap is not None and swap.step == k:
            path = swap.rewrite(path)
        ok, value = resolve(outs[k], path)
        if not ok:
            return False, None
        if source == "rule":
            if bind.get("rule") != "threshold":
                return True, gold
            if not is_number(value) or not is_number(bind.get("limit")):
                return False, None
            return True, bind.get("above") if value > bind["limit"] else bind.get("otherwise")
        value = name_part(value, bind.get("part"))
        if isinstance(gold, list) and not isinstance(value, list):
            value = [value]
        return True, value

    def _note_found(self, k: Any, outs: Sequence[Any]) -> bool:
        """Whether the policy note read at step ``k`` (if any) is in that step's output."""
        if not isinstance(k, int) or not 0 <= k < len(outs):
            return True
        ids = [str(r["id"]) for r in self.task.house_rules if r.get("step") == k]
        shown = orjson.dumps(outs[k]).decode() if outs[k] is not None else ""
        return all(f'"{rid}"' in shown for rid in ids)

    def run(
        self,
        start: int,
        overrides: Mapping[tuple[int, str], Any] | None = None,
        swap: Swap | None = None,
    ) -> tuple[list[Any], list[bool]]:
        """Replay from step ``start`` (earlier steps as in the gold run), arguments re-resolved
        from the new outputs; a step whose bind cannot be resolved is not called (the agent
        would have no value to call it with). (outputs, called-successfully per step)."""
        plan = self.task.gold_plan
        self.world.restore(self.snaps[start])
        outs = list(self.outs[:start])
        oks = [o is not None for o in outs]
        for i in range(start, len(plan)):
            step = plan[i]
            args = dict(step.get("arguments") or {})
            ok = True
            for name, bind in (step.get("binds") or {}).items():
                if overrides and (i, name) in overrides:
                    continue
                if not self._note_found(bind.get("policy"), outs):
                    ok = False  # the rule lives in a note this run did not find
                    break
                resolved, value = self._bind_value(i, args.get(name), bind, outs, swap)
                if not resolved:
                    ok = False
                    break
                args[name] = value
            if overrides:
                for (j, name), value in overrides.items():
                    if j == i:
                        args[name] = value
            if not ok:
                outs.append(None)
                oks.append(False)
                continue
            env = self.world.call(step["tool"], args)
            outs.append(env.get("data") if env.get("success") else None)
            oks.append(bool(env.get("success")))
        return outs, oks

    def passes(self, answer: str | None = None) -> bool:
        """Every criterion passes on the World's current state (lazy views: records are
        exported only when a criterion reads them, unchanged ones compare by identity)."""
        if self.initial_view is None:
            self.initial_view = state_views(self.snaps[0].states, self.task.services, self.cache)
        final = state_views(
            {s: self.world.services[s].state for s in self.task.services},
            self.task.services,
            self.cache,
        )
        text = self.answer if answer is None else answer
        return all(c.check(self.initial_view, final, text) for c in self.criteria)

    def gold_passes_exported(self) -> bool:
        """The gold run judged on plain exported states (no views): the audit's own check
        that the views above judge as the rubric would."""
        return all(c.check(self.task.initial_state, self.final, self.answer) for c in self.criteria)


class DumpCache:
    """JSON dumps of record objects, by identity (records are never mutated in place)."""

    def __init__(self) -> None:
        self._dumps: dict[int, tuple[Any, dict[str, Any]]] = {}

    def dump(self, record: Any) -> dict[str, Any]:
        hit = self._dumps.get(id(record))
        if hit is not None and hit[0] is record:
            return hit[1]
        value = record.model_dump(mode="json")
        self._dumps[id(record)] = (record, value)
        return value


class CollectionView(Mapping[str, Any]):
    """One collection in exported form, dumped lazily; ``source`` exposes the record
    objects so the rubric can compare unchanged records by identity."""

    def __init__(self, records: Mapping[str, Any], cache: DumpCache) -> None:
        self.source = records
        self._cache = cache

    def __getitem__(self, rid: str) -> dict[str, Any]:
        return self._cache.dump(self.source[rid])

    def __iter__(self) -> Any:
        return iter(self.source)

    def __len__(self) -> int:
        return len(self.source)

    def __contains__(self, rid: object) -> bool:
        return rid in self.source


class ServiceView(Mapping[str, Any]):
    """One service's state in exported form (collections as ``CollectionView``)."""

    def __init__(self, state: Any, cache: DumpCache) -> None:
        self._state = state
        self._cache = cache
        self._names = list(type(state).model_fields)
        self._colls = type(state).collection_types

    def __getitem__(self, name: str) -> Any:
        if name in self._colls:
            return CollectionView(getattr(self._state, name), self._cache)
        if name not in self._names:
            raise KeyError(name)
        return self._state.model_dump(mode="json", include={name})[name]

    def __iter__(self) -> Any:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def state_views(
    states: Mapping[str, Any], services: Iterable[str], cache: DumpCache
) -> dict[str, ServiceView]:
    return {s: ServiceView(states[s], cache) for s in services if s in states}


def export(world: World, services: Iterable[str]) -> dict[str, Any]:
    return {s: world.services[s].state.model_dump(mode="json") for s in services}


def _same(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        return math.isclose(float(a), float(b))
    return a == b


# ---------------------------------------------------------------------------------------
# Schema and record helpers
# ---------------------------------------------------------------------------------------


@dataclass
class Ctx:
    """What every worker needs, built once before the workers fork."""

    classes: dict[str, type[Service]]
    props: dict[str, dict[str, dict]]  # qualified tool -> input properties
    name2email: dict[str, str]
    phone2email: dict[str, str]
    companies: frozenset[str]
    staff: frozenset[str]  # our own people's e-mails
    noun_re: re.Pattern[str]
    mutation_report: Callable[..., Any] | None


def build_ctx(classes: Mapping[str, type[Service]], pool_seed: int = 0) -> Ctx:
    props: dict[str, dict[str, dict]] = {}
    nouns: set[str] = set()
    for name, cls in classes.items():
        for td in cls.tools.values():
            props[f"{name}__{td.name}"] = dict((td.input_schema or {}).get("properties") or {})
        nouns.add(name.replace("_", " "))
        for coll in cls.State.collection_types:
            plural = coll.replace("_", " ")
            nouns.add(plural)
            nouns.add(singular(plural))
    pool = seed_pool(pool_seed)
    name2email = {norm_name(p.full_name): p.email.lower() for p in pool.people}
    phone2email = {digits(p.phone): p.email.lower() for p in pool.people}
    alternation = "|".join(re.escape(n) for n in sorted(nouns, key=len, reverse=True) if n)
    try:
        mutants = importlib.import_module("library.compose.mutants")
        report = getattr(mutants, "task_mutation_report", None)
    except Exception:  # absent or broken: n/a
        report = None
    return Ctx(
        classes=dict(classes),
        props=props,
        name2email=name2email,
        phone2email=phone2email,
        companies=frozenset(c.name.lower() for c in pool.companies),
        staff=frozenset(p.email.lower() for p in pool.staff),
        noun_re=re.compile(rf"\b(?:{alternation})\b", re.IGNORECASE),
        mutation_report=report,
    )


def singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def norm_name(name: str) -> str:
    return " ".join(re.findall(r"[a-z]+", name.lower()))


def digits(phone: str) -> str:
    return re.sub(r"\D", "", phone)


def semantic_of(node: Mapping[str, Any] | None) -> tuple[str | None, list[Any]]:
    """(x-semantic-type, enum values) of a property schema, through anyOf and items."""
    if not isinstance(node, Mapping):
        return None, []
    sem = node.get("x-semantic-type")
    enum = list(node.get("enum") or [])
    for sub in [*(node.get("anyOf") or []), *(node.get("oneOf") or []), node.get("items")]:
        if isinstance(sub, Mapping):
            s2, e2 = semantic_of(sub)
            sem = sem or s2
            enum = enum or e2
    return sem, enum


def tool_noun(tool: str) -> str:
    short = tool.split("__", 1)[-1]
    parts = short.split("_")
    return singular("_".join(parts[1:]) if len(parts) > 1 else short)


def step_kind(step: Mapping[str, Any]) -> str:
    kind = step.get("kind")
    if isinstance(kind, str) and kind:
        return kind
    short = str(step["tool"]).split("__", 1)[-1]
    verb = short.split("_", 1)[0]
    if not step.get("write"):
        return "lookup"
    if verb in ("create", "add", "new"):
        return "create"
    if verb in ("delete", "remove"):
        return "delete"
    return "update" if verb in ("update", "edit", "set", "patch") else "action"


def person_kind(arg: str, node: Mapping[str, Any] | None, value: Any) -> str | None:
    """email / phone / name when the argument holds a person."""
    sem, _ = semantic_of(node)
    vals = value if isinstance(value, list) else [value]
    if not vals or not all(isinstance(v, str) and v for v in vals):
        return None
    if sem == "email" or arg in EMAIL_NAMES or arg.endswith(("_email", "_emails")):
        return "email" if all("@" in v for v in vals) else None
    if sem == "phone" or arg in ("phone", "mobile") or arg.endswith(("_phone", "_phones")):
        return "phone" if all(len(digits(v)) >= 6 for v in vals) else None
    if sem == "person_name":
        return "name"
    if arg in NAME_PART_INDEX and arg != "name":
        return "name"
    if arg.endswith("_name"):
        prefix = arg.removesuffix("_name")
        for part in ("_first", "_last", "_full", "_display"):
            prefix = prefix.removesuffix(part)
        if prefix in PERSON_PREFIXES and prefix not in NON_PERSON_NAMES:
            return "name"
    return None


# Argument names that name the same party of one record (a ticket's customer is its
# requester): one role, for figures 1 and 1b.
ROLE_SYNONYMS = {
    "requester": "customer",
    "reporter": "customer",
    "submitter": "customer",
    "client": "customer",
    "host": "organizer",
    "from": "sender",
    "to": "recipient",
}


def role_of(arg: str, tool: str) -> str:
    role = _role_of(arg, tool)
    return ROLE_SYNONYMS.get(role, role)


# Qualifiers of the record's own person's contact details (an employee's personal e-mail
# is the employee's): the role is the record's noun.
OWN_QUALIFIERS = _word_set(
    "personal work home primary secondary alternate alt mobile office business private "
    "number phone_number mobile_number"
)


def _role_of(arg: str, tool: str) -> str:
    if arg in ("email", "emails", "phone", "mobile", *NAME_PART_INDEX, *OWN_QUALIFIERS):
        return tool_noun(tool)  # the record the call is about (the candidate, the contact)
    role = arg
    for suffix in (
        "_emails",
        "_email",
        "_phones",
        "_phone",
        "_first_name",
        "_last_name",
        "_full_name",
        "_names",
        "_name",
    ):
        if role.endswith(suffix):
            role = role[: -len(suffix)]
            break
    return tool_noun(tool) if role in OWN_QUALIFIERS else singular(role)


def looks_person(name: str, companies: frozenset[str]) -> bool:
    toks = re.findall(r"[A-Za-z]+", name)
    if not 1 <= len(toks) <= 4 or "," in name or name.lower() in companies:
        return False
    return not any(t.lower() in COMPANY_WORDS for t in toks)


def email_agrees(name: str, email: str) -> bool | None:
    """Whether the name fits the e-mail's local part (None: not comparable)."""
    local = email.split("@", 1)[0].lower()
    if local in GENERIC_LOCALS:
        return None
    ntoks = [t for t in re.findall(r"[a-z]+", name.lower()) if len(t) >= 2]
    ltoks = [t for t in re.split(r"[^a-z]+", local) if t]
    if not ntoks or not ltoks:
        return None
    return any(t in ltoks or (len(t) >= 3 and t in local) for t in ntoks)


def name_email_pairs(rec: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """(name field, name, email field, email) pairs on one record or call."""
    out = []
    for ek, ev in rec.items():
        if not (isinstance(ev, str) and "@" in ev) or not (ek == "email" or ek.endswith("_email")):
            continue
        prefix = ek[: -len("email")]
        names = (
            [f"{prefix}name", f"{prefix}full_name", f"{prefix}contact_name"]
            if prefix
            else [
                "name",
                "full_name",
                "contact_name",
                "display_name",
            ]
        )
        found = False
        for nk in names:
            nv = rec.get(nk)
            if isinstance(nv, str) and nv.strip():
                out.append((nk, nv, ek, ev))
                found = True
                break
        if not found:
            first, last = rec.get(f"{prefix}first_name"), rec.get(f"{prefix}last_name")
            if isinstance(first, str) and isinstance(last, str) and first and last:
                out.append((f"{prefix}first_name+last_name", f"{first} {last}", ek, ev))
    return out


def records_of(states: Mapping[str, Any]) -> Iterable[tuple[str, str, str, dict[str, Any]]]:
    for svc, state in states.items():
        if not isinstance(state, Mapping):
            continue
        for coll, recs in collections_of(states, svc).items():
            for rid, rec in recs.items():
                if isinstance(rec, dict):
                    yield svc, coll, str(rid), rec


def leaves(value: Any, key: str = "") -> Iterable[tuple[str, Any]]:
    """(leaf key, value) for every scalar under ``value``."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v, key)
    else:
        yield key, value


def as_time(v: Any) -> tuple[str, float] | None:
    if is_number(v):
        return ("n", float(v))
    if isinstance(v, str) and _DATEISH.match(v):
        try:
            t = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            return None
        if t.tzinfo is None:
            t = t.replace(tzinfo=dt.UTC)
        return ("t", t.timestamp())
    return None


@functools.lru_cache(maxsize=4096)
def _range_key(key: str) -> tuple[tuple[str, tuple[str, ...]], str] | None:
    k = key.lower()
    for a, b in (
        ("check_in", "checkin"),
        ("check_out", "checkout"),
        ("pick_up", "pickup"),
        ("drop_off", "dropoff"),
    ):
        k = k.replace(a, b)
    toks = k.split("_")
    for i, t in enumerate(toks):
        side = RANGE_SIDES.get(t)
        if side is not None:
            rest = tuple(toks[:i] + toks[i + 1 :])
            return (side[0], rest), side[1]
    return None


def range_pairs(rec: Mapping[str, Any]) -> list[tuple[str, str, Any, Any]]:
    """Comparable (low key, high key, low, high) pairs of one record (nested records too)."""
    out = []
    groups: dict[tuple[str, tuple[str, ...]], dict[str, str]] = defaultdict(dict)
    for k in rec:
        rk = _range_key(str(k))
        if rk is not None:
            groups[rk[0]].setdefault(rk[1], str(k))
    for sides in groups.values():
        if "lo" in sides and "hi" in sides:
            lo, hi = rec[sides["lo"]], rec[sides["hi"]]
            a, b = as_time(lo), as_time(hi)
            if a is not None and b is not None and a[0] == b[0]:
                out.append((sides["lo"], sides["hi"], lo, hi))
    for v in rec.values():
        items = v if isinstance(v, list) else [v]
        for item in items:
            if isinstance(item, dict):
                out += range_pairs(item)
    return out


def inverted(lo: Any, hi: Any) -> bool:
    a, b = as_time(lo), as_time(hi)
    return a is not None and b is not None and b[1] < a[1]


# ---------------------------------------------------------------------------------------
# The audit of one task
# ---------------------------------------------------------------------------------------

_CTX: Ctx | None = None  # set before the workers fork, inherited by them


def audit_task(task: Task, ctx: Ctx) -> dict[str, Any]:
    r: dict[str, Any] = {"task_id": task.task_id}
    r["shape"] = shape(task, ctx)
    r["purpose"] = purposeless(task)  # redone with the gold outputs once replayed
    r["identity"] = identities(task, ctx)
    missing = [s for s in task.services if s not in ctx.classes]
    r["replayable"] = not missing
    r["seeded"] = seeded_figures(task, ctx)
    if missing:
        return r
    t0 = time.perf_counter()
    try:
        rep = Replay.load(task, ctx.classes)
    except Exception as exc:  # unloadable: a finding
        r["replayable"] = False
        r["load_error"] = f"{type(exc).__name__}: {exc}"[:200]
        return r
    r["gold_passes"] = rep.gold_passes_exported()
    r["view_disagrees"] = rep.passes() != r["gold_passes"]
    r["purpose"] = purposeless(task, rep.outs)
    r["bind_mismatch"] = rep.arg_mismatch
    r["selection"] = selection_rules(rep)
    r["placeholders"] = placeholders(task, rep)
    r["stated"] = stated_literals(rep, ctx)
    r["terminal"] = terminal_edits(rep, ctx)
    r["story"] = story_breaks(rep, ctx)
    r["thresholds"] = unrelated_thresholds(rep, ctx)
    r["written"] = written_figures(task, rep, ctx)
    r["audit_s"] = time.perf_counter() - t0
    if ctx.mutation_report is not None:
        try:
            r["mutation"] = normalize_mutation(ctx.mutation_report(task, ctx.classes))
        except Exception as exc:
            r["mutation"] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    return r


def _ex(task: Task, text: str) -> str:
    return f"{task.task_id}: {text}"


# 1 -------------------------------------------------------------------------------------
def identities(task: Task, ctx: Ctx) -> dict[str, Any]:
    # Names and phones that the task's own seeded records pair with an e-mail.
    name2email = dict(ctx.name2email)
    phone2email = dict(ctx.phone2email)
    for _, _, _, rec in records_of(task.initial_state):
        for _, nv, _, ev in name_email_pairs(rec):
            name2email.setdefault(norm_name(nv), ev.lower())
        for pk, pv in rec.items():
            if isinstance(pv, str) and (pk == "phone" or pk.endswith("_phone")):
                prefix = pk[: -len("phone")]
                ev = rec.get(f"{prefix}email")
                if isinstance(ev, str) and "@" in ev:
                    phone2email.setdefault(digits(pv), ev.lower())
    uses: list[tuple[int, str, str, str, str]] = []  # (step, role, kind, arg, value)
    for i, step in enumerate(task.gold_plan):
        props = ctx.props.get(step["tool"], {})
        args = step.get("arguments") or {}
        # first/last name parts of one call make one full name
        parts = {
            a: v for a, v in args.items() if a in ("first_name", "last_name") and isinstance(v, str)
        }
        for arg, value in args.items():
            kind = person_kind(arg, props.get(arg), value)
            if kind is None:
                continue
            role = role_of(arg, step["tool"])
            if arg in parts and len(parts) == 2:
                if arg == "last_name":
                    continue
                value = f"{parts['first_name']} {parts['last_name']}"
            for v in value if isinstance(value, list) else [value]:
                uses.append((i, role, kind, arg, v))
    emails = {v.lower() for _, _, k, _, v in uses if k == "email"}
    local_index: dict[str, str] = {}
    for e in emails:
        local = e.split("@", 1)[0]
        local_index[" ".join(t for t in re.split(r"[^a-z]+", local) if t)] = e

    def ident(kind: str, v: str) -> str:
        if kind == "email":
            return "e:" + v.lower()
        if kind == "phone":
            e = phone2email.get(digits(v))
            return "e:" + e if e else "p:" + digits(v)
        n = norm_name(v)
        e = name2email.get(n) or local_index.get(n)
        if e is None and len(n.split()) == 1:  # a lone first or last name
            hits = [x for loc, x in local_index.items() if n in loc.split()]
            e = hits[0] if len(hits) == 1 else None
        return "e:" + e if e else "n:" + n

    roles: dict[str, set[str]] = defaultdict(set)
    per_call: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    subject = ident(uses[0][2], uses[0][4]) if uses else ""  # whom the request is about
    for i, role, kind, arg, v in uses:
        who = ident(kind, v)
        if role == "recipient" and who == subject:
            continue  # a message to the person the request is about: their own role
        roles[who].add(role)
        per_call[i][who].add(f"{role}({arg})")
    all_roles = set().union(*roles.values()) if roles else set()
    single = len(all_roles) >= 2 and len(roles) == 1
    same_call = []
    for i, whos in sorted(per_call.items()):
        for who, rs in whos.items():
            if len({x.split("(")[0] for x in rs}) >= 2:
                same_call.append(
                    f"step {i} {task.gold_plan[i]['tool']}: {' = '.join(sorted(rs))} = {who[2:]}"
                )
    example = ""
    if single:
        who = next(iter(roles))
        example = f"{who[2:]} is {', '.join(sorted(all_roles))}"
    # 1d: a role in a write given to someone the request has no part for: read off a record
    # that was found through another record (not by what the request states), that the
    # plan does not write, or off a policy note.
    plan = task.gold_plan
    notes = {r.get("step") for r in task.house_rules}
    # Whom the request is about: the first person it names, and anyone read off the record
    # it opens with (the sender of the message, the customer of the order it names).
    opening = {0}
    for j, st in enumerate(plan):  # writes acting on the opening record, one after another,
        # and the records it names, fetched by their id (the customer of the order)
        if any(
            b.get("step") in opening
            and str(b.get("path") or "").endswith("id")
            and (st.get("write") or len(st.get("binds") or {}) == 1)
            for b in (st.get("binds") or {}).values()
        ):
            opening.add(j)
    subjects = {subject}
    for arg, b in (plan[0].get("binds") or {}).items() if plan else ():
        v = plan[0]["arguments"].get(arg)  # what the request states to find its record
        if b.get("from") == "user" and isinstance(v, str) and ("@" in v or v.startswith("+")):
            subjects.add(ident("email" if "@" in v else "phone", v))
    for st in plan:
        for arg, b in (st.get("binds") or {}).items():
            if b.get("step") in opening and isinstance(v := st["arguments"].get(arg), str):
                kind = person_kind(arg, ctx.props.get(st["tool"], {}).get(arg), v)
                if kind is not None:
                    subjects.add(ident(kind, v))
    bound, far = 0, []
    for i, _, kind, arg, v in uses:
        bind = (plan[i].get("binds") or {}).get(arg) or {}
        k = bind.get("step")
        if not plan[i].get("write") or not isinstance(k, int) or not 0 <= k < len(plan):
            continue
        bound += 1
        if ident(kind, v) in subjects or plan[k].get("write") or k in opening:
            continue
        searched = _found_by(plan, k, lambda a, val: ident(a, val) in subjects, ctx)
        if k not in notes and (searched or _written_later(plan, k, bind)):
            continue
        far.append(f"step {i} {plan[i]['tool']} {arg} = {v} (from step {k} {plan[k]['tool']})")
    return {
        "has_people": bool(uses),
        "roles": len(all_roles),
        "multi_role": len(all_roles) >= 2,
        "single": single,
        "example": example,
        "same_call": same_call,
        "role_binds": bound,
        "far": far,
    }


def _found_by(
    plan: Sequence[Mapping[str, Any]], k: int, is_subject: Callable[[str, str], bool], ctx: Ctx
) -> bool:
    """Whether read ``k`` found its record by what the request states or by the request's
    own person (every argument stated, or a value of theirs)."""
    step = plan[k]
    props = ctx.props.get(step["tool"], {})
    for arg, b in (step.get("binds") or {}).items():
        if b.get("from") == "user":
            continue
        v = step["arguments"].get(arg)
        kind = person_kind(arg, props.get(arg), v) if isinstance(v, str) else None
        if kind is None or not is_subject(kind, v):
            return False
    return True


def _written_later(plan: Sequence[Mapping[str, Any]], k: int, bind: Mapping[str, Any]) -> bool:
    """Whether some write acts on the record the bound value came from (binds its id off
    the same record of read ``k``)."""
    record = str(bind.get("path") or "").rpartition(".")[0]
    return any(
        b.get("step") == k and str(b.get("path") or "").rpartition(".")[0] == record
        for s in plan
        if s.get("write")
        for b in (s.get("binds") or {}).values()
        if str(b.get("path") or "").rpartition(".")[2].endswith("id")
    )


# 2 -------------------------------------------------------------------------------------
def purposeless(task: Task, outs: Sequence[Any] | None = None) -> dict[str, Any]:
    """Reads nothing uses. Answer rows without ``step`` (older tasks) anchor every read
    whose gold output holds the row's value (``outs``: the gold run's outputs)."""
    plan = task.gold_plan
    consumers: dict[int, set[int]] = defaultdict(set)
    for j, step in enumerate(plan):
        for bind in (step.get("binds") or {}).values():
            k = bind.get("step") if isinstance(bind, Mapping) else None
            if isinstance(k, int) and 0 <= k < j:
                consumers[k].add(j)
    anchored: set[int] = set()
    fallback = 0
    for row in task.answer:
        k = row.get("step")
        if isinstance(k, int):
            anchored.add(k)
        else:
            fallback += 1
            if outs is not None:
                value = _hashable(row.get("value"))
                for i, data in enumerate(outs):
                    if not plan[i].get("write") and any(
                        _hashable(v) == value for _, v in leaves(data)
                    ):
                        anchored.add(i)
    for rule in task.house_rules:
        k = rule.get("step")
        if isinstance(k, int):
            anchored.add(k)
    reads = [i for i, s in enumerate(plan) if not s.get("write")]
    direct = [i for i in reads if not consumers[i] and i not in anchored]
    # Transitive: useful only if a chain of binds reaches a write, an answer or a rule.
    useful: dict[int, bool] = {}
    for i in reversed(range(len(plan))):
        useful[i] = (
            bool(plan[i].get("write"))
            or i in anchored
            or any(useful.get(j, False) for j in consumers[i])
        )
    transitive = [i for i in reads if not useful[i]]
    return {
        "reads": len(reads),
        "direct": [f"step {i} {plan[i]['tool']}" for i in direct],
        "transitive": [f"step {i} {plan[i]['tool']}" for i in transitive],
        "answer_fallback": fallback,
    }


def _hashable(v: Any) -> Any:
    return v if isinstance(v, str | int | float | bool) or v is None else repr(v)


# 3 -------------------------------------------------------------------------------------
def selection_rules(rep: Replay) -> dict[str, Any]:
    task, plan = rep.task, rep.task.gold_plan
    rules = [i for i, s in enumerate(plan) if s.get("select")]
    out: dict[str, Any] = {
        "rules": len(rules),
        "uncheckable": [],
        "unread": 0,
        "no_decoys": 0,
        "siblings": 0,
    }
    by_step: dict[int, list[str]] = defaultdict(list)
    for d in task.decoys:
        if isinstance(d.get("step"), int) and isinstance(d.get("path"), str) and d["path"]:
            by_step[d["step"]].append(d["path"])
    for k in rules:
        sel = plan[k]["select"]
        what = f"step {k} {plan[k]['tool']} rule {sel.get('rule')} {sel.get('field')}" + (
            f" = {sel['value']!r}" if "value" in sel else ""
        )
        reads = [
            str(b.get("path") or "")
            for s in plan[k + 1 :]
            for b in (s.get("binds") or {}).values()
            if b.get("step") == k and b.get("from") in ("step", "rule")
        ] + [src[1] for src in rep.sources if src is not None and src[0] == k]
        if not reads:
            # Whatever the agent picks, nothing later differs.
            out["unread"] += 1
            out["uncheckable"].append(f"{what}: nothing reads the chosen record")
            continue
        paths = by_step.get(k) or []
        chosen = _chosen(rep.outs[k], reads)
        if not paths and chosen is not None:
            container, index = chosen
            ok, items = resolve(rep.outs[k], container)
            if ok and isinstance(items, list):
                paths = [f"{container}[{j}]" for j in range(len(items)) if j != index]
                out["siblings"] += 1
        if not paths:
            out["no_decoys"] += 1
            continue
        for path in paths:
            m = re.match(r"^(.*)\[(\d+)\]$", path)
            if m is None:
                continue
            swap = Swap(k, m.group(1), path)
            outs, _ = rep.run(k + 1, swap=swap)
            answer = Task.gold_answer_for(rep.answer_rows(outs, swap))
            if rep.passes(answer):
                ok, rec = resolve(rep.outs[k], path)
                rid = rec.get("id") if isinstance(rec, dict) else path
                out["uncheckable"].append(f"{what}: decoy {rid} passes every criterion")
                break
    return out


def _chosen(data: Any, paths: Sequence[str]) -> tuple[str, int] | None:
    """(container path, index) of the list element later binds read."""
    for path in paths:
        prefix = ""
        for tok in parse_path(path):
            if isinstance(tok, int):
                ok, value = resolve(data, prefix)
                if ok and isinstance(value, list):
                    return prefix, tok
                prefix += f"[{tok}]"
            else:
                prefix = f"{prefix}.{tok}" if prefix else tok
    return None


# 4 -------------------------------------------------------------------------------------
def _enums(task: Task, rep: Replay) -> frozenset[str]:
    """Every string value the task's tools and records declare in an enum."""
    out: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            out.update(v for v in node.get("enum") or () if isinstance(v, str))
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    for step in task.gold_plan:
        route = rep.world.tool(step["tool"])
        if route is not None:
            walk(route[1].input_schema)
            walk(route[1].output_schema)
    return frozenset(out)


def placeholders(task: Task, rep: Replay) -> dict[str, Any]:
    found: dict[str, str] = {}
    declared = _enums(task, rep)
    # A stated value is judged with the field it fills where it fills one ("Kerkstraat
    # 141" as an address line is a street and a house number).
    filled: dict[str, str] = {}
    for step in task.gold_plan:
        for name, value in (step.get("arguments") or {}).items():
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str):
                    filled.setdefault(v, name)
    for lit in task.literals:
        if isinstance(lit, str) and (why := placeholder(lit, filled.get(lit), declared)):
            found.setdefault(lit, why)
    for q in _QUOTED.findall(task.instruction):
        if why := placeholder(q, filled.get(q), declared):
            found.setdefault(q, why)
    for step in task.gold_plan:
        for name, bind in (step.get("binds") or {}).items():
            if bind.get("from") != "user":
                continue
            value = (step.get("arguments") or {}).get(name)
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str) and (why := placeholder(v, name, declared)):
                    found.setdefault(v, f"{why} ({name})")
    strings = bad = 0
    bad_examples: list[str] = []
    for data in rep.outs:
        for key, v in leaves(data):
            if isinstance(v, str):
                strings += 1
                if why := placeholder(v, key, declared):
                    bad += 1
                    text = f"{key}={v!r} ({why})"
                    if len(bad_examples) < 3 and text not in bad_examples:
                        bad_examples.append(text)
    return {
        "found": [f"{v!r} ({why})" for v, why in found.items()],
        "out_strings": strings,
        "out_bad": bad,
        "out_examples": bad_examples,
    }


# 5 -------------------------------------------------------------------------------------
def alternatives(value: Any, node: Mapping[str, Any] | None, name: str) -> list[Any]:
    """Other values a careless agent could pass for ``value`` (never ``value`` itself)."""
    return [a for a in _alternatives(value, node, name) if a != value]


def _alternatives(value: Any, node: Mapping[str, Any] | None, name: str) -> list[Any]:
    sem, enum = semantic_of(node)
    if isinstance(value, list):
        if not value:
            return []
        return [[alt, *value[1:]] for alt in _alternatives(value[0], node, name)][:3]
    if isinstance(value, bool):
        return [not value]
    if enum:
        return [e for e in enum if e != value and e is not None][:3]
    if is_number(value):
        if isinstance(value, int):
            return [value + 1, value + max(2, abs(value) // 4)]
        return [round(value * 1.13 + 1, 2), round(value * 0.8, 2)]
    if not isinstance(value, str):
        return []
    if _DATEISH.match(value):
        try:
            t = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return []
        out = []
        for delta in (dt.timedelta(days=1), dt.timedelta(days=-1), dt.timedelta(hours=2)):
            u = t + delta
            if len(value) == 10:
                out.append(u.date().isoformat())
            else:
                s = u.isoformat()
                out.append(s.replace("+00:00", "Z") if value.endswith("Z") else s)
        return list(dict.fromkeys(out))
    if sem == "email" or ("@" in value and " " not in value):
        local, _, domain = value.partition("@")
        return [f"{local}x@{domain}", f"other.{local}@{domain}"]
    if sem == "phone":
        d = value[-1]
        return [value[:-1] + ("1" if d != "1" else "2")]
    if sem == "url" or value.startswith(("http://", "https://")):
        return [value.rstrip("/") + "/x"]
    if sem in ("currency",) and re.fullmatch(r"[A-Z]{3}", value):
        return [c for c in ("EUR", "USD", "GBP") if c != value][:2]
    return [value + " (revised)", "Revised " + value]


def stated_literals(rep: Replay, ctx: Ctx, budget: int = 40) -> dict[str, Any]:
    task = rep.task
    out: dict[str, Any] = {
        "args": 0,
        "unverified": [],
        "inconclusive": 0,
        "in_reads": 0,
        "same_read": 0,
    }
    runs = 0
    for i, step in enumerate(task.gold_plan):
        props = ctx.props.get(step["tool"], {})
        for name, bind in (step.get("binds") or {}).items():
            if bind.get("from") != "user":
                continue
            value = (step.get("arguments") or {}).get(name)
            alts = alternatives(value, props.get(name), name)
            if not alts:
                continue
            out["args"] += 1
            tried = escaped = 0
            for alt in alts:
                if runs >= budget:
                    break
                runs += 1
                outs, oks = rep.run(i, overrides={(i, name): alt})
                if not oks[i] and rep.outs[i] is not None:
                    continue  # the tool refused the alternative: no evidence either way
                if not step.get("write") and outs[i] == rep.outs[i]:
                    out["same_read"] += 1
                    continue  # a read that finds the same records: the agent's view is identical
                tried += 1
                if rep.passes():
                    escaped += 1
                    out["in_reads"] += 0 if step.get("write") else 1
                    out["unverified"].append(
                        f"step {i} {step['tool']}.{name} = {value!r}: {alt!r} also passes"
                    )
                    break
            if not tried and not escaped:
                out["inconclusive"] += 1
    return out


# 6 -------------------------------------------------------------------------------------
def terminal_edits(rep: Replay, ctx: Ctx) -> dict[str, Any]:
    task = rep.task
    out: dict[str, Any] = {"edits": 0, "found": [], "pairs": []}
    for i, step in enumerate(task.gold_plan):
        kind = step_kind(step)
        if not step.get("write") or kind not in ("update", "action", "delete"):
            continue
        out["edits"] += 1
        svc, short = str(step["tool"]).split("__", 1)
        target = _target(rep.snaps[i].states.get(svc), step, ctx)
        if target is None:
            continue
        coll, rec = target
        for fname in type(rec).model_fields:
            if fname not in STATUS_FIELDS and not fname.endswith("_status"):
                continue
            value = getattr(rec, fname, None)
            value = getattr(value, "value", value)
            if not isinstance(value, str) or value.lower() not in TERMINAL:
                continue
            if any(v in short for v in EXIT_VERBS):
                continue
            out["found"].append(
                f"step {i} {step['tool']} on {coll} {rec.id} whose {fname} is {value!r}"
            )
            out["pairs"].append(f"{short} on {value}")
    return out


def story_breaks(rep: Replay, ctx: Ctx) -> dict[str, Any]:
    """Writes that break a record's story: editing what the plan just created, or touching
    a record after an action moved it on (paused, advanced, replied to)."""
    task = rep.task
    out: dict[str, Any] = {"writes": 0, "found": []}
    created: set[str] = set()
    moved_on: set[str] = set()
    for i, step in enumerate(task.gold_plan):
        if not step.get("write"):
            continue
        out["writes"] += 1
        kind = step_kind(step)
        # Id arguments only: a ticket whose description names the cancelled order (text
        # that logs the work) hangs nothing on it.
        ids = {
            v
            for n, v in (step.get("arguments") or {}).items()
            if isinstance(v, str) and (n == "id" or n.endswith(("_id", "Id", "_ids")))
        }
        svc = str(step["tool"]).split("__", 1)[0]
        target = _target(rep.snaps[i].states.get(svc), step, ctx)
        own = str(target[1].id) if target is not None else None
        if kind == "update" and own in created:
            out["found"].append(f"step {i} {step['tool']} edits the record step's create made")
        if ids & moved_on:
            out["found"].append(f"step {i} {step['tool']} touches a record an action moved on")
        data = rep.outs[i]
        if kind == "create" and isinstance(data, dict) and data.get("id") is not None:
            created.add(str(data["id"]))
        if kind == "action" and own is not None:
            moved_on.add(own)
    return out


def _target(state: Any, step: Mapping[str, Any], ctx: Ctx) -> tuple[str, Any] | None:
    """The record an update/action/delete works on: its id argument, preferring the
    collection the tool is named after."""
    if state is None:
        return None
    colls = state.collections()
    noun = tool_noun(step["tool"])
    hits = []
    for name, v in (step.get("arguments") or {}).items():
        if not isinstance(v, str) or not (name == "id" or name.endswith("_id")):
            continue
        for coll, recs in colls.items():
            if v in recs:
                score = (singular(coll) == noun) * 2 + (name.removesuffix("_id") == singular(coll))
                hits.append((score, coll, recs[v]))
    if not hits:
        return None
    hits.sort(key=lambda h: -h[0])
    return hits[0][1], hits[0][2]


# 7 -------------------------------------------------------------------------------------
def unrelated_thresholds(rep: Replay, ctx: Ctx) -> dict[str, Any]:
    task = rep.task
    out: dict[str, Any] = {"thresholds": 0, "found": []}
    for j, step in enumerate(task.gold_plan):
        for name, bind in (step.get("binds") or {}).items():
            if bind.get("rule") != "threshold" or not isinstance(bind.get("step"), int):
                continue
            out["thresholds"] += 1
            k = bind["step"]
            source = record_at(rep.outs[k], str(bind.get("path") or "")) if 0 <= k < j else None
            written = _written_record(rep, j, ctx)
            if source is None or written is None:
                continue
            if not _linked(source, written):
                out["found"].append(
                    f"step {j} {step['tool']}.{name} decided by {bind.get('path')} of "
                    f"{source.get('id')} (step {k}), writes {written.get('id')}"
                )
    return out


def _written_record(rep: Replay, j: int, ctx: Ctx) -> dict[str, Any] | None:
    data = rep.outs[j]
    if isinstance(data, dict) and "id" in data:
        return data
    step = rep.task.gold_plan[j]
    svc = str(step["tool"]).split("__", 1)[0]
    target = _target(rep.snaps[j + 1].states.get(svc), step, ctx) or _target(
        rep.snaps[j].states.get(svc), step, ctx
    )
    return target[1].model_dump(mode="json") if target is not None else None


def _linked(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    ida, idb = a.get("id"), b.get("id")
    if ida is not None and ida == idb:
        return True
    la, lb = list(leaves(a)), list(leaves(b))
    if idb is not None and any(v == idb for k, v in la if k != "id"):
        return True
    if ida is not None and any(v == ida for k, v in lb if k != "id"):
        return True
    keys_a = {(v) for k, v in la if BUSINESS_KEY.match(k) and isinstance(v, str) and v}
    if any(v in keys_a for k, v in lb if BUSINESS_KEY.match(k) and isinstance(v, str) and v):
        return True
    # ... or one record's number or name is what the other's text names (a to-do whose
    # notes are the invoice's number, or "Updated the subscription Atkinson Ltd.", is about
    # that record, as one holding its id is)
    keys_b = {(v) for k, v in lb if BUSINESS_KEY.match(k) and isinstance(v, str) and v}
    if any(v in keys_b for _, v in la) or any(v in keys_a for _, v in lb):
        return True
    return _text_names(la, lb) or _text_names(lb, la)


def _text_names(named: list[tuple[str, Any]], texts: list[tuple[str, Any]]) -> bool:
    """Whether a free text among ``texts`` (notes, a description) names the record of
    ``named`` by its number or its name, as a whole phrase."""
    names = {
        v
        for k, v in named
        if isinstance(v, str) and len(v) >= 4 and (BUSINESS_KEY.match(k) or NAMED_BY.match(k))
    }
    prose = [v for k, v in texts if isinstance(v, str) and LOG_TEXT.match(k)]
    return any(
        re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)
        for name in names
        for text in prose
    )


# 8, 9, 10 ------------------------------------------------------------------------------
def seeded_figures(task: Task, ctx: Ctx) -> dict[str, Any]:
    pairs = bad = 0
    examples: list[str] = []
    mismatched: list[str] = []
    for svc, coll, rid, rec in records_of(task.initial_state):
        for lo_k, hi_k, lo, hi in range_pairs(rec):
            pairs += 1
            if inverted(lo, hi):
                bad += 1
                if len(examples) < 3:
                    examples.append(f"{svc}.{coll} {rid}: {lo_k}={lo!r} > {hi_k}={hi!r}")
        for nk, nv, ek, ev in name_email_pairs(rec):
            if looks_person(nv, ctx.companies) and email_agrees(nv, ev) is False:
                mismatched.append(f"{svc}.{coll} {rid}: {nk}={nv!r} vs {ek}={ev!r}")
    return {
        "pairs": pairs,
        "inverted": bad,
        "examples": examples,
        "name_email": mismatched,
        "tied": tied_to_another(task.initial_state, ctx.staff),
        "two_roles": two_roles_seeded(task.initial_state),
    }


def two_roles_seeded(states: Mapping[str, Any]) -> list[str]:
    """Seeded records naming one e-mail in two ``*_email`` fields of different roles (a
    report its own employee approves)."""
    out: list[str] = []
    for svc, coll, rid, rec in records_of(states):
        seen: dict[str, str] = {}
        for k, v in rec.items():
            if not (k.endswith("_email") and isinstance(v, str) and "@" in v):
                continue
            other = seen.setdefault(v.lower(), k)
            if other != k:
                out.append(f"{svc}.{coll} {rid}: {other} = {k} = {v!r}")
    return out


def tied_to_another(states: Mapping[str, Any], staff: frozenset[str] = frozenset()) -> list[str]:
    """Records tied to an outside person's record (a payment's ``customer_id``, not a work
    order's ``technician_id``) whose outside-person e-mail (its receipt or customer e-mail,
    not a colleague's role) is someone else's."""
    out: list[str] = []
    for svc in states:
        colls = collections_of(states, svc)
        owners = {
            rid: rec["email"].lower()
            for recs in colls.values()
            for rid, rec in recs.items()
            if isinstance(rec, dict) and isinstance(rec.get("email"), str)
        }
        for coll, recs in colls.items():
            for rid, rec in recs.items():
                if not isinstance(rec, dict):
                    continue
                whose = [
                    owners[v]
                    for k, v in rec.items()
                    if k.endswith("_id") and v in owners and not is_staff_role(k[:-3])
                ]
                if len(whose) != 1:
                    continue
                for k, v in rec.items():
                    role = k.removesuffix("_email")
                    if (
                        k.endswith("_email")
                        and isinstance(v, str)
                        and not is_staff_role(role)
                        and v.lower() not in staff  # a purchase order's requester is ours
                        and v.lower() != whose[0]
                    ):
                        out.append(f"{svc}.{coll} {rid}: {k}={v!r}, tied to {whose[0]!r}")
    return out


def written_figures(task: Task, rep: Replay, ctx: Ctx) -> dict[str, Any]:
    initial, final = task.initial_state, rep.final
    inverted_written: list[str] = []
    mismatched: list[str] = []
    created: list[tuple[str, str, str]] = []
    same_roles: list[str] = []
    for svc in task.services:
        before = collections_of(initial, svc)
        for coll, recs in collections_of(final, svc).items():
            old = before.get(coll) or {}
            for rid, rec in recs.items():
                prev = old.get(rid)
                if prev == rec:
                    continue
                if prev is None:
                    created.append((svc, coll, str(rid)))
                prev_pairs = {(a, b): (x, y) for a, b, x, y in range_pairs(prev)} if prev else {}
                for lo_k, hi_k, lo, hi in range_pairs(rec):
                    if not inverted(lo, hi):
                        continue
                    before_pair = prev_pairs.get((lo_k, hi_k))
                    if prev is None or before_pair != (lo, hi) or not inverted(*before_pair):
                        inverted_written.append(
                            f"{svc}.{coll} {rid}: {lo_k}={lo!r} > {hi_k}={hi!r}"
                        )
                same_roles += _record_roles(svc, coll, str(rid), rec, prev)
                seeded = {(nk, ek): (nv, ev) for nk, nv, ek, ev in name_email_pairs(prev or {})}
                for nk, nv, ek, ev in name_email_pairs(rec):
                    if seeded.get((nk, ek)) == (nv, ev):
                        continue  # the plan left this pair as seeded (figure 10b)
                    if looks_person(nv, ctx.companies) and email_agrees(nv, ev) is False:
                        mismatched.append(f"written {svc}.{coll} {rid}: {nk}={nv!r} vs {ek}={ev!r}")
    for i, step in enumerate(task.gold_plan):
        args = step.get("arguments") or {}
        for nk, nv, ek, ev in name_email_pairs(args):
            if looks_person(nv, ctx.companies) and email_agrees(nv, ev) is False:
                mismatched.append(f"call step {i} {step['tool']}: {nk}={nv!r} vs {ek}={ev!r}")
    # 9: ids the plan creates (new records, and what create steps return)
    new_ids = {rid for _, _, rid in created}
    for step, data in zip(task.gold_plan, rep.outs, strict=False):
        if (
            step_kind(step) == "create"
            and isinstance(data, dict)
            and isinstance(data.get("id"), str)
        ):
            new_ids.add(data["id"])
    future: list[str] = []
    if new_ids:
        for svc, coll, rid, rec in records_of(initial):
            for key, v in leaves(rec):
                if isinstance(v, str) and v in new_ids:
                    future.append(f"{v} already in {svc}.{coll} {rid}.{key}")
    return {
        "inverted": inverted_written,
        "name_email": mismatched,
        "future_ids": future,
        "created": len(new_ids),
        "same_roles": same_roles,
    }


def _record_roles(
    svc: str, coll: str, rid: str, rec: Mapping[str, Any], prev: Mapping[str, Any] | None
) -> list[str]:
    """Two roles of one record the plan created or changed holding one e-mail (a draft
    whose ``to`` is its ``bcc``, a job whose hiring manager is its recruiter)."""
    noun_tool = f"{svc}__get_{singular(coll)}"
    holders: dict[str, set[str]] = defaultdict(set)
    changed: set[str] = set()
    for key, value in rec.items():
        vals = value if isinstance(value, list) else [value]
        if not vals or not all(isinstance(v, str) and "@" in v for v in vals):
            continue
        if person_kind(key, None, value) != "email":
            continue
        if prev is None or prev.get(key) != value:
            changed.add(key)
        for v in vals:
            holders[v.lower()].add(key)
    out = []
    for email, keys in holders.items():
        roles = {role_of(k, noun_tool) for k in keys}
        if len(roles) >= 2 and keys & changed:
            out.append(f"{svc}.{coll} {rid}: {' = '.join(sorted(keys))} = {email}")
    return out


# 11 ------------------------------------------------------------------------------------
def normalize_mutation(report: Any) -> dict[str, Any]:
    """``{"by_kind": {kind: [caught, total]}}`` from whatever shape the report has."""
    if hasattr(report, "model_dump"):
        report = report.model_dump()
    elif hasattr(report, "__dataclass_fields__"):
        import dataclasses

        report = dataclasses.asdict(report)
    by_kind: dict[str, list[int]] = {}
    raw = report.get("by_kind") if isinstance(report, Mapping) else None
    if isinstance(raw, Mapping):
        for kind, v in raw.items():
            if isinstance(v, list | tuple) and len(v) == 2:
                by_kind[str(kind)] = [int(v[0]), int(v[1])]
            elif isinstance(v, Mapping):
                by_kind[str(kind)] = [
                    int(v.get("caught", 0)),
                    int(v.get("total", v.get("mutants", 0))),
                ]
    elif isinstance(report, Mapping) and "caught" in report:
        by_kind["all"] = [
            int(report.get("caught", 0)),
            int(report.get("mutants", report.get("total", 0))),
        ]
    return {"by_kind": by_kind}


# 12 ------------------------------------------------------------------------------------
def own_capabilities(task: Task) -> set[str]:
    caps: set[str] = set()
    plan = task.gold_plan
    for j, step in enumerate(plan):
        svc = str(step["tool"]).split("__", 1)[0]
        for bind in (step.get("binds") or {}).values():
            k = bind.get("step")
            if isinstance(k, int) and 0 <= k < j:
                caps.add("sequential-dependency")
                if str(plan[k]["tool"]).split("__", 1)[0] != svc:
                    caps.add("cross-service")
            if bind.get("rule") == "threshold":
                caps.add("threshold")
        if step.get("select"):
            caps.add("selection-rule")
    kinds = {c.get("kind") for c in task.rubric}
    if kinds & {"record_unchanged", "collection_untouched"}:
        caps.add("guard")
    if "answer_contains" in kinds or task.answer:
        caps.add("answer")
    if task.house_rules:
        caps.add("house-rule")
    return caps


def rule_count(task: Task) -> int:
    plan = task.gold_plan
    selects = sum(1 for s in plan if s.get("select"))
    thresholds = sum(
        1 for s in plan for b in (s.get("binds") or {}).values() if b.get("rule") == "threshold"
    )
    guards = sum(
        1 for c in task.rubric if c.get("kind") in ("record_unchanged", "collection_untouched")
    )
    return selects + thresholds + guards + len(task.house_rules)


def shape(task: Task, ctx: Ctx) -> dict[str, Any]:
    words = task.instruction.split()
    template = _QUOTED.sub("Q", task.instruction)
    template = re.sub(r"\d+(?:\.\d+)?", "N", template)
    template = ctx.noun_re.sub("X", template)
    template = " ".join(template.split())
    caps = own_capabilities(task)
    declared = set(task.capabilities)
    return {
        "services": len(task.services),
        "steps": len(task.gold_plan),
        "rules": rule_count(task),
        "words": len(words),
        "caps": sorted(caps),
        "cap_mismatch": sorted((caps - {"house-rule"}) ^ declared),
        "motif": task.motif or "",
        "opening": " ".join(w.lower().strip(",.") for w in words[:3]),
        "template": template,
        "stored_mutation": normalize_mutation(task.mutation)["by_kind"] if task.mutation else {},
    }


# ---------------------------------------------------------------------------------------
# Loading tasks
# ---------------------------------------------------------------------------------------

_ENV: ComposeEnv | None = None


def _shard(args: tuple[int, int, int, int]) -> tuple[list[dict], dict[str, int], float]:
    shard, shards, n, seed = args
    assert _ENV is not None
    t0 = time.perf_counter()
    tasks, rejections = compose_tasks([], n, env=_ENV, seed=seed, shard=shard, shards=shards)
    return [t.model_dump() for t in tasks], rejections, time.perf_counter() - t0


def compose(
    classes: Any, nodes: Any, n: int, workers: int, seed: int
) -> tuple[list[Task], dict[str, Any]]:
    global _ENV
    t0 = time.perf_counter()
    _ENV = make_env(classes, nodes, config=ComposeConfig())
    env_s = time.perf_counter() - t0
    per_shard = shard_size(n, workers)
    jobs = [(i, workers, per_shard, seed) for i in range(workers)]
    t0 = time.perf_counter()
    if workers == 1:
        results = [_shard(jobs[0])]
    else:
        with mp.get_context("fork").Pool(workers) as pool:
            results = pool.map(_shard, jobs)
    parts = [[Task.model_validate(t) for t in r[0]] for r in results]
    tasks, _ = merge_tasks(parts, n)
    wall = time.perf_counter() - t0
    return tasks, {
        "wall_s": wall,
        "env_s": env_s,
        "tasks_per_s": len(tasks) / wall if wall else 0.0,
    }


def from_warehouse(path: str, n: int) -> list[Task]:
    from warehouse import Warehouse

    sql = "SELECT * FROM tasks ORDER BY task_id"
    if n > 0:
        sql += f" LIMIT {int(n)}"
    from tasks.rollout import task_from_row  # the one reading of a tasks row

    return [task_from_row(row) for row in Warehouse(path).query(sql).to_pylist()]


def _audit_chunk(tasks: list[dict]) -> list[dict[str, Any]]:
    assert _CTX is not None
    return [audit_task(Task.model_validate(t), _CTX) for t in tasks]


def audit_all(tasks: Sequence[Task], ctx: Ctx, workers: int) -> tuple[list[dict[str, Any]], float]:
    global _CTX
    _CTX = ctx
    t0 = time.perf_counter()
    dumps = [t.model_dump() for t in tasks]
    if workers <= 1 or len(dumps) < 8:
        results = _audit_chunk(dumps)
    else:
        size = max(1, math.ceil(len(dumps) / (workers * 4)))
        chunks = [dumps[i : i + size] for i in range(0, len(dumps), size)]
        with mp.get_context("fork").Pool(workers) as pool:
            results = [r for part in pool.map(_audit_chunk, chunks) for r in part]
    return results, time.perf_counter() - t0


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------


@dataclass
class Row:
    key: str
    label: str
    num: int | None
    den: int | None
    note: str = ""
    examples: list[str] = field(default_factory=list)
    value: str | None = None  # a figure that is not a share (means, rates)

    def share(self) -> str:
        if self.value is not None:
            return self.value
        if self.num is None or not self.den:
            return "n/a"
        return f"{self.num / self.den:.1%}"

    def counts(self) -> str:
        if self.num is None or self.den is None:
            return ""
        return f"{self.num}/{self.den}"


def figures(
    tasks: Sequence[Task], results: Sequence[dict[str, Any]], timing: dict[str, Any]
) -> list[Row]:
    n = len(results)
    rep = [r for r in results if r.get("replayable")]
    rows: list[Row] = []

    def ex(items: Iterable[tuple[str, str]]) -> list[str]:
        return [f"{tid}: {text}" for tid, text in items]

    # 0. sanity of the audit itself
    rows.append(
        Row(
            "0a",
            "tasks replayed (services loadable)",
            len(rep),
            n,
            examples=ex(
                (r["task_id"], r.get("load_error", "services missing"))
                for r in results
                if not r.get("replayable")
            ),
        )
    )
    rows.append(
        Row(
            "0b",
            "gold plan fails its own rubric on replay",
            sum(1 for r in rep if not r["gold_passes"]),
            len(rep),
            f"lazy views judge differently on {sum(1 for r in rep if r['view_disagrees'])}",
            examples=ex((r["task_id"], "gold fails") for r in rep if not r["gold_passes"]),
        )
    )
    nb = sum(len(r["bind_mismatch"]) for r in rep)
    rows.append(
        Row(
            "0c",
            "tasks whose binds do not reproduce the gold argument",
            sum(1 for r in rep if r["bind_mismatch"]),
            len(rep),
            f"{nb} binds",
            ex((r["task_id"], m) for r in rep for m in r["bind_mismatch"]),
        )
    )

    # 1
    people = [r for r in results if r["identity"]["multi_role"]]
    rows.append(
        Row(
            "1",
            "single identity: >=2 roles, one person",
            sum(1 for r in people if r["identity"]["single"]),
            n,
            "of tasks with >=2 person roles: "
            + _pct(sum(1 for r in people if r["identity"]["single"]), len(people)),
            ex((r["task_id"], r["identity"]["example"]) for r in people if r["identity"]["single"]),
        )
    )
    rows.append(
        Row(
            "1b",
            "two roles of one call are one person",
            sum(1 for r in results if r["identity"]["same_call"]),
            n,
            f"{sum(len(r['identity']['same_call']) for r in results)} calls",
            ex((r["task_id"], c) for r in results for c in r["identity"]["same_call"]),
        )
    )

    far = [r for r in results if r["identity"]["far"]]
    rows.append(
        Row(
            "1d",
            "roles given to people off the request's records (share of role binds)",
            sum(len(r["identity"]["far"]) for r in results),
            sum(r["identity"]["role_binds"] for r in results),
            f"tasks with >=1: {_pct(len(far), n)}",
            ex((r["task_id"], e) for r in far for e in r["identity"]["far"]),
        )
    )

    same_rec = [r for r in rep if r["written"]["same_roles"]]
    rows.append(
        Row(
            "1c",
            "two roles of one written record are one person",
            len(same_rec),
            len(rep),
            f"{sum(len(r['written']['same_roles']) for r in rep)} records",
            ex((r["task_id"], e) for r in same_rec for e in r["written"]["same_roles"]),
        )
    )

    # 2
    reads = sum(r["purpose"]["reads"] for r in results)
    direct = sum(len(r["purpose"]["direct"]) for r in results)
    rows.append(
        Row(
            "2",
            "purposeless reads (share of reads)",
            direct,
            reads,
            f"tasks with >=1: {_pct(sum(1 for r in results if r['purpose']['direct']), n)}",
            ex((r["task_id"], s) for r in results for s in r["purpose"]["direct"]),
        )
    )
    trans = sum(len(r["purpose"]["transitive"]) for r in results)
    rows.append(
        Row(
            "2b",
            "reads leading to no write/answer/rule (transitive)",
            trans,
            reads,
            f"tasks with >=1: {_pct(sum(1 for r in results if r['purpose']['transitive']), n)}",
            ex(
                (r["task_id"], s)
                for r in results
                for s in r["purpose"]["transitive"]
                if s not in r["purpose"]["direct"]
            ),
        )
    )
    fb = sum(r["purpose"]["answer_fallback"] for r in results)
    if fb:
        rows[-2].note += f"; {fb} answer rows without 'step' (matched by value)"

    # 3
    sel = [r["selection"] for r in rep]
    nrules = sum(s["rules"] for s in sel)
    unchk = sum(len(s["uncheckable"]) for s in sel)
    sel_tasks = [r for r in rep if r["selection"]["rules"]]
    rows.append(
        Row(
            "3",
            "selection rules no criterion checks (share of rules)",
            unchk,
            nrules,
            "selection-rule tasks with >=1: "
            + _pct(sum(1 for r in sel_tasks if r["selection"]["uncheckable"]), len(sel_tasks))
            + "; "
            f"of which nothing reads the choice: {sum(s['unread'] for s in sel)}; "
            f"not assessed (no decoy to swap): {sum(s['no_decoys'] for s in sel)}; "
            f"decoys from the output (no decoys field): {sum(s['siblings'] for s in sel)}",
            ex((r["task_id"], u) for r in rep for u in r["selection"]["uncheckable"]),
        )
    )

    # 4
    ph = [r for r in rep if r["placeholders"]["found"]]
    rows.append(
        Row(
            "4",
            "tasks stating a placeholder literal",
            len(ph),
            len(rep),
            "",
            ex((r["task_id"], ", ".join(r["placeholders"]["found"][:3])) for r in ph),
        )
    )
    ostr = sum(r["placeholders"]["out_strings"] for r in rep)
    obad = sum(r["placeholders"]["out_bad"] for r in rep)
    rows.append(
        Row(
            "4b",
            "placeholder strings among gold tool-output strings",
            obad,
            ostr,
            "",
            ex((r["task_id"], e) for r in rep for e in r["placeholders"]["out_examples"]),
        )
    )

    # 5
    st = [r["stated"] for r in rep]
    rows.append(
        Row(
            "5",
            "tasks with >=1 unverifiable stated literal",
            sum(1 for s in st if s["unverified"]),
            len(rep),
            f"arguments: {sum(len(s['unverified']) for s in st)}/"
            f"{sum(s['args'] for s in st)} unverifiable "
            f"({sum(s['in_reads'] for s in st)} of them filters of reads), "
            f"{sum(s['inconclusive'] for s in st)} inconclusive (every alternative refused "
            f"or read the same), {sum(s['same_read'] for s in st)} alternatives read the same",
            ex((r["task_id"], u) for r in rep for u in r["stated"]["unverified"]),
        )
    )

    # 6
    te = [r for r in rep if r["terminal"]["found"]]
    pairs = Counter(p for r in rep for p in r["terminal"]["pairs"])
    rows.append(
        Row(
            "6",
            "tasks editing a record in a terminal state",
            len(te),
            len(rep),
            f"{sum(len(r['terminal']['found']) for r in rep)}/"
            f"{sum(r['terminal']['edits'] for r in rep)} edits; "
            f"top: {', '.join(f'{k} x{v}' for k, v in pairs.most_common(3))}",
            ex((r["task_id"], f) for r in te for f in r["terminal"]["found"]),
        )
    )

    # 6b
    sb = [r for r in rep if r.get("story", {}).get("found")]
    rows.append(
        Row(
            "6b",
            "tasks breaking a record's story (edit of its own creation, step after an action)",
            len(sb),
            len(rep),
            f"{sum(len(r['story']['found']) for r in sb)}/"
            f"{sum(r.get('story', {}).get('writes', 0) for r in rep)} writes",
            ex((r["task_id"], f) for r in sb for f in r["story"]["found"]),
        )
    )

    # 7
    th = sum(r["thresholds"]["thresholds"] for r in rep)
    un = sum(len(r["thresholds"]["found"]) for r in rep)
    rows.append(
        Row(
            "7",
            "thresholds across unrelated records (share of thresholds)",
            un,
            th,
            f"tasks with >=1: {sum(1 for r in rep if r['thresholds']['found'])}",
            ex((r["task_id"], f) for r in rep for f in r["thresholds"]["found"]),
        )
    )

    # 8
    wi = [r for r in rep if r["written"]["inverted"]]
    rows.append(
        Row(
            "8",
            "tasks whose plan writes an inverted range",
            len(wi),
            len(rep),
            "",
            ex((r["task_id"], w) for r in wi for w in r["written"]["inverted"]),
        )
    )
    sp = sum(r["seeded"]["pairs"] for r in results)
    si = sum(r["seeded"]["inverted"] for r in results)
    rows.append(
        Row(
            "8b",
            "seeded range pairs inverted",
            si,
            sp,
            f"tasks with >=1: {_pct(sum(1 for r in results if r['seeded']['inverted']), n)}",
            ex((r["task_id"], e) for r in results for e in r["seeded"]["examples"]),
        )
    )

    # 9
    fi = [r for r in rep if r["written"]["future_ids"]]
    rows.append(
        Row(
            "9",
            "tasks whose initial state holds an id the plan creates",
            len(fi),
            len(rep),
            f"{sum(r['written']['created'] for r in rep)} created ids checked",
            ex((r["task_id"], f) for r in fi for f in r["written"]["future_ids"]),
        )
    )

    # 10
    ne_w = [r for r in rep if r["written"]["name_email"]]
    rows.append(
        Row(
            "10",
            "name disagrees with its e-mail (calls, written records)",
            len(ne_w),
            len(rep),
            f"{sum(len(r['written']['name_email']) for r in rep)} pairs",
            ex((r["task_id"], e) for r in ne_w for e in r["written"]["name_email"]),
        )
    )
    ne_s = [r for r in results if r["seeded"]["name_email"]]
    rows.append(
        Row(
            "10b",
            "name disagrees with its e-mail (seeded records)",
            len(ne_s),
            n,
            f"{sum(len(r['seeded']['name_email']) for r in results)} records",
            ex((r["task_id"], e) for r in ne_s for e in r["seeded"]["name_email"]),
        )
    )

    for key, label, what in (
        ("10c", "a record tied to a person's record names another outside person (seeded)", "tied"),
        ("10d", "a seeded record names one person in two roles", "two_roles"),
    ):
        hit = [r for r in results if r["seeded"][what]]
        rows.append(
            Row(
                key,
                label,
                len(hit),
                n,
                f"{sum(len(r['seeded'][what]) for r in results)} records",
                ex((r["task_id"], e) for r in hit for e in r["seeded"][what]),
            )
        )

    # 11
    muts = [r["mutation"] for r in rep if isinstance(r.get("mutation"), dict)]
    if not muts:
        rows.append(
            Row(
                "11",
                "mutation catch rate (mutants.task_mutation_report)",
                None,
                None,
                "n/a: library.compose.mutants absent",
            )
        )
    else:
        errs = [m["error"] for m in muts if "error" in m]
        agg: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for m in muts:
            for k, (c, t) in m.get("by_kind", {}).items():
                agg[k][0] += c
                agg[k][1] += t
        caught = sum(v[0] for v in agg.values())
        total = sum(v[1] for v in agg.values())
        rows.append(
            Row(
                "11",
                "mutation catch rate (mutants.task_mutation_report)",
                caught,
                total,
                f"{len(muts) - len(errs)} tasks; {len(errs)} errors"
                + (f" ({errs[0]})" if errs else ""),
            )
        )
        for k, (c, t) in sorted(agg.items()):
            rows.append(Row("11." + k, f"  caught: {k}", c, t))
    stored: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        for k, (c, t) in r["shape"]["stored_mutation"].items():
            stored[k][0] += c
            stored[k][1] += t
    if stored:
        rows.append(
            Row(
                "11s",
                "catch rate the compose gate stored on tasks",
                sum(v[0] for v in stored.values()),
                sum(v[1] for v in stored.values()),
                "; ".join(f"{k} {c}/{t}" for k, (c, t) in sorted(stored.items())),
            )
        )

    # 12
    sh = [r["shape"] for r in results]
    rows.append(
        Row("12a", "tasks touching 3+ services", sum(1 for s in sh if s["services"] >= 3), n)
    )
    caps = Counter(c for s in sh for c in s["caps"])
    for cap in (*CAPABILITIES, "house-rule"):
        rows.append(Row("12b", f"capability: {cap}", caps.get(cap, 0), n))
    mism = [
        (r["task_id"], r["shape"]["cap_mismatch"]) for r in results if r["shape"]["cap_mismatch"]
    ]
    rows.append(
        Row(
            "12c",
            "declared capabilities differ from the plan's",
            len(mism),
            n,
            "",
            ex((tid, f"differs in {m}") for tid, m in mism),
        )
    )
    five = sum(1 for s in sh if s["services"] >= 5)
    six = sum(1 for s in sh if s["rules"] >= 6)
    fifteen = sum(1 for s in sh if s["steps"] >= 15)
    band = sum(1 for s in sh if s["services"] >= 5 and s["rules"] >= 6 and s["steps"] >= 15)
    rows.append(Row("12d", "hard band: >=5 services", five, n))
    rows.append(Row("12d", "hard band: >=6 rules", six, n))
    rows.append(Row("12d", "hard band: >=15 steps", fifteen, n))
    rows.append(Row("12d", "hard band: all three", band, n))
    motifs = Counter(s["motif"] for s in sh if s["motif"])
    rows.append(
        Row(
            "12e",
            "tasks following a motif",
            sum(motifs.values()),
            n,
            ", ".join(f"{k} {v}" for k, v in motifs.most_common(8)),
        )
    )
    rows.append(
        Row(
            "12f",
            "distinct openings (first 3 words) per task",
            len({s["opening"] for s in sh}),
            n,
            "top: "
            + ", ".join(f"'{k}' x{v}" for k, v in Counter(s["opening"] for s in sh).most_common(3)),
        )
    )
    rows.append(
        Row(
            "12g",
            "distinct templates (values, nouns masked) per task",
            len({s["template"] for s in sh}),
            n,
        )
    )
    for key, label in (
        ("words", "instruction words"),
        ("services", "services"),
        ("rules", "rules"),
        ("steps", "steps"),
    ):
        vals = [s[key] for s in sh]
        mean = sum(vals) / max(1, len(vals))
        rows.append(
            Row(
                "12h",
                f"mean {label}",
                None,
                None,
                f"max {max(vals, default=0)}",
                value=f"{mean:.1f}",
            )
        )
    if timing.get("wall_s") is not None:
        rows.append(
            Row(
                "12i",
                "composition wall time",
                None,
                None,
                f"environment {timing['env_s']:.1f} s extra",
                value=f"{timing['wall_s']:.1f} s",
            )
        )
        rows.append(
            Row(
                "12i",
                "composition tasks/s",
                None,
                None,
                f"{len(tasks)} tasks",
                value=f"{timing['tasks_per_s']:.1f}",
            )
        )
    else:
        rows.append(
            Row(
                "12i",
                "composition wall time",
                None,
                None,
                "tasks read from a warehouse",
                value="n/a",
            )
        )
    rows.append(
        Row(
            "12j",
            "audit wall time",
            None,
            None,
            f"{n / timing['audit_s']:.1f} tasks/s" if timing.get("audit_s") else "",
            value=f"{timing.get('audit_s', 0.0):.1f} s",
        )
    )
    return rows


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.1%}" if b else f"{a}/0"


def print_table(rows: Sequence[Row], examples: int, title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=200)
    table = Table(title=title, show_lines=False)
    table.add_column("#", style="bold")
    table.add_column("figure")
    table.add_column("share", justify="right")
    table.add_column("count", justify="right")
    table.add_column("notes", overflow="fold")
    for row in rows:
        table.add_row(row.key, row.label, row.share(), row.counts(), row.note)
    console.print(table)
    if examples > 0:
        for row in rows:
            if row.examples:
                console.print(f"[bold]{row.key} {row.label}[/bold]")
                for e in row.examples[:examples]:
                    console.print(f"  - {e}", markup=False, highlight=False)


def main(argv: Sequence[str] | None = None) -> list[Task]:
    """Run the audit and print the table; the tasks audited (for tests)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--n", type=int, default=1000, help="tasks to compose (warehouse: at most; 0: all)"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes (compose, audit)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=0, help="examples per figure")
    parser.add_argument(
        "--from-warehouse", default=None, metavar="PATH", help="audit a warehouse's tasks table"
    )
    parser.add_argument(
        "--specs",
        action="append",
        default=None,
        metavar="PATH",
        help="compose over services compiled from these spec files or folders (a user's "
        "specs, e.g. ../shared/specs) instead of the bundled corpus; repeatable",
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    lib = spec_library(args.specs) if args.specs else bundled_library()
    classes = (
        {c.name: c for c in lib.classes}
        if not isinstance(lib.classes, Mapping)
        else dict(lib.classes)
    )
    lib_s = time.perf_counter() - t0
    timing: dict[str, Any] = {}
    if args.from_warehouse:
        tasks = from_warehouse(args.from_warehouse, args.n)
        source = f"warehouse {args.from_warehouse}"
    else:
        tasks, timing = compose(lib.classes, lib.nodes, args.n, max(1, args.workers), args.seed)
        corpus = ", ".join(args.specs) if args.specs else "the bundled corpus"
        source = f"composed in-process over {corpus} (seed {args.seed})"
    ctx = build_ctx(classes)
    results, audit_s = audit_all(tasks, ctx, max(1, args.workers))
    timing["audit_s"] = audit_s
    rows = figures(tasks, results, timing)
    print_table(
        rows,
        args.examples,
        f"Task validity audit: {len(tasks)} tasks, {source}; library loaded in {lib_s:.1f} s",
    )
    return tasks


if __name__ == "__main__":
    main()
