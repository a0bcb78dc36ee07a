"""The warehouse on a local folder vs at a ``memory://`` URL (the fsspec path). Prints
figures; asserts nothing.

    .venv/bin/python bench/warehouse_fsspec.py [batches] [rows]

For each location: appending ``batches`` batches of ``rows`` rows, re-appending them (all
skipped), refreshing the views (``connection()``), and two queries over every batch.
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
import time
import uuid
from collections.abc import Callable

import fsspec

from warehouse import Warehouse

NOW = dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC)


def batch(b: int, rows: int) -> list[dict[str, object]]:
    return [
        {
            "run_id": f"{b}-{i}",
            "flow": f"flow-{i % 7}",
            "status": "completed",
            "started_at": NOW,
            "ended_at": NOW,
            "duration_s": float(i),
            "parameters": {"b": b, "i": i},
        }
        for i in range(rows)
    ]


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def bench(label: str, wh: Warehouse, batches: int, rows: int) -> None:
    data = [batch(b, rows) for b in range(batches)]

    def append_all() -> None:
        for b, rows_ in enumerate(data):
            wh.append("runs", rows_, batch_id=f"b{b}")

    first = timed(append_all)
    again = timed(append_all)  # every batch id exists: the skip path

    def refresh() -> None:
        wh.connection().close()

    refresh_s = timed(refresh, 5)
    count_s = timed(lambda: wh.count("runs"), 5)
    group_s = timed(
        lambda: wh.query("select flow, count(*), avg(duration_s) from runs group by flow"), 5
    )
    assert wh.count("runs") == batches * rows  # a sanity check on the figures, not a timing
    print(
        f"{label:<8} append {first:6.2f} s ({first / batches * 1000:5.1f} ms/batch)  "
        f"re-append {again:5.2f} s  connection() {refresh_s * 1000:6.1f} ms  "
        f"count {count_s * 1000:6.1f} ms  group-by {group_s * 1000:6.1f} ms"
    )


def main() -> None:
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    print(f"{batches} batches x {rows} rows into 'runs'")
    with tempfile.TemporaryDirectory() as tmp:
        bench("local", Warehouse(tmp), batches, rows)
    name = f"bench-{uuid.uuid4().hex}"
    try:
        bench("memory", Warehouse(f"memory://{name}"), batches, rows)
    finally:
        fsspec.filesystem("memory").rm(f"/{name}", recursive=True)


if __name__ == "__main__":
    main()
