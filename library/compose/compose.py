"""``compose_tasks``: walks -> gold plans -> rubrics -> verified, deduplicated tasks.

Pure functions over Service classes and JSON-able data, so a sandbox worker can run them.
Candidates are numbered; candidate ``j`` draws everything from ``Random(f"{seed}:{j}")``,
so a run is reproducible and splits into shards (``shard`` of ``shards`` takes every
``shards``-th candidate) that ``merge_tasks`` joins.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import math
import random
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import orjson

from library.compose.catalog import title, words
from library.compose.coherence import NOT_STARTED, status_of
from library.compose.config import ComposeConfig
from library.compose.context import Entity, Fact, field_words
from library.compose.derive import answer_criteria, guard_criteria, state_criteria
from library.compose.domains import service_domain, task_domain
from library.compose.env import ComposeEnv
from library.compose.inject import put
from library.compose.motifs import BY_NAME, MONEY_WORK, STAFF_WORKFLOWS, fits, name_motif
from library.compose.mutants import mutation_report
from library.compose.openings import opening
from library.compose.plan import Step, user_knowable
from library.compose.prune import purposeful, renumber
from library.compose.realism import answer_purpose, chosen_by, is_number, is_time
from library.compose.render import render_instruction
from library.compose.roles import PERSON_KEYS, is_staff_role, role_of
from library.compose.task import (
    CAPABILITIES,
    Task,
    band,
    pick_split,
    plan_shape,
    split_key,
    state_digest,
    task_id,
)
from library.compose.verify import GOLD_FAILS, REDUNDANT_WRITE, canonical, run_plan, verify
from library.compose.views import DumpCache, StateView
from library.compose.walk import Walker, single_identity
from library.compose.walk_state import Reject
from library.graph import ToolNode, nodes_from_service
from library.graph.nodes import is_verified
from library.rubric import dump_criteria
from library.rubric.criteria import OtherServicesUnchanged, answer_omits, only_requested_changes
from library.rubric.values import normalize, says, timestamp
from library.runtime import Service, Snapshot, World
from library.runtime.service import State

NEAR_DUPLICATE = "near_duplicate"
UNSTABLE = "unstable_gold"
LITERAL_MISSING = "literal_missing"
ID_LEAKED = "id_in_instruction"
NAME_TAKEN = "name_taken"
FUTURE_ID = "future_id_seeded"
SINGLE_IDENTITY = "single_identity"
WRONG_SUBJECT = "workflow_not_for_this_person"
RULE_UNCHECKABLE = "rule_not_checkable"
MUTANTS_ESCAPE = "mutants_escape"
SERVICE_CAP = "service_cap"
SERVICE_SET_CAP = "service_set_cap"
DOMAIN_CAP = "domain_cap"
MOTIF_CAP = "motif_cap"
NONE_REQUIRED = "touches_none_required"
_ANSWER_SKIP = frozenset({"id", "created_at", "updated_at", "description", "body"})


class ComposeResult(NamedTuple):
    tasks: list[Task]
    rejections: dict[str, int]  # reason -> candidates rejected for it


def make_env(
    service_classes: Sequence[type[Service]],
    nodes: Iterable[ToolNode] | None = None,
    verified: Mapping[str, Any] | Collection[str] | None = None,
    config: ComposeConfig | None = None,
) -> ComposeEnv:
    """The environment for ``compose_tasks`` (build once, reuse across calls). Without
    ``nodes`` the graph comes from the classes' own schemas; ``verified`` keeps only the
    tools that passed conformance (``{service: {tool: bool}}`` or qualified names)."""
    if nodes is None:
        nodes = [n for c in service_classes for n in nodes_from_service(c, verified)]
    elif verified is not None:
        nodes = [n for n in nodes if is_verified(n.service, n.name, verified)]
    return ComposeEnv(service_classes, list(nodes), config)


def compose_tasks(
    service_classes: Sequence[type[Service]],
    n: int,
    *,
    nodes: Iterable[ToolNode] | None = None,
    verified: Mapping[str, Any] | Collection[str] | None = None,
    config: ComposeConfig | None = None,
    seed: int = 0,
    shard: int = 0,
    shards: int = 1,
    max_candidates: int | None = None,
    env: ComposeEnv | None = None,
    require_any: Collection[str] | None = None,
) -> ComposeResult:
    """Up to ``n`` verified tasks and the count of rejected candidates per reason.

    ``service_classes``/``nodes``/``verified``/``config`` build the environment (see
    ``make_env``) unless ``env`` is given; ``shard``/``shards`` split the candidate stream
    for parallel callers (join with ``merge_tasks``); ``max_candidates`` bounds the work.
    ``require_any``: only tasks touching one of these services count (the nightly's new
    ones): the others are rejected as they come, so the shard stops once it has ``n``.
    """
    env = env or make_env(service_classes, nodes, verified, config)
    limit = max_candidates if max_candidates is not None else 40 * n + 200
    rejections: Counter[str] = Counter()
    stream = composed(env, seed, shard, shards, limit, require_any, rejections)
    with few_collections():
        tasks = list(itertools.islice(stream, n))
    return ComposeResult(tasks, dict(sorted(rejections.items())))


@contextlib.contextmanager
def few_collections() -> Iterator[None]:
    """Composition makes millions of short-lived objects and few cycles: at the default
    thresholds the cyclic collector takes ~5% of a run scanning them (200 tasks: 16.1 CPU-s
    with this, 16.9 without, the same tasks), and the environment built before is scanned
    again each time. Frozen out and collected less often while composing; both restored."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, 50, 1_000)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def composed(
    env: ComposeEnv,
    seed: int = 0,
    shard: int = 0,
    shards: int = 1,
    max_candidates: int = 10_000,
    require_any: Collection[str] | None = None,
    rejections: Counter[str] | None = None,
) -> Iterator[Task]:
    """The verified tasks of ``compose_tasks`` one by one, as they are found (its first
    ``n`` are its result): a caller looking for one kind of task stops composing once it
    has it. ``rejections`` (if given) counts the rejected candidates per reason."""
    required = frozenset(require_any or ())
    cache = DumpCache()
    balance = Balance(env)
    for j in range(shard, shard + shards * max_candidates, shards):
        out = candidate(env, seed, j, cache, balance, shards, required)
        if isinstance(out, str):
            if rejections is not None:
                rejections[out] += 1
            balance.miss()
            continue
        balance.completed()
        balance.shapes[out.shape()] += 1
        balance.plans[tuple(s["tool"] for s in out.gold_plan)] += 1
        balance.add(out)
        yield out


