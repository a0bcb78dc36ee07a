"""``compose_tasks``: walks -> gold plans -> rubrics -> verified, deduplicated tasks.

Pure functions over Service classes and JSON-able data, so a sandbox worker can run them.
Candidates are numbered; candidate ``j`` draws everything from ``Random(f"{seed}:{j}")``,
so a run is reproducible and splits into shards (``shard`` of ``shards`` takes every
``shards``-th candidate) that ``merge_tasks`` joins.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from library.compose.catalog import title, words
from library.compose.config import ComposeConfig
from library.compose.context import Entity, Fact, field_words
from library.compose.derive import answer_criteria, guard_criteria, state_criteria
from library.compose.domains import service_domain, task_domain
from library.compose.env import ComposeEnv
from library.compose.inject import put
from library.compose.plan import user_knowable
from library.compose.render import render_instruction
from library.compose.task import (
    Task,
    difficulty,
    pick_split,
    state_digest,
    task_id,
)
from library.compose.verify import canonical, run_plan, verify
from library.compose.views import DumpCache, StateView
from library.compose.walk import Walker
from library.compose.walk_state import Reject
from library.graph import ToolNode, nodes_from_service
from library.graph.nodes import is_verified
from library.rubric import dump_criteria
from library.rubric.values import timestamp
from library.runtime import Service, Snapshot, World
from library.runtime.world import hash_state

NEAR_DUPLICATE = "near_duplicate"
UNSTABLE = "unstable_gold"
LITERAL_MISSING = "literal_missing"
ID_LEAKED = "id_in_instruction"
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
) -> ComposeResult:
    """Up to ``n`` verified tasks and the count of rejected candidates per reason.

    ``service_classes``/``nodes``/``verified``/``config`` build the environment (see
    ``make_env``) unless ``env`` is given; ``shard``/``shards`` split the candidate stream
    for parallel callers (join with ``merge_tasks``); ``max_candidates`` bounds the work.
    """
    env = env or make_env(service_classes, nodes, verified, config)
    limit = max_candidates if max_candidates is not None else 40 * n + 200
    tasks: list[Task] = []
    rejections: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    cache = DumpCache()
    for j in range(shard, shard + shards * limit, shards):
        if len(tasks) >= n:
            break
        out = candidate(env, seed, j, cache)
        if isinstance(out, str):
            rejections[out] += 1
            continue
        shape = out.shape()
        if shapes[shape] >= env.config.max_per_shape:
            rejections[NEAR_DUPLICATE] += 1
            continue
        shapes[shape] += 1
        tasks.append(out)
    return ComposeResult(tasks, dict(sorted(rejections.items())))


def merge_tasks(
    parts: Sequence[Sequence[Task]], n: int, max_per_shape: int = 1
) -> tuple[list[Task], int]:
    """Join shards round-robin (deterministic for a given shard count), dropping repeated
    ids and near-duplicates; (the first ``n``, how many were dropped)."""
    out: list[Task] = []
    seen: set[str] = set()
    shapes: Counter[str] = Counter()
    dropped = 0
    longest = max((len(p) for p in parts), default=0)
    for i in range(longest):
        for part in parts:
            if i >= len(part) or len(out) >= n:
                continue
            task = part[i]
            shape = task.shape()
            if task.task_id in seen or shapes[shape] >= max_per_shape:
                dropped += 1
                continue
            seen.add(task.task_id)
            shapes[shape] += 1
            out.append(task)
    return out, dropped


def candidate(env: ComposeEnv, seed: int, j: int, cache: DumpCache | None = None) -> Task | str:
    """Candidate ``j``: a verified task, or the reason it was rejected."""
    cfg = env.config
    rng = random.Random(f"{seed}:{j}")
    world_seed = seed * 1009 + j % cfg.worlds
    world, base = env.world(world_seed)
    walker = Walker(env, world, base, rng)
    try:
        walker.walk()
    except Reject as exc:
        return exc.reason
    cache = cache or DumpCache()

    # The initial state: the seeded base plus everything the walk injected.
    world.restore(base)
    for injection in walker.injections:
        put(world, injection)
    initial = world.snapshot()
    plan = [s.to_dict() for s in walker.steps]
    gold = run_plan(world, plan)
    if canonical(gold) != canonical([s.envelope for s in walker.steps]):
        return UNSTABLE
    final = world.snapshot()
    diff = world.diff(initial, final)
    written = {(svc, coll) for svc, colls in diff.services.items() for coll in colls}
    services = list(walker.services)

    decoys = [d for d, _ in walker.decoys if (d.service, d.collection) in written]
    guards = [
        {"scope": "others", "service": title(svc), "noun": noun}
        for svc, noun in dict.fromkeys((d.service, d.label) for d in decoys)
    ]
    untouched = _untouched(walker, written, rng, cfg.p_collection_guard)
    for svc, coll in untouched:
        info = env.catalog.collection(svc, coll)
        nouns = info.nouns if info else words(coll)
        guards.append({"scope": "collection", "service": title(svc), "nouns": nouns})
    literals = list(dict.fromkeys(t for s in walker.steps for t in s.literals))
    answers = _answer_facts(walker, diff_ids(diff), literals, rng, cfg.p_answer)

    labels = {(e.service, e.collection, e.id): e.the for e in walker.entities}
    criteria = (
        state_criteria(diff, walker.steps, labels, env.identifier)
        + guard_criteria(decoys, untouched)
        + answer_criteria(answers)
    )
    answer_rows = [
        {"label": f"{field_words(f.field)} of {f.entity.the}", "value": f.value} for f in answers
    ]
    answer_text = Task.gold_answer_for(answer_rows)
    initial_states = {s: initial.states[s].model_dump(mode="json") for s in services}
    final_hashes = {s: hash_state(final.states[s]) for s in services}

    def view(snap: Snapshot) -> StateView:
        return StateView(snap, services, cache)

    def replay() -> World:
        fresh = env.fresh_world(services, world_seed)
        fresh.load_states(initial_states)
        return fresh

    reason = verify(criteria, plan, answer_text, world, initial, view, replay, gold, final_hashes)
    if reason is not None:
        return reason

    instruction = render_instruction(
        plan, guards, [{"field": field_words(f.field), "of": f.entity.the} for f in answers]
    )
    if any(lit not in instruction for lit in literals):
        return LITERAL_MISSING
    if any(e.id in instruction for e in [*walker.entities, *(d for d, _ in walker.decoys)]):
        return ID_LEAKED
    capabilities = _capabilities(plan, walker, bool(decoys or untouched), bool(answers))
    rubric = dump_criteria(criteria)
    tid = task_id(world_seed, services, plan, rubric, state_digest(initial_states))
    writes = [s.tool.service for s in walker.steps if s.write]
    return Task(
        task_id=tid,
        seed=world_seed,
        services=services,
        distractor_services=_distractor_services(env, services, rng),
        domain=task_domain(services, writes),
        capabilities=capabilities,
        difficulty=difficulty(len(plan), len(services), capabilities),
        instruction=instruction,
        template_instruction=instruction,
        literals=literals,
        initial_state=initial_states,
        gold_plan=plan,
        rubric=rubric,
        answer=answer_rows,
        split=pick_split(tid, cfg.split_weights),
    )


def diff_ids(diff: Any) -> set[tuple[str, str, str]]:
    out = set()
    for svc, colls in diff.services.items():
        for coll, d in colls.items():
            for rid in (*d.added, *d.updated, *d.deleted):
                out.add((svc, coll, rid))
    return out


def _untouched(
    walker: Walker, written: set[tuple[str, str]], rng: random.Random, p: float
) -> list[tuple[str, str]]:
    """A collection the task reads but must not write, now and then."""
    read_only = sorted(
        {(e.service, e.collection) for e in walker.entities if not e.created} - written
    )
    if not read_only or rng.random() >= p:
        return []
    return [rng.choice(read_only)]


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
    changed: set[tuple[str, str, str]],
    literals: Sequence[str],
    rng: random.Random,
    p: float,
) -> list[Fact]:
    """A value the final reply must state, from a record the task read and did not change."""
    if rng.random() >= p:
        return []
    stable: list[Entity] = [
        e
        for e in walker.entities
        if not e.created and (e.service, e.collection, e.id) not in changed
    ]
    facts = [f for f in walker.facts if f.entity in stable and _answerable(f, literals)]
    if not facts:
        return []
    # Identifiers and amounts are what people ask for; prefer them.
    rich = [f for f in facts if user_knowable(f.key) or isinstance(f.value, int | float)]
    return [rng.choice(rich or facts)]


def _capabilities(
    plan: Sequence[Mapping[str, Any]], walker: Walker, guarded: bool, answered: bool
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
    if any(s.rule is not None for s in walker.steps):
        caps.add("selection-rule")
    if any(s.threshold for s in walker.steps):
        caps.add("threshold")
    if guarded:
        caps.add("guard")
    if answered:
        caps.add("answer")
    order = (
        "sequential-dependency",
        "cross-service",
        "selection-rule",
        "threshold",
        "guard",
        "answer",
    )
    return [c for c in order if c in caps]


def _distractor_services(env: ComposeEnv, services: Sequence[str], rng: random.Random) -> list[str]:
    """Other services to mount in gateway mode: same-domain ones first, as in the paper's
    sample trajectories (15 mounted, a few that matter)."""
    room = max(0, env.config.gateway_size - len(services))
    others = sorted(set(env.classes) - set(services))
    domains = {service_domain(s) for s in services}
    near = [s for s in others if service_domain(s) in domains]
    far = [s for s in others if service_domain(s) not in domains]
    rng.shuffle(near)
    rng.shuffle(far)
    return sorted((near + far)[:room])
