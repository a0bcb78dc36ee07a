"""Versioned Arrow schemas, one per warehouse table.

Bump a table's ``version`` when its columns change: files of each version live under
``<table>/v<version>/`` and the DuckDB view reads them all with ``union_by_name``, so
older batches stay queryable (new columns read as NULL).

JSON-shaped columns are stored as JSON strings (Arrow would otherwise unify dict columns
across rows and invent nulls); query them with DuckDB's ``->>`` operators.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class TableSchema:
    name: str
    version: int
    schema: pa.Schema
    description: str


TABLES: dict[str, TableSchema] = {}


def register(name: str, version: int, description: str, *fields: pa.Field) -> TableSchema:
    if name in TABLES:
        raise ValueError(f"table {name!r} is registered twice")
    table = TableSchema(name, version, pa.schema(list(fields)), description)
    TABLES[name] = table
    return table


def table_schema(name: str) -> TableSchema:
    try:
        return TABLES[name]
    except KeyError:
        known = ", ".join(sorted(TABLES))
        raise KeyError(f"unknown warehouse table {name!r}; tables: {known}") from None


JSON = pa.string()
TS = pa.timestamp("us", tz="UTC")

RUNS = register(
    "runs",
    1,
    "One row per pipeline run (flow), written when the run ends.",
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("flow", pa.string(), nullable=False),
    pa.field("status", pa.string(), nullable=False),
    pa.field("started_at", TS, nullable=False),
    pa.field("ended_at", TS, nullable=False),
    pa.field("duration_s", pa.float64(), nullable=False),
    pa.field("parameters", JSON),
    pa.field("summary", JSON),
    pa.field("error", pa.string()),
)
