"""A service library compiled in-process from spec files or folders anywhere (a user's specs),
for benchmarks and tests of composition on real services.

Like ``corpus.bundled_library`` this executes our compiler's own output in the current
process: fine for a bench or a test, never for the factory (sandbox workers there).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from library.compiler import compile_service, load_service
from library.compose.corpus import Library
from library.compose.domains import profiles_of, register_profiles
from library.graph import nodes_from_specs
from library.ingest import ingest_document
from library.runtime import Service
from library.toolspec import ToolSpec, services_of
from library.verify import run_conformance, verified_tools

_SPEC_SUFFIXES = frozenset({".json", ".yaml", ".yml"})


def spec_files(paths: Iterable[str | Path]) -> list[Path]:
    """The spec documents under ``paths`` (files as given, folders searched), sorted."""
    out: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.update(p for p in path.rglob("*") if p.suffix in _SPEC_SUFFIXES and p.is_file())
        elif path.is_file():
            out.add(path)
    return sorted(out)


def declared_categories(path: Path) -> list[str]:
    """The categories a spec document declares for itself: ``info.x-apisguru-categories``
    (OpenAPI catalogues), a top-level ``categories`` or ``category`` (MCP registries)."""
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return []  # YAML or unreadable: the service's own words decide
    if not isinstance(doc, dict):
        return []
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    for raw in (info.get("x-apisguru-categories"), doc.get("categories"), doc.get("category")):
        if isinstance(raw, str):
            return [raw]
        if isinstance(raw, list):
            return [str(c) for c in raw if isinstance(c, str)]
    return []


def specs_by_service(paths: Iterable[str | Path]) -> dict[str, list[ToolSpec]]:
    """The specs of each service under ``paths``, named as the factory names them."""
    specs = [s for path in spec_files(paths) for s in ingest_document(path)[0]]
    return dict(sorted(services_of(specs).items()))


def spec_library(paths: Iterable[str | Path], seed: int = 0) -> Library:
    """Compile, load and verify the services the specs under ``paths`` describe; services
    the compiler cannot build, or with no verified tool, are left out."""
    classes: list[type[Service]] = []
    verified: dict[str, dict[str, bool]] = {}
    kept: list[ToolSpec] = []
    for name, specs in specs_by_service(paths).items():
        try:
            cls = load_service(compile_service(specs).source)
            passed = verified_tools(run_conformance(cls, specs, seed=seed))
        except Exception:
            continue
        if not any(passed.values()):
            continue
        classes.append(cls)
        verified[name] = passed
        kept.extend(specs)
    declared: dict[str, list[str]] = {}
    for spec in kept:
        if spec.service not in declared:
            declared[spec.service] = declared_categories(Path(spec.source_file))
    register_profiles(profiles_of(classes, declared))
    nodes = nodes_from_specs(kept, verified, {c.name: c for c in classes})
    return Library(classes, kept, verified, nodes)
