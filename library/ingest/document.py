"""``ingest_document``: one file (or bytes) in, ToolSpecs and SpecErrors out, never an exception."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from library.ingest.build import build_spec
from library.ingest.detect import Detected, detect
from library.ingest.functions import parse_functions
from library.ingest.infer_output import infer_outputs
from library.ingest.issues import Issues
from library.ingest.loader import LoadError, load
from library.ingest.naming import service_name
from library.ingest.openapi import parse_openapi
from library.ingest.raw import RawTool
from library.ingest.stateless import mark_stateless
from library.ingest.verbs import foreign_path_params
from library.toolspec import ErrorKind, SpecError, SpecFormat, ToolSpec

MAX_BYTES = 64 * 1024 * 1024  # the largest public OpenAPI documents are ~20 MB


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Unreadable(Exception):
    """A document that is not read: not a regular file, over the size limit, or an OS error.
    ``kind`` is the SpecError kind to report it under."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


_FILE_TYPES = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def read_document(path: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (default ``MAX_BYTES``), or
    ``Unreadable`` saying why not.

    The file is opened without blocking (a FIFO's open would wait for a writer forever) and
    its type is checked on the open descriptor, so a file swapped for a device or FIFO after
    any earlier look is still refused; at most ``max_bytes + 1`` bytes are ever read (a
    symlink to ``/dev/zero`` reports size 0 and never ends).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Unreadable(
            ErrorKind.UNREADABLE, f"cannot read the file: {exc.strerror or exc}"
        ) from None
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = _FILE_TYPES.get(stat.S_IFMT(mode), "not a regular file")
            raise Unreadable(ErrorKind.UNREADABLE, f"{what}, not a regular file: not read")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise Unreadable(
            ErrorKind.UNREADABLE, f"cannot read the file: {exc.strerror or exc}"
        ) from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise Unreadable(
            ErrorKind.TOO_LARGE,
            f"larger than the limit of {max_bytes:,} bytes a document: not read",
        )
    return b"".join(chunks)


def ingest_document(
    source: str | os.PathLike[str] | bytes,
    *,
    source_file: str | None = None,
    service: str | None = None,
    infer: bool = True,
) -> tuple[list[ToolSpec], list[SpecError]]:
    """Parse one spec document of any supported format.

    ``source``: a path, or the document's bytes (then ``source_file`` names it in errors and,
    without ``service``, gives the service name). Never raises: every problem, down to a bug in
    the ingester itself, comes back as a SpecError and the rest of the document still ingests.
    ``infer=False`` leaves out what ingestion adds beyond the document (stateless marks,
    inferred output schemas): the published tools alone, for comparisons.
    """
    label = source_file or ("<bytes>" if isinstance(source, bytes) else os.fspath(source))
    try:
        data = source if isinstance(source, bytes) else read_document(source)
    except Unreadable as exc:
        return [], [unreadable_error(label, exc)]
    doc_hash = content_hash(data)
    try:
        return _ingest_bytes(data, label, doc_hash, service, infer)
    except Exception as exc:  # the promise: never raise; a bug is reported, not propagated
        return [], [
            _whole(
                label,
                doc_hash,
                ErrorKind.INTERNAL,
                f"ingester bug, please report: {type(exc).__name__}: {exc}",
            )
        ]


def unreadable_error(label: str, exc: Unreadable) -> SpecError:
    """The error row of a document that was not read, under a hash of its name."""
    return _whole(label, content_hash(label.encode()), exc.kind, str(exc))


def _whole(label: str, doc_hash: str, kind: ErrorKind, message: str) -> SpecError:
    return SpecError(source_file=label, pointer="", kind=kind, message=message, doc_hash=doc_hash)


def _ingest_bytes(
    data: bytes, label: str, doc_hash: str, service: str | None, infer: bool
) -> tuple[list[ToolSpec], list[SpecError]]:
    if len(data) > MAX_BYTES:
        return [], [
            _whole(
                label,
                doc_hash,
                ErrorKind.TOO_LARGE,
                f"{len(data) / 2**20:.1f} MB is over the {MAX_BYTES // 2**20} MB limit",
            )
        ]
    try:
        loaded = load(data)
    except LoadError as exc:
        return [], [_whole(label, doc_hash, ErrorKind.PARSE_ERROR, str(exc))]
    except RecursionError:
        return [], [_whole(label, doc_hash, ErrorKind.PARSE_ERROR, "nesting too deep to parse")]
    issues = Issues(label, doc_hash)
    for index, message in loaded.bad_lines:
        issues.add(f"/{index}", ErrorKind.INVALID_OPERATION, f"{message}; that tool is lost")
    det = detect(loaded)
    if det is None:
        return [], [_whole(label, doc_hash, ErrorKind.UNKNOWN_FORMAT, _unknown(loaded.value))]
    issues.service = _service(det, service, label)
    if det.format in (SpecFormat.OPENAPI3, SpecFormat.SWAGGER2):
        if det.version is None:
            issues.warn("", ErrorKind.INVALID_DOCUMENT, "no `openapi` version; read as OpenAPI 3")
        raws = parse_openapi(det, issues)
    else:
        raws = parse_functions(det, issues, frozenset(i for i, _ in loaded.bad_lines))
    specs = _build_all(raws, det, issues, label, doc_hash)
    if infer:
        specs = _with_inferred_outputs(specs, issues)
    if not specs and not issues.items:
        issues.add("", ErrorKind.EMPTY, "the document declares no tools")
    return specs, issues.finish()


def _build_all(
    raws: list[RawTool], det: Detected, issues: Issues, label: str, doc_hash: str
) -> list[ToolSpec]:
    service = issues.service or "service"
    foreign = foreign_path_params(raw.http.path for raw in raws if raw.http is not None)
    specs: list[ToolSpec] = []
    by_name: dict[str, str] = {}  # name -> tool id
    seen_ids: set[str] = set()
    for raw in raws:
        try:
            spec = _build(raw, det, service, label, doc_hash, foreign)
            if spec.id in seen_ids:
                issues.warn(
                    raw.pointer,
                    ErrorKind.DUPLICATE,
                    f"tool {raw.name!r} repeats an identical earlier tool; kept once",
                    tool=raw.name,
                )
                continue
            if raw.name in by_name:  # same name, different tool: keep both, rename the later
                original, n = raw.name, 2
                while f"{original[:60]}_{n}" in by_name:
                    n += 1
                raw.name = f"{original[:60]}_{n}"
                issues.warn(
                    raw.pointer,
                    ErrorKind.DUPLICATE,
                    f"a second tool named {original!r}; this one was renamed {raw.name!r}",
                    tool=raw.name,
                )
                spec = _build(raw, det, service, label, doc_hash, foreign)
        except Exception as exc:
            issues.add(
                raw.pointer,
                ErrorKind.INTERNAL,
                f"could not classify the tool ({type(exc).__name__}: {exc})",
                tool=raw.name,
            )
            continue
        seen_ids.add(spec.id)
        by_name[raw.name] = spec.id
        specs.append(spec)
    return specs


def _with_inferred_outputs(specs: list[ToolSpec], issues: Issues) -> list[ToolSpec]:
    """Stateless functions marked, then output schemas inferred for the tools that declare
    none; a failure there loses the inference, never the tools."""
    try:
        return infer_outputs(mark_stateless(specs))
    except Exception as exc:
        issues.warn(
            "",
            ErrorKind.INTERNAL,
            f"output inference failed, outputs left as declared ({type(exc).__name__}: {exc})",
        )
        return specs


def _build(
    raw: RawTool,
    det: Detected,
    service: str,
    label: str,
    doc_hash: str,
    foreign: frozenset[tuple[str, str]],
) -> ToolSpec:
    return build_spec(
        raw,
        service=service,
        fmt=det.format,
        version=det.version,
        source_file=label,
        doc_hash=doc_hash,
        foreign=foreign,
    )


def _service(det: Detected, service: str | None, label: str) -> str:
    if service:
        return service_name(service)
    if det.service:
        return service_name(det.service)
    if label and not label.startswith("<"):
        return service_name(Path(label).stem)
    info = det.doc.get("info") if isinstance(det.doc, dict) else None
    title = info.get("title") if isinstance(info, dict) else None
    return service_name(title) if isinstance(title, str) else "service"


def _unknown(value: object) -> str:
    shape = type(value).__name__
    if isinstance(value, dict):
        keys = ", ".join(str(k)[:40] for k in list(value)[:8])
        shape = f"an object with keys [{keys}]"
    elif isinstance(value, list):
        shape = f"a list of {len(value)} items"
    return (
        f"not a known spec format (the top level is {shape}); expected OpenAPI 3 (`openapi`), "
        "Swagger 2 (`swagger`), an MCP tools/list result (`tools`), a list of OpenAI functions, "
        "BFCL function docs (one JSON object per line) or a Docker MCP tools list"
    )
