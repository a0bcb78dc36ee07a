"""The conformance suite: the gate every generated service passes, whatever tier wrote it.

Checks per tool, all derived from the spec and run on seeded Worlds:

- ``implemented``: the service has a tool of that name (only reported when it does not);
- ``signature``: the tool accepts exactly the spec's parameters, requiring the same ones;
- ``valid_call``: sampled valid arguments (ids, and the values a record is found by, taken
  from seeded state) succeed;
- ``output_schema``: the result matches the spec's output schema (when the spec has one);
- ``invalid_argument``: a missing required parameter, or one of the wrong type, is refused with
  ``invalid_argument`` and changes nothing;
- ``not_found``: an unknown id in each required id parameter gives ``not_found``;
- ``read_after_write``: create then get (and list contains it), update then get, delete then
  get is ``not_found``, when the service has the matching read and list tools;
- ``read_only``: read tools leave the state hash unchanged (recomputed, not cached);
- ``determinism``: the same calls on a second World with the same seed give the same result
  and the same state hash;
- ``round_trip``: the state survives JSON and back with the same hash;
- ``every_parameter``: each optional parameter, alone and all together, with valid values (every
  value of a small enum, both bounds of a bounded number, both booleans) never makes the tool
  answer ``internal``; a successful answer still matches the output schema and a read tool
  still changes nothing. Range filters, pagination and sort options are exercised this way;
- ``range_filter``: a list's range filter (``created_after``, ``max_size``) at a listed record's
  own value lists that record (unless named to leave the bound out) and nothing past it;
- ``changes_state``: a write tool's valid call changes the state (an action with no field to
  set records its transition in the record's history; one that changes nothing is unverifiable);
- ``pagination``: a list's paging pages: a limit of one lists one record, the next page (by
  offset, page number, or the cursor the first page gave) lists others, and a page's total
  counts every record the list holds;
- ``counts``: a count answers as many records as its list holds for the same arguments;
- ``filter_narrows``: a list's optional filter (a parameter named for a key its items show:
  ``status``, ``owner_id``, an enum or a list member) or free-text query (``q``, ``search``)
  narrows: given a value no listed record holds (a fresh token for a query) it lists none of
  the records listed without it; given a listed record's own value it lists that record and
  only records holding the value.

A tool is verified when all its checks pass. Everything here is a plain function of a Service
class and JSON-able specs, so a sandbox worker can run it on untrusted code.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import Any

import orjson

from library.compiler.model import Role
from library.compiler.naming import collection_for
from library.compiler.records import PAGING, QUERY_NAMES, names_record, range_parts
from library.compiler.tools import COUNT_KEYS, COUNTING, PAGE_META, PARAM_PAGING
from library.ingest.infer_output import STATES_BY
from library.ingest.naming import singular, snake, tokens
from library.runtime import Service, World
from library.runtime.compute import evaluate
from library.runtime.errors import ToolError
from library.runtime.shell import (
    FileTree,
    answer_parts,
    operand_role,
    run_shell,
    shell_answer,
    shell_command,
)
from library.runtime.world import hash_state, qualified
from library.seed import seed_pool
from library.toolspec import ToolSpec
from library.verify.contracts import ToolContract, contract
from library.verify.sampling import Sampler, main_type, simplify
from library.verify.schemas import validate

SEED_SIZE = 10  # records per collection: enough to find a record an action applies to
MAX_CANDIDATES = 10  # records tried for a tool that acts on one (some are in a terminal state)
MAX_PAGES = 50
CURSOR_PARAMS = frozenset({"cursor", "next_token", "page_token"})  # a list's next-page input
NEXT_CURSOR_KEYS = (
    "next_cursor", "nextCursor", "next_page_token", "nextPageToken", "cursor", "nextToken",
    "NextToken", "next_token",
)  # fmt: skip
TOTAL_KEYS = frozenset(k for k, meaning in PAGE_META.items() if meaning == "total")
MORE_KEYS = frozenset(k for k, meaning in PAGE_META.items() if meaning == "has_more")
MAX_PARAM_CALLS = 32  # calls per tool for ``every_parameter``
MAX_VALUES = 4  # values tried per parameter (enum members, bounds)
MAX_FILTERS = 8  # filters per list checked by ``filter_narrows`` (two calls each)
NOTHING = object()
LOOKUP_VERBS = frozenset({"read", "update", "delete", "action"})


@dataclass(frozen=True, slots=True)
class CheckResult:
    service: str
    tool: str
    check: str
    passed: bool
    detail: str = ""
    duration_s: float = 0.0

    def to_row(self) -> dict[str, Any]:
        return asdict(self)


def verified_tools(results: Iterable[CheckResult]) -> dict[str, bool]:
    """Tool -> whether every one of its checks passed."""
    out: dict[str, bool] = {}
    for r in results:
        out[r.tool] = out.get(r.tool, True) and r.passed
    return out


def run_conformance(
    service_cls: type[Service],
    specs: list[ToolSpec] | list[dict[str, Any]],
    seed: int = 0,
    size: int = SEED_SIZE,
) -> list[CheckResult]:
    """Run every check for every tool of ``specs`` against ``service_cls``."""
    contracts = [_with_service_refs(contract(s), service_cls) for s in specs]
    return check_every_tool(_Suite(service_cls, contracts, seed, size), service_cls.name)


def check_every_tool(
    suite: _Suite, service: str, after_each: Callable[[], None] | None = None
) -> list[CheckResult]:
    """Every check of every tool of ``suite``; ``after_each`` runs after each tool (and may
    raise to stop: a sandbox that failed ends the run)."""
    results: list[CheckResult] = []
    for c in suite.contracts:
        try:
            results += suite.tool(c)
        except Exception as exc:  # a bug in the suite must not hide the other tools' results
            detail = f"the suite raised {type(exc).__name__}: {exc}"
            results.append(CheckResult(service, c.name, "suite", False, detail))
        if after_each is not None:
            after_each()
    return results


@dataclass(slots=True)
class _Outcome:
    """The successful (or last) valid call of a tool on world A."""

    attempts: list[dict[str, Any]]
    envelope: dict[str, Any]
    hash_before: str
    hash_after: str
    record_id: str | None  # the record the call acted on, if any


class _Suite:
    def __init__(
        self, cls: type[Service], contracts: list[ToolContract], seed: int, size: int
    ) -> None:
        self.cls = cls
        self.name = cls.name
        self.contracts = contracts
        self.seed = seed
        self.size = size
        self.pool = seed_pool(seed)
        self.collections = frozenset(cls.State.collection_types)
        # the key a collection's records show their id under (``sid``, ``changesetId``)
        self.id_keys = {
            name: rec.model_fields["id"].alias or "id"
            for name, rec in cls.State.collection_types.items()
            if "id" in rec.model_fields
        }

    def id_key(self, collection: str | None) -> str:
        return self.id_keys.get(collection or "", "id")

    def record_of(self, data: Any, collection: str | None) -> Any:
        """The record in a write's result: the result itself, or the one object of an
        envelope (``{"data": {...}}``)."""
        key = self.id_key(collection)
        for _ in range(MAX_LAYERS):
            if isinstance(data, list) and len(data) == 1:  # ``[record]``: the one record
                data = data[0]
                continue
            if not isinstance(data, dict) or key in data:
                break
            # ``{data: {...}}``, ``{action, result, data: {probes: [{...}]}}``: the one way
            # down to an object that holds the id
            inner = [v for v in data.values() if _holds_key(v, key, MAX_LAYERS)]
            if len(inner) != 1:
                break
            data = inner[0]
        return data

    # -- worlds ---------------------------------------------------------------------------
    def world(self) -> World:
        world = World([self.cls()], seed=self.seed)
        world.seed_states(self.pool, self.size)
        return world

    def seeded(self, which: int) -> tuple[World, Any]:
        """World A (``which=0``) or B (``1``), seeded once per suite and restored to the
        seeded state for every tool: seeding is the costly part of a world."""
        if not hasattr(self, "_seeded"):
            self._seeded: list[tuple[World, Any]] = []
        while len(self._seeded) <= which:
            world = self.world()
            self._seeded.append((world, world.snapshot()))
        world, base = self._seeded[which]
        world.restore(base)
        return world, base

    def base_hash(self, world: World) -> str:
        """The hash of the seeded state (computed once: every tool starts from it)."""
        if not hasattr(self, "_base_hash"):
            self._base_hash = self.fresh_hash(world)
        return self._base_hash

    def call(self, world: World, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return world.call(qualified(self.name, tool), args)

    def state(self, world: World) -> Any:
        return world.services[self.name].state

    def fresh_hash(self, world: World) -> str:
        world.invalidate()
        return world.state_hash()

    # -- one tool -------------------------------------------------------------------------
    def tool(self, c: ToolContract) -> list[CheckResult]:
        results: list[CheckResult] = []

        def record(check: str, fn: Callable[[], str | None]) -> None:
            start = time.perf_counter()
            try:
                detail = fn()
            except Exception as exc:  # a check that crashes fails, with the reason
                detail = f"check raised {type(exc).__name__}: {exc}"
            duration = time.perf_counter() - start
            results.append(
                CheckResult(self.name, c.name, check, detail is None, detail or "", duration)
            )

        if c.name not in self.cls.tools:
            record("implemented", lambda: f"the service has no tool named {c.name!r}")
            return results
        record("signature", lambda: self.signature(c))
        try:
            world, base = self.seeded(0)
        except Exception as exc:  # the service's own seed() is broken: every tool fails
            message = f"seeding raised {type(exc).__name__}: {exc}"
            record("valid_call", lambda: message)
            return results
        try:
            outcome = self.valid_call(c, world)
        except Exception as exc:  # sampling arguments for this spec failed
            message = f"no valid call: {type(exc).__name__}: {exc}"
            record("valid_call", lambda: message)
            return results
        code = (outcome.envelope.get("error") or {}).get("code")
        if code == "not_found" and c.verb in ("list", "search") and c.resource in self.collections:
            # a "list" that looks one record up by its required key (``retrieve(key)``): not
            # found for a key no record holds, as a read is; it is checked as the read it is
            as_read = replace(c, verb="read")
            found = self.valid_call(as_read, world)
            if found.envelope.get("success"):
                c, outcome = as_read, found
        record("valid_call", lambda: _failure(outcome.envelope))
        if not outcome.envelope.get("success"):
            return results
        if c.output_schema:
            record("output_schema", lambda: validate(outcome.envelope["data"], c.output_schema))
        if c.computation is not None:
            record("computed", lambda: self.computed(c, outcome))
        if self.shell_arguments(c, world, random.Random(0)):
            record("shell", lambda: self.shell(c, world, base, outcome))
        if c.reads:
            record("read_only", lambda: self.read_only(outcome))
        elif c.resource in self.collections and shell_command(c.name) is None:
            record("changes_state", lambda: self.changes_state(c, world, base, outcome))
        record("round_trip", lambda: self.round_trip(world, outcome.hash_after))
        record("determinism", lambda: self.determinism(c, outcome))
        args = outcome.attempts[-1]
        record("every_parameter", lambda: self.every_parameter(c, world, base, args))
        bounds = self.range_params(c, outcome.envelope.get("data"))
        if bounds:
            record("range_filter", lambda: self.range_filter(c, world, base, args, bounds))
        filters = self.filter_params(c, outcome.envelope.get("data"))
        if filters:
            record("filter_narrows", lambda: self.filter_narrows(c, world, base, args, filters))
        paging = self.paging_params(c)
        if paging:
            record("pagination", lambda: self.pagination(c, world, base, args, paging))
        counter = self.count_key(c, outcome.envelope.get("data"))
        lister = self.lister(c, args) if counter is not None else None
        if counter is not None and lister is not None:
            record("counts", lambda: self.counts(c, lister, world, base, args, counter))
        world.restore(base)
        record("invalid_argument", lambda: self.invalid_argument(c, world, base, args))
        probes = self.id_params(c)
        if probes:
            record("not_found", lambda: self.not_found(c, world, base, args, probes))
        pair = self.pair(c)
        if pair is not None:
            record("read_after_write", lambda: pair(world, base, outcome))
        return results

    # -- static ---------------------------------------------------------------------------
    def signature(self, c: ToolContract) -> str | None:
        schema = self.cls.tools[c.name].input_schema
        have = set(schema.get("properties") or ())
        need = set(c.properties)
        problems = []
        if need - have:
            problems.append(f"missing parameters {sorted(need - have)}")
        if have - need:
            problems.append(f"parameters not in the spec {sorted(have - need)}")
        req_have, req_need = set(schema.get("required") or ()), set(c.required)
        if req_have != req_need:
            problems.append(f"required {sorted(req_have)} but the spec requires {sorted(req_need)}")
        return "; ".join(problems) or None

    # -- sampling arguments ---------------------------------------------------------------
    def own_param(self, c: ToolContract) -> tuple[str | None, str | None]:
        """(the id parameter naming the record the tool acts on, its collection)."""
        resource = c.resource if c.resource in self.collections else None
        first: tuple[str | None, str | None] = (None, None)
        # the deepest path parameter names the record, those before it its parents
        nested = [p for p in c.nested if p in c.required]
        for p in [*nested, *(p for p in c.required if p not in nested)]:
            coll = collection_for(p, c.refs.get(p), self.collections)
            if coll is None:
                continue
            if coll == resource or tokens(p) == ("id",):
                return p, coll
            if first == (None, None):
                first = (p, coll)
        if c.verb not in ("list", "search") and first != (None, None):
            return first
        if resource is not None and c.verb in LOOKUP_VERBS:
            return None, resource
        return None, None

    def arguments(
        self,
        c: ToolContract,
        world: World,
        rng: random.Random,
        record: dict[str, Any] | None,
        keyed: bool = True,
        held: bool = False,
    ) -> dict[str, Any]:
        """Valid arguments; ``held``: a reference the record stores is taken only where it
        names a record the world holds (a seeded ``channel_id: 46.4`` names no channel)."""
        state = self.state(world)
        sampler = Sampler(rng, world.now())
        own, own_coll = self.own_param(c)
        optional = c.verb in ("create", "update", "action")
        lookup = c.verb in ("read", "delete")  # every parameter names the record: take its values
        natural = self.natural_key(c, record) if own is None and keyed else None
        args: dict[str, Any] = {}
        for p, node in c.properties.items():
            required = p in c.required
            if not required and not optional:
                continue
            if record is not None and p == own:
                args[p] = _fit_id(record[self.id_key(own_coll)], node, c.input_schema)
                continue
            if record is not None and p == natural:
                args[p] = self.key_value(c, p, record)
                continue
            coll = collection_for(p, c.refs.get(p), self.collections)
            # writes keep what locates the record (a parent id, a path segment), sample the rest
            locates = required and (coll is not None or p in c.path_params)
            key = self.id_key(own_coll)
            stored = record.get(p) if record is not None and p not in ("id", key) else None
            real = not held or coll is None or _key(stored) in getattr(state, coll)
            if (lookup or locates) and real and _fits(stored, node, c.input_schema):
                args[p] = stored
                continue
            ids = sorted(getattr(state, coll)) if coll else []
            jtype = main_type(simplify(node, c.input_schema))
            if ids and jtype in ("string", None):
                args[p] = rng.choice(ids)
                continue
            if ids and jtype in ("integer", "number") and all(i.isdigit() for i in ids):
                args[p] = int(rng.choice(ids))  # integer ids are strings inside the service
                continue
            args[p] = sampler.value(
                node, name=p, path=p, semantics=c.semantics, root=c.input_schema
            )
        return args

    def natural_key(self, c: ToolContract, record: dict[str, Any] | None) -> str | None:
        """A write with no id parameter names its record by a natural key: the first required
        parameter whose value the record holds (``key`` of ``replace(key, value)``)."""
        if record is None or c.verb not in LOOKUP_VERBS:
            return None
        for p in c.required:
            if p in ("id", *self.id_keys.values()):
                continue
            value = self.key_value(c, p, record)
            if value is not None and _fits(value, c.properties.get(p), c.input_schema):
                return p
        return None

    def key_value(self, c: ToolContract, p: str, record: dict[str, Any]) -> Any:
        """What the record holds for parameter ``p``: its field of that name, or the field a
        key parameter names (``imagePipelineArn`` of an image pipeline: its ``arn``)."""
        if record.get(p) is not None:
            return record[p]
        toks = tokens(p)
        if names_record(toks, c.resource, path=True):
            return record.get(toks[-1])
        return None

    def parents_held(self, world: World, key: str, resource: str | None) -> set[Any]:
        """The values of field ``key`` the records of ``resource`` hold (of the collections
        named for it, ``device_metadata`` for ``metadata``, where a service keeps one per
        parent): the parents such a record hangs under."""
        state = self.state(world)
        named = {resource} & self.collections or {
            coll for coll in self.collections if resource and coll.endswith(f"_{resource}")
        }
        return {_dump(r).get(key) for coll in named for r in getattr(state, coll).values()}

    def valid_call(self, c: ToolContract, world: World) -> _Outcome:
        rng = random.Random(f"{self.seed}:{c.name}")
        hash_before = self.base_hash(world)
        own, coll = self.own_param(c)
        attempts: list[dict[str, Any]] = []
        envelope: dict[str, Any] = {}
        record_id = None
        candidates: list[str | None] = [None]
        if coll is not None:
            ids = sorted(getattr(self.state(world), coll))
            rng.shuffle(ids)
            if own is not None and coll != c.resource:
                # a record found through its parent (``/networks/{networkId}/snmpSettings``):
                # the parents some record hangs under first
                held = self.parents_held(world, own, c.resource)
                ids.sort(key=lambda i: i not in held)
            required = _required_state(c)
            if required is not None:
                # ``cancel_pending_order``: a record in the state the tool's name requires
                records = getattr(self.state(world), coll)
                key, state = required
                ids.sort(key=lambda i: _dump(records[i]).get(key) != state)
            if c.verb in LOOKUP_VERBS and self.own_param(c)[0] is None:
                # a record named by a natural key must hold one (optional fields may be unset)
                records = getattr(self.state(world), coll)
                ids.sort(key=lambda i: self.natural_key(c, _dump(records[i])) is None)
            candidates = list(ids[:MAX_CANDIDATES]) or [None]
        for rid in candidates:
            records = getattr(self.state(world), coll) if coll else {}
            record = _dump(records[rid]) if rid is not None else None
            drawn = rng.getstate()
            args = self.arguments(c, world, rng, record)
            attempts.append(args)
            envelope = self.call(world, c.name, args)
            record_id = rid
            code = (envelope.get("error") or {}).get("code")
            if code == "not_found" and record is not None:
                # the record may store a reference to nothing the world holds (a seeded
                # ``channel_id: 46.4``): the same arguments with references the world holds
                same = random.Random()
                same.setstate(drawn)
                again = self.arguments(c, world, same, record, held=True)
                if again != args:
                    attempts.append(again)
                    envelope = self.call(world, c.name, again)
                    code = (envelope.get("error") or {}).get("code")
            if envelope.get("success") or code not in ("failed_precondition", "conflict"):
                break
        code = (envelope.get("error") or {}).get("code")
        best: dict[str, Any] | None = None  # the likeliest record's answer, if none is found
        keyed = self.keyed_arguments(c, world, rng) if code == "not_found" else iter(())
        for held_in, rid, args in keyed:
            # the record may be one the spec's resource does not name (a realm's settings
            # found by ``realm``, an issue by ``project_id`` and ``issue_iid``): the values a
            # record of the world holds for the parameters the call requires
            if args in attempts:
                continue
            attempts.append(args)
            envelope = self.call(world, c.name, args)
            best = best or envelope
            record_id = rid if held_in == coll else None
            code = (envelope.get("error") or {}).get("code")
            if code != "not_found":
                break
        if code == "not_found" and best is not None:
            envelope = best
        if code == "conflict" and c.verb == "action" and record_id is not None:
            # an action that makes a record (``authenticate(username, password)``) names no
            # existing one: its arguments are new values, not a natural key
            args = self.arguments(c, world, rng, None, keyed=False)
            attempts.append(args)
            envelope = self.call(world, c.name, args)
            record_id = None
        for args in self.shell_arguments(c, world, rng) if not envelope.get("success") else []:
            # a shell command names files the tree holds (or a new name): try those it holds
            attempts.append(args)
            envelope = self.call(world, c.name, args)
            if envelope.get("success"):
                break
        for _ in range(MAX_CANDIDATES if c.computation is not None else 0):
            # a function is not defined everywhere its schema allows (a square root of -2, a
            # division by 0, units the spec leaves open): draw other arguments
            if (envelope.get("error") or {}).get("code") != "invalid_argument":
                break
            args = self.arguments(c, world, rng, None)
            attempts.append(args)
            envelope = self.call(world, c.name, args)
        return _Outcome(attempts, envelope, hash_before, self.fresh_hash(world), record_id)

    def keyed_arguments(
        self, c: ToolContract, world: World, rng: random.Random
    ) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(collection, record id, arguments) for records holding the values of the call's
        required parameters (as fields of those names, or as the record's own id where a
        parameter names the collection's ids), in collections whose records have a field for
        each that is no id; what a record leaves unset is drawn as ever. One record of each
        such collection: the spec's resource first, then those holding most of the
        parameters, then those whose records show most of what the tool answers."""
        state = self.state(world)
        shown = _shown_keys(c)
        props = c.properties
        ranked: list[tuple[tuple[bool, int, float], str, str, dict[str, Any]]] = []
        for coll in sorted(self.collections):
            model = self.cls.State.collection_types[coll]
            keys = {f.alias or n for n, f in model.model_fields.items()}
            own = {p for p in c.required if collection_for(p, c.refs.get(p), {coll}) == coll}
            if any(p not in keys and p not in own and p not in c.refs for p in c.required):
                continue
            for rid, held in sorted(getattr(state, coll).items())[:MAX_CANDIDATES]:
                record = _dump(held)
                record.pop(self.id_key(coll), None)  # its own id only where a parameter names it
                values = {
                    p: _fit_id(rid if p in own else record.get(p), props[p], c.input_schema)
                    for p in c.required
                }
                values = {p: v for p, v in values.items() if _fits(v, props[p], c.input_schema)}
                if values:
                    score = len(shown & set(record)) / max(len(shown | set(record)), 1)
                    ranked.append(((coll == c.resource, len(values), score), coll, rid, values))
                    break
        ranked.sort(key=lambda r: r[0], reverse=True)
        for _, coll, rid, values in ranked[:MAX_CANDIDATES]:
            drawn = self.arguments(c, world, rng, None)
            yield coll, rid, {**drawn, **values}
            # a reference the record holds to nothing the world holds (``pull_request_id:
            # 54.46``): an id the world holds instead
            held = {
                p: v
                for p, v in values.items()
                if (ref := collection_for(p, c.refs.get(p), self.collections)) is None
                or _key(v) in getattr(state, ref)
            }
            if held != values:
                yield coll, rid, {**drawn, **held}

    def shell_arguments(
        self, c: ToolContract, world: World, rng: random.Random
    ) -> list[dict[str, Any]]:
        """Arguments of a shell command (``library.runtime.shell``) on the service's file tree:
        the names of its working directory's files, then directories, then a new name, for
        each parameter naming one; ``wc``'s modes; a small line count. Empty for other tools."""
        tree = _file_tree(self.state(world))
        command = shell_command(c.name)
        if tree is None or command is None:
            return []
        files = [n for n in tree.children(tree.cwd) if not tree.is_dir(n)]
        dirs = [n for n in tree.children(tree.cwd) if tree.is_dir(n)]
        names = [p.rsplit("/", 1)[-1] for p in files + dirs]
        by_role: dict[str, list[Any]] = {
            "path": [*names, "new_entry"],
            "path2": [p.rsplit("/", 1)[-1] for p in files],
            "source": names,
            "destination": ["new_entry", *(p.rsplit("/", 1)[-1] for p in dirs)],
            "mode": ["l", "w", "c"],
            "lines": [3],
        }
        base = self.arguments(c, world, rng, None)
        choices: list[tuple[str, list[Any]]] = []
        for p, node in c.properties.items():
            role = operand_role(p, main_type(simplify(node, c.input_schema)), command)
            if role in by_role and (p in c.required or role in ("path", "path2")):
                choices.append((p, by_role[role]))
        out: list[dict[str, Any]] = []
        for i in range(MAX_CANDIDATES):
            args = dict(base)
            for k, (p, values) in enumerate(choices):
                if values:
                    args[p] = values[(i + k) % len(values)] if k else values[i % len(values)]
            out.append(args)
        return out

    def shell(self, c: ToolContract, world: World, base: Any, outcome: _Outcome) -> str | None:
        """A shell command answers, and leaves the file tree, as the command does
        (``library.runtime.shell``) on the tree it started from."""
        world.restore(base)
        tree = _file_tree(self.state(world))
        command = shell_command(c.name)
        assert tree is not None and command is not None
        args = outcome.attempts[-1]
        operands: dict[str, Any] = {}
        for p, value in args.items():
            node = simplify(c.properties.get(p, {}), c.input_schema)
            role = operand_role(p, main_type(node), command)
            if role is not None:
                operands[role] = value
        try:
            want_tree, result = run_shell(tree, command, operands)
            want = shell_answer(result, answer_parts(command, c.output_schema))
        except (ToolError, ValueError) as exc:
            return f"{command} refuses these arguments ({exc}), yet the tool answered"
        got = self.call(world, c.name, args)
        if got.get("data") != want:
            return f"answered {got.get('data')!r}, {command} gives {want!r}"
        if _file_tree(self.state(world)) != want_tree:
            return f"the file tree after {command} is not the one the command leaves"
        return None

    # -- checks ---------------------------------------------------------------------------
    def computed(self, c: ToolContract, outcome: _Outcome) -> str | None:
        """A stateless computation answers what the operation gives for its arguments."""
        assert c.computation is not None
        want = evaluate(c.computation, outcome.attempts[-1])
        got = outcome.envelope.get("data")
        for key, value in want.items():
            found = got.get(key) if isinstance(got, dict) else None
            if not isinstance(found, int | float) or not math.isclose(
                found, value, rel_tol=1e-9, abs_tol=1e-12
            ):
                return f"{key}: answered {found!r}, the {c.computation['operation']} is {value!r}"
        return None

    def read_only(self, outcome: _Outcome) -> str | None:
        if outcome.hash_before != outcome.hash_after:
            return "a read tool changed the state"
        return None

    def changes_state(
        self, c: ToolContract, world: World, base: Any, outcome: _Outcome
    ) -> str | None:
        """A write to a record changes the state for some valid input: a write that never
        does cannot be checked by any task. A call that sets a record's value to the one it
        holds changes nothing, so other values of each parameter are tried first."""
        if outcome.hash_before != outcome.hash_after:
            return None
        args = outcome.attempts[-1]
        own, coll = self.own_param(c)
        rid = args.get(own) if own else None
        held = getattr(self.state(world), coll).get(str(rid)) if coll and rid is not None else None
        record = _dump(held) if held is not None else None

        def sends_news(call: dict[str, Any]) -> bool:
            """Whether a call asks for a change: an update sending only the values the
            record holds asks for none (an object field only ever sampled ``{}``)."""
            if c.verb != "update" or record is None:
                return True
            sent = {k: v for k, v in call.items() if k != own and v is not None}
            return any(k not in record or not _same(v, record[k]) for k, v in sent.items())

        asked = sends_news(args)
        calls = 0
        for p in c.properties:
            if p == own:
                continue
            for value in self.parameter_values(c, world, p):
                if calls == MAX_PARAM_CALLS:
                    break
                if value == args.get(p):
                    continue
                calls += 1
                world.restore(base)
                envelope = self.call(world, c.name, {**args, p: value})
                changed = self.fresh_hash(world) != outcome.hash_before
                world.restore(base)  # the valid call left the seeded state: so do the tries
                if envelope.get("success") and changed:
                    return None
                asked = asked or (envelope.get("success") and sends_news({**args, p: value}))
        if not asked:
            return None  # no value other than those held was known to try
        return "a write tool's call changed nothing, whatever values its parameters took"

    def round_trip(self, world: World, digest: str | None = None) -> str | None:
        """``digest``: the state's fresh hash; the seeded state is checked once per suite."""
        seeded = digest is not None and digest == self.base_hash(world)
        if seeded and hasattr(self, "_base_round_trip"):
            return self._base_round_trip
        found = self._round_trip(world)
        if seeded:
            self._base_round_trip = found
        return found

    def _round_trip(self, world: World) -> str | None:
        state = self.state(world)
        text = orjson.dumps(state.model_dump(mode="json"))
        again = type(state).model_validate(orjson.loads(text))
        if hash_state(again) != hash_state(state):
            return "the state reloaded from JSON hashes differently"
        return None

    def determinism(self, c: ToolContract, outcome: _Outcome) -> str | None:
        other, _ = self.seeded(1)
        envelope: dict[str, Any] = {}
        for args in outcome.attempts:
            envelope = self.call(other, c.name, args)
        if _canon(envelope) != _canon(outcome.envelope):
            return "the same call on a second World with the same seed returned another result"
        if self.fresh_hash(other) != outcome.hash_after:
            return "the same call on a second World with the same seed left another state"
        return None

    def parameter_values(self, c: ToolContract, world: World, p: str) -> list[Any]:
        """Valid values for one parameter: its sampled value, every member of a small enum,
        both bounds of a bounded number, both booleans, an existing id for an id."""
        node = simplify(c.properties[p], c.input_schema)
        rng = random.Random(f"{self.seed}:{c.name}:{p}")
        sampler = Sampler(rng, world.now())
        values: list[Any] = []
        coll = collection_for(p, c.refs.get(p), self.collections)
        ids = sorted(getattr(self.state(world), coll)) if coll else []
        if ids and main_type(node) in ("string", None):
            values.append(ids[0])
        elif ids and main_type(node) in ("integer", "number") and ids[0].isdigit():
            values.append(int(ids[0]))
        enum = [v for v in node.get("enum") or () if v is not None]
        values += enum[:MAX_VALUES]
        jtype = main_type(node)
        if jtype == "boolean":
            values += [True, False]
        if jtype in ("integer", "number"):
            for key in ("minimum", "maximum"):
                bound = node.get(key)
                if isinstance(bound, int | float) and not isinstance(bound, bool):
                    values.append(int(bound) if jtype == "integer" else bound)
        if not values:
            values.append(
                sampler.value(node, name=p, path=p, semantics=c.semantics, root=c.input_schema)
            )
        out: list[Any] = []
        for v in values:
            if v not in out:
                out.append(v)
        return out[:MAX_VALUES]

    def every_parameter(
        self, c: ToolContract, world: World, base: Any, args: dict[str, Any]
    ) -> str | None:
        """Valid input never gets ``internal``: each optional parameter alone (with each of
        its values), then all of them together."""
        world.restore(base)
        optional = [p for p in c.properties if p not in c.required]
        values = {p: self.parameter_values(c, world, p) for p in optional}
        probes = [({**args, p: v}, f"{p}={v!r}") for p in optional for v in values[p]]
        if len(optional) > 1:
            together = {**args, **{p: vs[0] for p, vs in values.items() if vs}}
            probes.append((together, "every optional parameter set"))
        before = self.fresh_hash(world) if c.reads else ""
        for probe, what in probes[:MAX_PARAM_CALLS]:
            world.restore(base)
            envelope = self.call(world, c.name, probe)
            if envelope.get("success"):
                if c.output_schema:
                    problem = validate(envelope["data"], c.output_schema)
                    if problem:
                        return f"with {what}: {problem}"
                if c.reads and self.fresh_hash(world) != before:
                    return f"with {what}: a read tool changed the state"
                continue
            error = envelope.get("error") or {}
            if error.get("code") == "internal":
                return f"with {what}: internal: {str(error.get('message'))[:200]}"
        return None

    def range_params(self, c: ToolContract, data: Any) -> dict[str, tuple[str, str, bool]]:
        """A list's optional range filters whose field its items show: parameter ->
        (item key, ``ge``/``le``, whether the name says the bound is left out)."""
        if c.verb not in ("list", "search"):
            return {}
        items, _ = _page(data)
        keys = {k for item in items if isinstance(item, dict) for k in item}
        out: dict[str, tuple[str, str, bool]] = {}
        for p in c.properties:
            parts = range_parts(p) if p not in c.required else None
            if parts is None:
                continue
            candidates, op, strict = parts
            key = next((k for k in candidates if k in keys), None)
            if key is not None:
                out[p] = (key, op, strict)
        return out

    def range_filter(
        self,
        c: ToolContract,
        world: World,
        base: Any,
        args: dict[str, Any],
        bounds: dict[str, tuple[str, str, bool]],
    ) -> str | None:
        """A range filter bounds what it names: with a listed record's own value as the bound,
        every record listed is on the right side of it, and the record itself is listed
        unless the filter's name says the bound is left out (``created_after`` of a record's
        creation moment lists that record; ``min_amount`` of its amount too)."""
        world.restore(base)
        every = self.call(world, c.name, args)
        items, _ = _page(every.get("data"))
        for p, (key, op, strict) in bounds.items():
            pivots = [i for i in items if isinstance(i, dict) and _ordered(i.get(key))]
            if not pivots:
                continue
            pivot = pivots[0]  # the first listed: first of those it matches too, on any page
            bound = pivot[key]
            world.restore(base)
            envelope = self.call(world, c.name, {**args, p: bound})
            if not envelope.get("success"):
                code = (envelope.get("error") or {}).get("code")
                if code == "invalid_argument":
                    continue  # the parameter takes another form than the field shows
                return f"{p}={bound!r} gave {code}: {_failure(envelope)}"
            found, _ = _page(envelope["data"])
            for item in found:
                value = item.get(key) if isinstance(item, dict) else None
                if _ordered(value) and not _on_side(value, bound, op):
                    return f"{p}={bound!r} listed a record whose {key} is {value!r}"
            ident = self.id_key(c.resource)
            listed = any(isinstance(i, dict) and i.get(ident) == pivot.get(ident) for i in found)
            if not strict and not listed and pivot.get(ident) is not None:
                return f"{p}={bound!r} left out the record whose {key} is that bound"
        return None

    def paging_params(self, c: ToolContract) -> dict[Role, str]:
        """A list's optional paging parameters by what they do (limit, offset, cursor, page)."""
        if c.verb not in ("list", "search"):
            return {}
        out: dict[Role, str] = {}
        for p in c.properties:
            role = PARAM_PAGING.get(snake(p))
            kind = main_type(simplify(c.properties[p], c.input_schema))
            if role in COUNTING and kind not in ("integer", "number"):
                # a text ``offset`` is a token the list issues (Asana's), not a count
                role = Role.CURSOR if kind == "string" else None
            if role is not None and p not in c.required:
                out.setdefault(role, p)
        return out

    def limit_values(self, c: ToolContract, p: str) -> tuple[int, int] | None:
        """(the smallest, the largest up to 100) limits parameter ``p`` takes, or None where
        it takes no integer."""
        node = simplify(c.properties[p], c.input_schema)
        if main_type(node) not in ("integer", "number"):
            return None
        low, high = node.get("minimum"), node.get("maximum")
        low = max(1, math.ceil(low)) if isinstance(low, int | float) else 1
        high = min(100, math.floor(high)) if isinstance(high, int | float) else 100
        return (low, high) if low <= high else None

    def pagination(
        self,
        c: ToolContract,
        world: World,
        base: Any,
        args: dict[str, Any],
        paging: dict[Role, str],
    ) -> str | None:
        """Paging pages. On a list of two or more records: the smallest limit lists that
        many; the next page (by offset, by page number, or by the cursor the first page
        gave) lists records the first did not; the first page gives a cursor or says there
        is more while records remain; and a total counts every record the list holds."""
        plain = {k: v for k, v in args.items() if k not in paging.values()}
        limit = paging.get(Role.LIMIT)
        sizes = self.limit_values(c, limit) if limit is not None else None
        if limit is not None and sizes is None:
            return None  # a limit of another form (text): not paged here
        world.restore(base)
        whole = self.call(world, c.name, {**plain, **({limit: sizes[1]} if sizes else {})})
        if not whole.get("success"):
            return None  # its own arguments are checked by ``every_parameter``
        every, more = _page(whole["data"])
        complete = more is None and (sizes is None or len(every) < sizes[1])
        size = sizes[0] if sizes else len(every)
        if len(every) <= size or limit is None:
            return self.total(whole["data"], every, complete, size) if complete else None
        world.restore(base)
        first = self.call(world, c.name, {**plain, limit: size})
        if not first.get("success"):
            return f"{limit}={size} gave {_failure(first)}"
        page, cursor = _page(first["data"])
        if len(page) != size:
            return f"{limit}={size} listed {len(page)} records of the {len(every)} the list holds"
        ident = self.id_key(c.resource)
        nexts: list[tuple[str, dict[str, Any]]] = []
        if Role.OFFSET in paging:
            nexts.append((f"{paging[Role.OFFSET]}={size}", {paging[Role.OFFSET]: size}))
        if Role.CURSOR in paging and cursor:
            nexts.append(("the cursor the first page gave", {paging[Role.CURSOR]: cursor}))
        elif Role.CURSOR in paging and _promises_cursor(c, first["data"]):
            return f"{limit}={size} gave no cursor though {len(every) - size} records remain"
        if Role.PAGE in paging:
            nexts.append((f"{paging[Role.PAGE]}=2", {paging[Role.PAGE]: 2}))
            world.restore(base)
            first = self.call(world, c.name, {**plain, limit: size, paging[Role.PAGE]: 1})
            page = _page(first.get("data"))[0] if first.get("success") else page
        for what, step in nexts:
            world.restore(base)
            envelope = self.call(world, c.name, {**plain, limit: size, **step})
            if not envelope.get("success"):
                return f"{what} gave {_failure(envelope)}"
            second, _ = _page(envelope["data"])
            if not second:
                return f"{what} listed nothing, though {len(every) - size} records remain"
            if any(_one(a, b, ident) for a in second for b in page if isinstance(a, dict)):
                return f"{what} listed the first page's records again"
        return self.total(first["data"], every, complete, size)

    def total(self, data: Any, every: list[Any], complete: bool, size: int) -> str | None:
        """A page's total counts every record the list holds, and its "more" flag says
        whether records remain past it."""
        if not isinstance(data, dict) or not complete:
            return None
        for key, value in data.items():
            number = isinstance(value, int) and not isinstance(value, bool)
            if key in TOTAL_KEYS and number and value != len(every):
                return f"{key} says {value}, the list holds {len(every)}"
            if key in MORE_KEYS and isinstance(value, bool) and value != (len(every) > size):
                return f"{key} says {value} with {len(every) - size} records past the page"
        return None

    def count_key(self, c: ToolContract, data: Any) -> str | None:
        """The key a count's answer holds its number under (``""``: the answer is the
        number), or None where the tool is no count of its records."""
        if not c.reads or c.verb in ("list", "search") or c.resource not in self.collections:
            return None
        if isinstance(data, int) and not isinstance(data, bool):
            return ""
        if isinstance(data, dict) and len(data) == 1:
            ((key, value),) = data.items()
            number = isinstance(value, int) and not isinstance(value, bool)
            return key if number and key.lower() in COUNT_KEYS else None
        return None

    def counts(
        self,
        c: ToolContract,
        lister: ToolContract,
        world: World,
        base: Any,
        args: dict[str, Any],
        key: str,
    ) -> str | None:
        """A count answers as many records as the resource's list (``lister``) holds for the
        same arguments (with no argument, as many as there are)."""
        if not set(args) <= set(lister.properties):
            return None  # the count filters on what no list takes
        world.restore(base)
        envelope = self.call(world, c.name, args)
        data = envelope.get("data")
        number = data.get(key) if key and isinstance(data, dict) else data
        world.restore(base)
        every = self.listed(lister, world, args)
        if every is None or not envelope.get("success"):
            return None
        if number != len(every):
            return f"counted {number!r}, {lister.name} lists {len(every)} for the same arguments"
        return None

    def filter_params(self, c: ToolContract, data: Any) -> dict[str, str | None]:
        """A list's optional parameters that select records: parameter -> the item key it
        filters on (named for it, and some listed record holds a value the parameter takes:
        ``status``, ``owner_id``, ``tag`` of a ``tag`` list), or None for a free-text query
        (``q``, ``search``). Range filters and paging are left to their own checks. A read
        that answers records (``GET /plugins/available?search=``, named as a read) has its
        query checked, not its other parameters (they may name the record, not filter)."""
        listing = c.verb in ("list", "search")
        lists = [v for v in data.values() if isinstance(v, list)] if isinstance(data, dict) else []
        if not listing and not (c.reads and (isinstance(data, list) or len(lists) == 1)):
            return {}  # a read's records must be its answer, or the one list in it
        items = [i for i in _page(data)[0] if isinstance(i, dict)]
        keys = {k for item in items for k in item}
        out: dict[str, str | None] = {}
        for p in c.properties:
            name = snake(p)
            if p in c.required or name in PAGING or name in CURSOR_PARAMS or range_parts(p):
                continue
            node = _scalar(simplify(c.properties[p], c.input_schema), c.input_schema)
            key = p if p in keys else next((k for k in sorted(keys) if snake(k) == name), None)
            if key is not None and listing:
                held = (v for item in items for v in _values(item.get(key)))
                if node is not None and any(_fits(v, node, c.input_schema) for v in held):
                    out[p] = key
            elif key is None and name in QUERY_NAMES and main_type(node or {}) == "string":
                out[p] = None
        return out

    def filter_narrows(
        self,
        c: ToolContract,
        world: World,
        base: Any,
        args: dict[str, Any],
        filters: dict[str, str | None],
    ) -> str | None:
        """A filter narrows what it names. With a value no listed record holds (a fresh
        token for a query, an enum member or other valid value none of them shows), none of
        the records listed without it are listed; with a listed record's own value, that
        record is listed and every record listed holds the value (equal, any case, or
        containing it: a filter may match part of a text)."""
        items = self.filtered(c, world, base, args)[0]
        if not items:
            return None
        ident = self.id_key(c.resource)
        for p, key in list(filters.items())[:MAX_FILTERS]:
            node = simplify(c.properties[p], c.input_schema)
            scalar = _scalar(node, c.input_schema) or {}
            wrap = main_type(node) == "array"  # a list parameter: ``tags=[x]``
            held = [v for item in items for v in _values(item.get(key))] if key else []
            absent = self.absent_value(c, world, p, scalar, held, query=key is None)
            if absent is not NOTHING:
                value = [absent] if wrap else absent
                found, problem = self.filtered(c, world, base, {**args, p: value})
                if problem:
                    return f"{p}={value!r} gave {problem}"
                kept = next((i for i in found or () if any(_one(i, j, ident) for j in items)), None)
                if kept is not None:
                    named = _name(kept, ident, key)
                    return f"{p}={value!r}, held by no listed record, still listed {named}"
            if key is None:
                continue
            pivot, own = next(
                (
                    (i, v)
                    for i in items
                    for v in _values(i.get(key))
                    if _fits(v, scalar, c.input_schema)
                ),
                (None, None),
            )
            if pivot is None:
                continue
            value = [own] if wrap else own
            found, problem = self.filtered(c, world, base, {**args, p: value})
            if problem:
                return f"{p}={value!r} gave {problem}"
            if found is None:
                continue  # the parameter takes another form than the items show
            if not any(_one(i, pivot, ident) for i in found):
                return f"{p}={value!r} left out the record whose {key} is {pivot[key]!r}"
            for item in found:
                if key in item and not any(_holds(v, own) for v in _values(item[key])):
                    return f"{p}={value!r} listed a record whose {key} is {item[key]!r}"
        return None

    def absent_value(
        self,
        c: ToolContract,
        world: World,
        p: str,
        node: dict[str, Any],
        held: list[Any],
        query: bool,
    ) -> Any:
        """A valid value for filter ``p`` that none of ``held`` (the listed records' values)
        matches, or NOTHING: for a query, a fresh random token; else an enum member, a
        boolean, a number past those held, a fresh token or a sampled value."""
        rng = random.Random(f"{self.seed}:{c.name}:{p}:absent")
        token = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(12))
        if query:
            return token if _fits(token, node, c.input_schema) else NOTHING
        numbers = [v for v in held if isinstance(v, int | float) and not isinstance(v, bool)]
        candidates: list[Any] = [v for v in node.get("enum") or () if v is not None]
        candidates += [True, False] if main_type(node) == "boolean" else []
        if numbers:
            candidates += [max(numbers) + 1, min(numbers) - 1]
        candidates += [token, 987_654_321]
        sampler = Sampler(rng, world.now())
        for _ in range(3):
            candidates.append(
                sampler.value(node, name=p, path=p, semantics=c.semantics, root=c.input_schema)
            )
        for v in candidates:
            if _fits(v, node, c.input_schema) and not any(
                _holds(h, v) or _holds(v, h) for h in held
            ):
                return v
        return NOTHING

    def filtered(
        self, c: ToolContract, world: World, base: Any, args: dict[str, Any]
    ) -> tuple[list[dict[str, Any]] | None, str | None]:
        """The records a call lists (None when it refuses the value: ``invalid_argument``,
        ``not_found`` of an unknown id), and the problem an ``internal`` answer shows."""
        world.restore(base)
        envelope = self.call(world, c.name, args)
        if envelope.get("success"):
            return [i for i in _page(envelope["data"])[0] if isinstance(i, dict)], None
        internal = (envelope.get("error") or {}).get("code") == "internal"
        return None, _failure(envelope) if internal else None

    def invalid_argument(
        self, c: ToolContract, world: World, base: Any, args: dict[str, Any]
    ) -> str | None:
        probes: list[tuple[dict[str, Any], str]] = []
        if c.required:
            p = c.required[0]
            probes.append(({k: v for k, v in args.items() if k != p}, f"without {p!r}"))
            wrong = _wrong(simplify(c.properties[p], c.input_schema), _whole(c, p))
            if wrong is not NOTHING:
                probes.append(({**args, p: wrong}, f"{p!r} of the wrong type"))
        else:
            for p, node in c.properties.items():
                wrong = _wrong(simplify(node, c.input_schema), _whole(c, p))
                if wrong is not NOTHING:
                    probes.append(({**args, p: wrong}, f"{p!r} of the wrong type"))
                    break
            else:
                probes.append(({**args, "unexpected_parameter": 1}, "an unknown parameter"))
        for probe, what in probes:
            world.restore(base)
            before = self.base_hash(world)
            envelope = self.call(world, c.name, probe)
            code = (envelope.get("error") or {}).get("code")
            if code != "invalid_argument":
                return f"a call {what} gave {code or 'success'}, not invalid_argument"
            if self.fresh_hash(world) != before:
                return f"a refused call {what} changed the state"
        return None

    def id_params(self, c: ToolContract) -> list[str]:
        return [p for p in c.required if collection_for(p, c.refs.get(p), self.collections)]

    def not_found(
        self, c: ToolContract, world: World, base: Any, args: dict[str, Any], params: list[str]
    ) -> str | None:
        for p in params:
            world.restore(base)
            numeric = main_type(simplify(c.properties[p], c.input_schema)) in ("integer", "number")
            unknown: Any = 987_654_321 if numeric else f"missing_{p}_0"
            envelope = self.call(world, c.name, {**args, p: unknown})
            code = (envelope.get("error") or {}).get("code")
            if code != "not_found":
                return f"an unknown {p!r} gave {code or 'success'}, not not_found"
        return None

    # -- read after write -----------------------------------------------------------------
    def pair(self, c: ToolContract) -> Callable[[World, Any, _Outcome], str | None] | None:
        if c.verb not in ("create", "update", "delete"):
            return None
        getter = self.sibling(c, "read")
        if getter is None and c.verb == "update":
            getter = self.only_getter(c)  # a singleton's read: ``GET /account``
        if getter is None:
            return None
        check = {
            "create": self.create_then_get,
            "update": self.update_then_get,
            "delete": self.delete_then_get,
        }[c.verb]
        return lambda world, base, outcome: check(c, getter, world, base, outcome)

    def sibling(self, c: ToolContract, verb: str) -> ToolContract | None:
        for other in self.contracts:
            same = other.resource == c.resource and other.verb == verb
            usable = verb != "read" or self.getter_param(other) is not None
            if same and usable and other.name in self.cls.tools:
                return other
        return None

    def only_getter(self, c: ToolContract) -> ToolContract | None:
        """A read of ``c``'s resource that takes no required parameter, where ``c`` takes no
        id either: the service keeps one such record (the account, ``/me``)."""
        if self.own_param(c)[0] is not None:
            return None
        for other in self.contracts:
            same = other.resource == c.resource and other.verb == "read"
            if same and not other.required and other.name in self.cls.tools:
                return other
        return None

    def getter_param(self, getter: ToolContract) -> str | None:
        """The parameter a read tool takes the id of its own resource in, if it has one."""
        own, coll = self.own_param(getter)
        if own is not None and coll == getter.resource:
            return own
        want = (*tokens(singular(getter.resource or "")), "id")
        return next((p for p in getter.required if tokens(p) in (want, ("id",))), None)

    def get(
        self, getter: ToolContract, world: World, rid: str | int, known: dict[str, Any]
    ) -> dict[str, Any]:
        rng = random.Random(f"{self.seed}:{getter.name}:get")
        args = self.arguments(getter, world, rng, None)
        for p in getter.required:
            if p in known:
                args[p] = known[p]
        param = self.getter_param(getter) or ("id" if getter.required else None)
        if param is not None:  # else a singleton's read: no parameter names the record
            args[param] = _fit_id(rid, getter.properties.get(param), getter.input_schema)
        return self.call(world, getter.name, args)

    def create_then_get(
        self, c: ToolContract, getter: ToolContract, world: World, base: Any, outcome: _Outcome
    ) -> str | None:
        world.restore(base)
        args = outcome.attempts[-1]
        created = self.call(world, c.name, args)
        key = self.id_key(c.resource)
        data = self.record_of(created.get("data"), c.resource)
        rid = data.get(key) if isinstance(data, dict) else None
        if isinstance(data, str | int) and not isinstance(data, bool) and data != "":
            rid, data = data, {}  # the answer is the new record's id itself
        if not isinstance(rid, str | int) or isinstance(rid, bool):
            return "create returned no record id"
        got = self.get(getter, world, rid, {**args, **data})
        if not got.get("success"):
            return f"get after create failed: {_failure(got)}"
        found = self.record_of(got["data"], c.resource)
        if not isinstance(found, dict) or found.get(key) != rid:
            return "get after create returned another record"
        mismatch = _mismatches(c.as_stored(args), found, skip={"id", key})
        if mismatch:
            return f"get after create disagrees on {mismatch}"
        lister = self.lister(c, {**args, **data})
        if lister is not None:
            return self.list_contains(lister, world, rid, {**args, **data}, key)
        return None

    def lister(self, c: ToolContract, known: dict[str, Any]) -> ToolContract | None:
        """The list of ``c``'s resource to find a created record in: one whose required
        parameters the create's arguments and answer all give (``GetChecksIDLabels(checkID)``
        for a label made by ``PostChecksIDLabels(checkID)``, not another parent's list)."""
        lists = [
            other
            for other in self.contracts
            if other.resource == c.resource and other.verb == "list"
            and other.name in self.cls.tools
        ]  # fmt: skip
        return next((o for o in lists if set(o.required) <= set(known)), None) or (
            lists[0] if lists else None
        )

    def list_contains(
        self,
        lister: ToolContract,
        world: World,
        rid: str | int,
        known: dict[str, Any],
        key: str = "id",
    ) -> str | None:
        rng = random.Random(f"{self.seed}:{lister.name}:list")
        args = self.arguments(lister, world, rng, None)
        for p in lister.required:
            if p in known:
                args[p] = known[p]
        for envelope in self.pages(lister, world, args):
            if not envelope.get("success"):
                return f"list after create failed: {_failure(envelope)}"
            items, _ = _page(envelope["data"])
            if any(isinstance(i, dict) and i.get(key) == rid for i in items):
                return None
            if items and not any(isinstance(i, dict) and key in i for i in items):
                return None  # the items show no id (``[{name, status}]``): nothing to find
        return "the created record is not in the list"

    def pages(
        self, lister: ToolContract, world: World, args: dict[str, Any]
    ) -> Iterator[dict[str, Any]]:
        """A list's answers page after page, at the largest limit it takes, following its
        cursor, offset or page number; stops after a failure or an empty page."""
        args = dict(args)
        props = lister.properties
        if "limit" in props:
            node = simplify(props["limit"], lister.input_schema)
            args["limit"] = int(node.get("maximum") or 100) if main_type(node) == "integer" else 100
        offset = 0
        for _ in range(MAX_PAGES):
            envelope = self.call(world, lister.name, args)
            yield envelope
            if not envelope.get("success"):
                return
            items, cursor = _page(envelope["data"])
            if not items:
                return
            follow = next((p for p in props if snake(p) in CURSOR_PARAMS), None)
            if cursor and follow is not None:
                args[follow] = cursor
            elif "offset" in props:
                offset += len(items)
                args["offset"] = offset
            elif "page" in props:
                args["page"] = int(args.get("page") or 1) + 1
            else:
                return

    def listed(self, lister: ToolContract, world: World, args: dict[str, Any]) -> list[Any] | None:
        """Every record a list holds for ``args``, over all its pages (None if a page fails
        or the pages never end)."""
        items: list[Any] = []
        for n, envelope in enumerate(self.pages(lister, world, args), 1):
            if not envelope.get("success"):
                return None
            page, _ = _page(envelope["data"])
            items += page
            if n == MAX_PAGES and page:
                return None
        return items

    def update_then_get(
        self, c: ToolContract, getter: ToolContract, world: World, base: Any, outcome: _Outcome
    ) -> str | None:
        world.restore(base)
        for args in outcome.attempts:
            updated = self.call(world, c.name, args)
        own, _ = self.own_param(c)
        rid = outcome.attempts[-1].get(own) if own else outcome.record_id
        if rid is None and not own and not getter.required:
            rid = ""  # the one record of its kind (``toggle_data()``, ``check_data_status()``)
        if not isinstance(rid, str | int):
            return "cannot tell which record the update changed"
        got = self.get(getter, world, rid, outcome.attempts[-1])
        if not got.get("success"):
            return f"get after update failed: {_failure(got)}"
        skip = {"id", own or "", self.id_key(c.resource)}
        found = self.record_of(got["data"], c.resource)
        mismatch = _mismatches(c.as_stored(outcome.attempts[-1]), found, skip=skip)
        if mismatch:
            return f"get after update disagrees on {mismatch}"
        del updated
        return None

    def delete_then_get(
        self, c: ToolContract, getter: ToolContract, world: World, base: Any, outcome: _Outcome
    ) -> str | None:
        world.restore(base)
        for args in outcome.attempts:
            self.call(world, c.name, args)
        own, _ = self.own_param(c)
        rid = outcome.attempts[-1].get(own) if own else outcome.record_id
        if not isinstance(rid, str | int):
            return "cannot tell which record was deleted"
        got = self.get(getter, world, rid, outcome.attempts[-1])
        code = (got.get("error") or {}).get("code")
        if code != "not_found":
            return f"get after delete gave {code or 'success'}, not not_found"
        return None


