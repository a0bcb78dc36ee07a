"""The verifiers plugin (taskset id ``compoworld``): a split of the warehouse's
tasks as a verifiers taskset, played by the in-process episode harness. ``load_environment``
gives the environment; verifiers' own evaluation (``vf-eval``'s ``run_eval``) runs it.

    from tasks.verifiers_env import load_environment
    env = load_environment(split="rl", limit=10)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.utils.loaders import load_environment as vf_load_environment
from verifiers.v1.utils.loaders import resolve_env_config

from library.compose import Task
from library.serve.episode import Episode
from library.serve.verifiers_env import CompoWorldData, CompoWorldTask, EpisodeHarness, task_data
from tasks.rollout import load_tasks
from tasks.serve import Envs, default_warehouse, envs_for
from warehouse import Warehouse

PLUGIN_ID = "compoworld"
# verifiers finds a plugin by a plain module name, first under its own ``tasksets`` and
# ``harnesses`` packages; this module is reachable there once imported (load_environment
# below imports it), and is both (it exports our taskset and our harness).
for _group in ("tasksets", "harnesses"):
    sys.modules.setdefault(f"verifiers.v1.{_group}.{PLUGIN_ID}", sys.modules[__name__])


class CompoWorldTasksetConfig(vf.TasksetConfig):
    warehouse: str = ""  # default: $COMPOWORLD_WAREHOUSE, else $COMPOWORLD_HOME/warehouse
    split: str = "rl"
    limit: int | None = None
    mode: str = "direct"


class CompoWorldTaskset(vf.Taskset[CompoWorldTask, CompoWorldTasksetConfig]):
    def load(self) -> Iterator[CompoWorldTask]:
        location = self.config.warehouse or default_warehouse()
        for task in load_tasks(Warehouse(location), [self.config.split], self.config.limit):
            data = task_data(task, self.config.mode)
            yield CompoWorldTask(data.model_copy(update={"warehouse": location}), self.config.task)


class CompoWorldHarness(EpisodeHarness):
    """Episodes over the warehouse's services: in-process for reference services,
    sandbox workers for generated ones (``tasks.serve.envs_for``)."""

    def __init__(self, config: vf.HarnessConfig) -> None:
        super().__init__(config)
        self._envs: dict[tuple[str, tuple[str, ...]], Envs] = {}

    def episode(self, data: CompoWorldData) -> Episode:
        task = Task.model_validate(data.task)
        names = (*task.services, *(task.distractor_services if data.mode == "gateway" else ()))
        key = (getattr(data, "warehouse", "") or default_warehouse(), tuple(sorted(names)))
        envs = self._envs.get(key)
        if envs is None:
            envs = self._envs[key] = envs_for(Warehouse(key[0]), names)
        return Episode(task, envs(), data.mode)  # type: ignore[arg-type]


def env_config(
    split: str = "rl", limit: int | None = None, mode: str = "direct", warehouse: str = ""
) -> Any:
    taskset = {"id": PLUGIN_ID, "split": split, "limit": limit, "mode": mode}
    if warehouse:
        taskset["warehouse"] = warehouse
    # The harness runs in this process; a local runtime spares a hosted sandbox nobody uses.
    agent = {"runtime": {"type": "subprocess"}}
    return resolve_env_config({"taskset": taskset, "agent": agent})


def load_environment(
    split: str = "rl", limit: int | None = None, mode: str = "direct", warehouse: str = ""
) -> vf.Env:
    """The verifiers environment over ``split`` of the warehouse's tasks."""
    return vf_load_environment(env_config(split, limit, mode, warehouse))


__all__ = ["CompoWorldHarness", "CompoWorldTaskset", "load_environment"]
