"""What a nightly expansion has to work on: the services that new or changed spec files
brought in since the last run."""

from __future__ import annotations

from pathlib import Path

from tasks.build import current_specs
from tasks.ingest import SPEC_SUFFIXES
from warehouse import Warehouse


def service_versions(wh: Warehouse) -> dict[str, tuple[str, ...]]:
    """Each current service and the document hashes it is built from."""
    return {
        name: tuple(sorted({s.doc_hash for s in specs}))
        for name, specs in current_specs(wh).items()
    }


def changed_services(
    before: dict[str, tuple[str, ...]], after: dict[str, tuple[str, ...]]
) -> set[str]:
    """Services that are new, or whose spec documents changed."""
    return {name for name, docs in after.items() if before.get(name) != docs}


def has_spec_files(folder: Path) -> bool:
    return folder.is_dir() and any(
        p.suffix in SPEC_SUFFIXES for p in folder.rglob("*") if p.is_file()
    )
