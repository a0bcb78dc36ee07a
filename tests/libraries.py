"""``bundled_library`` for the composition tests, each service compiled, verified and made
into graph nodes once per test process.

The composition tests build ~100 libraries of 1-24 bundled services, most services in many
of them (85 CPU-s for those, 14 with this). Compiling a service, running its conformance
suite and making its graph nodes (each node comes from its own spec, its service's verdicts
and class) are pure functions of the service's specs and the seed: they are kept, keyed by
the specs as JSON. The specs are ingested afresh at every call, the classes are the loaded
modules (``load_service`` loads one source once per process anyway), and the verdicts are a
copy per call. What a test gets equals what ``library.compose.corpus.bundled_library``
returns: test_libraries.py holds the two side by side.
"""

from __future__ import annotations

from collections.abc import Collection

from library.compiler import compile_service, load_service
from library.compose.corpus import Library, bundled_specs
from library.graph import ToolNode, nodes_from_specs
from library.runtime import Service
from library.toolspec import ToolSpec
from library.verify import run_conformance, verified_tools

_BUILT: dict[tuple[tuple[str, ...], int], tuple[str, dict[str, bool], tuple[ToolNode, ...]]] = {}


def _built(
    name: str, specs: list[ToolSpec], seed: int
) -> tuple[type[Service], dict[str, bool], tuple[ToolNode, ...]]:
    """One service's class, conformance verdicts and graph nodes (a node is made from its
    own spec, its service's verdicts and class alone)."""
    key = (tuple(s.model_dump_json() for s in specs), seed)
    if key not in _BUILT:
        source = compile_service(specs).source
        cls = load_service(source)
        verdicts = verified_tools(run_conformance(cls, specs, seed=seed))
        nodes = nodes_from_specs(specs, {name: verdicts}, {cls.name: cls})
        _BUILT[key] = source, verdicts, tuple(nodes)
    source, verdicts, nodes = _BUILT[key]
    return load_service(source), dict(verdicts), nodes


def bundled_library(services: Collection[str] | None = None, seed: int = 0) -> Library:
    """As ``library.compose.corpus.bundled_library``: compile, load and verify the bundled
    services (all, or those named)."""
    by_service = bundled_specs(services)
    classes: list[type[Service]] = []
    verified: dict[str, dict[str, bool]] = {}
    nodes: list[ToolNode] = []
    for name, specs in by_service.items():
        cls, verified[name], built = _built(name, specs, seed)
        classes.append(cls)
        nodes.extend(built)
    specs = [s for ss in by_service.values() for s in ss]
    return Library(classes, specs, verified, sorted(nodes, key=lambda n: n.id))