# -- helpers ------------------------------------------------------------------------------
def _file_tree(state: Any) -> FileTree | None:
    """A shell service's file tree: the state's own, or as a sandbox worker reports it."""
    tree = getattr(state, "shell", None)
    if isinstance(tree, dict):
        try:
            return FileTree.model_validate(tree)
        except ValueError:
            return None
    return tree if isinstance(tree, FileTree) else None


def _with_service_refs(c: ToolContract, service_cls: type[Service]) -> ToolContract:
    """Ids the spec leaves untyped but the service declares (``Ref["files"]`` -> ``x-ref``)
    count as references too: the service says which collection it looks them up in."""
    td = service_cls.tools.get(c.name)
    if td is None:
        return c
    refs = dict(c.refs)
    collections = service_cls.State.collection_types
    for name, node in (td.input_schema.get("properties") or {}).items():
        ref = _x_ref(node)
        # the spec's guess names no collection (``collections``, kept as ``collections_``)
        if ref and refs.get(name) not in collections:
            refs[name] = ref
    return replace(c, refs=refs)


def _x_ref(node: Any) -> str | None:
    if not isinstance(node, dict):
        return None
    if isinstance(node.get("x-ref"), str):
        return node["x-ref"]
    for branch in node.get("anyOf") or ():
        found = _x_ref(branch)
        if found:
            return found
    return None


