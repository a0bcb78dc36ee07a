"""Episode environments: a small reset/call/state interface in the spirit of OpenEnv.

``reset(task, mode)`` builds the task's World: its services with ``task.initial_state`` and,
in gateway mode, its distractor services seeded from the shared pool with the task seed (as
composition did). ``tools()`` are the OpenAI schemas the agent sees: every tool of the task's
services (direct) or the four meta-tools over every mounted service (gateway). ``call``
returns the runtime's envelope. ``final_states()`` exports the task's services (what the
rubric reads) and any other mounted service the episode changed (a distractor's state is
not part of the task, so its presence is the change ``other_services_unchanged`` catches);
``state_hash()`` covers every mounted service.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

import orjson

from library.compose.run import DEFAULT_SEED_SIZE
from library.compose.task import Task
from library.runtime import ErrorCode, Gateway, Service, State, ToolError, World
from library.runtime.errors import fail
from library.runtime.world import parse_arguments, qualified, unknown_tool_message
from library.sandbox import LoadedService, Sandbox, SandboxPolicy, ToolInfo
from library.seed import seed_pool
from library.toolspec import ToolSpec
from library.world_model.remote import INVOKE_PREFIX, SandboxedWorldModel, spec_tool_schema

Mode = Literal["direct", "gateway"]
MODES: tuple[Mode, ...] = ("direct", "gateway")


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
        self._others: dict[str, State] = {}  # other mounted services' states at reset

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
        self._others = {n: world.services[n].state for n in names[len(task.services) :]}
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
        out = {n: world.services[n].state.model_dump(mode="json") for n in self._services}
        for name, start in self._others.items():
            state = world.services[name].state
            # (copy-on-write: an untouched service still holds its very state object)
            if state is not start and (dumped := state.model_dump(mode="json")) != start.model_dump(
                mode="json"
            ):
                out[name] = dumped
        return out

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
    the worker of its service (to this env's World there), so the gateway (which runs here)
    sees one World."""

    def __init__(self, world: int) -> None:
        self.world = world  # this env's World id in every worker
        self.services: dict[str, _RemoteService] = {}
        self.boxes: dict[str, Sandbox] = {}  # service -> its worker
        self.tool_names: list[str] = []
        self._routes: dict[str, tuple[_RemoteService, Any]] = {}
        # qualified name -> (its spec, the handler answering it here in the parent)
        self.simulated: dict[str, tuple[ToolSpec, Callable[[dict[str, Any]], dict]]] = {}

    def add(self, box: Sandbox, infos: list[LoadedService]) -> None:
        for info in infos:
            svc = _RemoteService(info)
            self.services[svc.name], self.boxes[svc.name] = svc, box
            for td in svc.tools.values():
                self._routes[qualified(svc.name, td.name)] = (svc, td)
        # One order, as a single World mounts them: services by name, tools as declared.
        self.services = dict(sorted(self.services.items()))
        self.tool_names = [qualified(s.name, t) for s in self.services.values() for t in s.tools]

    def simulate(
        self, service: str, spec: ToolSpec, handler: Callable[[dict[str, Any]], dict]
    ) -> None:
        """Mount a world-model tool on ``service`` (added, or in place of the code's tool of
        that name): described by its spec, answered by ``handler``."""
        svc = self.services[service]
        info = ToolInfo(
            spec.name,
            spec.description or spec.name,
            spec.access == "write",
            spec.input_schema,
            spec.output_schema,
        )
        svc.tools[spec.name] = info
        name = qualified(service, spec.name)
        self._routes[name] = (svc, info)
        self.simulated[name] = (spec, handler)
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
        simulated = self.simulated.get(name)
        if simulated is not None:
            return simulated[1](args)
        return self.boxes[route[0].name].call(name, args, world=self.world)


