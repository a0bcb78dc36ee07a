"""``compoworld eval``: compare policies on held-out tasks (the ``evaluate`` flow) and print
them side by side."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table


def _cell(est: Any) -> str:
    """An ``Estimate`` (library.evaluation) as value [lo, hi]."""
    if est.value is None:
        return "n/a"
    return f"{est.value:.2f} [{est.lo:.2f}, {est.hi:.2f}]"


def eval_(
    policy: Annotated[
        list[str],
        typer.Option(
            "--policy",
            help="A policy to evaluate (repeat to compare): oracle, scripted[:P] (solves a "
            "share P of episodes), litellm:<model>, local:<folder> (transformers, in process), "
            "tiny (the tiny model, built locally).",
        ),
    ],
    split: Annotated[
        list[str] | None, typer.Option("--split", help="Task split(s) (default: eval).")
    ] = None,
    k: Annotated[int, typer.Option("--k", help="Trials per task (pass^k's k).")] = 4,
    limit: Annotated[int | None, typer.Option(help="At most this many tasks.")] = None,
    mode: Annotated[str, typer.Option(help="direct or gateway.")] = "direct",
    run: Annotated[
        str, typer.Option(help="Run name: a rerun of the same name replays model calls.")
    ] = "eval",
    max_steps: Annotated[int | None, typer.Option(help="Policy turns per episode.")] = None,
    max_new_tokens: Annotated[
        int, typer.Option(help="Tokens a local model generates per turn.")
    ] = 256,
    max_prompt_tokens: Annotated[
        int | None,
        typer.Option(
            help="A local model sees its newest this many prompt tokens (default: its "
            "context; 2048 when tiny is evaluated)."
        ),
    ] = None,
) -> None:
    """Roll each policy out K times per task, judge, store `evaluations`, print the policies
    side by side (pass^1, pass^k, mean reward with 95% intervals) and save a plot."""
    from flows.early_api import start_in_background, wait_until_up

    console, err = Console(), Console(stderr=True)
    if mode not in ("direct", "gateway"):
        err.print(f"[red]error:[/red] --mode must be direct or gateway, not {mode!r}")
        raise typer.Exit(2)
    from flows.settings import warehouse_root
    from tasks.evaluate import EvaluationError, parse_policy, select_tasks
    from warehouse import Warehouse

    try:  # refuse bad input before a server starts (tiny is resolved by the flow)
        for spec in policy:
            if spec.strip() != "tiny":
                parse_policy(spec)
        select_tasks(Warehouse(warehouse_root()), split or ["eval"], limit)
    except EvaluationError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    api = start_in_background()
    from flows.evaluate import evaluate_flow

    wait_until_up(api)
    try:
        summary = evaluate_flow(
            policies=policy,
            splits=split or ["eval"],
            k=k,
            limit=limit,
            mode=mode,
            run=run,
            max_steps=max_steps,
            max_new_tokens=max_new_tokens,
            max_prompt_tokens=max_prompt_tokens,
        )
    except EvaluationError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    report = summary["report"]
    table = Table(
        title=f"{report.eval_id}: {report.tasks} tasks of {', '.join(report.splits)}, "
        f"{report.k} trials each ({report.mode})"
    )
    for column in ("policy", "rollouts", "pass^1", f"pass^{report.k}", "mean reward"):
        table.add_column(column, no_wrap=True)
    for r in report.results:
        o = r.overall()
        table.add_row(
            r.policy, str(r.rollouts), _cell(o.pass1), _cell(o.passk), _cell(o.mean_reward)
        )
    console.print(table)
    slices = Table(title="pass^1 by slice")
    slices.add_column("slice", no_wrap=True)
    for r in report.results:
        slices.add_column(r.policy, no_wrap=True)
    first = report.results[0].metrics if report.results else []
    for m in first:
        if m.slice_kind == "all":
            continue
        values = []
        for r in report.results:
            other = next(
                (x for x in r.metrics if (x.slice_kind, x.slice) == (m.slice_kind, m.slice)), None
            )
            ok = other is not None and other.pass1.value is not None
            values.append(f"{other.pass1.value:.2f}" if ok else "n/a")  # type: ignore[union-attr]
        slices.add_row(f"{m.slice_kind}: {m.slice}", *values)
    console.print(slices)
    console.print("intervals: 95% bootstrap over tasks; stored in the `evaluations` table")
    if report.plot:
        console.print(f"plot: {report.plot}")
    else:
        console.print(f"no plot: {report.plot_note}")
