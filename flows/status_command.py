"""``compoworld status``: the library's trend over the last runs, from the warehouse."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.table import Table

from flows.settings import warehouse_root

# The trend's columns a terminal has room for (the JSON output has every one).
COLUMNS = (
    "ended_at",
    "flow",
    "status",
    "services",
    "services_compiler",
    "services_coding_agent",
    "services_world_model",
    "tools_verified",
    "tools_compiler",
    "tools_coding_agent",
    "tools_world_model",
    "tasks",
    "new_tasks",
    "acceptance",
    "mutation_catch_rate",
)
HEADERS = {
    "services_compiler": "svc compiler",
    "services_coding_agent": "svc agent",
    "services_world_model": "svc world model",
    "tools_verified": "tools verified",
    "tools_compiler": "tools compiler",
    "tools_coding_agent": "tools agent",
    "tools_world_model": "tools world model",
    "mutation_catch_rate": "catch rate",
    "new_tasks": "new tasks",
}


def _table(title: str, rows: list[dict[str, Any]], columns: list[str]) -> Table:
    table = Table(title=title, title_justify="left")
    for c in columns:
        table.add_column(HEADERS.get(c, c), justify="left" if c in ("flow", "note") else "right")
    for row in rows:
        table.add_row(*("" if row.get(c) is None else str(row.get(c)) for c in columns))
    return table


def status(
    last: Annotated[int, typer.Option(min=1, help="How many of the latest runs.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead.")] = False,
) -> None:
    """The library's trend over the last factory and nightly-expansion runs: services and
    verified tools per tier, tasks, composition validity, mean reward per policy; tasks per
    domain; and a chart."""
    from tasks.health import bar_chart, library_health
    from warehouse import Warehouse

    health = library_health(Warehouse(warehouse_root()), last)
    if as_json:
        data = {"trend": health.trend, "domains": health.domains, "policies": health.policies}
        sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE))
        return
    console = Console()
    if health.empty:
        console.print(bar_chart(health))
        return
    rewards = sorted({k for r in health.trend for k in r if k.startswith("reward ")})
    console.print(
        _table(
            f"The library after each of the last {last} runs",
            health.trend,
            [*COLUMNS, *rewards, "note"],
        )
    )
    console.print(
        _table("Tasks per domain", health.domains, list(health.domains[0]))
        if health.domains
        else "no tasks yet"
    )
    console.print(
        _table("Mean reward per policy", health.policies, ["policy", "mean_reward", "completion"])
        if health.policies
        else "no rollouts yet"
    )
    console.print(bar_chart(health))
