"""Independent sandbox jobs across up to N workers (the build stage's 1,000-tool runs).

Each job gets a fresh worker by default, so one service cannot affect another's verdict;
every worker is killed when the pool closes, whatever the jobs did.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from library.sandbox.client import Sandbox
from library.sandbox.errors import SandboxError
from library.sandbox.policy import SandboxPolicy

I = TypeVar("I")  # noqa: E741
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class JobResult(Generic[T]):
    """One job's outcome, in input order: a value, or the SandboxError that ended it."""

    index: int
    value: T | None = None
    error: SandboxError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def reason(self) -> str:
        return "" if self.error is None else self.error.reason


class SandboxPool:
    """``map(fn, items)`` runs ``fn(sandbox, item)`` for each item on up to ``workers``
    sandboxes in parallel. Threads only wait on pipes, so the work runs in the worker
    processes. Exceptions other than SandboxError propagate (they are bugs in ``fn``)."""

    def __init__(
        self, workers: int = 2, policy: SandboxPolicy | None = None, *, fresh_per_job: bool = True
    ) -> None:
        self.fresh_per_job = fresh_per_job
        self._sandboxes = [Sandbox(policy) for _ in range(max(1, workers))]
        self._idle: queue.SimpleQueue[Sandbox] = queue.SimpleQueue()
        for sandbox in self._sandboxes:
            self._idle.put(sandbox)
        self._executor = ThreadPoolExecutor(len(self._sandboxes), "sandbox-pool")

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, fn: Callable[[Sandbox, I], T], index: int, item: I) -> JobResult[T]:
        sandbox = self._idle.get()
        try:
            if self.fresh_per_job and sandbox.pid is not None:
                sandbox.restart()
            return JobResult(index, value=fn(sandbox, item))
        except SandboxError as exc:
            return JobResult(index, error=exc)
        finally:
            self._idle.put(sandbox)

    def map(self, fn: Callable[[Sandbox, I], T], items: Iterable[I]) -> list[JobResult[T]]:
        futures = [self._executor.submit(self._run, fn, i, item) for i, item in enumerate(items)]
        return [future.result() for future in futures]

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        for sandbox in self._sandboxes:
            sandbox.close()


def run_many(
    fn: Callable[[Sandbox, I], T],
    items: Iterable[I],
    *,
    policy: SandboxPolicy | None = None,
    workers: int = 2,
    fresh_per_job: bool = True,
) -> list[JobResult[T]]:
    """``SandboxPool.map`` in one call; no worker survives it."""
    with SandboxPool(workers, policy, fresh_per_job=fresh_per_job) as pool:
        return pool.map(fn, items)
