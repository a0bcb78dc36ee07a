"""A composed task's verdict, decided again in the parent with every service in a worker of
its own. Composition runs in one worker beside all the services it combines (the gold plan
and the mutants call them in-process), so there one module could tamper with another; a
task is kept only if, with the services isolated, doing nothing fails its rubric, its gold
plan with the gold answer passes every criterion, judged here over the states the workers
report, and every value the plan and the answer took from a tool's output is the one the
isolated service gives (else a tampered output, an attacker's e-mail address, would ride
into the task as if the service had said it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import orjson

from library.compose.mutants import lookup, resolve
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
    envelopes: list[dict] = []
    for i, step in enumerate(task.gold_plan):
        args = step["arguments"]
        for name, bind in (step.get("binds") or {}).items():
            if resolve(bind, args.get(name), envelopes) != args.get(name):
                return f"step {i} ({step['tool']}): {name} is not what the services give"
        envelopes.append(env.call(step["tool"], args))
    final, answer = env.final_states(), task.gold_answer()
    failed = [c for c in criteria if not c.check(task.initial_state, final, answer)]
    if failed:
        return f"the gold plan fails {len(failed)} of {len(criteria)} criteria"
    return _answer_disagrees(task, envelopes)


def _answer_disagrees(task: Task, envelopes: list[dict]) -> str | None:
    """Why the task's answer is not what the isolated services gave, or None."""
    for row in task.answer:
        k = row.get("step")
        data = envelopes[k].get("data") if isinstance(k, int) and k < len(envelopes) else None
        if lookup(data, str(row.get("path") or "")) != row.get("value"):
            return f"the answer's {row.get('label')} is not what the services give"
    # What the reply must not state: values the agent sees in these outputs or is told.
    seen = orjson.dumps(envelopes).decode() + " ".join([task.instruction, *task.literals])
    omitted = [v for row in task.answer for v in row.get("excludes") or ()]
    omitted += [v for c in task.rubric if c.get("kind") == "answer_omits" for v in c["values"]]
    for value in omitted:
        if (value if isinstance(value, str) else orjson.dumps(value).decode()) not in seen:
            return f"the reply must omit {value!r}, which the services never show"
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
