"""What a running stage tells the people watching it: log lines on the run's page in the
Prefect UI (and in the CLI), and a progress artifact per long stage that moves as work ends.

Log lines go through stdlib loggers named ``compoworld.<stage>``. Prefect's API log handler
is attached to the ``compoworld`` logger here, on import, rather than through
``PREFECT_LOGGING_EXTRA_LOGGERS``: a worker reads that setting before it imports our flows,
and the project's ``PREFECT_LOGGING_LEVEL=WARNING`` (quiet consoles) would drop run loggers'
INFO lines anyway. Our logger has its own level (INFO), so what a stage says reaches the UI
whatever Prefect's level; in a console it prints once, through Prefect's rich handler on the
root logger. Outside a flow or task run (a stage function called from a test or a script)
the lines only reach the console.

A :class:`StageReporter` remembers the run it was made in, so callbacks that fire in other
threads (sandbox pools call ``on_result`` from their own threads, which carry no Prefect
context) still log to that run and update its artifact.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections import Counter
from typing import Any
from uuid import UUID

from prefect.artifacts import create_progress_artifact, update_progress_artifact
from prefect.context import FlowRunContext, TaskRunContext
from prefect.logging.handlers import APILogHandler

LOGGER = "compoworld"
SAMPLE = 20  # rejections logged one by one per stage; the rest are counted by reason
UPDATE_EVERY_S = 0.5  # at most two artifact updates a second (the last one always goes)


class _RunLogHandler(APILogHandler):
    """Prefect's API handler, for records made inside a run (or naming one): a stage
    function called outside any run logs to the console only, with no warning."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "flow_run_id", None) or _current_run_ids():
            super().emit(record)


def _current_run_ids() -> dict[str, UUID]:
    task_run = TaskRunContext.get()
    if task_run is not None:
        return {"flow_run_id": task_run.task_run.flow_run_id, "task_run_id": task_run.task_run.id}
    flow_run = FlowRunContext.get()
    if flow_run is not None and flow_run.flow_run is not None:
        return {"flow_run_id": flow_run.flow_run.id}
    return {}


def install_run_logging() -> None:
    """Attach the run handler to the ``compoworld`` logger once per process, at INFO."""
    logger = logging.getLogger(LOGGER)
    logger.setLevel(logging.INFO)
    if not any(isinstance(h, _RunLogHandler) for h in logger.handlers):
        logger.addHandler(_RunLogHandler())


install_run_logging()

# Items counted per progress artifact, shared by every reporter of this process: batches
# running as threads of the flow's process add to one count.
_COUNTS: dict[UUID, int] = {}
_COUNTS_LOCK = threading.Lock()


