"""A readable sample of composed tasks (for the README)."""

from __future__ import annotations

from collections.abc import Sequence

from library.compose.task import Task


def pick_sample(tasks: Sequence[Task], k: int = 20) -> list[Task]:
    """``k`` tasks spread over domains (round-robin, each domain in task-id order)."""
    by_domain: dict[str, list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.task_id):
        by_domain.setdefault(task.domain, []).append(task)
    out: list[Task] = []
    while len(out) < k and any(by_domain.values()):
        for domain in sorted(by_domain):
            if by_domain[domain] and len(out) < k:
                out.append(by_domain[domain].pop(0))
    return out


def sample_markdown(tasks: Sequence[Task], k: int = 20) -> str:
    """A markdown list: domain, services, capabilities, then the instruction."""
    lines = []
    for task in pick_sample(tasks, k):
        caps = ", ".join(task.capabilities)
        services = ", ".join(task.services)
        lines.append(f"- *{task.domain}* ({services}; {caps}): {task.instruction}")
    return "\n".join(lines) + ("\n" if lines else "")
