"""Serving the warehouse's tasks to other harnesses: which task, which services, and where
their code runs. Reference services (``library/services``) are trusted and run in this
process; a service whose code the warehouse holds (generated) runs in sandbox workers, never
here. The adapters themselves live in ``library/serve``."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from library.compose import Task
from library.compose.run import task_world
from library.rollout import InProcessEnv, SandboxEnvPool
from library.rollout.env import Env, Mode, check_mode
from library.runtime import Service
from library.serve.episode import Episode, EpisodeFactory, bare_task
from library.services import reference_service_classes
from tasks.library_view import built_services, env_pool
from tasks.review import find_task
from tasks.rollout import load_tasks
from warehouse import Warehouse


def default_warehouse() -> str:
    """``flows.settings.warehouse_root`` as a string (tasks/ may not import flows/)."""
    home = os.path.abspath(os.environ.get("COMPOWORLD_HOME", ".compoworld"))
    return os.environ.get("COMPOWORLD_WAREHOUSE") or os.path.join(home, "warehouse")


class UnknownService(LookupError):
    pass


@dataclass(slots=True)
class Envs:
    """Makes the env of one session: in-process when every service is a trusted reference
    service, sandboxed otherwise. ``close()`` ends the sandbox workers."""

    trusted: dict[str, type[Service]]
    pool: SandboxEnvPool | None

    def __call__(self) -> Env:
        return InProcessEnv(self.trusted) if self.pool is None else self.pool()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def envs_for(wh: Warehouse, names: Sequence[str]) -> Envs:
    """Envs mounting ``names`` (a task's services and distractors)."""
    reference = {c.name: c for c in reference_service_classes()}
    built = {n: s for n, s in built_services(wh).items() if n in names}
    unknown = sorted(set(names) - set(reference) - set(built))
    if unknown:
        raise UnknownService(f"no code for services {unknown}; known: {sorted(reference)}")
    if not built:  # no generated code: everything runs here
        return Envs(reference, None)
    refs = {n: f"{c.__module__}:{c.__name__}" for n, c in reference.items() if n not in built}
    pool = env_pool(wh, built.values(), refs)
    return Envs(reference, pool)


@dataclass(slots=True)
class Served:
    """What a server serves: the task, and one fresh episode per call."""

    task: Task
    mode: Mode
    envs: Envs

    def __call__(self) -> Episode:
        return Episode(self.task, self.envs(), self.mode)

    def close(self) -> None:
        self.envs.close()


def served_task(wh: Warehouse, task_id: str, mode: str = "direct") -> Served:
    task = find_task(wh, task_id)
    names = [*task.services, *(task.distractor_services if mode == "gateway" else ())]
    return Served(task, check_mode(mode), envs_for(wh, names))


def served_services(
    wh: Warehouse, services: Sequence[str], seed: int = 0, mode: str = "direct"
) -> Served:
    """Bare services seeded from the shared pool with ``seed`` (as composition seeds them);
    no rubric, so nothing to score."""
    names = list(dict.fromkeys(services))
    envs = envs_for(wh, names)
    empty = bare_task(names, seed, {})
    if envs.pool is None:
        world = task_world(empty, envs.trusted, gateway=True)  # gateway: seeds every service
        states: dict[str, Any] = {n: world.services[n].state.model_dump(mode="json") for n in names}
    else:
        env = envs()
        try:  # gateway mode seeds every mounted service in its worker, as composition did
            env.reset(empty, "gateway")
            states = env.final_states()
        finally:
            env.close()
    return Served(bare_task(names, seed, states), check_mode(mode), envs)


def served(
    wh: Warehouse,
    *,
    task_id: str | None = None,
    services: Sequence[str] = (),
    seed: int = 0,
    mode: str = "direct",
) -> Served:
    if (task_id is None) == (not services):
        raise ValueError("serve either a task (task_id) or services, not both or neither")
    if task_id is not None:
        return served_task(wh, task_id, mode)
    return served_services(wh, services, seed, mode)


def episode_factories(
    wh: Warehouse, tasks: Sequence[Task], mode: str = "direct"
) -> tuple[dict[str, EpisodeFactory], Callable[[], None]]:
    """One episode factory per task (sharing one env maker) and the function that ends
    their workers."""
    names = sorted({n for t in tasks for n in (*t.services, *t.distractor_services)})
    envs = envs_for(wh, names)
    mode = check_mode(mode)
    return {t.task_id: Served(t, mode, envs) for t in tasks}, envs.close


def openenv_app(split: str | None = None, mode: str = "direct") -> Any:
    """OpenEnv's app over the warehouse's tasks (of ``split``, or every task; reset with
    ``task_id`` to pick one): ``uvicorn --factory tasks.serve:openenv_app --host 127.0.0.1``."""
    from library.serve.openenv import openenv_app as app

    wh = Warehouse(default_warehouse())
    factories, _ = episode_factories(wh, load_tasks(wh, [split] if split else None), mode)
    return app(factories)


def serve_mcp(what: Served, transport: str = "stdio", port: int = 8000) -> None:
    """Serve ``what`` over MCP until the client leaves (stdio) or an interrupt (HTTP on
    127.0.0.1:``port``). Needs the ``serve`` extra."""
    from library.serve.mcp import serve_http, serve_stdio

    if transport == "stdio":
        serve_stdio(what)
    elif transport == "http":
        serve_http(what, port)
    else:
        raise ValueError(f"transport must be stdio or http, not {transport!r}")
