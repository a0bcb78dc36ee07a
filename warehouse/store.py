"""The warehouse: append-only Parquet files per table, DuckDB views to query them.

Layout: ``<location>/<table>/v<version>/<batch_id>.parquet``. ``location`` is a local folder
(a path or a ``file://`` URL) or any fsspec URL (``memory://``, ``s3://``, ``gcs://``, ...;
remote protocols need their own package, such as s3fs or gcsfs), so many workers on many
machines can share one warehouse.

Write guarantees:

* Local folders: a batch is written to a temporary file and hard-linked to its final name;
  the link fails if the name exists, so concurrent writers never collide and writing the same
  batch id twice keeps exactly one copy (and exactly one writer gets True).
* Other filesystems: object stores offer no atomic create-if-absent through fsspec's generic
  API, so a batch is written to a temporary object ``.tmp-<uuid>`` in the same folder and then
  moved to its final name unless that name already exists. Two writers racing on one batch id
  may both pass the check and both move; the survivor is still one copy of the batch, because
  batch ids are deterministic (content ids or stage keys): both wrote the same rows. Both may
  then return True. Readers never see a partial batch: they only read ``*.parquet`` names, and
  an object only gets that name once it is complete.

Writers that keep one row set per key (tasks by task id, rollouts by rollout id) use
``append_absent``: the check for keys already stored and the write happen under the table's
``write_lock`` (an flock on a local warehouse), so overlapping writers never both write a key.

Reads: every ``connection()`` refreshes one view per table, ``read_parquet(glob,
union_by_name=true)`` over all version folders (older batches read missing columns as NULL),
or an empty relation with the table's columns when a table has no files yet. Non-local
filesystems are registered with DuckDB (``register_filesystem``), so the views are the same SQL.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem
from fsspec.core import url_to_fs
from fsspec.implementations.local import LocalFileSystem
from fsspec.registry import known_implementations

from warehouse.schemas import TABLES, TableSchema, table_schema

_READ_ONLY_STATEMENTS = {"SELECT", "EXPLAIN"}
_BATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
# A scheme of two letters or more, so a Windows drive (C:/...) still reads as a path.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")
_CHAINED_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+::")


# Writer locks of warehouses at a URL: one per (location, table), for this process's threads
# (a local warehouse locks a file instead; see ``Warehouse.write_lock``).
_THREAD_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


class WarehouseError(Exception):
    pass


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict | list | tuple):
        # Key order kept: a world state's records list in the order they were made, and a task
        # read back must list them as the task composed in memory did.
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    return value


def to_table(rows: pa.Table | Iterable[Mapping[str, Any]], schema: TableSchema) -> pa.Table:
    """Conform rows to a table schema: columns in order, dict/list values in string columns
    stored as JSON, missing nullable columns filled with nulls, a clear error otherwise."""
    if isinstance(rows, pa.Table):
        missing = [f.name for f in schema.schema if f.name not in rows.column_names]
        for name in missing:
            field = schema.schema.field(name)
            if not field.nullable:
                raise WarehouseError(f"{schema.name}: required column {name!r} is missing")
            rows = rows.append_column(field, pa.nulls(len(rows), field.type))
        extra = set(rows.column_names) - set(schema.schema.names)
        if extra:
            raise WarehouseError(f"{schema.name}: unknown columns {sorted(extra)}")
        return rows.select(schema.schema.names).cast(schema.schema)
    columns: dict[str, list[Any]] = {f.name: [] for f in schema.schema}
    for i, row in enumerate(rows):
        extra = row.keys() - columns.keys()
        if extra:
            raise WarehouseError(f"{schema.name}: row {i} has unknown columns {sorted(extra)}")
        for field in schema.schema:
            value = row.get(field.name)
            if value is None and not field.nullable:
                raise WarehouseError(f"{schema.name}: row {i} lacks required column {field.name!r}")
            if pa.types.is_string(field.type):
                value = _jsonable(value)
            columns[field.name].append(value)
    try:
        return pa.table(columns, schema=schema.schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise WarehouseError(f"{schema.name}: {exc}") from exc


def content_id(table: pa.Table) -> str:
    """A batch id derived from content, so writing the same rows twice is a no-op."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return hashlib.blake2b(sink.getvalue().to_pybytes(), digest_size=16).hexdigest()


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _protocol_package(protocol: str) -> str:
    """The package fsspec needs for a protocol, e.g. ``s3fs`` for ``s3``."""
    spec = known_implementations.get(protocol)
    if spec is None:
        return "?"
    return spec["class"].split(".", 1)[0]


