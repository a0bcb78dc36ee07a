"""Is the library growing? Trend figures over the last runs of the factory and the nightly
expansion, from the warehouse: what the library held when each run ended (services and
verified tools per tier, tasks, mean reward per policy), and what each run's composition
measured (acceptance, mutation catch rate), plus tasks per domain and reward per policy now.

For the ``library-health`` artifact and ``compoworld status``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import orjson

from warehouse import Warehouse

GROWTH_FLOWS = ("factory", "nightly-expansion")
TIERS = ("compiler", "coding_agent", "world_model", "mixed")
BAR = "█"
SPARKS = "▁▂▃▄▅▆▇█"

# What the library held at ``$at``: the newest build of each service name by then, its
# tier, its verified tools; tasks written by then; rewards of rollouts made by then.
_SERVICES_AT = """
with latest as (
    select * from services where built_at <= $at
    qualify row_number() over (partition by name order by built_at desc, service_id) = 1
)
select l.tier, count(distinct l.name) as services,
       coalesce(sum(l.tools_verified), 0)::bigint as tools_verified
from latest l group by l.tier
"""
_TASKS_AT = "select count(*) as tasks from tasks where created_at is null or created_at <= $at"
_REWARD_AT = """
select r.policy || '/' || r.mode as policy, round(avg(s.reward), 4) as mean_reward,
       round(avg(s.completed::int), 4) as completion
from rollouts r join rollout_scores s using (rollout_id)
where r.created_at <= $at group by all order by policy
"""


@dataclass(frozen=True, slots=True)
class LibraryHealth:
    """The trend (one row per run, oldest first) and the figures of the library now."""

    trend: list[dict[str, Any]]
    domains: list[dict[str, Any]]
    policies: list[dict[str, Any]]

    @property
    def empty(self) -> bool:
        return not self.trend


def _summary(row: dict[str, Any]) -> dict[str, Any]:
    try:
        return orjson.loads(row["summary"] or "{}")
    except orjson.JSONDecodeError:
        return {}


def library_health(wh: Warehouse, last: int = 10) -> LibraryHealth:
    """Figures over the last ``last`` runs of the factory and the nightly expansion."""
    runs = wh.query(
        "select run_id, flow, status, ended_at, summary from runs "
        "where list_contains($flows, flow) order by ended_at desc limit $last",
        {"flows": list(GROWTH_FLOWS), "last": last},
    ).to_pylist()
    trend = []
    for run in reversed(runs):
        at = run["ended_at"]
        tiers = {r["tier"]: r for r in wh.query(_SERVICES_AT, {"at": at}).to_pylist()}
        summary = _summary(run)
        compose = summary.get("compose") or {}
        row: dict[str, Any] = {
            "ended_at": at.strftime("%Y-%m-%d %H:%M"),
            "flow": run["flow"],
            "status": run["status"],
            "services": sum(r["services"] for r in tiers.values()),
            "tools_verified": sum(r["tools_verified"] for r in tiers.values()),
        }
        for tier in TIERS:
            row[f"services_{tier}"] = tiers.get(tier, {}).get("services", 0)
            row[f"tools_{tier}"] = tiers.get(tier, {}).get("tools_verified", 0)
        row["tasks"] = wh.query(_TASKS_AT, {"at": at}).to_pylist()[0]["tasks"]
        row["new_tasks"] = compose.get("written", 0)
        row["acceptance"] = compose.get("acceptance")
        row["mutation_catch_rate"] = compose.get("mutation_catch_rate")
        for policy in wh.query(_REWARD_AT, {"at": at}).to_pylist():
            row[f"reward {policy['policy']}"] = policy["mean_reward"]
        row["note"] = summary.get("nothing_new") or ""
        trend.append(row)
    domains = wh.query(
        "select domain, count(*) as tasks, round(avg(catch_rate), 4) as mean_catch_rate "
        "from tasks group by domain order by tasks desc, domain"
    ).to_pylist()
    policies = wh.query(_REWARD_AT, {"at": dt.datetime.max.replace(tzinfo=dt.UTC)}).to_pylist()
    return LibraryHealth(trend, domains, policies)


def sparkline(values: list[float]) -> str:
    """One character per value, scaled between the smallest and the largest."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1
    return "".join(SPARKS[round((v - low) / span * (len(SPARKS) - 1))] for v in values)


def bar_chart(health: LibraryHealth, width: int = 40) -> str:
    """Verified tools per run as horizontal bars (one line per run), and sparklines of
    services, tasks and the mean reward of each policy: a chart that renders as text."""
    if health.empty:
        return "no factory or nightly-expansion runs in the warehouse yet"
    top = max(max(r["tools_verified"] for r in health.trend), 1)
    label = max(len(f"{r['ended_at']} {r['flow']}") for r in health.trend)
    lines = ["verified tools after each run"]
    for r in health.trend:
        n = r["tools_verified"]
        bar = BAR * max(round(n / top * width), 1 if n else 0)
        lines.append(f"{r['ended_at']} {r['flow']}".ljust(label) + f" {bar} {n}")
    lines.append("")
    for name in ("services", "tasks"):
        values = [float(r[name]) for r in health.trend]
        lines.append(f"{name:<24} {sparkline(values)}  {values[0]:g} -> {values[-1]:g}")
    rewards = sorted({k for r in health.trend for k in r if k.startswith("reward ")})
    for key in rewards:
        values = [float(r.get(key) or 0.0) for r in health.trend]
        lines.append(f"{key[:24]:<24} {sparkline(values)}  {values[0]:.3f} -> {values[-1]:.3f}")
    return "\n".join(lines)
