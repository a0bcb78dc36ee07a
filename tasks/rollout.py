"""The rollout and judge stages: tasks -> groups of G episodes in sandboxed worlds -> judged.

The oracle policy needs no model (its rollouts are labelled ``oracle``); the litellm policy
runs when a model is configured (every call recorded in ``llm_calls`` and replayed on a
rerun of the same run name). Groups already in ``rollouts`` are skipped, so a rerun resumes.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from library.compose import Task
from library.judge import judge_rollouts
from library.llm import LLMClient, LLMSettings, ModelNotConfigured
from library.rollout import (
    LiteLLMPolicy,
    OraclePolicy,
    RolloutSettings,
    group_key,
    run_groups_sync,
)
from library.world_model.remote import SandboxedWorldModel
from tasks.batches import batches
from tasks.library_view import built_services, env_pool
from tasks.llm_store import WarehouseCallStore
from warehouse import Warehouse

_TASK_JSON = (
    "initial_state",
    "gold_plan",
    "rubric",
    "answer",
    "decoys",
    "house_rules",
    "mutation",
)
# Tasks per rollout batch: a batch's fixed cost is its workers loading the services its
# tasks mount (~2.7 s on the bundled corpus), so batches stay large.
ROLLOUT_BATCH = 250


def task_from_row(row: dict[str, Any]) -> Task:
    # Columns an older table version lacks read as NULL: the model's defaults stand.
    data = {k: v for k, v in row.items() if k in Task.model_fields and v is not None}
    for key in _TASK_JSON:
        if isinstance(data.get(key), str):
            data[key] = orjson.loads(data[key])
    return Task.model_validate(data)


def load_tasks(
    wh: Warehouse,
    splits: Sequence[str] | None = None,
    limit: int | None = None,
    task_ids: Sequence[str] | None = None,
) -> list[Task]:
    """Tasks by id order, optionally only of ``splits``, only ``task_ids``, at most ``limit``."""
    where: list[str] = []
    params: dict[str, Any] = {}
    if splits:
        where.append("split in (select unnest($splits))")
        params["splits"] = list(splits)
    if task_ids is not None:
        where.append("task_id in (select unnest($ids))")
        params["ids"] = list(task_ids)
    sql = "select * from tasks" + (" where " + " and ".join(where) if where else "")
    sql += " order by task_id"
    if limit is not None:
        sql += f" limit {int(limit)}"
    return [task_from_row(r) for r in wh.query(sql, params or None).to_pylist()]


def policy_name(llm: LLMSettings | None) -> str:
    return "oracle" if llm is None else f"litellm:{llm.model}"


@dataclass(slots=True)
class RolloutSummary:
    policy: str
    mode: str
    groups: int = 0
    rollouts: int = 0
    skipped_groups: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    completed: int = 0
    mean_reward: float = 0.0
    wall_s: float = 0.0
    # Calls of world-model tools (answered in the parent), and how many from the answer cache.
    world_model_calls: int = 0
    world_model_cached: int = 0

    def add(self, other: RolloutSummary) -> None:
        """Fold in another batch's summary of the same policy (wall time excluded)."""
        total = self.rollouts + other.rollouts
        if total:
            self.mean_reward = (
                self.mean_reward * self.rollouts + other.mean_reward * other.rollouts
            ) / total
        self.groups += other.groups
        self.rollouts = total
        self.skipped_groups += other.skipped_groups
        self.statuses.update(other.statuses)
        self.completed += other.completed
        self.world_model_calls += other.world_model_calls
        self.world_model_cached += other.world_model_cached

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "mode": self.mode,
            "groups": self.groups,
            "rollouts": self.rollouts,
            "groups_already_done": self.skipped_groups,
            "statuses": dict(self.statuses),
            "completion_rate": round(self.completed / self.rollouts, 4) if self.rollouts else 0.0,
            "mean_reward": round(self.mean_reward, 4),
            "world_model_calls": self.world_model_calls,
            "world_model_cached": self.world_model_cached,
            "rollouts_per_s": round(self.rollouts / self.wall_s, 1) if self.wall_s else None,
            "wall_s": round(self.wall_s, 2),
        }


def rollout_stage(
    wh: Warehouse,
    *,
    llm: LLMSettings | None = None,
    settings: RolloutSettings | None = None,
    splits: Sequence[str] | None = None,
    limit: int | None = None,
    run: str = "",
    task_ids: Sequence[str] | None = None,
    world_model: SandboxedWorldModel | None = None,
) -> RolloutSummary:
    """Roll out and judge every task (of ``splits``, or among ``task_ids``) that has no group
    for this policy yet.

    ``llm=None`` runs the oracle; otherwise a litellm policy with those settings. The built
    services' world-model tools are mounted beside their verified ones and answered by
    ``world_model`` (default: ``tasks.library_view.world_model_runtime``, the configured
    model).
    """
    t0 = time.perf_counter()
    settings = settings or RolloutSettings.from_env(group_size=2, concurrency=2)
    name = policy_name(llm)
    summary = RolloutSummary(name, settings.mode)
    tasks = load_tasks(wh, splits, limit, task_ids)
    done = done_groups(wh)
    todo = [t for t in tasks if group_key(t.task_id, name, settings.mode, run) not in done]
    summary.skipped_groups = len(tasks) - len(todo)
    if not todo:
        summary.wall_s = time.perf_counter() - t0
        return summary
    if llm is None:
        policy: Any = OraclePolicy
    else:
        if not llm.configured:
            raise ModelNotConfigured("the litellm policy needs COMPOWORLD_LLM_MODEL")
        policy = LiteLLMPolicy(LLMClient(llm, WarehouseCallStore(wh)), run=run)

    # Each service runs in a worker of its own, started when an episode first mounts it
    # (its own services and, for gateway mode, their distractors): a batch's fixed cost
    # grows with what it uses, not with the library.
    used = {name for t in todo for name in (*t.services, *t.distractor_services)}
    services = [s for s in built_services(wh).values() if s.name in used]
    envs = env_pool(wh, services, world_model=world_model)
    try:
        groups = run_groups_sync(todo, policy, envs, settings, run=run)
    finally:
        envs.close()
    simulator = envs.env_options.get("world_model")
    if simulator is not None:
        summary.world_model_calls = simulator.calls
        summary.world_model_cached = simulator.cached
    rollouts = [r for group in groups for r in group]
    judged = judge_rollouts({t.task_id: t for t in todo}, rollouts)
    write_judged(wh, rollouts, judged)
    summary.groups = len(groups)
    summary.rollouts = len(rollouts)
    summary.statuses.update(r.status for r in rollouts)
    scores = [row for j in judged for row in j.score_rows()]
    summary.completed = sum(row["completed"] for row in scores)
    summary.mean_reward = sum(row["reward"] for row in scores) / len(scores) if scores else 0.0
    summary.wall_s = time.perf_counter() - t0
    return summary