def _fit_id(value: Any, node: Any, root: dict[str, Any]) -> Any:
    """An id as the parameter takes it: ``17`` as ``"17"`` for a text parameter, ``"17"`` as
    ``17`` for an integer one (integer ids are text inside a service)."""
    kind = main_type(simplify(node, root))
    if kind == "string" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if kind in ("integer", "number") and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def _fits(value: Any, node: Any, root: dict[str, Any]) -> bool:
    """Whether a stored value is valid input for a parameter (a record's ``currency_to`` may
    be a number where the parameter of that name takes text)."""
    if value is None:
        return False
    return validate(value, simplify(node, root)) is None


def _shown_keys(c: ToolContract) -> set[str]:
    """The keys of the record(s) a tool answers with, as its output schema declares them:
    the answer's own, or those of a list's items (bare or in a page)."""
    node = simplify(c.output_schema, c.output_schema) if c.output_schema else {}
    if main_type(node) == "array":
        node = simplify(node.get("items"), c.output_schema)
    props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
    lists = [simplify(v, c.output_schema) for v in props.values() if isinstance(v, dict)]
    lists = [n for n in lists if main_type(n) == "array"]
    if len(lists) == 1 and len(props) <= 4:  # a page: ``{items: [...], next_cursor}``
        inner = simplify(lists[0].get("items"), c.output_schema)
        props = inner.get("properties") if isinstance(inner.get("properties"), dict) else props
    return set(props)


