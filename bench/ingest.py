"""Ingestion throughput and corpus figures. Prints numbers; asserts nothing about time.

    .venv/bin/python bench/ingest.py [--files 500] [--repeat 3]

1. parse only (``ingest_document``, one process) on ../shared/specs and on the bundled corpus
   (library/specs/, when present): documents/s, tools/s, MB/s;
2. the bundled corpus: services, tools, share classified (resource + verb), share of tools
   linked to another service through a shared semantic type;
3. ``compoworld ingest`` on a folder of N real OpenAPI files (../shared/specs/openapi copied
   until there are N, each copy a distinct service so nothing dedups), on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from library.ingest import IngestStats, ingest_document  # noqa: E402
from tasks.ingest import discover  # noqa: E402

SHARED = ROOT.parent / "shared" / "specs"
BUNDLED = ROOT / "library" / "specs"


def parse_throughput(label: str, files: list[Path], repeat: int) -> IngestStats | None:
    if not files:
        print(f"{label}: no files")
        return None
    blobs = [(str(p), p.read_bytes()) for p in files]
    size = sum(len(b) for _, b in blobs)
    best = float("inf")
    stats = IngestStats()
    for i in range(repeat):
        run = IngestStats()
        t0 = time.perf_counter()
        for name, data in blobs:
            specs, errors = ingest_document(data, source_file=name)
            run.add(specs, errors)
        best = min(best, time.perf_counter() - t0)
        if i == 0:
            stats = run
            stats.documents, stats.bytes = len(blobs), size
    tools = len(stats.tools)
    print(
        f"{label}: {len(blobs)} documents, {tools} tools, {size / 2**20:.2f} MB -> "
        f"{len(blobs) / best:,.0f} documents/s, {tools / best:,.0f} tools/s, "
        f"{size / 2**20 / best:.1f} MB/s (parse only, 1 process, best of {repeat})"
    )
    return stats


def corpus_figures(label: str, stats: IngestStats) -> None:
    errors = {f"{kind}/{severity}": n for (kind, severity), n in sorted(stats.errors.items())}
    print(
        f"{label}: {stats.services} services, {len(stats.tools)} tools, "
        f"{stats.classified_share:.1%} classified (resource + verb), "
        f"{stats.cross_service_share:.1%} linked to another service by a semantic type, "
        f"{stats.write_share:.1%} write; spec_errors: {errors or 'none'}"
    )


def scaled_folder(target: Path, n: int) -> int:
    """N OpenAPI files made from the real ones, each copy its own service (distinct content)."""
    sources = sorted((SHARED / "openapi").glob("*.json"))
    docs = [orjson.loads(p.read_bytes()) for p in sources]
    size = 0
    for i in range(n):
        src, doc = sources[i % len(sources)], docs[i % len(docs)]
        doc = {**doc, "x-service-name": f"{src.stem}_{i}"}
        data = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
        (target / f"{src.stem}__copy{i:04d}.json").write_bytes(data)
        size += len(data)
    return size


def two_cores() -> None:
    """Pin the CLI to 2 CPUs, the target machine's size, wherever this runs."""
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 2:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])


def cli_run(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "specs"
        folder.mkdir()
        size = scaled_folder(folder, n)
        env = {**os.environ, "COMPOWORLD_HOME": str(Path(tmp) / "home"), "COLUMNS": "120"}
        cli = [
            str(Path(sys.executable).parent / "compoworld"),
            "ingest",
            str(folder),
            "--workers",
            "2",
        ]
        t0 = time.perf_counter()
        done = subprocess.run(cli, env=env, capture_output=True, text=True, preexec_fn=two_cores)
        elapsed = time.perf_counter() - t0
        if done.returncode != 0:
            print(done.stdout, done.stderr)
            raise SystemExit(f"compoworld ingest failed with exit code {done.returncode}")
        summary = [ln for ln in done.stdout.splitlines() if "tools" in ln or "documents" in ln]
        print(
            f"compoworld ingest: {n} OpenAPI files ({size / 2**20:.1f} MB) on 2 cores in "
            f"{elapsed:.1f} s wall (process start, progress bar, warehouse writes included) -> "
            f"{n / elapsed:,.0f} documents/s"
        )
        for line in summary:
            print("   ", line.strip())
        t0 = time.perf_counter()
        subprocess.run(
            cli, env=env, capture_output=True, text=True, preexec_fn=two_cores, check=True
        )
        print(
            f"re-ingest of the same {n} files (all skipped by content hash): "
            f"{time.perf_counter() - t0:.1f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500, help="files in the CLI run")
    parser.add_argument("--repeat", type=int, default=3, help="parse passes; the best counts")
    args = parser.parse_args()

    if SHARED.is_dir():
        parse_throughput("../shared/specs", discover([str(SHARED)]).files, args.repeat)
    bundled = discover([str(BUNDLED)]).files if BUNDLED.is_dir() else []
    stats = parse_throughput("library/specs", bundled, args.repeat)
    if stats is not None:
        corpus_figures("library/specs", stats)
    if (SHARED / "openapi").is_dir():
        cli_run(args.files)


if __name__ == "__main__":
    main()