class ModuleWorkers:
    """One sandbox worker per untrusted module (a generated service), shared by every env of
    a pool: each env keeps its World in a worker under its own world id, so a module is
    started and loaded once per pool, not once per env (a gateway episode mounts a dozen
    services; per-env workers meant a dozen starts whenever an env met a module anew).

    ``sources``: module name -> untrusted source; the services each defines are learnt when
    it loads (``refs``, ``home``). ``homes`` (service -> module) lets an episode start only
    the workers of the services it mounts; without it every module is loaded at the first
    use. A module is (re)loaded whenever its worker is new (first use, or restarted after a
    failure). Past ``max_workers`` the least recently used workers that no env holds are
    ended. Thread-safe: envs acquire and release from the engine's threads.
    """

    def __init__(
        self,
        sources: Mapping[str, str] | None = None,
        policy: SandboxPolicy | None = None,
        *,
        homes: Mapping[str, str] | None = None,
        max_workers: int = 64,
    ) -> None:
        self.sources = dict(sources or {})
        self.policy = policy or SandboxPolicy()
        self.max_workers = max_workers
        self.refs: dict[str, str] = {}  # service -> module:Class, as loading found it
        self.home: dict[str, str] = {}  # service -> the module that defines it
        self.boxes: OrderedDict[str, Sandbox] = OrderedDict()  # least recently used first
        self.starts = 0  # module loads into a new worker (first use or restart)
        self._hints = {s: m for s, m in (homes or {}).items() if m in self.sources}
        self._loaded: dict[str, int | None] = {}  # module -> pid of the worker it is in
        self._held: dict[str, int] = {}  # module -> envs holding a World in it
        self._lock = threading.Lock()

    def modules_for(self, names: Iterable[str], known: Mapping[str, str]) -> list[str]:
        """The modules that define ``names`` (all of them when one is of unknown module)."""
        wanted = []
        for name in names:
            module = self.home.get(name) or self._hints.get(name)
            if module is None and name not in known:
                return list(self.sources)
            if module is not None:
                wanted.append(module)
        return list(dict.fromkeys(wanted))

    def acquire(self, modules: list[str]) -> None:
        """``modules`` loaded in live workers and held until ``release``."""
        with self._lock:
            for module in modules:
                self._held[module] = self._held.get(module, 0) + 1
            try:
                for module in modules:
                    self._load(module)
            except BaseException:
                self._drop_holds(modules)
                raise
            for module in list(self.boxes):  # past the cap: end idle ones, oldest first
                if len(self.boxes) <= self.max_workers:
                    break
                if not self._held.get(module):
                    self.boxes.pop(module).close()
                    self._loaded.pop(module, None)

    def release(self, modules: Iterable[str]) -> None:
        with self._lock:
            self._drop_holds(modules)

    def _drop_holds(self, modules: Iterable[str]) -> None:
        for module in modules:
            left = self._held.get(module, 0) - 1
            if left > 0:
                self._held[module] = left
            else:
                self._held.pop(module, None)

    def _load(self, module: str) -> None:
        box = self.boxes.get(module)
        if box is None:
            box = self.boxes[module] = Sandbox(self.policy)
        self.boxes.move_to_end(module)
        if box.pid is not None and box.pid == self._loaded.get(module):
            return
        for found in box.load(module, self.sources[module]):
            self.refs[found.service] = found.ref
            self.home[found.service] = module
        self._loaded[module] = box.pid
        self.starts += 1

    def box(self, service: str) -> Sandbox | None:
        module = self.home.get(service)
        return None if module is None else self.boxes.get(module)

    def close(self) -> None:
        with self._lock:
            for box in self.boxes.values():
                box.close()
            self.boxes.clear()
            self._loaded.clear()


