"""The ingest stage: find spec files, parse them in parallel, write ``specs`` and ``spec_errors``.

Each document is its own batch whose id is the document's content hash, so re-ingesting the
same content (under any file name) adds nothing, and concurrent writers never collide. A
``specs`` batch is written for every parsed document, even one without tools, and written
last: it marks the document as done.

Hostile inputs: only regular files are read (``read_document``: FIFOs, devices and sockets
are refused without blocking, at most the size limit is read); a symlink in a folder or glob
that leads outside it is not followed; parsing a document stops at ``TIME_LIMIT_S``. Each is
reported in ``spec_errors`` under the file's name, and the other documents go on.
"""

from __future__ import annotations

import datetime as dt
import glob
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from library.ingest import (
    IngestStats,
    Unreadable,
    content_hash,
    ingest_document,
    read_document,
    unreadable_error,
)
from library.ingest.stats import ToolSummary
from library.toolspec import ErrorKind, SpecError
from tasks.batches import batches
from warehouse import Warehouse

SPEC_SUFFIXES = frozenset({".json", ".yaml", ".yml", ".jsonl", ".ndjson"})
_GLOB_CHARS = frozenset("*?[")
CHUNK = 8  # files per worker task: amortizes inter-process overhead, keeps progress smooth
SERIAL_BELOW = 16  # fewer files than this: a process pool costs more than it saves
TIME_LIMIT_S = 60.0  # parsing one document; the largest public specs take ~2 s


@dataclass(slots=True)
class Discovery:
    files: list[Path] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # paths or globs that name nothing
    empty: list[str] = field(default_factory=list)  # folders without a single spec file
    # path -> why it is not read: symlinks that lead outside the folder or glob naming them
    refused: dict[str, str] = field(default_factory=dict)


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

    def add_within(path: Path, root: Path) -> None:
        """A file found in ``root`` (not named itself): a symlink must stay inside it."""
        if path.is_symlink():
            target, inside = path.resolve(), root.resolve()
            if not target.is_relative_to(inside):
                found.refused[str(path)] = f"a symlink to {target}, outside {root}: not followed"
                return
        add(path)

    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            files = _spec_files(path)
            if not files:
                found.empty.append(raw)
            for f in files:
                add_within(f, path)
        elif path.exists() and not _GLOB_CHARS & set(raw):
            add(path)  # named itself; not a regular file (a FIFO, a device): read_document says
        elif _GLOB_CHARS & set(raw):
            matches = sorted(glob.glob(os.path.expanduser(raw), recursive=True))
            if not matches:
                found.missing.append(raw)
            base = _glob_base(os.path.expanduser(raw))
            for m in matches:
                mp = Path(m)
                if mp.is_dir() and not mp.is_symlink():
                    for f in _spec_files(mp):
                        add_within(f, mp)
                elif os.path.lexists(mp):
                    add_within(mp, base)
        else:
            found.missing.append(raw)
    return found


def _glob_base(pattern: str) -> Path:
    """The folder a glob searches: its leading parts without wildcards."""
    base: list[str] = []
    for part in Path(pattern).parts:
        if _GLOB_CHARS & set(part):
            break
        base.append(part)
    return Path(*base) if base else Path(".")


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


class _Overtime(BaseException):
    """Raised by the timer inside a parse that ran out of time (not an ``Exception``, so the
    ingester's own catch-all does not take it for a bug)."""


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise _Overtime

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _parse(data: bytes, path: str, limit: float | None) -> tuple[list[Any], list[SpecError]] | None:
    """``ingest_document`` within ``limit`` seconds; None when the time ran out.

    On a process's main thread (the CLI, the pool's workers) a timer interrupts the parse.
    On another thread (a Prefect task) the parse runs on a daemon thread that is abandoned at
    the limit: the stage goes on, and the thread ends with the process.
    """
    if limit is None:
        return ingest_document(data, source_file=path)
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        start = time.monotonic()
        try:
            with _alarm(limit):
                parsed = ingest_document(data, source_file=path)
        except _Overtime:
            return None
        # The interrupt can be lost (landing in a finalizer, whose exceptions Python drops):
        # a parse that overran its limit is refused all the same.
        return None if time.monotonic() - start > limit else parsed
    box: list[tuple[list[Any], list[SpecError]]] = []
    worker = threading.Thread(
        target=lambda: box.append(ingest_document(data, source_file=path)),
        name=f"ingest-parse {path}",
        daemon=True,
    )
    worker.start()
    worker.join(limit)
    return box[0] if box else None


def _errors_only(path: str, root: str, now: dt.datetime, error: SpecError) -> FileResult:
    """Report a document that was not ingested; no done-marker, so a rerun tries again."""
    _warehouse(root).append(
        "spec_errors", [{**error.to_row(), "ingested_at": now}], batch_id=error.doc_hash
    )
    return FileResult(path, error.doc_hash, False, errors=[(str(error.kind), error.severity)])