def done_groups(wh: Warehouse) -> set[str]:
    # Scores are written last, so a group counts as done only once its scores are in.
    return set(
        wh.query("select distinct group_id from rollout_scores").column("group_id").to_pylist()
    )


def _factory_policies(
    use_model: bool, mode: str = "direct"
) -> dict[str, tuple[LLMSettings | None, str, str]]:
    """What the factory rolls out: name -> (model settings or None for the oracle, run,
    mode). The oracle runs in both modes, so exports hold gateway trajectories (discovery
    through the four meta-tools) beside direct ones; a model runs in ``mode``."""
    policies: dict[str, tuple[LLMSettings | None, str, str]] = {"oracle": (None, "", mode)}
    other = "gateway" if mode == "direct" else "direct"
    if os.environ.get("COMPOWORLD_ORACLE_BOTH_MODES", "1").strip().lower() not in ("0", "false"):
        policies[f"oracle-{other}"] = (None, "", other)
    llm = LLMSettings.from_env()
    if use_model and llm.configured:
        policies["model"] = (llm, "factory", mode)
    return policies


def plan_rollouts(
    wh: Warehouse, group_size: int = 2, use_model: bool = True, batch_size: int = ROLLOUT_BATCH
) -> tuple[list[list[str]], int]:
    """The ids of tasks that still lack a group of some factory policy, in batches of
    ``batch_size`` (for a task runner to spread over workers), and how many tasks are done."""
    mode = RolloutSettings.from_env(group_size=group_size).mode
    done = done_groups(wh)
    ids = wh.query("select task_id from tasks order by task_id").column(0).to_pylist()
    keys = [
        (policy_name(llm), run, m) for llm, run, m in _factory_policies(use_model, mode).values()
    ]
    todo = [t for t in ids if any(group_key(t, p, m, run) not in done for p, run, m in keys)]
    return batches(todo, batch_size), len(ids) - len(todo)


def empty_summaries(group_size: int = 2, use_model: bool = True) -> dict[str, RolloutSummary]:
    """A zero summary per factory policy, to fold batch summaries into."""
    mode = RolloutSettings.from_env(group_size=group_size).mode
    return {
        key: RolloutSummary(policy_name(llm), m)
        for key, (llm, _, m) in _factory_policies(use_model, mode).items()
    }


def rollout_batch(
    wh: Warehouse,
    group_size: int = 2,
    workers: int = 2,
    use_model: bool = True,
    task_ids: Sequence[str] | None = None,
) -> dict[str, RolloutSummary]:
    """The factory's rollouts of ``task_ids`` (default: every task): the oracle always, a
    model too when one is configured."""
    settings = RolloutSettings.from_env(group_size=group_size, concurrency=workers)
    return {
        key: rollout_stage(
            wh,
            llm=llm,
            settings=settings.model_copy(update={"mode": mode}),
            run=run,
            task_ids=task_ids,
        )
        for key, (llm, run, mode) in _factory_policies(use_model, settings.mode).items()
    }


def rollout_all(
    wh: Warehouse, group_size: int = 2, workers: int = 2, use_model: bool = True
) -> dict[str, Any]:
    """Every task's factory rollouts in one batch, as summary dicts."""
    return {k: v.to_dict() for k, v in rollout_batch(wh, group_size, workers, use_model).items()}


def write_judged(
    wh: Warehouse, rollouts: Sequence[Any], judged: Sequence[Any], batch: int = 200
) -> None:
    """Rollouts, criterion results and scores, in batches of groups; scores last, since a
    group with scores counts as done. Rows whose rollout id a table already holds (a crashed
    run, a concurrent writer) are not written again: each table's check and write share its
    writer lock."""
    by_group: dict[str, list[Any]] = {}
    for r in rollouts:
        by_group.setdefault(r.group_id, []).append(r)
    groups = [j for j in judged if j.group_id in by_group]
    for i in range(0, len(groups), batch):
        chunk = groups[i : i + batch]
        tables = {
            "rollouts": [r.to_row() for j in chunk for r in by_group[j.group_id]],
            "criterion_results": [row for j in chunk for row in j.criterion_rows()],
            "rollout_scores": [row for j in chunk for row in j.score_rows()],
        }
        for table, rows in tables.items():
            if rows:
                wh.append_absent(table, rows, key="rollout_id", prefix=table)
