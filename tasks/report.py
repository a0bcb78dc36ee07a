"""Figures about a warehouse that run summaries and UI artifacts show."""

from __future__ import annotations

import datetime as dt
from typing import Any

from warehouse import Warehouse


def criterion_pass_rates(wh: Warehouse) -> list[dict[str, Any]]:
    """Pass rate per criterion kind over every judged rollout, by policy."""
    return wh.query(
        "select r.policy, c.kind, count(*) as checks, round(avg(c.passed::int), 4) as pass_rate "
        "from criterion_results c join rollouts r using (rollout_id) "
        "group by all order by r.policy, c.kind"
    ).to_pylist()


def task_mix(wh: Warehouse) -> list[dict[str, Any]]:
    """Tasks per domain and capability."""
    return wh.query(
        "with pairs as (select domain, unnest(capabilities) as capability from tasks) "
        "select domain, capability, count(*) as tasks from pairs "
        "group by domain, capability order by domain, capability"
    ).to_pylist()


def rollout_failures(wh: Warehouse, since: dt.datetime, limit: int = 200) -> list[dict[str, Any]]:
    """Rollouts written since ``since`` that did not finish, with their error (a sample)."""
    return wh.query(
        "select task_id, policy, mode, status, error from rollouts "
        "where status <> 'finished' and created_at >= $since order by created_at limit $limit",
        {"since": since, "limit": limit},
    ).to_pylist()