def _key(value: Any) -> str:
    """The key a stored reference names a record by: ids are text inside a service, and a
    whole number names one (``5.0``: ``"5"``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _required_state(c: ToolContract) -> tuple[str, Any] | None:
    """(status field, state) a tool acts from, where ingestion read it from the tool's name
    (``STATES_BY`` on the record's status: ``cancel_pending_order`` requires pending)."""
    props = (c.output_schema or {}).get("properties")
    for key, node in (props if isinstance(props, dict) else {}).items():
        marks = node.get(STATES_BY) if isinstance(node, dict) else None
        requires = marks.get("requires") if isinstance(marks, dict) else None
        if isinstance(requires, dict) and c.name in requires:
            return key, requires[c.name]
    return None


def _dump(record: Any) -> dict[str, Any]:
    return orjson.loads(orjson.dumps(record.model_dump(mode="json", by_alias=True)))


def _failure(envelope: dict[str, Any]) -> str | None:
    if envelope.get("success"):
        return None
    error = envelope.get("error") or {}
    return f"{error.get('code')}: {str(error.get('message'))[:300]}"


def _canon(envelope: dict[str, Any]) -> bytes:
    return orjson.dumps(envelope, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _whole(c: ToolContract, p: str) -> dict[str, Any]:
    """Parameter ``p``'s schema as declared, every branch of it (``simplify`` keeps one)."""
    defs = c.input_schema.get("$defs")
    node = c.properties.get(p)
    return {**({"$defs": defs} if defs else {}), **(node if isinstance(node, dict) else {})}


def _wrong(node: dict[str, Any], whole: dict[str, Any] | None = None) -> Any:
    """A value of the wrong JSON type for a node (``whole``: the node with all its branches
    must refuse it), or NOTHING when any type is accepted."""
    jtype = main_type(node)
    first = {
        "string": {"unexpected": [1]},
        "integer": "not-a-number",
        "number": "not-a-number",
        "boolean": "not-a-boolean",
        "array": 12345,
        "object": 12345,
    }.get(jtype or "", NOTHING)
    if first is NOTHING:
        return NOTHING
    if whole is None or not (whole.get("oneOf") or whole.get("anyOf")):
        return first
    # ``oneOf: [integer, string]``: a text is no wrong type there, an object is
    return next(
        (v for v in (first, {"unexpected": [1]}, 12345) if validate(v, whole) is not None),
        NOTHING,
    )


MAX_LAYERS = 4  # envelopes around a record or a page, at most


def _page(data: Any) -> tuple[list[Any], str | None]:
    """The records of a list result and its next cursor, whatever the wrapper is called."""
    if isinstance(data, list):
        return data, None
    if not isinstance(data, dict):
        return [], None
    items: list[Any] | None = None
    for value in data.values():
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            items = value
            break
    cursor = next(
        (data[k] for k in NEXT_CURSOR_KEYS if isinstance(data.get(k), str) and data.get(k)),
        None,
    )
    inner = [v for v in data.values() if isinstance(v, dict)]
    if items is None and len(inner) == 1:  # ``{action, result, data: {probes: [...]}}``
        items, below = _page(inner[0])
        cursor = cursor or below
    return items or [], cursor


def _holds_key(value: Any, key: str, depth: int) -> bool:
    """Whether an object holding ``key`` lies within ``value``: itself, the one item of a
    list, or below one of its values (``depth`` layers at most)."""
    if depth <= 0:
        return False
    if isinstance(value, list):
        return len(value) == 1 and _holds_key(value[0], key, depth - 1)
    if not isinstance(value, dict):
        return False
    return key in value or any(_holds_key(v, key, depth - 1) for v in value.values())


def _promises_cursor(c: ToolContract, data: Any) -> bool:
    """Whether a list's answer has a place for the next page's cursor (shown, or declared
    by its output schema: an answer may leave an empty one out)."""
    declared = (
        simplify(c.output_schema, c.output_schema).get("properties") if c.output_schema else None
    )
    keys = set(data) if isinstance(data, dict) else set()
    keys |= set(declared) if isinstance(declared, dict) else set()
    return isinstance(data, dict) and any(k in keys for k in NEXT_CURSOR_KEYS)


def _scalar(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """The node of one value a filter parameter takes: itself, or a list parameter's item;
    None for an object (not a filter on one value)."""
    if main_type(node) == "array":
        node = simplify(node.get("items"), root)
    return None if main_type(node) in ("object", "array") else node


def _values(value: Any) -> list[Any]:
    """The values a record shows under a key: a list's members, or the one value."""
    values = value if isinstance(value, list) else [value]
    return [v for v in values if v is not None and not isinstance(v, dict | list)]


def _holds(shown: Any, value: Any) -> bool:
    """Whether a record showing ``shown`` matches filter ``value``: equal (text in any case,
    a number as its digits, one moment in two spellings) or, for text, containing it."""
    if isinstance(shown, bool) or isinstance(value, bool):  # True is no 1
        return isinstance(shown, bool) and isinstance(value, bool) and shown == value
    if isinstance(shown, int | float) and isinstance(value, int | float):
        return float(shown) == float(value)
    a, b = str(shown).casefold(), str(value).casefold()
    if a == b or (isinstance(shown, str) and isinstance(value, str) and b and b in a):
        return True
    moment = _moment(str(shown))
    return moment is not None and moment == _moment(str(value))


def _name(item: dict[str, Any], ident: str, key: str | None) -> str:
    """A listed record as a failure names it: by id, and the value it shows for ``key``."""
    first = ident if ident in item else next(iter(item), None)  # items showing no id
    named = f"the record whose {first} is {item[first]!r}" if first is not None else "a record"
    return f"{named} ({key} {item[key]!r})" if key in item and key != first else named


def _one(a: dict[str, Any], b: dict[str, Any], ident: str) -> bool:
    """Whether two listed items are one record: the same id, or (items showing no id) the
    same values."""
    if ident in a and ident in b:
        return str(a[ident]) == str(b[ident])
    return ident not in a and ident not in b and _canon(a) == _canon(b)


def _ordered(value: Any) -> bool:
    """A value a range compares: a number, or a date or timestamp in text."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and _moment(value) is not None)


def _on_side(value: Any, bound: Any, op: str) -> bool:
    """Whether ``value`` is within a ``ge``/``le`` bound (values that do not compare are)."""
    a: Any
    b: Any
    if isinstance(value, str) and isinstance(bound, str):
        a, b = _moment(value), _moment(bound)
    elif _ordered(value) and _ordered(bound) and not isinstance(value, str):
        a, b = value, bound
    else:
        return True
    if a is None or b is None or isinstance(b, str):
        return True
    return a >= b if op == "ge" else a <= b


def _mismatches(sent: dict[str, Any], found: Any, skip: set[str]) -> str | None:
    if not isinstance(found, dict):
        return "a result that is not an object"
    for key, value in sent.items():
        if key not in skip and key not in found and _change_set(value, found):
            # an update's object of the record's own fields: its members are what it sets
            mismatch = _mismatches(value, found, skip)
            if mismatch:
                return mismatch
        if key in skip or key not in found or value is None:
            continue
        if not _same(value, found[key]):
            return f"{key!r}: sent {value!r}, read {found[key]!r}"
    return None


def _change_set(value: Any, found: dict[str, Any]) -> bool:
    """An object sent under a name the record lacks, more than half of whose members it
    holds (``updates: {title, priority}`` of a ticket)."""
    if not isinstance(value, dict) or not value:
        return False
    return 2 * sum(k in found for k in value) > len(value)


def _same(sent: Any, stored: Any) -> bool:
    if isinstance(sent, dict) and isinstance(stored, dict):
        return all(k in stored and _same(v, stored[k]) for k, v in sent.items() if v is not None)
    if isinstance(sent, list) and isinstance(stored, list):
        return len(sent) == len(stored) and all(
            _same(a, b) for a, b in zip(sent, stored, strict=True)
        )
    if isinstance(sent, bool) or isinstance(stored, bool):  # True is no 1
        return isinstance(sent, bool) and isinstance(stored, bool) and sent == stored
    if isinstance(sent, int | float) and isinstance(stored, int | float):
        return abs(float(sent) - float(stored)) < 1e-9
    if isinstance(sent, str) and isinstance(stored, str):
        return sent == stored or _moment(sent) == _moment(stored) is not None
    return sent == stored


def _moment(text: str) -> Any:
    """Dates and timestamps compare by value: ``...Z`` and ``...+00:00`` are one instant."""
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
