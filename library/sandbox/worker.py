"""The sandbox worker: ``python -m library.sandbox.worker``, started by ``Sandbox``.

It reads one ``init`` message (policy, tmp folder, parent pid), locks itself down for good
(``lockdown.lock_down``), answers with its lockdown report, then serves requests until its
stdin closes. Requests are dicts with an ``op``:

    load          name, source          -> [service description]   exec untrusted source
    mount         services, seed, size, states, pool_seed -> {tools}  build the World
    call          tool, args            -> envelope
    calls         calls: [[tool, args]] -> [envelope]
    state_hash / export_states / load_states(states) / snapshot -> token / restore(token)
    tool_schemas  fmt                   -> [schema]
    world_new     service, seed, size   -> world id    one more World of one service (seeded)
    view          world                 -> {now, states}   the world's clock and records
    digest        world                 -> str   a hash of those records, dumped afresh
    ping                                -> "pong"
    describe                            -> [service description]   of the mounted services
    invoke        target, payload       -> any JSON    run a trusted function (see ``invoke``)

Every request carries an ``id`` (the parent's nonce for that request), which every answer
echoes, and may carry ``cpu`` (seconds of CPU it may use) and ``world`` (a ``world_new`` id;
default: the mounted World). Answers are ``{"id", "ok": true, "result": ...}`` or
``{"id", "ok": false, "error": {"kind", "message"}, "violations": [...]}``.

The worker only *executes*: whatever it answers is data to the parent, which decides every
verdict itself (``library.verify.remote``). Untrusted code shares this process, so it can
reach this loop; the id lets the parent detect an answer that is not this loop's reply to
this request, and it then kills the worker.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import linecache
import os
import re
import sys
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from library.runtime import Service, World
from library.runtime.tool import ToolDef
from library.runtime.world import Snapshot
from library.sandbox import guard, kernel, wire
from library.sandbox.policy import SandboxPolicy

_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
TRUSTED_SERVICE_PREFIX = "library.services."


class Refusal(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


@dataclass
class InvokeContext:
    """What a trusted ``invoke`` target receives as its first argument.

    A target is ``def check(ctx: InvokeContext, payload: Any) -> Any`` (JSON in, JSON out)
    in a module under one of the policy's ``invoke_prefixes``. It runs inside the locked-down
    worker, so it may instantiate and call the untrusted classes in ``services`` (keyed
    ``"module:Class"``). Setting ``ctx.world`` makes that World the worker's current one.
    """

    services: dict[str, type[Service]]
    world: World | None
    tmp_dir: str
    policy: SandboxPolicy


def _field(msg: dict, name: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    value = msg.get(name, default)
    if value is ... or not isinstance(value, kind):
        raise Refusal("bad_request", f"{msg.get('op')}: {name!r} must be {kind}")
    return value


def describe_exception(exc: BaseException) -> str:
    """``Type: message (at <module> line N: code)``, naming the untrusted line when there is
    one, so a repair loop knows where to look."""
    where = ""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.startswith("<sandboxed:"):
            where = f" (at {frame.filename[1:-1]} line {frame.lineno}: {frame.line})"
            break
    return f"{type(exc).__name__}: {exc}{where}"


def _guard_tool(td: ToolDef, memory_mb: int) -> None:
    """run_tool turns every Exception into an ``internal`` envelope; a MemoryError must be
    reported as the memory limit instead."""
    func = td.func

    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MemoryError:
            guard.record(f"{guard.MEMORY_LIMIT}: {memory_mb} MB exhausted in tool {td.name}")
            raise

    td.func = guarded


def describe_service(ref: str, cls: type[Service]) -> dict[str, Any]:
    return {
        "ref": ref,
        "class_name": cls.__name__,
        "service": cls.name,
        "description": cls.description,
        # Collections and their records' field aliases: the parent's checks need no classes.
        "collections": {
            coll: {f: info.alias for f, info in rec.model_fields.items()}
            for coll, rec in cls.State.collection_types.items()
        },
        "tools": [
            {
                "name": td.name,
                "description": td.description,
                "write": td.write,
                "input_schema": td.input_schema,
                "output_schema": td.output_schema,
            }
            for td in cls.tools.values()
        ],
    }


class Worker:
    def __init__(self, policy: SandboxPolicy, tmp_dir: str, import_roots: frozenset[str]) -> None:
        self.policy = policy
        self.tmp_dir = tmp_dir
        self.import_roots = import_roots
        self.builtins = guard.restricted_builtins(guard.ImportRule(policy.allowed_imports))
        self.modules: dict[str, types.ModuleType] = {}
        self.services: dict[str, type[Service]] = {}
        self.world: World | None = None
        self.snapshots: dict[int, Snapshot] = {}
        # Extra worlds (world_new) with their own snapshots; 0 is the mounted world.
        self.worlds: dict[int, World] = {}
        self.world_snapshots: dict[int, dict[int, Snapshot]] = {}
        self.ops: dict[str, Callable[[dict], Any]] = {
            "load": self.load,
            "mount": self.mount,
            "call": self.call,
            "calls": self.calls,
            "state_hash": lambda msg: self._world(msg).state_hash(),
            "export_states": lambda msg: self._world(msg).export_states(),
            "load_states": self.load_states,
            "snapshot": self.snapshot,
            "restore": self.restore,
            "tool_schemas": self.tool_schemas,
            "invoke": self.invoke,
            "world_new": self.world_new,
            "view": self.view,
            "digest": self.digest,
            "ping": lambda msg: "pong",
            "describe": lambda msg: [
                describe_service(f"{type(svc).__module__}:{type(svc).__name__}", type(svc))
                for svc in self._world(msg).services.values()
            ],
        }

    # -- the loop ---------------------------------------------------------------------------
    def serve(self, reader: Any, writer: Any) -> None:
        while (msg := wire.read_message(reader)) is not None:
            response = self.handle(msg)
            try:
                data = wire.encode(response)
            except (TypeError, MemoryError) as exc:
                kind = "memory_limit" if isinstance(exc, MemoryError) else "invoke_error"
                data = wire.encode(_error(kind, f"result cannot be sent: {exc}"))
            writer.write(data)
            writer.flush()

    def handle(self, msg: Any) -> dict[str, Any]:
        if not isinstance(msg, dict):
            return _error("bad_request", "a request must be a JSON object")
        op = msg.get("op")
        try:
            kernel.arm_cpu(_field(msg, "cpu", (int, float), self.policy.cpu_seconds))
            fn = self.ops.get(op)  # type: ignore[arg-type]
            if fn is None:
                raise Refusal("bad_request", f"unknown op {op!r}")
            response = {"ok": True, "result": fn(msg)}
        except Refusal as exc:
            response = _error(exc.kind, exc.message)
        except MemoryError:
            message = f"{guard.MEMORY_LIMIT}: {self.policy.memory_mb} MB exhausted in {op}"
            guard.record(message)
            response = _error("memory_limit", message)
        except Exception as exc:
            kind = "invoke_error" if op == "invoke" else "service_error"
            response = _error(kind, describe_exception(exc))
        except BaseException as exc:  # SystemExit and friends from untrusted code
            response = _error("aborted", f"{op}: untrusted code raised {describe_exception(exc)}")
        violations = guard.drain()
        if violations:
            response = _error(guard.kind_of(violations[0]), violations[0])
            response["violations"] = violations
        response["id"] = msg.get("id")
        return response

    # -- ops --------------------------------------------------------------------------------
    def load(self, msg: dict) -> list[dict[str, Any]]:
        name = _field(msg, "name", str)
        source = _field(msg, "source", str)
        if not _MODULE_NAME.fullmatch(name):
            raise Refusal("bad_request", f"module name {name!r} must be a Python identifier")
        if name in self.import_roots or (name in sys.modules and name not in self.modules):
            raise Refusal("bad_request", f"module name {name!r} is taken by a real module")
        filename = f"<sandboxed:{name}>"
        try:
            code = compile(source, filename, "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise Refusal("load_error", f"SyntaxError: {exc.msg} (line {exc.lineno})") from None
        module = types.ModuleType(name)
        module.__dict__["__builtins__"] = dict(self.builtins)  # one module can't edit another's
        # Source lines for tracebacks; mtime None keeps linecache from looking for a file.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        # Registered so pydantic and typing can resolve the module's string annotations.
        sys.modules[name] = module
        try:
            exec(code, module.__dict__)
        except BaseException as exc:
            sys.modules.pop(name, None)
            if isinstance(exc, MemoryError) or not isinstance(exc, Exception):
                raise  # the memory limit, SystemExit...: handled (and reported) by handle()
            raise Refusal("load_error", describe_exception(exc)) from None
        found = {
            f"{name}:{value.__name__}": value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Service)
            and value.__module__ == name
            and isinstance(getattr(value, "name", None), str)
        }
        if not found:
            sys.modules.pop(name, None)
            raise Refusal("load_error", f"{name} defines no Service subclass with a name")
        for cls in found.values():
            for td in cls.tools.values():
                _guard_tool(td, self.policy.memory_mb)
        self.services = {k: v for k, v in self.services.items() if not k.startswith(name + ":")}
        self.services.update(found)
        self.modules[name] = module
        return [describe_service(ref, cls) for ref, cls in found.items()]

    def _resolve(self, ref: str) -> type[Service]:
        if ref in self.services:
            return self.services[ref]
        module, _, attr = ref.partition(":")
        if module.startswith(TRUSTED_SERVICE_PREFIX) and attr:
            cls = getattr(importlib.import_module(module), attr, None)
            if isinstance(cls, type) and issubclass(cls, Service):
                return cls
        raise Refusal("bad_request", f"unknown service {ref!r}; loaded: {sorted(self.services)}")

    def _world(self, msg: dict | None = None) -> World:
        wid = (msg or {}).get("world")
        if wid is not None:
            world = self.worlds.get(wid) if isinstance(wid, int) else None
            if world is None:
                raise Refusal("bad_request", f"unknown world {wid!r}")
            return world
        if self.world is None:
            raise Refusal("bad_request", "no world mounted in this worker")
        return self.world

    def _snapshots(self, msg: dict) -> dict[int, Snapshot]:
        wid = msg.get("world")
        return self.snapshots if wid is None else self.world_snapshots[wid]

    def world_new(self, msg: dict) -> int:
        from library.seed import seed_pool

        cls = self._resolve(_field(msg, "service", str))
        seed = _field(msg, "seed", int, 0)
        size = _field(msg, "size", int, 10)
        world = World([cls()], seed=seed)
        world.seed_states(seed_pool(seed), size)
        wid = max(self.worlds, default=0) + 1  # never one a mount chose
        self.worlds[wid], self.world_snapshots[wid] = world, {}
        return wid

    def digest(self, msg: dict) -> str:
        """What the parent's ``hash_states`` gives for ``view``'s states, without sending
        them (the records are dumped afresh: a state changed in place still shows)."""
        states = self.view(msg)["states"]
        payload = orjson.dumps(states, option=orjson.OPT_SORT_KEYS)
        return hashlib.blake2b(payload, digest_size=16).hexdigest()

    def view(self, msg: dict) -> dict[str, Any]:
        world = self._world(msg)
        states = {
            name: svc.state.model_dump(mode="json", by_alias=True)
            for name, svc in world.services.items()
        }
        return {"now": world.now().isoformat(), "states": states}

    def mount(self, msg: dict) -> dict[str, Any]:
        from library.seed import seed_pool

        refs = _field(msg, "services", list)
        seed = _field(msg, "seed", int, 0)
        size = _field(msg, "size", (int, type(None)), None)
        states = _field(msg, "states", (dict, type(None)), None)
        pool_seed = _field(msg, "pool_seed", (int, type(None)), None)
        wid = _field(msg, "world", (int, type(None)), None)
        classes = [self._resolve(ref) for ref in refs]
        if wid is None:
            self.world, self.snapshots = None, {}
        else:  # a World of its own beside the others (envs sharing this worker)
            self.worlds.pop(wid, None)
            self.world_snapshots[wid] = {}
        world = World([cls() for cls in classes], seed=seed)
        if states is not None:
            world.load_states(states)
        elif size is not None:
            world.seed_states(seed_pool(seed if pool_seed is None else pool_seed), size)
        if wid is None:
            self.world = world
        else:
            self.worlds[wid] = world
        return {"services": sorted(world.services), "tools": world.tool_names}

    def call(self, msg: dict) -> dict:
        return self._world(msg).call(_field(msg, "tool", str), msg.get("args"))

    def calls(self, msg: dict) -> list[dict]:
        world = self._world(msg)
        return [world.call(tool, args) for tool, args in _field(msg, "calls", list)]

    def load_states(self, msg: dict) -> None:
        self._world(msg).load_states(_field(msg, "states", dict))

    def snapshot(self, msg: dict) -> int:
        world = self._world(msg)
        snapshots = self._snapshots(msg)
        token = len(snapshots) + 1
        snapshots[token] = world.snapshot()
        return token

    def restore(self, msg: dict) -> None:
        world = self._world(msg)
        snap = self._snapshots(msg).get(_field(msg, "token", int))
        if snap is None:
            raise Refusal("bad_request", "unknown snapshot token")
        world.restore(snap)

    def tool_schemas(self, msg: dict) -> list[dict]:
        return self._world(msg).tool_schemas(_field(msg, "fmt", str, "openai"))

    def invoke(self, msg: dict) -> Any:
        """Run a trusted function by dotted path (``pkg.mod.func`` or ``pkg.mod:func``)
        under one of ``policy.invoke_prefixes``; see ``InvokeContext``."""
        target = _field(msg, "target", str)
        dotted = target.replace(":", ".")
        module_name, _, attr = target.partition(":") if ":" in target else target.rpartition(".")
        if not any(dotted.startswith(p) for p in self.policy.invoke_prefixes) or (
            not attr or attr.startswith("_")
        ):
            raise Refusal("bad_request", f"invoke target {target!r} is not allowed")
        try:
            fn = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise Refusal("bad_request", f"invoke target {target!r}: {exc}") from None
        ctx = InvokeContext(dict(self.services), self.world, self.tmp_dir, self.policy)
        result = fn(ctx, msg.get("payload"))
        if ctx.world is not self.world:
            self.world, self.snapshots = ctx.world, {}
        return result


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"kind": kind, "message": message}}


def main() -> None:
    from library.sandbox.lockdown import import_roots, lock_down

    # The protocol owns the original stdin/stdout; fd 0 becomes /dev/null and fd 1 (and
    # sys.stdout) the log, so nothing a service prints can corrupt a message.
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    reader = os.fdopen(rfd, "rb", buffering=1 << 16)
    writer = os.fdopen(wfd, "wb", buffering=1 << 16)
    init = wire.read_message(reader)
    if not isinstance(init, dict):
        os._exit(2)
    policy = SandboxPolicy.model_validate(init["policy"])
    report = lock_down(policy, init["tmp_dir"], init["parent_pid"])
    worker = Worker(policy, init["tmp_dir"], import_roots(policy))
    wire.write_message(writer, {"ok": True, "result": report, "id": init.get("id")})
    worker.serve(reader, writer)
    # Skip interpreter finalization: nothing to flush, and untrusted objects' __del__
    # methods have no business running at exit.
    os._exit(0)


if __name__ == "__main__":
    main()
