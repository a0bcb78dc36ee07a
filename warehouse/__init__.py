"""The warehouse: Parquet files per table, queried through DuckDB views."""

from warehouse.schemas import TABLES, TableSchema, register, table_schema
from warehouse.store import Warehouse, WarehouseError, content_id

__all__ = [
    "TABLES",
    "TableSchema",
    "Warehouse",
    "WarehouseError",
    "content_id",
    "register",
    "table_schema",
]
