"""Spec ingestion: any supported tool-spec format in, normalized ToolSpecs and SpecErrors out."""

from library.ingest.document import MAX_BYTES, content_hash, ingest_document
from library.ingest.stats import IngestStats

__all__ = ["MAX_BYTES", "IngestStats", "content_hash", "ingest_document"]
