"""The warehouse: append-only Parquet files per table, DuckDB views to query them.

Writes are atomic and idempotent: a batch is written to a temporary file and hard-linked to
its final name ``<batch_id>.parquet``; the link fails if the name exists, so concurrent
writers never collide and writing the same batch id twice keeps exactly one copy.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.schemas import TABLES, TableSchema, table_schema

_READ_ONLY_STATEMENTS = {"SELECT", "EXPLAIN"}
_BATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")


class WarehouseError(Exception):
    pass


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict | list | tuple):
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
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


class Warehouse:
    """All artifacts of one CompoWorld home, as Parquet under ``root`` and SQL over them."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()

    # -- writing --------------------------------------------------------------------------
    def table_dir(self, name: str) -> Path:
        schema = table_schema(name)
        return self.root / name / f"v{schema.version}"

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
        folder = self.table_dir(name)
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"{batch_id}.parquet"
        if final.exists():
            return False
        tmp = folder / f".tmp-{uuid.uuid4().hex}"
        meta = {
            b"compoworld.table": name.encode(),
            b"compoworld.version": str(schema.version).encode(),
        }
        pq.write_table(table.replace_schema_metadata(meta), tmp, compression="zstd")
        try:
            os.link(tmp, final)  # atomic create-if-absent: exactly one writer wins
            return True
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)

    def has_batch(self, name: str, batch_id: str) -> bool:
        return (self.table_dir(name) / f"{batch_id}.parquet").exists()

    # -- reading --------------------------------------------------------------------------
    def _files_glob(self, name: str) -> str | None:
        base = self.root / name
        if not any(base.glob("v*/*.parquet")):
            return None
        return str(base / "v*" / "*.parquet")

    def connection(self) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection with one view per table, refreshed on every call."""
        with self._lock:
            if self._con is None:
                self._con = duckdb.connect()
            con = self._con
            for schema in TABLES.values():
                glob = self._files_glob(schema.name)
                if glob is not None:
                    con.execute(
                        f'CREATE OR REPLACE VIEW "{schema.name}" AS '
                        f"SELECT * FROM read_parquet('{glob}', union_by_name=true)"
                    )
                else:
                    # No data yet: an empty relation with the table's columns, so queries bind.
                    empty = pa.Table.from_batches([], schema=schema.schema)
                    holder = f'"_empty_{schema.name}"'
                    con.register("_empty_batch", empty)
                    con.execute(f"CREATE OR REPLACE TABLE {holder} AS SELECT * FROM _empty_batch")
                    con.unregister("_empty_batch")
                    con.execute(f'CREATE OR REPLACE VIEW "{schema.name}" AS SELECT * FROM {holder}')
            return con.cursor()

    def query(self, sql: str, params: list[Any] | dict[str, Any] | None = None) -> pa.Table:
        con = self.connection()
        try:
            return con.sql(sql, params=params).to_arrow_table()
        finally:
            con.close()

    def query_readonly(self, sql: str) -> pa.Table:
        """Run user SQL that may only read: anything but SELECT/EXPLAIN is refused."""
        con = self.connection()
        try:
            try:
                statements = con.extract_statements(sql)
            except duckdb.Error as exc:
                raise WarehouseError(f"SQL does not parse: {exc}") from exc
            if not statements:
                raise WarehouseError("no SQL statement given")
            for st in statements:
                kind = st.type.name
                if kind not in _READ_ONLY_STATEMENTS:
                    raise WarehouseError(f"read-only: {kind} statements are not allowed")
            result = None
            for st in statements:
                result = con.sql(st.query).to_arrow_table()
            assert result is not None
            return result
        finally:
            con.close()

    def count(self, name: str) -> int:
        return self.query(f'SELECT count(*) AS n FROM "{name}"').column("n")[0].as_py()

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
