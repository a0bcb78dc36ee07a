"""A composed task's verdict, decided again in the parent with every service in a worker of
its own. Composition runs in one worker beside all the services it combines (the gold plan
and the mutants call them in-process), so there one module could tamper with another; a
task is kept only if, with the services isolated, doing nothing fails its rubric and its gold
plan with the gold answer passes every criterion, judged here over the states the workers
report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from library.compose.task import Task
from library.rollout.env import SandboxEnv, SandboxEnvPool
from library.rubric.evaluate import load_criteria
from library.sandbox import SandboxError, SandboxPolicy


def recheck_task(env: SandboxEnv, task: Task) -> str | None:
    """Why ``task`` fails in isolated workers, or None when it holds."""
    criteria = load_criteria(task.rubric)
    env.reset(task, "direct")
    start = env.final_states()
    if all(c.check(task.initial_state, start, "") for c in criteria):
        return "doing nothing passes every criterion"
    for step in task.gold_plan:
        env.call(step["tool"], step["arguments"])
    final, answer = env.final_states(), task.gold_answer()
    failed = [c for c in criteria if not c.check(task.initial_state, final, answer)]
    if failed:
        return f"the gold plan fails {len(failed)} of {len(criteria)} criteria"
    return None


def recheck_tasks(
    tasks: Iterable[Task],
    sources: Mapping[str, str],
    homes: Mapping[str, str],
    *,
    refs: Mapping[str, str] | None = None,
    policy: SandboxPolicy | None = None,
) -> dict[str, str | None]:
    """task id -> None (holds) or the reason it does not, with the services isolated.
    ``sources``: module -> untrusted code; ``homes``: service -> its module."""
    verdicts: dict[str, str | None] = {}
    with SandboxEnvPool(refs, sources, policy, homes=homes) as pool:
        env = pool()
        for task in tasks:
            try:
                verdicts[task.task_id] = recheck_task(env, task)
            except SandboxError as exc:
                verdicts[task.task_id] = f"sandbox: {exc.reason}"
            except KeyError as exc:  # a service the task names has no code
                verdicts[task.task_id] = f"no code: {exc}"
    return verdicts
