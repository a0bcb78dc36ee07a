"""Spec ingestion: any supported tool-spec format in, normalized ToolSpecs and SpecErrors out."""

from library.ingest.document import (
    MAX_BYTES,
    Unreadable,
    content_hash,
    ingest_document,
    read_document,
    unreadable_error,
)
from library.ingest.stats import IngestStats

__all__ = [
    "MAX_BYTES",
    "IngestStats",
    "Unreadable",
    "content_hash",
    "ingest_document",
    "read_document",
    "unreadable_error",
]
