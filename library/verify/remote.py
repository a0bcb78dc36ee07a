"""The conformance suite run in the trusted parent against a service living in a sandbox
worker: the worker only executes tool calls and reports states; every check, comparison and
verdict is computed here, over that data. Nothing the untrusted module does to its own
interpreter (replacing ``run_conformance``, the runtime, the guard) can change a verdict; it
can only change what its tools answer, which is what the checks judge.

States are hashed here from the records the worker reports, not by the worker's hash code,
and the JSON round trip is judged by loading the reported state back and comparing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import orjson

from library.runtime.world import qualified
from library.sandbox.client import LoadedService, Sandbox, ToolInfo
from library.sandbox.errors import SandboxError
from library.toolspec import ToolSpec
from library.verify.conformance import (
    SEED_SIZE,
    CheckResult,
    _Suite,
    _with_service_refs,
    check_every_tool,
)
from library.verify.contracts import contract


class _Record(dict):
    """A record as the worker reported it; ``model_dump`` for the suite's record helpers."""

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return dict(self)


class _StateView:
    """A reported state: one attribute per collection, records keyed by id."""

    def __init__(self, collections: dict[str, Any]) -> None:
        for name, records in collections.items():
            if isinstance(records, dict):
                records = {k: _Record(v) if isinstance(v, dict) else v for k, v in records.items()}
            setattr(self, name, records)


class _Field:
    def __init__(self, alias: str | None) -> None:
        self.alias = alias


class _RecordClass:
    """A record class as described by the worker: its fields and their aliases."""

    def __init__(self, fields: dict[str, str | None]) -> None:
        self.model_fields = {name: _Field(alias) for name, alias in fields.items()}


class _StateClass:
    def __init__(self, collections: dict[str, dict[str, str | None]]) -> None:
        self.collection_types = {c: _RecordClass(f) for c, f in collections.items()}


class RemoteService:
    """What the suite needs of a Service class, from the worker's description of it."""

    def __init__(self, loaded: LoadedService) -> None:
        self.ref = loaded.ref
        self.name = loaded.service
        self.tools: dict[str, ToolInfo] = {t.name: t for t in loaded.tools}
        self.State = _StateClass(loaded.collections)


def hash_states(states: dict[str, Any]) -> str:
    return hashlib.blake2b(
        orjson.dumps(states, option=orjson.OPT_SORT_KEYS), digest_size=16
    ).hexdigest()


class RemoteWorld:
    """One World in the worker, seen from the parent. Once the sandbox has failed, every
    method raises that failure again without touching the (new) worker."""

    def __init__(self, suite: RemoteSuite, wid: int) -> None:
        self.suite, self.sandbox, self.wid = suite, suite.sandbox, wid
        self._view: dict[str, Any] | None = None
        self._at: int | None = None  # the snapshot the world is known to be at

    def _guard(self) -> None:
        if self.suite.failure is not None:
            raise self.suite.failure

    def _do(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self._guard()
        try:
            return fn(*args, world=self.wid, **kwargs)
        except SandboxError as exc:
            if exc.restarted:
                self.suite.failure = exc
            raise

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        self._view = self._at = None  # any call may change the state (read_only is checked)
        return self._do(self.sandbox.call, tool, args)

    def snapshot(self) -> int:
        token = self._do(self.sandbox.snapshot)
        self._at = token
        return token

    def restore(self, token: int) -> None:
        if self._at == token:  # nothing ran since it was taken or restored: still there
            return
        self._view = None
        self._do(self.sandbox.restore, token)
        self._at = token

    def invalidate(self) -> None:
        self._view = None

    def export_states(self) -> dict[str, dict]:
        return self._do(self.sandbox.export_states)

    def load_states(self, states: dict[str, dict]) -> None:
        self._view = self._at = None
        self._do(self.sandbox.load_states, states)

    def view(self) -> dict[str, Any]:
        if self._view is None:
            self._view = self._do(self.sandbox.view)
        return self._view

    def now(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.view()["now"])

    def state(self) -> _StateView:
        return _StateView(self.view()["states"].get(self.suite.name) or {})

    def state_hash(self) -> str:
        if self._view is not None:
            return hash_states(self._view["states"])
        # Only the hash is needed: the worker dumps the records afresh and hashes them the
        # same way (a lie there is no worse than lying records; the comparison is here).
        return self._do(self.sandbox.digest)


class RemoteSuite(_Suite):
    """``conformance._Suite`` with its worlds in the worker."""

    def __init__(
        self, sandbox: Sandbox, service: RemoteService, specs: list[Any], seed: int, size: int
    ) -> None:
        self.sandbox = sandbox
        self.failure: SandboxError | None = None
        contracts = [_with_service_refs(contract(s), service) for s in specs]  # type: ignore[arg-type]
        super().__init__(service, contracts, seed, size)  # type: ignore[arg-type]

    def world(self) -> RemoteWorld:  # type: ignore[override]
        if self.failure is not None:
            raise self.failure
        service: RemoteService = self.cls  # type: ignore[assignment]
        try:
            wid = self.sandbox.new_world(service.ref, seed=self.seed, size=self.size)
        except SandboxError as exc:
            if exc.restarted:
                self.failure = exc
            raise
        return RemoteWorld(self, wid)

    def call(self, world: RemoteWorld, tool: str, args: dict[str, Any]) -> dict[str, Any]:  # type: ignore[override]
        return world.call(qualified(self.name, tool), args)

    def state(self, world: RemoteWorld) -> Any:  # type: ignore[override]
        return world.state()

    def fresh_hash(self, world: RemoteWorld) -> str:  # type: ignore[override]
        world.invalidate()
        return world.state_hash()

    def _round_trip(self, world: RemoteWorld) -> str | None:  # type: ignore[override]
        # The exported state loaded back into the service and reported again must match.
        before = self.fresh_hash(world)
        token = world.snapshot()
        world.load_states(world.export_states())
        after = world.state_hash()
        world.restore(token)
        if after != before:
            return "the state reloaded from JSON hashes differently"
        return None


def run_remote_conformance(
    sandbox: Sandbox,
    loaded: LoadedService,
    specs: list[ToolSpec] | list[dict[str, Any]],
    seed: int = 0,
    size: int = SEED_SIZE,
) -> list[CheckResult]:
    """Every conformance check for every tool of ``specs`` against the loaded service, judged
    here. Raises the ``SandboxError`` that ended the worker (a sandbox rule, a limit, a
    protocol breach): the service is then rejected with that reason, not partly verified."""
    service = RemoteService(loaded)
    suite = RemoteSuite(sandbox, service, list(specs), seed, size)

    def stop_on_failure() -> None:
        if suite.failure is not None:
            raise suite.failure

    results = check_every_tool(suite, service.name, stop_on_failure)
    # A forged frame still in the pipe (written beside a real reply) shows up here.
    sandbox.ping()
    return results