class Balance:
    """How many of a run's tasks each service and each domain is in, against the caps
    (``ComposeConfig.max_service_share``/``max_domain_share`` of the tasks so far, after the
    first ``WARM_UP``): one service (a meetings tool that fits every workflow) or one
    domain does not fill the set, at any point of the run (so a shard's first tasks, which
    a merge keeps, are balanced too). Walks are steered away from what is full: no capped
    service is added or opened in, no workflow drawn whose work lies only in full domains;
    what still ends over a cap is rejected before the costly checks. A library too narrow
    for the caps would starve the run: after ``balance_patience`` candidates in a row
    without a task the caps are lifted for the next ``RELIEF`` tasks (twice as many each
    time the run starves again, so a library that can never meet them starves a few times,
    and one narrow stretch no longer leaves the rest of a long run uncapped: one service in
    56% of 150 tasks); while they are lifted, after as many more, one more task per plan shape
    is allowed (up to ``max_shape_repeats``: a small library, such as a user's few specs,
    offers few shapes, and gives several tasks of each on other records, as tau-bench's
    many refunds). No one set of services is more than ``SET_SHARE`` of the tasks either
    (a user's specs where one pair of tools does most of the work gave 45% of a run to that
    pair, in two workflows): a team uses its tools together in many combinations. And a
    workflow whose walks never become tasks (``DEAD_AFTER`` drawn, none kept: its records
    can't be opened on, its work is out of reach) is drawn ``DEAD_ODDS`` as often, so the
    walks go to the work the library can do."""

    WARM_UP = 20
    RELIEF = 10
    # One workflow (offboarding, whose hand-overs walk easily) fills no more than this of a
    # run: it carried 35% of 1,000 tasks and none of their thresholds.
    MOTIF_SHARE = 0.3
    LEARN, GOOD_OPENING = 8, 0.2
    SET_SHARE = 0.25
    DEAD_AFTER, DEAD_ODDS = 50, 0.1

    def __init__(self, env: ComposeEnv) -> None:
        cfg = env.config
        self.env = env
        self.service_share = cfg.max_service_share
        self.domain_share = cfg.max_domain_share
        self.patience = cfg.balance_patience
        self.shape_cap = cfg.max_per_shape  # tasks per plan shape (near-duplicates)
        self.shapes: Counter[str] = Counter()  # the run's tasks per plan shape
        self.plans: Counter[tuple[str, ...]] = Counter()  # ... per tool sequence
        self.max_shape_cap = max(cfg.max_per_shape, cfg.max_shape_repeats)
        self.misses = 0  # candidates since the last task (or since the last relief)
        self.lifted = False
        self.lifts = 0  # how often the run starved under the caps
        self.relief = 0  # tasks left until the caps are back
        self.total = 0
        self.services: Counter[str] = Counter()
        self.sets: Counter[frozenset[str]] = Counter()  # tasks per set of services
        self.domains: Counter[str] = Counter()
        self.avoid: frozenset[str] = frozenset()  # services at their cap
        self.avoid_domains: frozenset[str] = frozenset()  # domains at theirs
        # Per workflow: walks drawn for it and tasks they gave. A starving run draws the
        # workflows that complete more often (``workflow_odds``).
        self.drawn: Counter[str] = Counter()
        self.done: Counter[str] = Counter()
        self.last_workflow = ""
        # (workflow, opening tool) -> [walks, walks that did the workflow's core work]
        self.openings: dict[tuple[str, str], list[int]] = {}
        # Per floor (``ComposeConfig.floors``): tasks of each workflow that carry it.
        self.floors = cfg.floors
        self.floor_odds = cfg.floor_odds
        self.carried: dict[str, Counter[str]] = {name: Counter() for name, _ in cfg.floors}
        self.tasks_of: Counter[str] = Counter()

    def opened(self, walker: Walker) -> None:
        """Count the walk's opening for its workflow, and whether it got to the work."""
        if walker.motif is None or not walker.steps:
            return
        seen = self.openings.setdefault((walker.motif.name, walker.steps[0].tool.qualified), [0, 0])
        seen[0] += 1
        seen[1] += walker._did_core_work()

    def opening_odds(self, workflow: str, tool: str) -> float:
        """How likely a walk for ``workflow`` is to try opening on ``tool``: walks that open
        where they never get to the work are dropped as ``no_workflow`` (half of all
        candidates; some openings never lead to it, such as an offboarding opened on a
        database's backups), so after ``LEARN`` walks an opening is tried in proportion to
        how often it led to the work, up to always at ``GOOD_OPENING``."""
        seen = self.openings.get((workflow, tool))
        if seen is None or seen[0] < self.LEARN:
            return 1.0
        return min(1.0, (seen[1] + 0.5) / (seen[0] * self.GOOD_OPENING))

    def drew(self, workflow: str) -> None:
        self.drawn[workflow] += 1
        self.last_workflow = workflow

    def completed(self) -> None:
        self.done[self.last_workflow] += 1

    def workflow_odds(self) -> dict[str, float] | None:
        """How much more or less often to draw each workflow: while the run starves (the
        caps lifted), by the share of its walks that became tasks so far (a user's specs
        may carry out only one of the workflows a library seems to offer); else None."""
        odds = (
            {w: (self.done[w] + 0.5) / (k + 1) for w, k in self.drawn.items()}
            if self.lifted
            else {}
        )
        for name, floor in self.floors:
            carried = self.carried[name]
            if self.total < self.WARM_UP or sum(carried.values()) >= floor * self.total:
                continue
            share = max(sum(carried.values()) / self.total, 0.01)
            for w in {*self.drawn, *self.tasks_of}:
                rate = (carried[w] + share) / (self.tasks_of[w] + 1)
                lean = min(max(rate / share, 1 / self.floor_odds), self.floor_odds)
                odds[w] = odds.get(w, 1.0) * lean
        dead = {w for w, k in self.drawn.items() if k >= self.DEAD_AFTER and not self.done[w]}
        if dead:
            # below the least favoured workflow that gives tasks (the floors lean away from
            # those that carry none of theirs, and know nothing of one that gives none)
            live = [odds.get(w, 1.0) for w in {*self.drawn, *self.tasks_of} - dead]
            for w in dead:
                odds[w] = self.DEAD_ODDS * min(live, default=1.0)
        return odds or None

    def _full(self, count: int, share: float) -> bool:
        """Whether one more task with something already in ``count`` tasks exceeds ``share``."""
        return self.total >= self.WARM_UP and count + 1 > share * (self.total + 1)

    def over(self, services: Sequence[str], domain: str, motif: str = "") -> str | None:
        """The cap a task over these services in this domain would exceed, or None."""
        if self._full(self.sets[frozenset(services)], self.set_share()):
            return SERVICE_SET_CAP  # (kept while the other caps are lifted)
        if self.lifted:
            return None
        if motif and self._full(self.tasks_of[motif], self.MOTIF_SHARE):
            return MOTIF_CAP
        if any(self._full(self.services[s], self.service_share) for s in services):
            return SERVICE_CAP
        if self._full(self.domains[domain], self.domain_share):
            return DOMAIN_CAP
        return None

    def set_share(self) -> float:
        """The most of the run's tasks one set of services may have: ``SET_SHARE``, or more
        where the run has found few sets so far (half as much again as an even share of
        them: a user's two services make all their tasks together)."""
        return max(self.SET_SHARE, 1.5 / max(1, len(self.sets)))

    def miss(self) -> None:
        self.misses += 1
        if self.misses < self.patience:
            return
        if not self.lifted:
            self.lifted = True
            self.lifts += 1
            self.relief = self.RELIEF * 2 ** (self.lifts - 1)
            self.avoid = self.avoid_domains = frozenset()
            self.misses = 0
        elif self.shape_cap < self.max_shape_cap:
            self.shape_cap += 1
            self.misses = 0

    def repeats(self, shape: str) -> bool:
        """Whether the run has as many tasks of this plan shape as it takes."""
        return self.shapes[shape] >= self.shape_cap

    def has_plan(self, tools: tuple[str, ...]) -> bool:
        """Whether the run has as many tasks calling these tools in this order as a plan
        shape takes (what a walk's plan would most likely be a near-duplicate of)."""
        return self.plans[tools] >= self.shape_cap

    def add(self, task: Task) -> None:
        self.misses = 0
        self.total += 1
        self.tasks_of[task.motif] += 1
        for name, _ in self.floors:
            if name in task.capabilities or (name == "hard" and task.difficulty == "hard"):
                self.carried[name][task.motif] += 1
        self.services.update(task.services)
        self.sets[frozenset(task.services)] += 1
        self.domains[task.domain] += 1
        if self.lifted:
            self.relief -= 1
            if self.relief > 0:
                return
            self.lifted = False  # the caps are back
        self.avoid = frozenset(
            s for s, k in self.services.items() if self._full(k, self.service_share)
        )
        self.avoid_domains = frozenset(
            d for d, k in self.domains.items() if self._full(k, self.domain_share)
        )


