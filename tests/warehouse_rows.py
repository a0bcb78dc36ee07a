"""Rows for the warehouse tests: one ``runs`` row, shared by the local and the URL tests."""

from __future__ import annotations

import datetime as dt

NOW = dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC)


def run_row(run_id: str, **extra: object) -> dict[str, object]:
    row: dict[str, object] = {
        "run_id": run_id,
        "flow": "factory",
        "status": "completed",
        "started_at": NOW,
        "ended_at": NOW,
        "duration_s": 1.5,
    }
    return row | extra
