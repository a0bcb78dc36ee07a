"""Episode environments: a small reset/call/state interface in the spirit of OpenEnv.

``reset(task, mode)`` builds the task's World: its services with ``task.initial_state`` and,
in gateway mode, its distractor services seeded from the shared pool with the task seed (as
composition did). ``tools()`` are the OpenAI schemas the agent sees: every tool of the task's
services (direct) or the four meta-tools over every mounted service (gateway). ``call``
returns the runtime's envelope. ``final_states()`` exports the task's services (what the
rubric reads); ``state_hash()`` covers every mounted service.

``InProcessEnv`` runs trusted service classes (reference services, our compiler's output in
tests and benches) in this process; its calls take microseconds, so the engine runs them
inline. ``SandboxEnv`` runs service code in a sandbox worker; its calls block on a pipe, so
the engine runs them in a thread (``blocking = True``).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Protocol

import orjson

from library.compose.run import DEFAULT_SEED_SIZE
from library.compose.task import Task
from library.runtime import ErrorCode, Gateway, Service, State, ToolError, World
from library.runtime.errors import fail
from library.runtime.world import parse_arguments, qualified, unknown_tool_message
from library.sandbox import LoadedService, Sandbox, SandboxPolicy
from library.seed import seed_pool

Mode = Literal["direct", "gateway"]
MODES: tuple[Mode, ...] = ("direct", "gateway")

# The sandboxed gateway is a trusted invoke target; a worker's policy must allow it.


class Env(Protocol):
    blocking: bool  # True: calls block on I/O, run them in a thread

    def reset(self, task: Task, mode: Mode) -> None: ...

    def tools(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]: ...

    def final_states(self) -> dict[str, dict[str, Any]]: ...

    def state_hash(self) -> str: ...

    def close(self) -> None: ...


def check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    return mode  # type: ignore[return-value]


@functools.cache
def meta_tool_schemas() -> tuple[dict[str, Any], ...]:
    """The four meta-tools' schemas: they come from ``GatewayTools``' signatures alone."""
    return tuple(Gateway(World([])).tool_schemas("openai"))


# Seeded distractor states by (class, seed, pool seed, size); see ``InProcessEnv._seeded``.
_SEEDED: OrderedDict[tuple[type[Service], int, int, int], State] = OrderedDict()
_SEEDED_LOCK = threading.Lock()
_SEEDED_MAX = 4096


class InProcessEnv:
    """A World of trusted service classes in this process."""

    blocking = False

    def __init__(
        self,
        classes: Mapping[str, type[Service]] | Iterable[type[Service]],
        *,
        pool_seed: int = 0,
        seed_size: int = DEFAULT_SEED_SIZE,
    ) -> None:
        self.classes = (
            dict(classes) if isinstance(classes, Mapping) else {c.name: c for c in classes}
        )
        self.pool_seed = pool_seed
        self.seed_size = seed_size
        self.world: World | None = None
        self.gateway: Gateway | None = None  # set in gateway mode: what the agent talks to
        self._services: list[str] = []

    def reset(self, task: Task, mode: Mode) -> None:
        gateway = check_mode(mode) == "gateway"
        names = list(task.services)
        if gateway:
            names += [s for s in task.distractor_services if s in self.classes]
        world = World([self.classes[n]() for n in sorted(names)], seed=task.seed)
        for name in names[len(task.services) :]:
            world.services[name].state = self._seeded(self.classes[name], task.seed)
        world.load_states(task.initial_state)
        self.world, self._services = world, list(task.services)
        self.gateway = Gateway(world) if gateway else None

    def _seeded(self, cls: type[Service], seed: int) -> State:
        """A distractor's seeded state, shared by every episode with this seed: states are
        copy-on-write, and seeding ~15 services per gateway episode would cost more than
        the episode. Seeded in a World of its own, which gives what composition's full
        World gave: each service draws from its own ``Random(f"{seed}:{name}")``."""
        key = (cls, seed, self.pool_seed, self.seed_size)
        with _SEEDED_LOCK:
            state = _SEEDED.get(key)
            if state is not None:
                _SEEDED.move_to_end(key)
                return state
        alone = World([cls()], seed=seed)
        alone.seed_states(seed_pool(self.pool_seed), self.seed_size)
        state = alone.services[cls.name].state
        with _SEEDED_LOCK:
            _SEEDED[key] = state
            while len(_SEEDED) > _SEEDED_MAX:
                _SEEDED.popitem(last=False)
        return state

    def _world(self) -> World:
        if self.world is None:
            raise RuntimeError("reset() the environment first")
        return self.world

    def _surface(self) -> World | Gateway:
        world = self._world()
        return self.gateway or world

    def tools(self) -> list[dict[str, Any]]:
        return self._surface().tool_schemas("openai")

    def call(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        return self._surface().call(name, arguments)

    def final_states(self) -> dict[str, dict[str, Any]]:
        world = self._world()
        return {n: world.services[n].state.model_dump(mode="json") for n in self._services}

    def state_hash(self) -> str:
        return self._world().state_hash()

    def close(self) -> None:
        self.world = self.gateway = None


class _RemoteService:
    """A mounted service as the gateway sees it: name, description, tools (described by its
    worker, served from here)."""

    def __init__(self, info: LoadedService) -> None:
        self.name, self.description = info.service, info.description
        self.tools = {t.name: t for t in info.tools}


class _SplitWorld:
    """The episode's World spread over workers, one per untrusted module: routes each call to
    the worker of its service, so the gateway (which runs here) sees one World."""

    def __init__(self) -> None:
        self.services: dict[str, _RemoteService] = {}
        self.boxes: dict[str, Sandbox] = {}  # service -> its worker
        self.tool_names: list[str] = []
        self._routes: dict[str, tuple[_RemoteService, Any]] = {}

    def add(self, box: Sandbox, infos: list[LoadedService]) -> None:
        for info in infos:
            svc = _RemoteService(info)
            self.services[svc.name], self.boxes[svc.name] = svc, box
            for td in svc.tools.values():
                self._routes[qualified(svc.name, td.name)] = (svc, td)
        # One order, as a single World mounts them: services by name, tools as declared.
        self.services = dict(sorted(self.services.items()))
        self.tool_names = [qualified(s.name, t) for s in self.services.values() for t in s.tools]

    def tool(self, name: str) -> tuple[_RemoteService, Any] | None:
        return self._routes.get(name)

    def call(self, name: str, arguments: dict[str, Any] | str | bytes | None = None) -> dict:
        route = self._routes.get(name)
        if route is None:
            return fail(ErrorCode.NOT_FOUND, unknown_tool_message(name, self.tool_names))
        try:  # the worker protocol takes objects; bad JSON fails as the runtime fails it
            args = parse_arguments(arguments)
        except ToolError as exc:
            return fail(exc.code, exc.message)
        return self.boxes[route[0].name].call(name, args)


class SandboxEnv:
    """A World in sandbox workers: each untrusted module (a generated service) in a worker of
    its own, so one service cannot reach another's code or state; trusted reference services
    share ``sandbox``, where no untrusted code is ever loaded. Calls are routed here, the
    gateway runs here, and the final state hash is computed here from the reported states.

    ``refs``: service name -> ``module:Class`` for services already importable there
    (``library.services.crm:Crm``); ``sources``: module name -> untrusted source to load
    (generated services from the warehouse); the services it defines are added to ``refs``.
    A module is (re)loaded whenever its worker is new (first use, or restarted after a
    failure). ``homes`` (service -> module) lets an episode start only the workers of the
    services it mounts; without it every module is loaded at the first reset. At most
    ``max_workers`` module workers stay alive (least recently used ones are ended).
    ``on_close`` receives the env when the engine is done with it (a pool takes it back);
    without it ``close()`` leaves the workers to their owner (``shutdown()`` ends them).
    """

    blocking = True

    def __init__(
        self,
        sandbox: Sandbox,
        refs: Mapping[str, str] | None = None,
        sources: Mapping[str, str] | None = None,
        *,
        pool_seed: int = 0,
        seed_size: int = DEFAULT_SEED_SIZE,
        on_close: Callable[[SandboxEnv], None] | None = None,
        homes: Mapping[str, str] | None = None,
        max_workers: int = 32,
    ) -> None:
        self.sandbox = sandbox
        self.refs = dict(refs or {})
        self.sources = dict(sources or {})
        self.pool_seed = pool_seed
        self.seed_size = seed_size
        self.on_close = on_close
        self.max_workers = max_workers
        # untrusted module -> its own worker, least recently used first
        self.boxes: OrderedDict[str, Sandbox] = OrderedDict()
        self._hints = {s: m for s, m in (homes or {}).items() if m in self.sources}
        self._home: dict[str, str] = {}  # service -> the module that defines it
        self._loaded: dict[str, int | None] = {}  # module -> pid of the worker it is in
        self._mode: Mode | None = None
        self._services: list[str] = []
        self._world: _SplitWorld | None = None
        self._gateway: Gateway | None = None

    def _load(self, module: str) -> None:
        """``module`` loaded in its own live worker (started or restarted if need be)."""
        box = self.boxes.get(module)
        if box is None:
            box = self.boxes[module] = Sandbox(self.sandbox.policy)
        self.boxes.move_to_end(module)
        if box.pid is not None and box.pid == self._loaded.get(module):
            return
        for found in box.load(module, self.sources[module]):
            self.refs[found.service] = found.ref
            self._home[found.service] = module
        self._loaded[module] = box.pid

    def _load_sources(self, names: list[str]) -> None:
        wanted = [self._home.get(n) or self._hints.get(n) for n in names]
        if not self._hints or any(
            m is None and n not in self.refs for n, m in zip(names, wanted, strict=True)
        ):
            wanted = list(self.sources)  # a service of unknown module: load them all
        for module in dict.fromkeys(m for m in wanted if m is not None):
            self._load(module)
        # Past the cap, end the least recently used workers this episode does not need.
        for module in list(self.boxes):
            if len(self.boxes) <= self.max_workers or module in wanted:
                continue
            self.boxes.pop(module).close()
            self._loaded.pop(module, None)

    def _box(self, service: str) -> Sandbox:
        module = self._home.get(service)
        return self.sandbox if module is None else self.boxes[module]

    def reset(self, task: Task, mode: Mode) -> None:
        gateway = check_mode(mode) == "gateway"
        names = list(task.services)
        if gateway:
            names += task.distractor_services
        self._load_sources(names)
        missing = [s for s in task.services if s not in self.refs]
        if missing:
            raise KeyError(f"no service code for {missing}; known: {sorted(self.refs)}")
        names = [n for n in names if n in self.refs]
        groups: dict[int, tuple[Sandbox, list[str]]] = {}
        for name in sorted(names):
            box = self._box(name)
            groups.setdefault(id(box), (box, []))[1].append(name)
        world = _SplitWorld()
        for box, group in groups.values():
            refs = [self.refs[n] for n in group]
            states = {n: task.initial_state[n] for n in group if n in task.initial_state}
            if gateway:
                # Seed everything as composition did, then lay the task's own states over it.
                box.mount(refs, seed=task.seed, size=self.seed_size, pool_seed=self.pool_seed)
                box.load_states(states)
            else:
                box.mount(refs, seed=task.seed, states=states)
            world.add(box, box.describe())
        self._world, self._mode, self._services = world, mode, list(task.services)
        self._gateway = Gateway(world) if gateway else None  # type: ignore[arg-type]

    def _split(self) -> _SplitWorld:
        if self._world is None:
            raise RuntimeError("reset() the environment first")
        return self._world

    def tools(self) -> list[dict[str, Any]]:
        if self._mode == "gateway":
            return [dict(t) for t in meta_tool_schemas()]
        world = self._split()
        schemas: dict[str, dict[str, Any]] = {}
        for box in dict.fromkeys(world.boxes.values()):
            schemas.update((s["function"]["name"], s) for s in box.tool_schemas("openai"))
        return [schemas[name] for name in world.tool_names if name in schemas]

    def call(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        if self._gateway is not None:
            return self._gateway.call(name, arguments)
        return self._split().call(name, arguments)

    def _states(self) -> dict[str, dict[str, Any]]:
        states: dict[str, dict[str, Any]] = {}
        world = self._split()
        for box in dict.fromkeys(world.boxes.values()):
            states.update(box.export_states())
        return {name: states[name] for name in world.services}

    def final_states(self) -> dict[str, dict[str, Any]]:
        states = self._states()
        return {n: states[n] for n in self._services}

    def state_hash(self) -> str:
        """``World.state_hash`` of every mounted service, computed here from their states."""
        return states_hash(self._states())

    def close(self) -> None:
        self._mode, self._world, self._gateway = None, None, None
        if self.on_close is not None:
            self.on_close(self)

    def shutdown(self) -> None:
        """End every worker of this env (its own and ``sandbox``)."""
        for box in self.boxes.values():
            box.close()
        self.sandbox.close()


def states_hash(states: Mapping[str, Mapping[str, Any]]) -> str:
    """What ``World.state_hash`` gives for these (JSON) states."""
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(states):
        payload = orjson.dumps(states[name], option=orjson.OPT_SORT_KEYS)
        h.update(f"{name}={hashlib.blake2b(payload, digest_size=16).hexdigest()};".encode())
    return h.hexdigest()


class SandboxEnvPool:
    """An env factory over reusable sandbox workers: one worker per episode running at a
    time, kept for the next (loading sources and starting a worker cost far more than
    mounting a World). Call it for an env; ``close()`` ends every worker."""

    def __init__(
        self,
        refs: Mapping[str, str] | None = None,
        sources: Mapping[str, str] | None = None,
        policy: SandboxPolicy | None = None,
        **env_options: Any,
    ) -> None:
        self.refs = dict(refs or {})
        self.sources = dict(sources or {})
        self.policy = policy or SandboxPolicy()
        self.env_options = env_options
        self._idle: list[SandboxEnv] = []
        self._all: list[SandboxEnv] = []

    def __call__(self) -> SandboxEnv:
        if self._idle:
            return self._idle.pop()
        env = SandboxEnv(
            Sandbox(self.policy),
            self.refs,
            self.sources,
            on_close=self._idle.append,
            **self.env_options,
        )
        self._all.append(env)
        return env

    @property
    def workers(self) -> int:
        return len(self._all)

    def close(self) -> None:
        for env in self._all:
            env.shutdown()
        self._idle.clear()
        self._all.clear()

    def __enter__(self) -> SandboxEnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
