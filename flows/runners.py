"""Where the fanned-out stages (build and rollout batches) run: the ``COMPOWORLD_TASK_RUNNER``
setting, or ``compoworld run --task-runner``.

- ``threads`` (default) or ``threads:N``: a thread pool in the flow's process (N batches at
  once; each batch runs its own sandboxed worker processes);
- ``dask`` or ``dask:N``: a local Dask cluster of N worker processes made for the flow run;
  ``dask:tcp://host:8786``: an existing Dask scheduler;
- ``ray`` or ``ray:N``: a local Ray cluster of N CPUs made for the flow run; ``ray:host:port``
  (or ``ray:auto``): an existing Ray cluster.

Dask and Ray come from the ``scale`` extra. Workers on other machines need this project
installed, ``PREFECT_API_URL`` pointing at a real Prefect server, and a warehouse every
worker can reach (``COMPOWORLD_WAREHOUSE``: a shared folder or an fsspec URL).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prefect.task_runners import TaskRunner

ENV_VAR = "COMPOWORLD_TASK_RUNNER"
DEFAULT = "threads:2"
KINDS = ("threads", "dask", "ray")


class TaskRunnerSettingError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class RunnerSpec:
    kind: str
    workers: int | None = None  # for a pool or a local cluster made for the run
    address: str | None = None  # an existing cluster

    @classmethod
    def parse(cls, text: str) -> RunnerSpec:
        kind, _, arg = text.strip().partition(":")
        kind = kind.lower()
        if kind not in KINDS:
            raise TaskRunnerSettingError(
                f"task runner {text!r}: unknown kind {kind!r}; use one of "
                "threads[:N], dask[:N|:tcp://host:port], ray[:N|:host:port]"
            )
        if not arg:
            return cls(kind)
        if arg.isdigit():
            if int(arg) < 1:
                raise TaskRunnerSettingError(f"task runner {text!r}: N must be at least 1")
            return cls(kind, workers=int(arg))
        if kind == "threads":
            raise TaskRunnerSettingError(f"task runner {text!r}: threads takes a count, threads:N")
        return cls(kind, address=arg)


def runner_spec(text: str | None = None) -> RunnerSpec:
    """The runner ``text`` names, else ``$COMPOWORLD_TASK_RUNNER``, else the default."""
    if text:
        return RunnerSpec.parse(text)
    try:
        return RunnerSpec.parse(os.environ.get(ENV_VAR) or DEFAULT)
    except TaskRunnerSettingError as exc:
        raise TaskRunnerSettingError(f"${ENV_VAR}: {exc}") from None


_PACKAGES = {"dask": "prefect_dask", "ray": "prefect_ray"}


def check_runner(text: str | None = None) -> RunnerSpec:
    """The runner spec, if it parses and its package is installed (without importing it or
    Prefect, so a command can refuse a bad setting before it starts anything)."""
    spec = runner_spec(text)
    module = _PACKAGES.get(spec.kind)
    if module is not None and importlib.util.find_spec(module) is None:
        raise TaskRunnerSettingError(
            f"the {spec.kind} task runner needs {module.replace('_', '-')}, which is not "
            "installed: pip install -e '.[scale]'"
        )
    return spec


def task_runner(text: str | None = None) -> TaskRunner:
    """The task runner named by ``text``, else by ``$COMPOWORLD_TASK_RUNNER``, else threads."""
    from prefect.task_runners import ThreadPoolTaskRunner

    spec = check_runner(text)
    if spec.kind == "threads":
        return ThreadPoolTaskRunner(max_workers=spec.workers or 2)
    if spec.kind == "dask":
        from prefect_dask import DaskTaskRunner

        if spec.address:
            return DaskTaskRunner(address=spec.address)
        return DaskTaskRunner(
            cluster_kwargs={
                "n_workers": spec.workers or 2,
                "threads_per_worker": 1,  # a batch is CPU-bound; its sandboxes use the cores
                "processes": True,
                "dashboard_address": None,
            }
        )
    from prefect_ray import RayTaskRunner

    if spec.address:
        return RayTaskRunner(address=spec.address)
    return RayTaskRunner(
        init_kwargs={
            "num_cpus": spec.workers or 2,
            "include_dashboard": False,
            "log_to_driver": False,
        }
    )
