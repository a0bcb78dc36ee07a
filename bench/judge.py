"""Rollout and judge throughput. Prints figures; asserts nothing about time.

    .venv/bin/python bench/judge.py [--tasks 200] [--group 8] [--concurrency 32]
                                    [--corpus] [--sandbox 2] [--scripted 20]

1. oracle rollouts/s in direct and gateway mode (in-process services, G per task,
   ``--concurrency`` episodes at once), with steps/s;
2. the judge: criteria evaluated per second and rollouts judged per second (rubric, CFRR,
   advantages, warehouse rows), from the stored final states alone;
3. replaying and rehashing: each rollout's calls re-executed from the task's initial state
   and the final state rehashed (what checks a stored rollout before training);
4. with ``--sandbox W``: oracle rollouts/s with services in W sandbox workers;
5. with ``--scripted N``: N tasks solved by a scripted model through the real litellm path
   (a local OpenAI-compatible stub), for the engine's overhead per model turn.

``--corpus`` composes over the compiled bundled corpus instead of the reference services.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from library.compose import Task, compose_tasks  # noqa: E402
from library.judge import judge_group  # noqa: E402
from library.rollout import (  # noqa: E402
    Env,
    InProcessEnv,
    LiteLLMPolicy,
    OraclePolicy,
    Rollout,
    RolloutSettings,
    SandboxEnvPool,
    replay_rollout,
    run_groups,
)
from library.runtime import Service  # noqa: E402


def library(corpus: bool) -> tuple[list[type[Service]], dict[str, str], dict[str, str]]:
    """(classes, sandbox refs, sandbox sources) of the services to compose over."""
    if not corpus:
        from library.services import reference_service_classes

        classes = reference_service_classes()
        return classes, {c.name: f"{c.__module__}:{c.__name__}" for c in classes}, {}
    from library.compiler import compile_service, load_service
    from library.compose.corpus import bundled_specs

    sources = {f"svc_{n}": compile_service(s).source for n, s in bundled_specs().items()}
    return [load_service(src) for src in sources.values()], {}, sources


def timed_groups(
    tasks: Sequence[Task], policy: Any, factory: Callable[[], Env], settings: RolloutSettings
) -> tuple[list[list[Rollout]], float]:
    start = time.perf_counter()
    groups = asyncio.run(run_groups(tasks, policy, factory, settings))
    return groups, time.perf_counter() - start


def report_rollouts(label: str, groups: list[list[Rollout]], took: float) -> None:
    rollouts = [r for g in groups for r in g]
    steps = sum(r.steps for r in rollouts)
    calls = sum(r.tool_calls for r in rollouts)
    finished = sum(r.status == "finished" for r in rollouts)
    print(
        f"{label:28s} {len(rollouts):6d} rollouts in {took:6.2f} s: "
        f"{len(rollouts) / took:8.1f} rollouts/s, {steps / took:9.0f} steps/s, "
        f"{calls / took:9.0f} tool calls/s ({finished}/{len(rollouts)} finished)"
    )


def judge_figures(tasks: Sequence[Task], groups: list[list[Rollout]]) -> None:
    start = time.perf_counter()
    judged = [judge_group(t, g) for t, g in zip(tasks, groups, strict=True)]
    rows = [row for j in judged for row in (*j.criterion_rows(), *j.score_rows())]
    took = time.perf_counter() - start
    criteria = sum(len(j.passes) * len(j.criteria) for j in judged)
    rollouts = sum(len(g) for g in groups)
    mean = sum(r for j in judged for r in j.rewards) / rollouts
    print(
        f"judge: {criteria} criteria on {rollouts} rollouts in {took * 1000:.0f} ms: "
        f"{criteria / took:,.0f} criteria/s, {rollouts / took:,.0f} rollouts/s "
        f"({len(rows)} rows; mean reward {mean:.3f})"
    )


def replay_figures(
    tasks: Sequence[Task], groups: list[list[Rollout]], classes: list[type[Service]]
) -> None:
    env = InProcessEnv(classes)
    start = time.perf_counter()
    results = [replay_rollout(t, r, env) for t, g in zip(tasks, groups, strict=True) for r in g]
    took = time.perf_counter() - start
    calls = sum(r.calls for r in results)
    ok = sum(r.matches for r in results)
    print(
        f"replay + rehash: {len(results)} rollouts in {took:.2f} s: "
        f"{len(results) / took:,.0f} rollouts/s, {calls / took:,.0f} calls/s "
        f"({ok}/{len(results)} reproduced exactly)"
    )


def sandbox_figures(
    tasks: Sequence[Task], refs: dict[str, str], sources: dict[str, str], workers: int
) -> None:
    with SandboxEnvPool(refs, sources) as pool:
        # A worker's first mounts and calls of each service build validators lazily (about
        # 5 ms an episode): one untimed pass over the same tasks first.
        start = time.perf_counter()
        for mode in ("direct", "gateway"):
            settings = RolloutSettings(mode=mode, group_size=workers, concurrency=workers)
            timed_groups(tasks, OraclePolicy, pool, settings)
        took = time.perf_counter() - start
        print(f"{pool.workers} sandbox workers started and warmed in {took:.1f} s")
        for mode in ("direct", "gateway"):
            settings = RolloutSettings(mode=mode, group_size=workers, concurrency=workers)
            boxed, took = timed_groups(tasks, OraclePolicy, pool, settings)
            report_rollouts(f"oracle, {mode}, {workers} sandboxes", boxed, took)


def scripted_figures(tasks: Sequence[Task], classes: list[type[Service]], group: int) -> None:
    from library.llm import LLMClient, MemoryCallStore
    from library.llm.testing import ScriptedModel

    by_instruction = {t.instruction: t for t in tasks}

    def reply(body: dict[str, Any]) -> Any:
        task = by_instruction[body["messages"][1]["content"]]
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn >= len(task.gold_plan):
            return task.gold_answer()
        step = task.gold_plan[turn]
        return {"tool_calls": [{"name": step["tool"], "arguments": step["arguments"]}]}

    turns = sum(len(t.gold_plan) + 1 for t in tasks) * group
    with ScriptedModel([reply] * (turns + 100)) as model:
        policy = LiteLLMPolicy(LLMClient(model.settings(), MemoryCallStore()))
        warm = RolloutSettings(group_size=1, concurrency=1)
        timed_groups(tasks[:1], policy, lambda: InProcessEnv(classes), warm)  # import litellm
        settings = RolloutSettings(group_size=group, concurrency=16)
        groups, took = timed_groups(tasks, policy, lambda: InProcessEnv(classes), settings)
    report_rollouts("scripted model via litellm", groups, took)
    per_turn = took / max(1, sum(r.steps for g in groups for r in g)) * settings.concurrency
    print(
        f"  about {per_turn * 1000:.0f} ms per model turn at concurrency 16 (the stub serves "
        "from threads of this process, so it shares the GIL: a floor, not a model figure)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", action="store_true")
    parser.add_argument("--sandbox", type=int, default=0, help="sandbox workers (0: skip)")
    parser.add_argument("--scripted", type=int, default=20, help="tasks (0: skip)")
    args = parser.parse_args()

    classes, refs, sources = library(args.corpus)
    start = time.perf_counter()
    tasks = compose_tasks(classes, args.tasks, seed=args.seed).tasks
    print(f"{len(tasks)} tasks over {len(classes)} services in {time.perf_counter() - start:.1f} s")
    groups: dict[str, list[list[Rollout]]] = {}
    for mode in ("direct", "gateway"):
        settings = RolloutSettings(mode=mode, group_size=args.group, concurrency=args.concurrency)
        groups[mode], took = timed_groups(
            tasks, OraclePolicy, lambda: InProcessEnv(classes), settings
        )
        report_rollouts(f"oracle, {mode}, in-process", groups[mode], took)
    for mode in ("direct", "gateway"):
        print(f"[{mode}] ", end="")
        judge_figures(tasks, groups[mode])
        print(f"[{mode}] ", end="")
        replay_figures(tasks, groups[mode], classes)
    if args.sandbox:
        sandbox_figures(tasks[: max(1, len(tasks) // 4)], refs, sources, args.sandbox)
    if args.scripted:
        scripted_figures(tasks[: args.scripted], classes, 2)


if __name__ == "__main__":
    main()