class StageReporter:
    """Log lines and the progress artifact of one stage of one run.

    Make it inside the flow or task run it reports for; its methods may then be called from
    any thread of that process.
    """

    def __init__(
        self,
        stage: str,
        *,
        total: int | None = None,
        unit: str = "items",
        artifact_id: UUID | None = None,
    ) -> None:
        self.stage = stage
        self.total = total
        self.unit = unit
        self.artifact_id = artifact_id
        self.log = logging.getLogger(f"{LOGGER}.{stage}")
        self._context = contextvars.copy_context()
        self._ids = _current_run_ids()
        self._lock = threading.Lock()
        self._last_update = 0.0
        self._last_logged_tenth = 0
        self._shown = 0
        self._hidden: Counter[str] = Counter()

    # -- log lines --------------------------------------------------------------------------
    def info(self, message: str, *args: Any) -> None:
        self._emit(logging.INFO, message, args)

    def warning(self, message: str, *args: Any) -> None:
        self._emit(logging.WARNING, message, args)

    def error(self, message: str, *args: Any) -> None:
        self._emit(logging.ERROR, message, args)

    def _emit(self, level: int, message: str, args: tuple[Any, ...]) -> None:
        # The run's ids ride on the record, so a thread without Prefect context still logs
        # to the run this reporter was made in.
        self._context.copy().run(self.log.log, level, message, *args, extra=dict(self._ids))

    def rejected(self, item: str, reason: str) -> None:
        """One rejection or failure with its reason: the first ``SAMPLE`` logged one by one,
        the others counted by reason for :meth:`close_rejections`."""
        with self._lock:
            show = self._shown < SAMPLE
            if show:
                self._shown += 1
            else:
                self._hidden[reason.split(":", 1)[0][:120]] += 1
        if show:
            self.warning("%s rejected: %s", item, reason)

    def close_rejections(self) -> None:
        """Say how many rejections were not logged one by one, by reason."""
        if hidden := sum(self._hidden.values()):
            top = sorted(self._hidden.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
            reasons = ", ".join(f"{r} ({n})" for r, n in top)
            self.warning("%d more rejections not listed one by one: %s", hidden, reasons)

    # -- progress ---------------------------------------------------------------------------
    def start_progress(self, total: int, unit: str, *, key: str) -> UUID:
        """Create the stage's progress artifact at 0% (``key``: lowercase and dashes)."""
        self.total, self.unit = total, unit
        self.artifact_id = self._context.copy().run(
            create_progress_artifact,
            0.0,
            key=key,
            description=f"{self.stage}: 0% (0/{total} {unit})",
        )
        with _COUNTS_LOCK:
            _COUNTS[self.artifact_id] = 0
        return self.artifact_id

    def advance(self, n: int = 1) -> None:
        """``n`` more items done: move the artifact (at most twice a second, and always at
        the end) and log the count at every tenth of the way."""
        if self.artifact_id is None or not self.total:
            return
        with _COUNTS_LOCK:
            done = _COUNTS.get(self.artifact_id, 0) + n
            _COUNTS[self.artifact_id] = done
        self._show(done)

    def reached(self, done: int) -> None:
        """``done`` items done in all (never moves the artifact back)."""
        if self.artifact_id is None or not self.total:
            return
        with _COUNTS_LOCK:
            done = max(done, _COUNTS.get(self.artifact_id, 0))
            _COUNTS[self.artifact_id] = done
        self._show(done)

    def _show(self, done: int) -> None:
        assert self.total
        done = min(done, self.total)
        tenth = done * 10 // self.total
        with self._lock:
            now = time.monotonic()
            update = done >= self.total or now - self._last_update >= UPDATE_EVERY_S
            if update:
                self._last_update = now
            log = tenth > self._last_logged_tenth
            if log:
                self._last_logged_tenth = tenth
        if log:
            self.info("%d/%d %s done", done, self.total, self.unit)
        if update:
            percent = 100.0 * done / self.total
            note = f"{self.stage}: {percent:.0f}% ({done}/{self.total} {self.unit})"
            self._update(percent, note)

    def finish(self, closing: str, *args: Any) -> None:
        """The artifact at 100% and the stage's closing line."""
        self.close_rejections()
        if self.artifact_id is not None:
            total = self.total or 0
            self._update(100.0, f"{self.stage}: 100%, done ({total} {self.unit})")
        self.info(closing, *args)

    def _update(self, percent: float, description: str) -> None:
        assert self.artifact_id is not None
        try:
            self._context.copy().run(
                update_progress_artifact, self.artifact_id, percent, description
            )
        except Exception as exc:  # a progress bar is never worth failing a batch for
            self.log.debug("progress update failed: %s", exc)


def progress_key(flow: str, stage: str) -> str:
    """The key of a stage's progress artifact in a flow's runs (Prefect: lowercase, dashes)."""
    return f"{flow}-{stage}-progress".lower().replace("_", "-")


def in_flow_process(runner: object) -> bool:
    """Whether batches run as threads of the flow's process, where they can count items into
    the flow's progress artifact (other runners' batches move it as each batch ends)."""
    from prefect.task_runners import ThreadPoolTaskRunner

    return isinstance(runner, ThreadPoolTaskRunner)


def flow_name() -> str:
    """The running flow's name (``factory``, ``nightly-expansion``, ...), in its tasks too;
    else ``compoworld``."""
    from prefect.runtime import flow_run

    return flow_run.get_flow_name() or LOGGER


def log_counts(reporter: StageReporter, what: str, counts: dict[str, int]) -> None:
    """One warning per reason with its count (already aggregated by the stage)."""
    for reason, n in sorted(counts.items(), key=lambda kv: -kv[1])[:SAMPLE]:
        reporter.warning("%s: %d x %s", what, n, reason)
    if len(counts) > SAMPLE:
        rest = sum(n for _, n in sorted(counts.items(), key=lambda kv: -kv[1])[SAMPLE:])
        reporter.warning("%s: %d more in %d other reasons", what, rest, len(counts) - SAMPLE)