class SandboxEnv:
    """A World in sandbox workers: each untrusted module (a generated service) in a worker of
    its own, so one service cannot reach another's code or state; trusted reference services
    share ``sandbox``, where no untrusted code is ever loaded. Calls are routed here, the
    gateway runs here, and the final state hash is computed here from the reported states.

    ``refs``: service name -> ``module:Class`` for services already importable there
    (``library.services.crm:Crm``); ``sources``: module name -> untrusted source to load
    (generated services from the warehouse). The module workers are ``workers`` when given
    (shared with other envs, this env's World under ``world`` in each), else the env's own.
    ``on_close`` receives the env when the engine is done with it (a pool takes it back);
    without it ``close()`` leaves the workers to their owner (``shutdown()`` ends them).

    ``simulated``: service -> the specs of its world-model tools (the build's ``world_model``
    tools), mounted on that service beside (or in place of) its code's tools and answered
    by ``world_model`` here in the parent; the module workers' policy must allow its invoke
    target (``world_model_policy``).
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
        max_workers: int = 64,
        workers: ModuleWorkers | None = None,
        world: int = 1,
        simulated: Mapping[str, Sequence[ToolSpec]] | None = None,
        world_model: SandboxedWorldModel | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.simulated = {k: list(v) for k, v in (simulated or {}).items()}
        self.world_model = world_model
        self.refs = dict(refs or {})
        self.pool_seed = pool_seed
        self.seed_size = seed_size
        self.on_close = on_close
        self._own_workers = workers is None
        self.workers = workers or ModuleWorkers(
            sources, sandbox.policy, homes=homes, max_workers=max_workers
        )
        self.world = world
        self._held: list[str] = []  # the modules this env's World lives in
        self._mode: Mode | None = None
        self._services: list[str] = []
        self._others: dict[str, str] = {}  # other mounted services' state hashes at reset
        self._split_world: _SplitWorld | None = None
        self._gateway: Gateway | None = None

    def _ref(self, service: str) -> str | None:
        return self.refs.get(service) or self.workers.refs.get(service)

    def _box(self, service: str) -> Sandbox:
        return self.workers.box(service) or self.sandbox

    def _hold(self, names: list[str]) -> None:
        self._release()
        modules = self.workers.modules_for(names, self.refs)
        self.workers.acquire(modules)
        self._held = modules

    def _release(self) -> None:
        held, self._held = self._held, []
        self.workers.release(held)

    def reset(self, task: Task, mode: Mode) -> None:
        gateway = check_mode(mode) == "gateway"
        names = list(task.services)
        if gateway:
            names += task.distractor_services
        self._hold(names)
        missing = [s for s in task.services if self._ref(s) is None]
        if missing:
            known = sorted({*self.refs, *self.workers.refs})
            raise KeyError(f"no service code for {missing}; known: {known}")
        names = [n for n in names if self._ref(n) is not None]
        groups: dict[int, tuple[Sandbox, list[str]]] = {}
        for name in sorted(names):
            box = self._box(name)
            groups.setdefault(id(box), (box, []))[1].append(name)
        world = _SplitWorld(self.world)
        for box, group in groups.values():
            refs = [self._ref(n) or n for n in group]
            states = {n: task.initial_state[n] for n in group if n in task.initial_state}
            if gateway:
                # Seed everything as composition did, then lay the task's own states over it.
                box.mount(
                    refs,
                    seed=task.seed,
                    size=self.seed_size,
                    pool_seed=self.pool_seed,
                    world=self.world,
                )
                box.load_states(states, world=self.world)
            else:
                box.mount(refs, seed=task.seed, states=states, world=self.world)
            world.add(box, box.describe(world=self.world))
            if self.world_model is not None:
                for name in group:
                    for spec in self.simulated.get(name, ()):
                        world.simulate(name, spec, self._simulator(box, name, spec))
        self._split_world, self._mode, self._services = world, mode, list(task.services)
        self._gateway = Gateway(world) if gateway else None  # type: ignore[arg-type]
        others = [n for n in world.services if n not in task.services]
        start = self._states() if others else {}
        self._others = {n: states_hash({n: start[n]}) for n in others}

    def _simulator(
        self, box: Sandbox, service: str, spec: ToolSpec
    ) -> Callable[[dict[str, Any]], dict]:
        model, ref, world = self.world_model, self._ref(service) or service, self.world
        assert model is not None

        def answer(arguments: dict[str, Any]) -> dict:
            return model.call(box, world, service, ref, spec, arguments)

        return answer

    def _split(self) -> _SplitWorld:
        if self._split_world is None:
            raise RuntimeError("reset() the environment first")
        return self._split_world

    def tools(self) -> list[dict[str, Any]]:
        if self._mode == "gateway":
            return [dict(t) for t in meta_tool_schemas()]
        world = self._split()
        schemas: dict[str, dict[str, Any]] = {}
        for box in dict.fromkeys(world.boxes.values()):
            schemas.update(
                (s["function"]["name"], s) for s in box.tool_schemas("openai", world=self.world)
            )
        for name, (spec, _) in world.simulated.items():
            schemas[name] = spec_tool_schema(spec, name)
        return [schemas[name] for name in world.tool_names if name in schemas]

    def call(self, name: str, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
        if self._gateway is not None:
            return self._gateway.call(name, arguments)
        return self._split().call(name, arguments)

    def _states(self) -> dict[str, dict[str, Any]]:
        states: dict[str, dict[str, Any]] = {}
        world = self._split()
        for box in dict.fromkeys(world.boxes.values()):
            states.update(box.export_states(world=self.world))
        return {name: states[name] for name in world.services}

    def final_states(self) -> dict[str, dict[str, Any]]:
        states = self._states()
        out = {n: states[n] for n in self._services}
        out |= {n: states[n] for n, h in self._others.items() if states_hash({n: states[n]}) != h}
        return out

    def state_hash(self) -> str:
        """``World.state_hash`` of every mounted service, computed here from their states."""
        return states_hash(self._states())

    def close(self) -> None:
        self._mode, self._split_world, self._gateway = None, None, None
        self._release()
        if self.on_close is not None:
            self.on_close(self)

    def shutdown(self) -> None:
        """End this env's own workers (``sandbox``, and its module workers unless shared)."""
        self._release()
        if self._own_workers:
            self.workers.close()
        self.sandbox.close()


