"""The ingest stage: find spec files, parse them in parallel, write ``specs`` and ``spec_errors``.

Each document is its own batch whose id is the document's content hash, so re-ingesting the
same content (under any file name) adds nothing, and concurrent writers never collide. A
``specs`` batch is written for every parsed document, even one without tools, and written
last: it marks the document as done.
"""

from __future__ import annotations

import datetime as dt
import glob
import multiprocessing
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from library.ingest import IngestStats, content_hash, ingest_document
from library.ingest.stats import ToolSummary
from library.toolspec import ErrorKind
from tasks.batches import batches
from warehouse import Warehouse

SPEC_SUFFIXES = frozenset({".json", ".yaml", ".yml", ".jsonl", ".ndjson"})
_GLOB_CHARS = frozenset("*?[")
CHUNK = 8  # files per worker task: amortizes inter-process overhead, keeps progress smooth
SERIAL_BELOW = 16  # fewer files than this: a process pool costs more than it saves


@dataclass(slots=True)
class Discovery:
    files: list[Path] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # paths or globs that name nothing
    empty: list[str] = field(default_factory=list)  # folders without a single spec file


@dataclass(slots=True)
class FileResult:
    path: str
    doc_hash: str
    skipped: bool  # already in the warehouse
    bytes: int = 0
    tools: list[ToolSummary] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (kind, severity)


def discover(paths: Iterable[str]) -> Discovery:
    """Spec files named by files, folders (searched recursively) and globs, in a stable order."""
    found = Discovery()
    seen: set[Path] = set()

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            found.files.append(path)

    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_file():
            add(path)
        elif path.is_dir():
            files = _spec_files(path)
            if not files:
                found.empty.append(raw)
            for f in files:
                add(f)
        elif _GLOB_CHARS & set(raw):
            matches = sorted(glob.glob(os.path.expanduser(raw), recursive=True))
            if not matches:
                found.missing.append(raw)
            for m in matches:
                mp = Path(m)
                if mp.is_file():
                    add(mp)
                elif mp.is_dir():
                    for f in _spec_files(mp):
                        add(f)
        else:
            found.missing.append(raw)
    return found


def _spec_files(folder: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        out.extend(
            Path(dirpath) / name
            for name in sorted(filenames)
            if not name.startswith(".") and Path(name).suffix.lower() in SPEC_SUFFIXES
        )
    return out


# -- one document ---------------------------------------------------------------------------
_WAREHOUSES: dict[str, Warehouse] = {}


def _warehouse(root: str) -> Warehouse:
    wh = _WAREHOUSES.get(root)
    if wh is None:
        wh = _WAREHOUSES[root] = Warehouse(root)
    return wh


def ingest_file(path: str, root: str, now: dt.datetime) -> FileResult:
    """Parse one document and write its rows, unless its content is already in the warehouse."""
    wh = _warehouse(root)
    try:
        data = Path(path).read_bytes()
    except OSError:
        data = None
    if data is None:  # unreadable: report it under a hash of its name
        specs, errors = ingest_document(path)
        doc_hash = errors[0].doc_hash if errors else content_hash(path.encode())
    else:
        doc_hash = content_hash(data)
        if wh.has_batch("specs", doc_hash):
            return FileResult(path, doc_hash, skipped=True, bytes=len(data))
        specs, errors = ingest_document(data, source_file=path)
    if errors:
        rows = [{**e.to_row(), "ingested_at": now} for e in errors]
        wh.append("spec_errors", rows, batch_id=doc_hash)
    if data is not None:  # the done-marker: written last, even with no tools
        wh.append("specs", [{**s.to_row(), "ingested_at": now} for s in specs], batch_id=doc_hash)
    return FileResult(
        path=path,
        doc_hash=doc_hash,
        skipped=False,
        bytes=len(data or b""),
        tools=[ToolSummary.of(s) for s in specs],
        errors=[(str(e.kind), e.severity) for e in errors],
    )


def ingest_chunk(paths: Sequence[str], root: str, now: dt.datetime) -> list[FileResult]:
    return [ingest_file(p, root, now) for p in paths]


def bundled_corpus() -> Path:
    """The embedded default input: the spec corpus shipped in ``library/specs``."""
    import library.specs

    return Path(library.specs.__file__).parent


def ingest_paths(paths: Iterable[str], root: str | os.PathLike[str]) -> dict[str, object]:
    """Discover and ingest; the run summary (a path that names nothing is an error)."""
    found = discover(paths)
    if found.missing:
        raise FileNotFoundError(f"no spec files at: {', '.join(found.missing)}")
    return ingest_files(found.files, root).summary()


# -- many documents -------------------------------------------------------------------------
def ingest_files(
    files: Sequence[str | os.PathLike[str]],
    root: str | os.PathLike[str],
    *,
    workers: int | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> IngestStats:
    """Ingest documents into the warehouse at ``root``; figures over what was new."""
    paths = [os.fspath(f) for f in files]
    root_s = os.fspath(root)
    now = dt.datetime.now(dt.UTC)
    stats = IngestStats()

    def collect(result: FileResult) -> None:
        if result.skipped:
            stats.skipped += 1
        else:
            stats.documents += 1
            stats.bytes += result.bytes
            stats.tools.extend(result.tools)
            stats.errors.update(result.errors)
        if on_result is not None:
            on_result(result)

    workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    chunks = batches(paths, CHUNK)
    if workers <= 1 or len(paths) < SERIAL_BELOW:
        for chunk in chunks:
            for result in ingest_chunk(chunk, root_s, now):
                collect(result)
        return stats
    left = _run_pool(chunks, root_s, now, workers, collect)
    for chunk in left:  # a worker died (out of memory, a native crash): finish here, one by one
        for path in chunk:
            try:
                collect(ingest_file(path, root_s, now))
            except Exception:  # e.g. the same native crash, now in-process: report, go on
                collect(FileResult(path, "", False, errors=[(str(ErrorKind.INTERNAL), "error")]))
    return stats


def _run_pool(
    chunks: list[list[str]],
    root: str,
    now: dt.datetime,
    workers: int,
    collect: Callable[[FileResult], None],
) -> list[list[str]]:
    """Run chunks on a process pool; returns the chunks that did not finish."""
    # forkserver: safe beside the CLI's progress-bar thread, unlike a plain fork.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    pending: dict[Future[list[FileResult]], list[str]] = {}
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx) as pool:
        for chunk in chunks:
            pending[pool.submit(ingest_chunk, chunk, root, now)] = chunk
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                chunk = pending.pop(fut)
                try:
                    results = fut.result()
                except BrokenProcessPool:
                    return [chunk, *pending.values()]
                for result in results:
                    collect(result)
    return []
