"""The ``library-health`` artifacts: is the library growing night over night?"""

from __future__ import annotations

from typing import Any

from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.progress import StageReporter
from tasks.health import LibraryHealth, bar_chart, library_health
from warehouse import Warehouse

KEY = "library-health"
CHART_KEY = "library-health-chart"


def even_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows that all have every column (a policy may appear after the first runs), in the
    order columns first appear: the UI's table needs one header."""
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    return [{c: row.get(c) for c in columns} for row in rows]


def _markdown_table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["(none yet)"]
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[c]) for c in head) + " |" for r in rows]
    return lines


def health_markdown(health: LibraryHealth) -> str:
    lines = [
        "# Library health",
        "",
        "```",
        bar_chart(health),
        "```",
        "",
        "## Tasks per domain",
        *_markdown_table(health.domains),
        "",
        "## Mean reward per policy",
        *_markdown_table(health.policies),
    ]
    return "\n".join(lines)


def publish_library_health(wh: Warehouse, last: int = 10) -> LibraryHealth:
    """The trend table (``library-health``) and its chart with the domain and policy figures
    (``library-health-chart``), over the last ``last`` growth runs."""
    report = StageReporter("health")
    health = library_health(wh, last)
    create_table_artifact(
        key=KEY,
        table=even_rows(health.trend) or [{"runs": 0}],
        description=f"The library after each of the last {last} factory / nightly runs",
    )
    create_markdown_artifact(key=CHART_KEY, markdown=health_markdown(health))
    if health.trend:
        now = health.trend[-1]
        report.info(
            "library health: %d services, %d verified tools, %d tasks after %d runs",
            now["services"],
            now["tools_verified"],
            now["tasks"],
            len(health.trend),
        )
    return health