def _open_url(url: str) -> tuple[AbstractFileSystem, str]:
    """The fsspec filesystem and the path inside it for a warehouse URL, or a WarehouseError."""
    if _CHAINED_URL.match(url):
        # DuckDB sees paths by the outer protocol only; chained caches would not round-trip.
        raise WarehouseError(f"warehouse {url!r}: chained fsspec URLs (a::b://) are not supported")
    protocol = url.split("://", 1)[0]
    try:
        fs, path = url_to_fs(url)
    except ImportError as exc:
        package = _protocol_package(protocol)
        raise WarehouseError(
            f"warehouse {url!r}: the {protocol}:// protocol needs the package {package!r}, "
            f"which is not installed (pip install {package}): {exc}"
        ) from exc
    except ValueError as exc:
        raise WarehouseError(f"warehouse {url!r}: fsspec cannot open it: {exc}") from exc
    path = path.rstrip("/")
    if not path:
        raise WarehouseError(f"warehouse {url!r}: name a folder, e.g. memory://compoworld")
    return fs, path


def _read_only_statement(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The text of the one read-only statement in ``sql``, or a WarehouseError saying why not."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise WarehouseError(f"SQL does not parse: {exc}") from exc
    if not statements:
        raise WarehouseError("no SQL statement given")
    if len(statements) > 1:
        raise WarehouseError(
            f"read-only: one statement at a time ({len(statements)} given, separated by ';')"
        )
    statement = statements[0]
    kind = statement.type.name
    if kind not in _READ_ONLY_STATEMENTS:
        verb = statement.query.split(None, 1)[0].upper() if statement.query.strip() else kind
        named = kind if verb == kind else f"{verb} ({kind})"
        raise WarehouseError(f"read-only: {named} statements are not allowed (only SELECT)")
    if kind == "EXPLAIN":
        _check_explained(con, statement.query)
    return statement.query


def _check_explained(con: duckdb.DuckDBPyConnection, text: str) -> None:
    """Refuse EXPLAIN ANALYZE (it runs its statement) and EXPLAIN of anything but a SELECT."""
    words: list[tuple[int, str]] = []  # (offset, upper-case token) of the prefix, no comments
    depth = 0
    inner_at = len(text)
    tokens = duckdb.tokenize(text)
    for i, (offset, kind) in enumerate(tokens):
        if kind == duckdb.token_type.comment:
            continue
        end = tokens[i + 1][0] if i + 1 < len(tokens) else len(text)
        word = text[offset:end].strip().upper()
        if word.startswith("("):
            depth += 1
        elif word.startswith(")"):
            depth -= 1
        elif depth == 0 and words and word not in ("ANALYZE", "ANALYSE"):
            inner_at = offset
            break
        words.append((offset, word))
    if any(w in ("ANALYZE", "ANALYSE") for _, w in words):
        raise WarehouseError(
            "read-only: EXPLAIN ANALYZE runs the statement it explains and is not allowed "
            "(plain EXPLAIN is)"
        )
    inner = con.extract_statements(text[inner_at:]) if inner_at < len(text) else []
    if len(inner) != 1 or inner[0].type.name != "SELECT":
        kind = inner[0].type.name if inner else "an empty"
        raise WarehouseError(f"read-only: EXPLAIN of {kind} statement is not allowed (only SELECT)")


class Warehouse:
    """All artifacts of one CompoWorld home, as Parquet under ``location`` and SQL over them.

    ``location`` is what another process passes to ``Warehouse(...)`` to open the same
    warehouse: the absolute folder when given a path, the normalised URL when given a URL
    (``file:///abs/path`` included, though it is written and read as a local folder).
    ``root`` is the local folder as a ``Path``; it raises for warehouses at a URL.
    """

    def __init__(self, location: str | os.PathLike[str]) -> None:
        self._root: Path | None = None
        # Set only for non-local warehouses; local ones keep the hard-link writes and
        # DuckDB's native globbing, which are faster than going through fsspec.
        self._fs: AbstractFileSystem | None = None
        self._base = ""  # the warehouse folder inside self._fs
        text = os.fspath(location)
        if isinstance(text, bytes):
            raise WarehouseError("warehouse location must be a str path or URL, not bytes")
        if _URL.match(text) or _CHAINED_URL.match(text):
            fs, path = _open_url(text)
            if isinstance(fs, LocalFileSystem):
                self._root = Path(path)  # file:// is a local folder: same code path as a path
            else:
                self._fs, self._base = fs, path
            # A URL stays a URL (normalised: absolute, no trailing slash), as it was given.
            self.location: str = fs.unstrip_protocol(path)
        else:
            self._root = Path(text)
            self.location = str(self._root.absolute())
        if self._root is not None:
            self._root.mkdir(parents=True, exist_ok=True)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Warehouse({self.location!r})"

    @property
    def is_local(self) -> bool:
        return self._root is not None

    @property
    def root(self) -> Path:
        """The local folder; a WarehouseError for a warehouse at a URL (use ``location``)."""
        if self._root is None:
            raise WarehouseError(
                f"the warehouse is at a URL ({self.location}), not in a local folder: "
                "use Warehouse.location to name it"
            )
        return self._root

    # -- writing --------------------------------------------------------------------------
    def table_dir(self, name: str) -> Path:
        """The local folder of a table's current version (local warehouses only)."""
        schema = table_schema(name)
        return self.root / name / f"v{schema.version}"

    def _remote_dir(self, name: str) -> str:
        schema = table_schema(name)
        return f"{self._base}/{name}/v{schema.version}"

    def append(
        self,
        name: str,
        rows: pa.Table | Iterable[Mapping[str, Any]],
        batch_id: str | None = None,
    ) -> bool:
        """Append one batch. Returns False when that batch id was already written."""
        schema = table_schema(name)
        table = to_table(rows, schema)
        batch_id = batch_id or content_id(table)
        if not _BATCH_ID.fullmatch(batch_id):
            raise WarehouseError(
                f"{name}: batch id {batch_id!r} must be alphanumeric (-_. allowed)"
            )
        meta = {
            b"compoworld.table": name.encode(),
            b"compoworld.version": str(schema.version).encode(),
        }
        table = table.replace_schema_metadata(meta)
        if self._fs is not None:
            folder = self._remote_dir(name)
            self._fs.invalidate_cache(folder)  # another worker may have written it since
            if self._fs.exists(f"{folder}/{batch_id}.parquet"):
                return False  # skip the encoding work; _publish checks again
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, compression="zstd")
            return self._publish(folder, batch_id, sink.getvalue().to_pybytes())
        folder = self.table_dir(name)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"{batch_id}.parquet"
        if final.exists():
            return False
        tmp = folder / f".tmp-{uuid.uuid4().hex}"
        pq.write_table(table, tmp, compression="zstd")
        try:
            os.link(tmp, final)  # atomic create-if-absent: exactly one writer wins
            return True
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)

    def _publish(self, folder: str, batch_id: str, data: bytes) -> bool:
        """Non-local write: a temporary object, then a move to the final name unless it exists.

        Not atomic (see the module docstring): a racing writer of the same batch id may
        replace the final object with its own copy of the same rows.
        """
        fs = self._fs
        assert fs is not None
        final = f"{folder}/{batch_id}.parquet"
        tmp = f"{folder}/.tmp-{uuid.uuid4().hex}"  # no .parquet suffix: views never read it
        fs.makedirs(folder, exist_ok=True)  # object stores: a no-op; others need the folder
        fs.pipe_file(tmp, data)
        moved = False
        try:
            if fs.exists(final):
                return False
            fs.mv(tmp, final)
            moved = True
            return True
        finally:
            if not moved:
                with contextlib.suppress(FileNotFoundError):
                    fs.rm_file(tmp)

    @contextlib.contextmanager
    def write_lock(self, name: str) -> Iterator[None]:
        """Hold the table's writer lock: one check-then-write at a time per table.

        A local warehouse takes an exclusive ``flock`` on ``<table>/.lock``: it serialises the
        threads and processes of this machine (and of shared filesystems that honour flock).
        A warehouse at a URL has a lock per process only: across processes, only batch ids
        keep its writers apart (see the module docstring).
        """
        table_schema(name)  # an unknown table is refused before any file is made
        if self._root is None:
            with _THREAD_LOCKS_GUARD:
                lock = _THREAD_LOCKS.setdefault((self.location, name), threading.Lock())
            with lock:
                yield
            return
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # each open() is its own lock: threads too
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def append_absent(
        self, name: str, rows: Sequence[Mapping[str, Any]], key: str, prefix: str
    ) -> int:
        """Append the rows whose ``key`` value the table does not hold yet; returns how many.

        Rows sharing a key are one unit (a rollout's criterion results): a unit is written
        whole or not at all. The check and the write happen under ``write_lock``, so two
        writers with overlapping rows never both write a key; the batch id is ``prefix`` and
        a hash of the keys written, so a retried write of the same rows adds nothing.
        """
        with self.write_lock(name):
            held = self.query(f'SELECT DISTINCT "{key}" FROM "{name}"').column(0).to_pylist()
            present = set(held)
            new = [row for row in rows if row[key] not in present]
            if new:
                keys = sorted({str(row[key]) for row in new})
                digest = hashlib.blake2b("\x1f".join(keys).encode(), digest_size=16).hexdigest()
                self.append(name, new, batch_id=f"{prefix}-{digest}")
            return len(new)

    def has_batch(self, name: str, batch_id: str) -> bool:
        if self._fs is not None:
            folder = self._remote_dir(name)
            self._fs.invalidate_cache(folder)  # a cached listing would miss other writers' files
            return bool(self._fs.exists(f"{folder}/{batch_id}.parquet"))
        return (self.table_dir(name) / f"{batch_id}.parquet").exists()

    # -- reading --------------------------------------------------------------------------
    def _files_globs(self) -> dict[str, str]:
        """For each table that has files, the glob its view reads."""
        if self._fs is not None:
            # Listings may be cached by the filesystem (s3fs, gcsfs): new files must show up.
            self._fs.invalidate_cache()
            # One listing for all tables: a round trip per table costs more on object stores.
            found = self._fs.glob(f"{self._base}/*/v*/*.parquet")
            prefix = len(self._base.rstrip("/")) + 1
            names = {path[prefix:].split("/", 1)[0] for path in found}
            return {n: f"{self.location}/{n}/v*/*.parquet" for n in names if n in TABLES}
        globs: dict[str, str] = {}
        for name in TABLES:
            base = self.root / name
            if any(base.glob("v*/*.parquet")):
                globs[name] = str(base / "v*" / "*.parquet")
        return globs

    def _refresh_views(self, con: duckdb.DuckDBPyConnection) -> None:
        """(Re)create one view per table on ``con``: its files, or an empty relation."""
        globs = self._files_globs()
        for schema in TABLES.values():
            glob = globs.get(schema.name)
            if glob is not None:
                con.execute(
                    f'CREATE OR REPLACE VIEW "{schema.name}" AS '
                    f"SELECT * FROM read_parquet({_sql_string(glob)}, union_by_name=true)"
                )
            else:
                # No data yet: an empty relation with the table's columns, so queries bind.
                empty = pa.Table.from_batches([], schema=schema.schema)
                holder = f'"_empty_{schema.name}"'
                con.register("_empty_batch", empty)
                con.execute(f"CREATE OR REPLACE TABLE {holder} AS SELECT * FROM _empty_batch")
                con.unregister("_empty_batch")
                con.execute(f'CREATE OR REPLACE VIEW "{schema.name}" AS SELECT * FROM {holder}')

    def connection(self) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with one view per table, refreshed on every call."""
        with self._lock:
            if self._con is None:
                self._con = duckdb.connect()
                if self._fs is not None:
                    # DuckDB reads through the fsspec filesystem: same views as for local data.
                    self._con.register_filesystem(self._fs)
            con = self._con
            self._refresh_views(con)
            return con.cursor()

    def locked_connection(self) -> duckdb.DuckDBPyConnection:
        """A fresh DuckDB database for untrusted SQL: the tables' views, and nothing else.

        External access is off except for the warehouse's own folder (no other files, no
        network), extensions are never installed or loaded, and the configuration is locked
        so a query cannot turn any of that back on. It still lets a COPY write inside the
        warehouse folder: ``query_readonly`` refuses every statement but a query.
        """
        con = duckdb.connect()
        try:
            if self._fs is not None:
                con.register_filesystem(self._fs)
            con.execute("SET autoinstall_known_extensions = false")
            con.execute("SET autoload_known_extensions = false")
            con.execute("SET allow_community_extensions = false")
            con.execute("SET allowed_directories = $dirs", {"dirs": [self.location]})
            con.execute("SET enable_external_access = false")  # after: it freezes the list
            self._refresh_views(con)
            con.execute("SET lock_configuration = true")
        except BaseException:
            con.close()
            raise
        return con

    def query(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> pa.Table:
        con = self.connection()
        try:
            return con.sql(sql, params=params).to_arrow_table()
        finally:
            con.close()

    def query_readonly(self, sql: str) -> pa.Table:
        """Run one untrusted query that may only read, on a ``locked_connection``.

        Refused with a WarehouseError naming the reason: anything but one SELECT (or a plain
        EXPLAIN of one), so no COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, EXPLAIN ANALYZE (it
        runs its statement) or second statement; and, from DuckDB itself, any file outside
        the warehouse or any network address.
        """
        con = self.locked_connection()
        try:
            query = _read_only_statement(con, sql)
            try:
                return con.sql(query).to_arrow_table()
            except duckdb.PermissionException as exc:
                raise WarehouseError(
                    f"read-only: the query reaches outside the warehouse ({self.location}), "
                    f"which is not allowed: {exc}"
                ) from exc
        finally:
            con.close()

    def count(self, name: str) -> int:
        return self.query(f'SELECT count(*) AS n FROM "{name}"').column("n")[0].as_py()

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
