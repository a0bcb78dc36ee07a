"""Prefect's share of the factory's wall time, and how per-task overhead changes with batch
size. Prints figures; asserts nothing.

    .venv/bin/python bench/orchestration.py

1. the factory's stages as plain function calls on a fresh home;
2. the same as the Prefect ``factory`` flow on another fresh home, after a warm-up flow has
   started the temporary API server (its start-up is reported on its own);
3. a trivial task mapped over 1,000 items in batches of 1, 10, 100 and 1,000.
"""

from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


def plain_factory(root: str) -> None:
    from pathlib import Path

    from tasks.build import BuildSettings, build_services
    from tasks.compose import compose_stage, graph_stage
    from tasks.curate import curate
    from tasks.export import export_all
    from tasks.ingest import bundled_corpus, ingest_paths
    from tasks.rollout import rollout_all
    from warehouse import Warehouse

    wh = Warehouse(root)
    ingest_paths([str(bundled_corpus())], root)
    build_services(wh, BuildSettings())
    graph_stage(wh, Path(root) / "graph")
    compose_stage(wh, 200)
    rollout_all(wh, 2, 2)
    curation = curate(wh)
    export_all(wh, Path(root) / "exports", curation.kept, curation=curation)


def main() -> None:
    from prefect import flow, task

    with tempfile.TemporaryDirectory() as w, tempfile.TemporaryDirectory() as a:
        plain_factory(os.path.join(w, "warehouse"))  # warm-up: imports, caches
        t0 = time.perf_counter()
        plain_factory(os.path.join(a, "warehouse"))
        plain = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as b:

        @flow
        def warm_up() -> int:
            return 1

        t0 = time.perf_counter()
        warm_up()
        startup = time.perf_counter() - t0

        os.environ["COMPOWORLD_HOME"] = b
        from flows.factory import factory

        t0 = time.perf_counter()
        factory()
        flowed = time.perf_counter() - t0
    overhead = flowed - plain
    print("== the factory (bundled corpus, 200 tasks, G = 2) ==")
    print(f"plain function calls          {plain:7.1f} s")
    print(f"Prefect factory flow          {flowed:7.1f} s")
    share = overhead / flowed
    print(f"Prefect overhead              {overhead:7.1f} s = {share:.1%} of the flow's wall time")
    print(f"temporary API server start-up {startup:7.1f} s (once per process)")

    @task
    def work(items: list[int]) -> int:
        return sum(items)

    @flow
    def mapped(batch: int, n: int = 1000) -> int:
        chunks = [list(range(i, min(i + batch, n))) for i in range(0, n, batch)]
        return sum(f.result() for f in work.map(chunks))

    print("\n== a trivial task over 1,000 items ==")
    for batch in (1, 10, 100, 1000):
        walls = []
        for _ in range(2):  # best of two: the embedded server's SQLite adds noise
            t0 = time.perf_counter()
            mapped(batch)
            walls.append(time.perf_counter() - t0)
        wall = min(walls)
        runs = 1000 // batch
        print(f"batch {batch:5d}: {runs:5d} task runs, {wall:6.2f} s, {wall:.3f} ms per item")


if __name__ == "__main__":
    main()
