"""Recording pipeline runs in the ``runs`` table."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from library.redact import redact
from warehouse import Warehouse


@contextmanager
def recorded_run(
    wh: Warehouse, flow: str, parameters: dict[str, Any], run_id: str | None = None
) -> Iterator[dict[str, Any]]:
    """Yield a summary dict to fill; on exit append one ``runs`` row (completed or failed).

    The row's batch id is the run id, so a retried write never duplicates it.
    """
    run_id = run_id or uuid.uuid4().hex
    started = dt.datetime.now(dt.UTC)
    t0 = time.perf_counter()
    summary: dict[str, Any] = {}
    status, error = "completed", None
    try:
        yield summary
    except BaseException as exc:
        status, error = "failed", redact(f"{type(exc).__name__}: {exc}")
        raise
    finally:
        wh.append(
            "runs",
            [
                {
                    "run_id": run_id,
                    "flow": flow,
                    "status": status,
                    "started_at": started,
                    "ended_at": dt.datetime.now(dt.UTC),
                    "duration_s": round(time.perf_counter() - t0, 3),
                    "parameters": parameters,
                    "summary": summary,
                    "error": error,
                }
            ],
            batch_id=run_id,
        )
