"""Prefect's share of the factory's wall time, and how it changes with batch size. Prints
figures; asserts nothing.

    .venv/bin/python bench/orchestration.py [--quick]   (--quick: part 1 only)

1. The default run as a person starts it: ``compoworld run`` in a fresh process, fresh home,
   no Prefect server configured (so it boots the temporary API), once on a fresh
   PREFECT_HOME (a new machine: Prefect migrates its database), then three times on the
   used one, interleaved with three runs of the same stages as plain function calls in a
   fresh process (same imports but Prefect's, same work). Overhead = the difference of the
   medians, as a share of ``compoworld run``.
2. The factory flow in one process with the API already up, at three batch sizes for the
   build and rollout stages (the defaults, one batch each on this corpus; then smaller).
3. A trivial task mapped over 1,000 items in batches of 1, 10, 100 and 1,000.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
ROOT = Path(__file__).resolve().parents[1]


def plain_factory(root: str) -> None:
    """The factory's stages, in order, as plain calls (no Prefect)."""
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
    graph_stage(wh, Path(root).parent / "graph")
    compose_stage(wh, 200)
    rollout_all(wh, 2, 2)
    curation = curate(wh)
    export_all(wh, Path(root).parent / "exports", curation.kept, curation=curation)


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def end_to_end(repeats: int) -> None:
    print("== the default run, end to end in fresh processes (bundled corpus, 200 tasks) ==")
    cli = [sys.executable, "-m", "flows.cli", "run"]
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
        base["PREFECT_HOME"] = f"{tmp}/prefect"
        # A new machine: Prefect creates and migrates its database on the first run.
        first = timed(cli, base | {"COMPOWORLD_HOME": f"{tmp}/first"})
        plains, runs = [], []
        for i in range(repeats):  # interleaved, so drifts in machine load hit both alike
            home = f"{tmp}/plain{i}"
            plains.append(timed([sys.executable, __file__, "--plain", f"{home}/warehouse"], base))
            runs.append(timed(cli, base | {"COMPOWORLD_HOME": f"{tmp}/run{i}"}))
    plain, run = statistics.median(plains), statistics.median(runs)
    print(f"plain function calls (python + imports + stages), median of {repeats}: {plain:6.1f} s")
    print(f"  each: {', '.join(f'{x:.1f}' for x in plains)}")
    print(f"compoworld run, used PREFECT_HOME, median of {repeats}:              {run:6.1f} s")
    print(f"  each: {', '.join(f'{x:.1f}' for x in runs)}")
    print(f"Prefect overhead: {run - plain:5.1f} s = {(run - plain) / run:.1%} of compoworld run")
    print(
        f"compoworld run on a fresh PREFECT_HOME (first run, database created): {first:6.1f} s, "
        f"{first - plain:5.1f} s = {(first - plain) / first:.1%} over the plain median"
    )


def batch_sizes() -> None:
    from prefect import flow

    @flow
    def warm_up() -> int:
        return 1

    t0 = time.perf_counter()
    warm_up()
    print(f"\ntemporary API start-up in-process: {time.perf_counter() - t0:.1f} s")
    from flows.factory import factory

    print("== the factory flow, API up, by batch size (build services / rollout tasks) ==")
    for build, rollout in ((64, 250), (16, 50), (4, 10)):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["COMPOWORLD_HOME"] = tmp
            t0 = time.perf_counter()
            out = factory(build_batch_size=build, rollout_batch_size=rollout)
            wall = time.perf_counter() - t0
        runs = out["build"]["batching"]["batches"] + out["rollout"]["batching"]["batches"]
        print(f"batches of {build:4d} / {rollout:4d}: {runs:3d} batch task runs, {wall:6.1f} s")


def trivial_tasks() -> None:
    from prefect import flow, task

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


def main() -> None:
    if sys.argv[1:2] == ["--plain"]:
        plain_factory(sys.argv[2])
        return
    end_to_end(3)
    if "--quick" not in sys.argv:
        batch_sizes()
        trivial_tasks()


if __name__ == "__main__":
    main()