def shard_size(n: int, shards: int) -> int:
    """How many tasks each of ``shards`` shards composes for a merged set of ``n``: merging
    drops cross-shard near-duplicates (17% of what 2 shards make for 1,000 tasks); one
    shard has none to drop."""
    if shards <= 1:
        return n
    return math.ceil(n / shards * 1.25) + 2


def merge_tasks(
    parts: Sequence[Sequence[Task]], n: int, max_per_shape: int | None = None
) -> tuple[list[Task], int]:
    """Join shards round-robin (deterministic for a given shard count), dropping repeated
    ids and near-duplicates (a plan shape at most as often as one shard kept it, or
    ``max_per_shape``); (the first ``n``, how many were dropped)."""
    out: list[Task] = []
    seen: set[str] = set()
    shapes: Counter[str] = Counter()
    allowed: Counter[str] = Counter()
    for part in parts:
        for shape, k in Counter(t.shape() for t in part).items():
            allowed[shape] = max(allowed[shape], k if max_per_shape is None else max_per_shape)
    dropped = 0
    longest = max((len(p) for p in parts), default=0)
    for i in range(longest):
        for part in parts:
            if i >= len(part) or len(out) >= n:
                continue
            task = part[i]
            shape = task.shape()
            if task.task_id in seen or shapes[shape] >= allowed[shape]:
                dropped += 1
                continue
            seen.add(task.task_id)
            shapes[shape] += 1
            out.append(task)
    return out, dropped


