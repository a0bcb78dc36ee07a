"""The closing summary of a factory run, for people."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _pct(x: float) -> str:
    return f"{x:.0%}"


def stage_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    if ing := s.get("ingest"):
        rows.append(
            (
                "ingest",
                f"{ing['documents']} new documents ({ing['already_ingested']} already in), "
                f"{ing['services']} services, {ing['tools']} tools, "
                f"{_pct(ing['classified_share'])} classified, "
                f"{sum(ing['errors'].values())} spec errors",
            )
        )
    if b := s.get("build"):
        rows.append(
            (
                "build",
                f"{b['services_built']} services built ({b['services_already_built']} "
                f"already), {b['tools_verified']}/{b['tools']} tools verified, "
                f"{b['rejected']} rejected",
            )
        )
    if g := s.get("graph"):
        rows.append(
            (
                "graph",
                f"{g['tools']} tools, {g['edges']} edges "
                f"({g['cross_service_edges']} cross-service); picture: {g['picture']}",
            )
        )
    if c := s.get("compose"):
        rows.append(
            (
                "compose",
                f"{c['composed']} verified tasks ({c['written']} new), "
                f"{_pct(c['three_plus_services_share'])} touch 3+ services, "
                f"acceptance {_pct(c['acceptance'])}",
            )
        )
    for name, r in (s.get("rollout") or {}).items():
        if name == "batching":
            continue
        rows.append(
            (
                f"rollout ({name})",
                f"{r['rollouts']} rollouts in {r['groups']} groups "
                f"({r['groups_already_done']} groups already done), completion "
                f"{_pct(r['completion_rate'])}, mean reward {r['mean_reward']:.3f}",
            )
        )
    for stage in ("build", "rollout"):
        failed = ((s.get(stage) or {}).get("batching") or {}).get("failed_batches") or []
        for f in failed:
            items = f"{len(f['items'])} items ({', '.join(f['items'][:3])}...)"
            rows.append((f"{stage}: FAILED batch", f"{items}: {f['error']}; rerun to retry"))
    if e := s.get("export"):
        cur = e["curation"]
        rows.append(
            (
                "curate",
                f"kept {cur['kept']} of {cur['considered']} rollouts; dropped "
                + ", ".join(f"{k} {v}" for k, v in cur["dropped"].items()),
            )
        )
        for kind, x in e["exports"].items():
            rows.append((f"export {kind}", f"{x['records']} records -> {x['path']}"))
    return rows


def print_run_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title="CompoWorld factory run", show_header=False, expand=False)
    table.add_column(style="bold")
    table.add_column()
    for stage, text in stage_rows(summary):
        table.add_row(stage, text)
    console.print(table)
    console.print(f'warehouse: {summary.get("warehouse")}   query it: compoworld sql "select ..."')
