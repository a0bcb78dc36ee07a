"""The composition environment: catalog, graph, and seeded worlds to walk in.

Seeding is the expensive part, so each world seed is seeded once with every service
mounted and kept as a snapshot; a candidate task restores it (O(services)) and works on
copy-on-write states from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx

from library.compose.catalog import LOOKUP, Catalog, ToolInfo
from library.compose.config import ComposeConfig
from library.compose.plan import QUERY_PARAMS, user_knowable
from library.graph import ToolNode, build_graph, nodes_from_service
from library.runtime import Service, Snapshot, World
from library.seed import SeedPool, seed_pool


class ComposeEnv:
    def __init__(
        self,
        classes: Sequence[type[Service]],
        nodes: Iterable[ToolNode] | None = None,
        config: ComposeConfig | None = None,
        graph: nx.DiGraph | None = None,
    ) -> None:
        self.config = config or ComposeConfig()
        self.classes = {c.name: c for c in classes}
        if nodes is None:
            nodes = [n for c in classes for n in nodes_from_service(c)]
        self.nodes = [n for n in nodes if n.service in self.classes]
        self.catalog = Catalog(classes, self.nodes)
        self.graph = graph if graph is not None else build_graph(self.nodes)
        self.pool: SeedPool = seed_pool(self.config.pool_seed)
        self._worlds: dict[int, tuple[World, Snapshot]] = {}
        self.starts = self._start_tools()

    def world(self, world_seed: int) -> tuple[World, Snapshot]:
        """The seeded world for ``world_seed`` and its pristine snapshot."""
        cached = self._worlds.get(world_seed)
        if cached is None:
            world = World([self.classes[n]() for n in sorted(self.classes)], seed=world_seed)
            world.seed_states(self.pool, self.config.seed_size)
            cached = (world, world.snapshot())
            self._worlds[world_seed] = cached
        world, snap = cached
        world.restore(snap)
        return cached

    def identifier(self, service: str, collection: str, name: str) -> bool:
        """Whether a record field holds an id or a generated business identifier."""
        info = self.catalog.collection(service, collection)
        meta = info.fields.get(name) if info else None
        key = meta.key if meta else None
        return bool(key and key.startswith(("id:", "key:"))) or name.endswith(("_id", "_ids"))

    def fresh_world(self, services: Iterable[str], world_seed: int) -> World:
        """A new World of just these services (states to be loaded by the caller)."""
        return World([self.classes[n]() for n in sorted(services)], seed=world_seed)

    def _start_tools(self) -> list[ToolInfo]:
        """Lookups a task can open with: every required input is something a user knows."""
        out = []
        for tool in self.catalog.tools.values():
            if tool.kind != LOOKUP or tool.collection is None:
                continue
            required = [p for p in tool.params if p.required]
            if any(not self.start_param(p) for p in required):
                continue
            if any(self.start_param(p) for p in tool.params):
                out.append(tool)
        return sorted(out, key=lambda t: t.qualified)

    @staticmethod
    def start_param(p: object) -> bool:
        name = getattr(p, "name", "")
        key = getattr(p, "key", None)
        is_query = name in QUERY_PARAMS and getattr(p, "type", None) == "string"
        return user_knowable(key) or is_query
