"""``World``: the services mounted for one episode, with calls, snapshots, hashes and diffs."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from library.runtime.collection import Collection
from library.runtime.errors import ErrorCode, ToolError, fail, ok
from library.runtime.service import DEFAULT_EPOCH, Record, Service, State
from library.runtime.tool import ToolDef

SEP = "__"  # qualified tool names are "<service>__<tool>": legal as OpenAI function names


def qualified(service: str, tool: str) -> str:
    return f"{service}{SEP}{tool}"


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def parse_arguments(arguments: dict | str | bytes | None) -> dict:
    if arguments is None:
        return {}
    if isinstance(arguments, str | bytes):
        try:
            arguments = orjson.loads(arguments or b"{}")
        except orjson.JSONDecodeError as exc:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT, f"arguments are not valid JSON: {exc}"
            ) from None
    if not isinstance(arguments, dict):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"arguments must be a JSON object, got {type(arguments).__name__}",
        )
    return arguments


def run_tool(
    service: Service, td: ToolDef, arguments: dict | str | bytes | None, label: str
) -> dict:
    """Validate, execute and wrap one call. Nothing escapes; a failed call changes nothing."""
    try:
        args = td.args_model.model_validate(parse_arguments(arguments))
    except ValidationError as exc:
        return fail(ErrorCode.INVALID_ARGUMENT, describe_validation_error(exc))
    except ToolError as exc:
        return fail(exc.code, exc.message)
    before = service.state
    if td.write:
        service.state = before.clone()
    try:
        result = td.func(service, **args.__dict__)
        data = td.dump_output(result)
    except ToolError as exc:
        service.state = before
        return fail(exc.code, exc.message)
    except Exception as exc:  # an unexpected failure inside the tool: report, never raise
        service.state = before
        return fail(ErrorCode.INTERNAL, f"{label} raised {type(exc).__name__}: {exc}")
    return ok(data)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """References to the (immutable) states at one moment: taking and restoring are O(services)."""

    states: dict[str, State]
    clock: dt.datetime
    rng_state: Any


@dataclass(slots=True)
class CollectionDiff:
    added: dict[str, dict] = field(default_factory=dict)
    deleted: dict[str, dict] = field(default_factory=dict)
    updated: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.added or self.deleted or self.updated)


@dataclass(slots=True)
class WorldDiff:
    """Record-level changes: ``services[service][collection]`` -> added / updated / deleted."""

    services: dict[str, dict[str, CollectionDiff]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return any(self.services.values())

    def collection(self, service: str, collection: str) -> CollectionDiff:
        return self.services.get(service, {}).get(collection, CollectionDiff())

    def to_dict(self) -> dict:
        return {
            svc: {
                coll: {"added": d.added, "deleted": d.deleted, "updated": d.updated}
                for coll, d in colls.items()
            }
            for svc, colls in self.services.items()
        }


def _record_changes(old: Record, new: Record) -> dict[str, tuple[Any, Any]]:
    a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
    return {k: (a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


def diff_states(old: State, new: State) -> dict[str, CollectionDiff]:
    out: dict[str, CollectionDiff] = {}
    if old is new:
        return out
    for name in type(new).collection_types:
        before: dict[str, Record] = getattr(old, name)
        after: dict[str, Record] = getattr(new, name)
        if before is after or (isinstance(before, Collection) and before.shares(after)):
            continue  # every write clones every collection; only the written ones differ
        if isinstance(before, Collection):
            before = before.to_dict()  # plain dicts: membership tests in C, not per key
        if isinstance(after, Collection):
            after = after.to_dict()
        d = CollectionDiff()
        # Sets built as ``keys() - keys()`` and ``keys() & keys()`` build them (same order).
        for rid in {rid for rid in after if rid not in before}:
            d.added[rid] = after[rid].model_dump(mode="json")
        for rid in {rid for rid in before if rid not in after}:
            d.deleted[rid] = before[rid].model_dump(mode="json")
        for rid in {rid for rid in after if rid in before}:
            if before[rid] is not after[rid]:
                changes = _record_changes(before[rid], after[rid])
                if changes:
                    d.updated[rid] = changes
        if d:
            out[name] = d
    return out


def hash_state(state: State) -> str:
    payload = orjson.dumps(state.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


class World:
    """Mounted services for one episode.

    ``call(tool, args)`` always returns an envelope. States are copy-on-write, so
    ``snapshot()``/``restore()`` swap references and ``state_hash()`` rehashes only the
    services whose state object changed since the last hash.
    """

    def __init__(
        self, services: Iterable[Service], *, seed: int = 0, start: dt.datetime | None = None
    ) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self._clock = start or (DEFAULT_EPOCH + dt.timedelta(days=seed % 365))
        self.services: dict[str, Service] = {}
        self._routes: dict[str, tuple[Service, ToolDef]] = {}
        self._hashes: dict[str, tuple[State, str]] = {}
        for service in services:
            self.mount(service)

    # -- mounting -------------------------------------------------------------------------
    def mount(self, service: Service) -> None:
        if service.name in self.services:
            raise ValueError(f"service {service.name!r} is already mounted")
        service.world = self
        self.services[service.name] = service
        for td in service.tools.values():
            self._routes[qualified(service.name, td.name)] = (service, td)

    def seed_states(self, pool: Any, size: int = 20) -> None:
        """Give every service its initial state from the shared pool, deterministically."""
        for name in sorted(self.services):
            svc = self.services[name]
            rng = random.Random(f"{self.seed}:{name}")
            svc.state = svc.seed(pool, rng, size)

    def invalidate(self, service: str | None = None) -> None:
        """Forget cached hashes (only needed after mutating a state outside ``call``)."""
        if service is None:
            self._hashes.clear()
        else:
            self._hashes.pop(service, None)

    # -- clock ----------------------------------------------------------------------------
    def now(self) -> dt.datetime:
        return self._clock

    def advance(self, seconds: float) -> None:
        self._clock += dt.timedelta(seconds=seconds)

    # -- calls ----------------------------------------------------------------------------
    @property
    def tool_names(self) -> list[str]:
        return list(self._routes)

    def tool(self, name: str) -> tuple[Service, ToolDef] | None:
        return self._routes.get(name)

    def call(self, tool_name: str, arguments: dict | str | bytes | None = None) -> dict:
        route = self._routes.get(tool_name)
        if route is None:
            return fail(ErrorCode.NOT_FOUND, unknown_tool_message(tool_name, self._routes))
        return run_tool(route[0], route[1], arguments, tool_name)

    def tool_schemas(self, fmt: str = "openai") -> list[dict]:
        if fmt not in ("openai", "mcp"):
            raise ValueError(f"fmt must be 'openai' or 'mcp', not {fmt!r}")
        return [
            td.openai_schema(name) if fmt == "openai" else td.mcp_schema(name)
            for name, (_, td) in self._routes.items()
        ]

    # -- state ----------------------------------------------------------------------------
    @property
    def rng(self) -> random.Random:
        """The world's random generator. Whoever asks for it may draw from it, so the next
        snapshot reads its state again; until then snapshots share the state read last
        (reading it copies 625 words, and composition snapshots a world ~200 times per
        task). Ask for ``world.rng`` at each use rather than keeping it across snapshots."""
        self._rng_state = None
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._rng_state: Any = None

    def snapshot(self) -> Snapshot:
        rng_state = self._rng_state
        if rng_state is None:
            rng_state = self._rng_state = self._rng.getstate()
        return Snapshot(
            states={name: svc.state for name, svc in self.services.items()},
            clock=self._clock,
            rng_state=rng_state,
        )

    def restore(self, snap: Snapshot) -> None:
        for name, state in snap.states.items():
            self.services[name].state = state
        self._clock = snap.clock
        if snap.rng_state is not self._rng_state:  # unchanged since that snapshot: no copy
            self._rng.setstate(snap.rng_state)
            self._rng_state = snap.rng_state

    def service_hash(self, name: str) -> str:
        state = self.services[name].state
        cached = self._hashes.get(name)
        if cached is not None and cached[0] is state:
            return cached[1]
        digest = hash_state(state)
        self._hashes[name] = (state, digest)
        return digest

    def state_hash(self) -> str:
        h = hashlib.blake2b(digest_size=16)
        for name in sorted(self.services):
            h.update(f"{name}={self.service_hash(name)};".encode())
        return h.hexdigest()

    def diff(self, before: Snapshot, after: Snapshot | None = None) -> WorldDiff:
        after = after or self.snapshot()
        out = WorldDiff()
        for name, new in after.states.items():
            old = before.states.get(name)
            if old is None:
                continue
            changes = diff_states(old, new)
            if changes:
                out.services[name] = changes
        return out

    def export_states(self) -> dict[str, dict]:
        return {name: svc.state.model_dump(mode="json") for name, svc in self.services.items()}

    def load_states(self, states: dict[str, dict]) -> None:
        for name, data in states.items():
            if name not in self.services:
                raise KeyError(f"no mounted service named {name!r}")
            self.services[name].load_state(data)


def unknown_tool_message(name: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown tool {name!r}{hint}"
