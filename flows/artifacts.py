"""Run artifacts in the Prefect UI: a markdown summary and tables of what a run made."""

from __future__ import annotations

from typing import Any

from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.report import stage_rows
from tasks.report import criterion_pass_rates, task_mix
from warehouse import Warehouse


def publish(flow: str, summary: dict[str, Any], wh: Warehouse) -> None:
    """Markdown summary, build counts per tier, tasks per capability and domain, pass rate per
    criterion kind, and where the exports are. Keys are lowercase with dashes (Prefect's rule)."""
    lines = [f"# CompoWorld {flow} run", "", "| stage | result |", "|---|---|"]
    lines += [f"| {stage} | {text} |" for stage, text in stage_rows(summary)]
    if "nothing_new" in summary:
        lines += ["", f"Nothing new: {summary['nothing_new']}"]
    lines += ["", f"Warehouse: `{summary.get('warehouse', wh.location)}`"]
    create_markdown_artifact(key=f"{flow}-summary", markdown="\n".join(lines))
    if build := summary.get("build"):
        create_table_artifact(
            key=f"{flow}-build-tiers",
            table=build["tiers"],
            description="Tools verified per tier, and what fell back",
        )
    if summary.get("compose"):
        create_table_artifact(
            key=f"{flow}-task-mix",
            table=task_mix(wh) or [{"tasks": 0}],
            description="Tasks per domain and capability",
        )
    if summary.get("rollout"):
        create_table_artifact(
            key=f"{flow}-criterion-pass-rates",
            table=criterion_pass_rates(wh) or [{"checks": 0}],
            description="Pass rate per criterion kind",
        )
    if export := summary.get("export"):
        rows = [{"export": k, **v} for k, v in export["exports"].items()]
        create_table_artifact(
            key=f"{flow}-exports", table=rows, description="Where the exports are"
        )
