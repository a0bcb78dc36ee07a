"""The bundled spec corpus compiled into a service library, in-process, for benchmarks and
tests of composition.

This executes compiler output in the current process: fine for our own compiler's code in
a bench or a test, never for the factory, where generated services load inside sandbox
workers.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from library.compiler import compile_service, load_service
from library.graph import ToolNode, nodes_from_specs
from library.ingest import ingest_document
from library.runtime import Service
from library.toolspec import ToolSpec
from library.verify import run_conformance, verified_tools

FORMAT_FOLDERS = ("openapi", "swagger", "mcp", "functions", "docker", "bfcl")


@dataclass(frozen=True, slots=True)
class Library:
    classes: list[type[Service]]
    specs: list[ToolSpec]
    verified: dict[str, dict[str, bool]]  # service -> tool -> passed conformance
    nodes: list[ToolNode]  # verified tools only


def bundled_specs(services: Collection[str] | None = None) -> dict[str, list[ToolSpec]]:
    import library.specs

    root = Path(library.specs.__file__).parent
    out: dict[str, list[ToolSpec]] = {}
    for folder in FORMAT_FOLDERS:
        for path in sorted((root / folder).glob("*")):
            if services is not None and path.stem not in services:
                continue
            specs, _ = ingest_document(path)
            for spec in specs:
                out.setdefault(spec.service, []).append(spec)
    return dict(sorted(out.items()))


def bundled_library(services: Collection[str] | None = None, seed: int = 0) -> Library:
    """Compile, load and verify the bundled services (all, or those named)."""
    by_service = bundled_specs(services)
    classes: list[type[Service]] = []
    verified: dict[str, dict[str, bool]] = {}
    for name, specs in by_service.items():
        cls = load_service(compile_service(specs).source)
        classes.append(cls)
        verified[name] = verified_tools(run_conformance(cls, specs, seed=seed))
    specs = [s for ss in by_service.values() for s in ss]
    nodes = nodes_from_specs(specs, verified, {c.name: c for c in classes})
    return Library(classes, specs, verified, nodes)