def candidate(
    env: ComposeEnv,
    seed: int,
    j: int,
    cache: DumpCache | None = None,
    balance: Balance | None = None,
    shards: int = 1,
    required: frozenset[str] = frozenset(),
) -> Task | str:
    """Candidate ``j``: a verified task, or the reason it was rejected (``balance``: the
    run's counts so far, which steer the walk away from services and domains at a cap;
    ``required``: services one of which the task must touch, none if empty).
    Each shard (every ``shards``-th candidate) draws on every seeded world in turn: worlds
    differ in cost, and a shard held to some of them finishes well after the others."""
    cfg = env.config
    rng = random.Random(f"{seed}:{j}")
    world_seed = seed * 1009 + (j // shards + j % shards) % cfg.worlds
    world, base = env.world(world_seed)
    walker = Walker(env, world, base, rng)
    if balance is not None:
        walker.avoid, walker.avoid_domains = balance.avoid, balance.avoid_domains
        walker.workflow_odds = balance.workflow_odds()
        walker.taken = balance.has_plan
        walker.opening_odds = balance.opening_odds
    try:
        walker.walk()
    except Reject as exc:
        return exc.reason
    finally:
        if balance is not None:
            balance.drew(walker.motif.name if walker.motif is not None else "")
            balance.opened(walker)
    cache = cache or DumpCache()

    # The initial state: the seeded base plus everything the walk injected.
    world.restore(base)
    for injection in walker.injections:
        put(world, injection)
    initial = world.snapshot()
    full_plan = [s.to_dict() for s in walker.steps]
    gold = run_plan(world, full_plan)
    if canonical(gold) != canonical([s.envelope for s in walker.steps]):
        return UNSTABLE
    final = world.snapshot()
    diff = world.diff(initial, final)
    written = {(svc, coll) for svc, colls in diff.services.items() for coll in colls}
    literals_all = list(dict.fromkeys(t for s in walker.steps for t in s.literals))
    cfg = walker.cfg  # a walk aiming for the hard band has its own settings
    answers = _answer_facts(walker, diff, literals_all, rng, cfg.p_answer)

    # Purposeful plans: drop every read that feeds nothing, then renumber.
    keep = purposeful(walker.steps, [f.step for f, _ in answers])
    if answers and not _confusable(
        answers[0][0], _seen_values(walker, keep), _stated_values(walker)
    ):
        # What could be confused with the answer was only shown by pruned steps.
        answers = []
        keep = purposeful(walker.steps, [])
    new_index = renumber(walker.steps, keep)
    steps = [walker.steps[i] for i in keep]
    gold = [gold[i] for i in keep]
    services = list(dict.fromkeys(s.tool.service for s in steps))
    if len(services) < env.config.min_services:
        return "too_few_services"
    if required and not required & set(services):
        return NONE_REQUIRED  # before the costly checks
    if len(steps) < env.config.min_steps:
        return "too_short"
    if single_identity(env, steps):
        return SINGLE_IDENTITY
    if walker.motif is not None and not _fits_the_subject(env, steps, walker.motif.name):
        return WRONG_SUBJECT
    if not _rules_matter(steps, [f for f, _ in answers]):
        return RULE_UNCHECKABLE
    writes = [s.tool.service for s in steps if s.write]
    own = env.motif_domains(walker.motif) if walker.motif is not None else ()
    domain = task_domain(services, writes, own)
    motif_name = walker.motif.name if walker.motif is not None else ""
    over = balance.over(services, domain, motif_name) if balance is not None else None
    if over is not None:
        return over  # before the costly checks: the run has enough of these
    plan = [s.to_dict() for s in steps]
    literals = list(dict.fromkeys(t for s in steps for t in s.literals))

    # A rule's decoys where its step stays; a distractor only where the plan writes its
    # collection (a guarded record): one no step can change holds nothing to check.
    decoys = [
        (d, why)
        for d, why in walker.decoys
        if (d.step in new_index if why == "matched" else (d.service, d.collection) in written)
    ]
    guarded = [d for d, _ in decoys if (d.service, d.collection) in written]
    guards = [
        {"scope": "others", "service": title(svc), "noun": noun}
        for svc, noun in dict.fromkeys((d.service, d.label) for d in guarded)
    ]
    untouched = _untouched(
        walker, steps, written, rng, cfg.p_collection_guard, cfg.max_guarded_collections
    )
    capabilities = _capabilities(plan, steps, bool(guarded or untouched), bool(answers))
    if balance is not None and balance.repeats(plan_shape([s["tool"] for s in plan], capabilities)):
        return NEAR_DUPLICATE  # before the costly checks: a near-duplicate is never kept
    for svc, coll in untouched:
        info = env.catalog.collection(svc, coll)
        nouns = info.nouns if info else words(coll)
        guards.append({"scope": "collection", "service": title(svc), "nouns": nouns})

    labels = {(e.service, e.collection, e.id): e.the for e in walker.entities}
    answer_rows = [
        {
            "label": f"{field_words(f.field)} of {f.entity.the}",
            "value": f.value,
            "step": new_index[f.step],
            "path": f.path,
            "excludes": excludes,
        }
        for f, excludes in answers
    ]
    initial_view = StateView(initial, services, cache)
    final_view = StateView(final, services, cache)
    criteria = (
        state_criteria(diff, steps, labels, env.identifier)
        + guard_criteria(guarded, untouched)
        + only_requested_changes(initial_view, final_view, services)
        + answer_criteria([f for f, _ in answers])
    )
    answer_text = gold_reply(steps, answer_rows)
    criteria += answer_omits(answer_rows, answer_text)
    # Exported through the record cache (the seeded records are dumped once per world):
    # the same JSON and hashes as ``model_dump``/``hash_state``, a fresh copy for the task.
    initial_states = {
        s: orjson.loads(orjson.dumps(cache.state_json(initial.states[s]))) for s in services
    }
    final_hashes = {s: _state_digest(cache, final.states[s]) for s in services}
    if _future_ids(gold, steps, initial_states):
        return FUTURE_ID
    if _name_taken(steps, initial_states):
        return NAME_TAKEN

    def view(snap: Snapshot) -> StateView:
        return StateView(snap, services, cache)

    def replay() -> World:
        fresh = env.fresh_world(services, world_seed)
        fresh.load_states(initial_states)
        return fresh

    reason = verify(
        criteria, plan, answer_text, world, initial, view, replay, gold, final_hashes,
        drop_writes=False, gold_run=False,
    )  # fmt: skip
    if reason is not None:
        return reason

    decoy_rows = [
        {
            "step": new_index.get(d.step, d.step) if why == "matched" else None,
            "service": d.service,
            "collection": d.collection,
            "id": d.id,
            "path": d.path,
            "why": why,
        }
        for d, why in decoys
    ]
    report = mutation_report(
        criteria,
        plan,
        answer_rows,
        decoy_rows,
        answer_text,
        world,
        initial,
        view,
        most=dict(cfg.mutant_caps),
    )
    if not report.gold_passes:
        return GOLD_FAILS  # verification's first check, made by the gate's gold run
    if "drop_write" in report.escaped or report.equivalent.get("drop_write"):
        return REDUNDANT_WRITE  # every write must matter (verification's fourth check)
    if "pick_decoy" in report.escaped or report.equivalent.get("pick_decoy"):
        # Choosing a decoy instead would change nothing checked: the rule is decoration.
        return RULE_UNCHECKABLE
    if report.catch_rate < cfg.min_catch_rate:
        return MUTANTS_ESCAPE

    motif = (
        walker.motif.name
        if cfg.workflows and walker.motif is not None
        else name_motif((s.tool.name, s.tool.collection) for s in steps if s.write)
    )
    variant = rng.randrange(60)
    instruction = render_instruction(
        plan,
        guards,
        [
            {
                "field": field_words(f.field),
                "of": f.entity.the,
                "why": answer_purpose(f.field, f.key, f.value, motif) or "",
            }
            for f, _ in answers
        ],
        goal=_goal(
            env,
            steps,
            motif,
            variant,
            _not_started(walker),
            walker.by_mail,
            [initial.states[s] for s in services],
        ),
        variant=variant,
    )
    if any(lit not in instruction for lit in literals):
        return LITERAL_MISSING
    held = [*walker.entities, *(d for d, _ in walker.decoys)]
    if any(isinstance(e.id, str) and e.id in instruction for e in held):
        return ID_LEAKED  # (numbered ids such as ticket 13 are checked by their binds)
    distractors = _distractor_services(env, services, rng)
    if distractors:
        criteria.append(OtherServicesUnchanged(distractors))  # a gateway agent reaches them
    rubric = dump_criteria(criteria)
    house_rules = [
        {k: v for k, v in r.items() if k != "step"} | {"step": steps.index(r["step"])}
        for r in walker.house_rules
        if any(r["step"] is s for s in steps)
    ]
    tid = task_id(world_seed, services, plan, rubric, state_digest(initial_states))
    task = Task(
        task_id=tid,
        seed=world_seed,
        services=services,
        distractor_services=distractors,
        domain=domain,
        capabilities=capabilities,
        difficulty="",
        instruction=instruction,
        template_instruction=instruction,
        literals=literals,
        initial_state=initial_states,
        gold_plan=plan,
        rubric=rubric,
        answer=answer_rows,
        gold_reply=answer_text,
        split=pick_split(split_key(world_seed, _subject(steps), tid), cfg.split_weights),
        decoys=decoy_rows,
        house_rules=house_rules,
        mutation=report.to_dict(),
        motif=motif,
    )
    return task.model_copy(update={"difficulty": band(task)})


def _state_digest(cache: DumpCache, state: State) -> str:
    """``hash_state(state)``, from the record cache."""
    payload = orjson.dumps(cache.state_json(state), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


def _about(env: ComposeEnv, steps: Sequence[Step], motif: str, email: str) -> bool:
    """Whether the workflow's own writes are about this person: a write that fits the
    motif names them as the record's subject (a bare ``email``, not an assignee's)."""
    target = BY_NAME.get(motif)
    if target is None:
        return False
    for step in steps:
        if not step.write or fits(target, step.tool.name, step.tool.collection) < 2.5:
            continue
        for name, value in step.args.items():
            p = step.tool.param(name)
            if p is None or (p.key or p.item_key) not in PERSON_KEYS or role_of(name):
                continue
            if env.identity(str(p.key), value) == email:
                return True
        subject = step.entity.record if step.entity is not None else {}
        if any(
            isinstance(v, str) and not role_of(k) and env.identity("", v) == email
            for k, v in subject.items()
        ):  # their user record under their personal address is theirs too
            return True
    return False


def _said(step: Step) -> Any:
    """What the request states to find the record it starts from (an e-mail, a name)."""
    t = step.text
    return t.get("search") or next((phrase for _, phrase in t.get("by") or ()), None)


def _fits_the_subject(env: ComposeEnv, steps: Sequence[Step], motif: str) -> bool:
    """Whether the person the request starts from can be the subject of its workflow: only
    a colleague joins or leaves us (a customer does not hand in their notice, and a device
    or a config is no one: such a request has no one to on- or offboard)."""
    if motif not in STAFF_WORKFLOWS:
        return True
    email = str(_said(steps[0]) or "").strip('"').casefold()
    person = env.person_by_email(email) if "@" in email else None
    entity = steps[0].entity
    if person is None and entity is not None:
        # A record the request names (the member "Bobby Gould"): whose own record it is.
        mine = [v for k, v in entity.record.items() if isinstance(v, str) and not role_of(k)]
        person = next((p for v in mine if "@" in v and (p := env.person_by_email(v))), None)
    return person is not None and bool(person.staff)


def _not_started(walker: Walker) -> frozenset[str]:
    """The e-mails of colleagues whose records say they have not started yet."""
    return frozenset(
        email.casefold()
        for row in walker.person_rows()
        if isinstance(email := row.get("email"), str) and status_of(row) in NOT_STARTED
    )


def _goal(
    env: ComposeEnv,
    steps: Sequence[Step],
    motif: str,
    variant: int,
    not_started: frozenset[str] = frozenset(),
    by_mail: bool = False,
    states: Sequence[State] = (),
) -> str:
    """The opening sentence: what the request is about (the person or record the task
    starts from) and, when the plan's workflow is about that person, which workflow. A
    colleague who has not started yet (``not_started``) is not away: no one covers for
    them; a customer's e-mail asking for the work (``by_mail``) came in from them; the
    task's initial ``states`` show how a customer reached us (``ComposeEnv.heard_from``)."""
    first = steps[0]
    t = first.text
    said = _said(first)
    if said is None or first.entity is None:
        return ""
    # The person the request is about, named as the pool knows them (their e-mail was
    # the way in), so the name always agrees with the e-mail.
    email = str(said).strip('"').casefold()
    # A record found by a person's name (a shipment by its recipient) is that person's:
    # "Vanessa Bird got in touch", not "about the shipment "Vanessa Bird"".
    by_name = None if "@" in email else env.pool.person_by_name(str(said).strip('"'))
    person = env.person_by_email(email) if "@" in email else by_name
    if person is not None and person.full_name:
        email = person.email.casefold()
        about = BY_NAME[motif].goals if motif and _about(env, steps, motif, email) else ()
        here = bool(person.staff) and (_takes_part(env, steps, email) or email in not_started)
        return opening(
            person.full_name if by_name is not None else f"{person.full_name} ({said})",
            motif,
            variant,
            staff=person.staff,
            about=about,
            here=here,
            heard=() if person.staff else env.heard_from(states, email, person.phone),
        )
    noun = str(t.get("noun", "record"))
    return opening(f"the {noun} {said}", motif, variant, noun=noun, mail=by_mail)


def _takes_part(env: ComposeEnv, steps: Sequence[Step], email: str) -> bool:
    """Whether a write gives the person ``email`` a part in the work (assigns them, hosts
    them, writes to them): the request cannot say they are away."""
    for step in steps:
        if not step.write:
            continue
        for name, value in step.args.items():
            p = step.tool.param(name)
            key = (p.key or p.item_key) if p else None
            if key not in PERSON_KEYS:
                continue
            role = role_of(name)
            if not (is_staff_role(role) or role == "recipient"):
                continue
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str) and env.identity(str(key), v) == env.identity("email", email):
                    return True
    return False


def gold_reply(steps: Sequence[Step], answer_rows: Sequence[Mapping[str, Any]]) -> str:
    """The final reply of a faithful agent: what it changed, then the asked values. It
    names records by label and states no value but the asked ones (an answer must not
    state a decoy's value)."""
    done = [_done(s) for s in steps if s.write]
    parts = []
    if done:
        parts.append("Here is what I did: " + "; ".join(done) + ".")
    if answer_rows:
        parts.append(Task.gold_answer_for(answer_rows))
    return " ".join(parts) or "Done."


def _done(step: Step) -> str:
    """``create a ticket`` -> ``created a ticket in Helpdesk``."""
    t = step.text
    service = t.get("service", "")
    kind = t.get("kind")
    if kind == "update":
        return f"updated {t.get('target', 'the record')} in {service}"
    if kind == "delete":
        return f"deleted {t.get('target', 'the record')} in {service}"
    summary = str(t.get("summary") or step.tool.name.replace("_", " "))
    return f"{past_tense(summary)} in {service}"


_IRREGULAR = {
    "send": "sent", "pay": "paid", "set": "set", "put": "put", "make": "made", "hang": "hung",
    "begin": "began", "write": "wrote", "run": "ran", "buy": "bought", "get": "got",
    "leave": "left", "take": "took", "give": "gave", "hold": "held", "reset": "reset",
    "split": "split", "upload": "uploaded", "forward": "forwarded", "open": "opened",
    "submit": "submitted", "cancel": "canceled", "ship": "shipped", "log": "logged",
    "flag": "flagged", "plan": "planned", "pin": "pinned", "star": "starred", "tag": "tagged",
    "refer": "referred", "transfer": "transferred", "admit": "admitted", "check": "checked",
}  # fmt: skip


def _past(word: str) -> str:
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith("e"):
        return low + "d"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return low[:-1] + "ied"
    return low + "ed"


def past_tense(phrase: str) -> str:
    """The verbs of an imperative phrase in the past tense (``solve and close the ticket``
    -> ``solved and closed the ticket``)."""
    words = phrase.split(" ")
    if not words or not words[0]:
        return phrase
    words[0] = _past(words[0])
    if len(words) > 2 and words[1] == "and":
        words[2] = _past(words[2])
    return " ".join(words).strip()


def _rules_matter(steps: Sequence[Step], answers: Sequence[Fact]) -> bool:
    """A quick check before the mutation gate: what later steps (or the answer) read of a
    record a selection rule chose includes a field where the chosen record and the records
    set aside differ (the gate's decoy swaps then have something to catch)."""
    for i, step in enumerate(steps):
        chosen = step.entity
        if step.rule is None or chosen is None:
            continue
        read = {f.field for s in steps[i + 1 :] for f in s.sources if f.entity is chosen}
        read |= {f.field for f in answers if f.entity is chosen}
        if not read - chosen.shared:
            return False
    return True


def _future_ids(
    gold: Sequence[Mapping[str, Any]], steps: Sequence[Step], initial: Mapping[str, Any]
) -> bool:
    """Whether the initial state already mentions an id that a create of the plan makes
    (a delete-and-recreate would then lose the link)."""
    created = {
        env.get("data", {}).get("id")
        for env, step in zip(gold, steps, strict=True)
        if step.kind == "create" and isinstance(env.get("data"), dict)
    }
    created.discard(None)
    if not created:
        return False
    found = False

    def scan(value: Any) -> None:
        nonlocal found
        if found:
            return
        if isinstance(value, str):
            found = value in created
        elif isinstance(value, dict):
            for v in value.values():
                scan(v)
        elif isinstance(value, list):
            for v in value:
                scan(v)

    scan(initial)
    return found


def _untouched(
    walker: Walker,
    steps: Sequence[Step],
    written: set[tuple[str, str]],
    rng: random.Random,
    p: float,
    most: int = 1,
) -> list[tuple[str, str]]:
    """Collections the task reads but must not write, now and then: ones a tool could
    write with the change the task makes elsewhere (a rule "leave the servers alone" where
    nothing writes servers cannot be broken, and "leave the users alone" beside a cancelled
    order guards against nothing anyone would do; beside a new delivery address, where the
    user's own address could be changed too, it does)."""
    read = {(s.entity.service, s.entity.collection) for s in steps if s.entity and not s.write}
    changed = {n for s in steps if s.write for n in s.args if not _names_a_record(n)}
    writable = {
        (t.service, t.collection)
        for t in walker.catalog.tools.values()
        if t.write and changed & {p.name for p in t.params if not _names_a_record(p.name)}
    }
    read_only = sorted(
        {(e.service, e.collection) for e in walker.entities if not e.created}
        & read
        & writable - written
    )
    if not read_only or rng.random() >= p:
        return []
    return sorted(rng.sample(read_only, min(most, len(read_only))))


_NAME_FIELDS = re.compile(r"(?:^|_)(?:name|title)$|^displayName$")


def _name_taken(steps: Sequence[Step], states: Mapping[str, Any]) -> bool:
    """Whether a write gives a record a name another record of its kind already has (a
    group renamed "Shipping" beside the "Shipping" group, a folder made beside its
    namesake): two records of one name, and a request that cannot say which it means."""
    for s in steps:
        recs = states.get(s.tool.service, {}).get(s.tool.collection or "")
        if not s.write or not isinstance(recs, Mapping):
            continue
        own = s.entity.id if s.entity is not None else None
        for name, value in s.args.items():
            if (
                not isinstance(value, str)
                or not _NAME_FIELDS.search(name)
                or s.binds.get(name, {}).get("from") != "user"
            ):
                continue
            said = value.casefold()
            if any(
                rid != own and isinstance(r, Mapping) and str(r.get(name, "")).casefold() == said
                for rid, r in recs.items()
            ):
                return True
    return False


def _names_a_record(name: str) -> bool:
    """Whether an argument named ``name`` says which record (``order_id``), not what to
    change on it."""
    return name == "id" or name.endswith(("_id", "Id", "_ids"))


def _is_count(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _answerable(f: Fact, literals: Sequence[str]) -> bool:
    value = f.value
    if f.field in _ANSWER_SKIP or (f.key or "").startswith("id:") or isinstance(value, bool):
        return False
    if isinstance(value, str):
        if not 1 < len(value) <= 40 or value in literals:
            return False
        stamp = timestamp(value)
        return stamp is None or len(value) == 10  # dates yes, timestamps no
    return isinstance(value, int | float)


def _answer_facts(
    walker: Walker,
    diff: Any,
    literals: Sequence[str],
    rng: random.Random,
    p: float,
) -> list[tuple[Fact, list[Any]]]:
    """A value the final reply must state, from a field of a record the task read that the
    plan does not change (the deal's amount, though its owner changes hands), with the
    values it must not state instead: the same field (or the same kind of value) on the
    other records the agent saw (never the record's own other values). A fact nothing could
    be confused with is not asked: no reward could tell a reply that recites everything from
    one that answers."""
    if rng.random() >= p:
        return []
    gone: set[tuple[str, str, str]] = set()
    edited: dict[tuple[str, str, str], set[str]] = {}
    for svc, colls in diff.services.items():
        for coll, d in colls.items():
            gone |= {(svc, coll, rid) for rid in (*d.added, *d.deleted)}
            for rid, fields in d.updated.items():
                edited[(svc, coll, rid)] = set(fields)
    # Asked about the work, not about the policy note a rule was read in (who wrote it).
    notes = {(r["service"], r["id"]) for r in walker.house_rules}
    stable: list[Entity] = [
        e
        for e in walker.entities
        if not e.created
        and (e.service, e.collection, e.id) not in gone
        and (e.service, e.id) not in notes
    ]

    def unchanged(f: Fact) -> bool:
        fields = edited.get((f.entity.service, f.entity.collection, f.entity.id), set())
        if fields & ({f.field} | set(re.split(r"[.\[\]]", f.path))):
            return False
        # A number of a record whose other numbers the plan changes may follow from them (a
        # subscription's MRR from its seats, a reservation's total from its rooms): asked
        # after the change, the value the record held is no answer.
        return not (_is_count(f.value) and any(_is_count(f.entity.record.get(n)) for n in fields))

    motif = walker.motif.name if walker.motif is not None else None
    # what a lookup was called with is known already ("the message's sender" of the
    # messages listed by that sender's address): no question to ask of it
    searched = {
        v for s in walker.steps if not s.write for v in s.args.values() if isinstance(v, str)
    }
    # whom the plan itself wrote to needs no asking for ("e-mail the ticket's customer ...
    # and tell me the ticket's customer email")
    used = {(f.entity.id, f.field) for s in walker.steps if s.write for f in s.sources}
    # nor who the request is about, whom the opening names ("Megan Rivera (megan@...) ...
    # tell me the name of the shipment's recipient")
    subjects = walker.subjects()
    facts = [
        f
        for f in walker.facts
        if f.entity in stable
        and unchanged(f)
        and _answerable(f, [*literals, *searched])
        and _bears_on(motif, f)
        and answer_purpose(f.field, f.key, f.value, motif) is not None
        and not (f.key in PERSON_KEYS and (f.entity.id, f.field) in used)
        and not (f.key in PERSON_KEYS and walker.env.identity(str(f.key), f.value) in subjects)
        and not _private(walker, f)
    ]
    if not facts:
        return []
    stated = _stated_values(walker)
    needed = purposeful(walker.steps, [])
    # Asked about the records the work goes through, not about one read just for the
    # question ("and tell me the sender of some call" is not what the request is for).
    pool = asked_in_turn([f for f in facts if f.step in needed], rng)
    seen = _seen_values(walker, needed)
    # what the plan overwrote (a ticket's previous assignee) a reply may say it changed
    changed = {rid: fields for (_, _, rid), fields in edited.items()}
    stated += [v for name, _, v, rid, _ in seen if name in changed.get(rid, ())]
    for fact in pool:
        excludes = _confusable(fact, seen, stated)
        if excludes:
            return [(fact, excludes)]
    return []


def asked_in_turn(facts: Sequence[Fact], rng: random.Random) -> list[Fact]:
    """``facts`` in the order an answer is looked for among them: identifiers and amounts
    first (what people ask for), each kind shuffled, then the others (a due date to plan
    around): an order number nothing could be confused with leaves them to be asked."""
    rich = [f for f in facts if user_knowable(f.key) or isinstance(f.value, int | float)]
    rest = [f for f in facts if f not in rich]
    rng.shuffle(rich)
    rng.shuffle(rest)
    return [*rich, *rest]


def _bears_on(motif: str | None, f: Fact) -> bool:
    """Whether the person asking needs the value for the work (``motif``): who to contact
    next, the number to quote back, when something is due; money only where the work moves
    money (a refund's total, not a handed-over deal's amount). A record's other details (a
    job's salary band, a company's head count or website) answer nothing the request asked.
    Without a workflow any value of the records the work goes through will do."""
    if motif is None:
        return True
    if f.key in PERSON_KEYS or str(f.key or "").startswith("key:"):
        return True
    if is_number(None, f.value):
        return motif in MONEY_WORK and (f.key == "money" or chosen_by(f.field, None, f.value))
    # a date that says when something is due or starts (the CTA's due date)
    return is_time(None, f.value) and chosen_by(f.field, None, f.value)


_PRIVATE_FIELD = re.compile(r"(^|_)(personal|private|home)(_|$)")


def _private(walker: Walker, fact: Fact) -> bool:
    """Whether a fact is someone's private detail (a colleague's personal e-mail, a home
    address): no one asks for it back in a work reply."""
    return bool(_PRIVATE_FIELD.search(fact.field.lower())) or walker.env.is_private(fact.value)


def _stated_values(walker: Walker) -> list[Any]:
    """Values the plan states or writes: a reply may repeat them, so they are never the
    values it must leave out."""
    out: list[Any] = []
    for step in walker.steps:
        for value in step.args.values():
            out += value if isinstance(value, list) else [value]
        if step.rule is not None and step.rule.value is not None:
            out.append(step.rule.value)
        for bind in step.binds.values():
            if bind.get("rule") == "threshold":
                out += [bind.get("limit"), bind.get("above"), bind.get("otherwise")]
    return out


def _seen_values(
    walker: Walker, keep: Sequence[int] | None = None
) -> list[tuple[str, str | None, Any, str, tuple[str, str]]]:
    """(field, semantic key, value, record id, (service, collection) of the step that showed
    it) of every scalar field of every record the outputs of the plan's steps (those in
    ``keep``) showed."""
    out: list[tuple[str, str | None, Any, str, tuple[str, str]]] = []
    kept = set(range(len(walker.steps)) if keep is None else keep)
    for i, step in enumerate(walker.steps):
        if i not in kept:
            continue
        data = (step.envelope or {}).get("data")
        coll = walker._coll(step.tool.service, step.tool.collection)
        for record in _records_in(data):
            rid = str(record.get("id"))
            for name, value in record.items():
                if value is None or isinstance(value, dict | list | bool):
                    continue
                meta = coll.fields.get(name) if coll else None
                where = (step.tool.service, str(step.tool.collection))
                out.append((name, meta.key if meta else None, value, rid, where))
    return out


def _records_in(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        out = [data] if "id" in data else []
        for value in data.values():
            if isinstance(value, list | dict):
                out += _records_in(value)
        return out
    if isinstance(data, list):
        return [r for item in data for r in _records_in(item)]
    return []


def _confusable(
    fact: Fact,
    seen: Sequence[tuple[str, str | None, Any, str, tuple[str, str]]],
    stated: Sequence[Any],
) -> list[Any]:
    """The values an answer must not give for ``fact``: those of its rivals, other records of
    its kind the plan showed (another ticket's assignee). A value from another kind of record
    (a policy note's author, the mailbox a reply went from) is no rival: an honest summary may
    say it."""
    kind = (fact.entity.service, str(fact.entity.collection))
    value = fact.value
    form = normalize(value)
    stated_forms = [normalize(v) for v in stated if v is not None]  # once, not per value seen
    stated_texts = [v for v in stated if isinstance(v, str)]
    out: list[Any] = []
    out_forms: list[Any] = []
    # the record's own other values (the order's subtotal beside its total) may be what a
    # reply explains the work by: only other records' are confusions, and not where a
    # rival holds one of them too (a decoy copied from the record keeps its subtotal)
    own = [normalize(o) for _, _, o, rid, where in seen if where == kind and rid == fact.entity.id]
    for name, key, other, rid, where in seen:
        if where != kind or rid == fact.entity.id:
            continue
        same_field = name == fact.field
        same_kind = key is not None and key == fact.key and not key.startswith("id:")
        if not (same_field or same_kind):
            continue
        if isinstance(value, int | float) != isinstance(other, int | float):
            continue
        other_form = normalize(other)
        if other_form == form or any(other_form == f for f in [*stated_forms, *own]):
            continue
        if isinstance(other, str):
            text = str(value)
            if len(other) < 3 or says(text, other) or says(other, text):
                continue
            if any(says(v, other) or says(other, v) for v in stated_texts):
                continue
        if all(other_form != f for f in out_forms):
            out.append(other)
            out_forms.append(other_form)
    return out[:8]


def _subject(steps: Sequence[Step]) -> list[str] | None:
    """The record the request is about: the one its first read finds."""
    for s in steps:
        e = s.entity
        if e is not None and not s.write and not e.created:
            return [e.service, e.collection, str(e.id)]
    return None


def _capabilities(
    plan: Sequence[Mapping[str, Any]], steps: Sequence[Step], guarded: bool, answered: bool
) -> list[str]:
    caps: set[str] = set()
    for i, step in enumerate(plan):
        service = step["tool"].split("__", 1)[0]
        for bind in step["binds"].values():
            k = bind.get("step")
            if k is None or k >= i:
                continue
            caps.add("sequential-dependency")
            if plan[k]["tool"].split("__", 1)[0] != service:
                caps.add("cross-service")
    if any(s.rule is not None for s in steps):
        caps.add("selection-rule")
    if any(s.threshold for s in steps):
        caps.add("threshold")
    if guarded:
        caps.add("guard")
    if answered:
        caps.add("answer")
    return [c for c in CAPABILITIES if c in caps]


def _distractor_services(env: ComposeEnv, services: Sequence[str], rng: random.Random) -> list[str]:
    """Other services to mount in gateway mode: same-domain ones first, as in the paper's
    sample trajectories (15 mounted, a few that matter)."""
    room = max(0, env.config.gateway_size - len(services))
    # Never a twin of a task's service under its name (``tau_bench_retail`` beside
    # ``retail``, both "Retail"): the request's "in Retail" would name either.
    named = {title(s) for s in services}
    others = sorted(s for s in set(env.classes) - set(services) if title(s) not in named)
    domains = {service_domain(s) for s in services}
    near = [s for s in others if service_domain(s) in domains]
    far = [s for s in others if service_domain(s) not in domains]
    rng.shuffle(near)
    rng.shuffle(far)
    return sorted((near + far)[:room])