def world_model_policy(policy: SandboxPolicy | None = None) -> SandboxPolicy:
    """``policy`` (default: the default policy) allowing the trusted invoke target through
    which the parent learns a sandboxed service's State schema (world-model tools)."""
    policy = policy or SandboxPolicy()
    if INVOKE_PREFIX in policy.invoke_prefixes:
        return policy
    return policy.model_copy(update={"invoke_prefixes": (*policy.invoke_prefixes, INVOKE_PREFIX)})


def states_hash(states: Mapping[str, Mapping[str, Any]]) -> str:
    """What ``World.state_hash`` gives for these (JSON) states."""
    h = hashlib.blake2b(digest_size=16)
    for name in sorted(states):
        payload = orjson.dumps(states[name], option=orjson.OPT_SORT_KEYS)
        h.update(f"{name}={hashlib.blake2b(payload, digest_size=16).hexdigest()};".encode())
    return h.hexdigest()


class SandboxEnvPool:
    """An env factory over reusable sandbox workers: the module workers are shared by every
    env (each env's World under its own id), and envs are kept for the next episode (loading
    sources and starting a worker cost far more than mounting a World). Call it for an env;
    ``close()`` ends every worker."""

    def __init__(
        self,
        refs: Mapping[str, str] | None = None,
        sources: Mapping[str, str] | None = None,
        policy: SandboxPolicy | None = None,
        *,
        homes: Mapping[str, str] | None = None,
        max_workers: int = 64,
        **env_options: Any,
    ) -> None:
        self.refs = dict(refs or {})
        self.policy = policy or SandboxPolicy()
        self.modules = ModuleWorkers(sources, self.policy, homes=homes, max_workers=max_workers)
        self.env_options = env_options
        self._idle: list[SandboxEnv] = []
        self._all: list[SandboxEnv] = []
        self._lock = threading.Lock()

    def __call__(self) -> SandboxEnv:
        with self._lock:
            if self._idle:
                return self._idle.pop()
            env = SandboxEnv(
                Sandbox(self.policy),
                self.refs,
                on_close=self._give_back,
                workers=self.modules,
                world=len(self._all) + 1,
                **self.env_options,
            )
            self._all.append(env)
            return env

    def _give_back(self, env: SandboxEnv) -> None:
        with self._lock:
            self._idle.append(env)

    @property
    def workers(self) -> int:
        """Envs made so far (each with a trusted worker of its own)."""
        return len(self._all)

    def close(self) -> None:
        for env in self._all:
            env.shutdown()
        self.modules.close()
        self._idle.clear()
        self._all.clear()

    def __enter__(self) -> SandboxEnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