def refuse(path: str, reason: str, root: str, now: dt.datetime) -> FileResult:
    """Report a file that is not read at all (``Discovery.refused``)."""
    return _errors_only(
        path, root, now, unreadable_error(path, Unreadable(ErrorKind.UNREADABLE, reason))
    )


def ingest_file(
    path: str, root: str, now: dt.datetime, time_limit_s: float | None = TIME_LIMIT_S
) -> FileResult:
    """Parse one document and write its rows, unless its content is already in the warehouse."""
    wh = _warehouse(root)
    try:
        data = read_document(path)
    except Unreadable as exc:  # not a regular file, too large, unreadable: under its name
        return _errors_only(path, root, now, unreadable_error(path, exc))
    doc_hash = content_hash(data)
    if wh.has_batch("specs", doc_hash):
        return FileResult(path, doc_hash, skipped=True, bytes=len(data))
    parsed = _parse(data, path, time_limit_s)
    if parsed is None:
        message = f"parsing took longer than the {time_limit_s:g} s limit per document"
        error = SpecError(
            source_file=path, pointer="", kind=ErrorKind.TIMEOUT, message=message, doc_hash=doc_hash
        )
        return _errors_only(path, root, now, error)
    specs, errors = parsed
    if errors:
        rows = [{**e.to_row(), "ingested_at": now} for e in errors]
        wh.append("spec_errors", rows, batch_id=doc_hash)
    # the done-marker: written last, even with no tools
    wh.append("specs", [{**s.to_row(), "ingested_at": now} for s in specs], batch_id=doc_hash)
    return FileResult(
        path=path,
        doc_hash=doc_hash,
        skipped=False,
        bytes=len(data),
        tools=[ToolSummary.of(s) for s in specs],
        errors=[(str(e.kind), e.severity) for e in errors],
    )


def ingest_chunk(
    paths: Sequence[str], root: str, now: dt.datetime, time_limit_s: float | None = TIME_LIMIT_S
) -> list[FileResult]:
    return [ingest_file(p, root, now, time_limit_s) for p in paths]


def bundled_corpus() -> Path:
    """The embedded default input: the spec corpus shipped in ``library/specs``."""
    import library.specs

    return Path(library.specs.__file__).parent


def ingest_paths(paths: Iterable[str], root: str | os.PathLike[str]) -> dict[str, object]:
    """Discover and ingest; the run summary (a path that names nothing is an error)."""
    found = discover(paths)
    if found.missing:
        raise FileNotFoundError(f"no spec files at: {', '.join(found.missing)}")
    return ingest_files(found.files, root, refused=found.refused).summary()


# -- many documents -------------------------------------------------------------------------
def ingest_files(
    files: Sequence[str | os.PathLike[str]],
    root: str | os.PathLike[str],
    *,
    workers: int | None = None,
    on_result: Callable[[FileResult], None] | None = None,
    refused: Mapping[str, str] | None = None,
    time_limit_s: float | None = TIME_LIMIT_S,
) -> IngestStats:
    """Ingest documents into the warehouse at ``root``; figures over what was new.
    ``refused`` (``Discovery.refused``): files not to read, reported with their reason."""
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

    for path, reason in (refused or {}).items():
        collect(refuse(path, reason, root_s, now))
    workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    chunks = batches(paths, CHUNK)
    if workers <= 1 or len(paths) < SERIAL_BELOW:
        for chunk in chunks:
            for result in ingest_chunk(chunk, root_s, now, time_limit_s):
                collect(result)
        return stats
    left = _run_pool(chunks, root_s, now, workers, collect, time_limit_s)
    for chunk in left:  # a worker died (out of memory, a native crash): finish here, one by one
        for path in chunk:
            try:
                collect(ingest_file(path, root_s, now, time_limit_s))
            except Exception:  # e.g. the same native crash, now in-process: report, go on
                collect(FileResult(path, "", False, errors=[(str(ErrorKind.INTERNAL), "error")]))
    return stats


def _run_pool(
    chunks: list[list[str]],
    root: str,
    now: dt.datetime,
    workers: int,
    collect: Callable[[FileResult], None],
    time_limit_s: float | None,
) -> list[list[str]]:
    """Run chunks on a process pool; returns the chunks that did not finish."""
    # forkserver: safe beside the CLI's progress-bar thread, unlike a plain fork.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    pending: dict[Future[list[FileResult]], list[str]] = {}
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx) as pool:
        for chunk in chunks:
            pending[pool.submit(ingest_chunk, chunk, root, now, time_limit_s)] = chunk
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
