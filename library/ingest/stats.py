"""Figures over ingested tools: write share, share classified, cross-service semantic links."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from library.runtime.semantic import ID
from library.toolspec import SpecError, ToolSpec


@dataclass(frozen=True, slots=True)
class ToolSummary:
    """What the figures need of one tool: small enough to send back from a worker process."""

    service: str
    write: bool
    classified: bool
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    @classmethod
    def of(cls, spec: ToolSpec) -> ToolSummary:
        return cls(
            service=spec.service,
            write=spec.access == "write",
            classified=spec.classified,
            inputs=tuple(k for k in spec.semantics("input") if k != ID),
            outputs=tuple(k for k in spec.semantics("output") if k != ID),
        )


@dataclass(slots=True)
class IngestStats:
    documents: int = 0  # parsed now
    skipped: int = 0  # already in the warehouse (same content hash)
    bytes: int = 0
    tools: list[ToolSummary] = field(default_factory=list)
    errors: Counter[tuple[str, str]] = field(default_factory=Counter)  # (kind, severity) -> n

    def add(self, specs: list[ToolSpec], errors: list[SpecError]) -> None:
        self.tools.extend(ToolSummary.of(s) for s in specs)
        self.errors.update((str(e.kind), e.severity) for e in errors)

    def merge(self, other: IngestStats) -> None:
        self.documents += other.documents
        self.skipped += other.skipped
        self.bytes += other.bytes
        self.tools.extend(other.tools)
        self.errors.update(other.errors)

    @property
    def services(self) -> int:
        return len({t.service for t in self.tools})

    def share(self, flags: list[bool]) -> float:
        return sum(flags) / len(flags) if flags else 0.0

    @property
    def write_share(self) -> float:
        return self.share([t.write for t in self.tools])

    @property
    def classified_share(self) -> float:
        return self.share([t.classified for t in self.tools])

    @property
    def cross_service_share(self) -> float:
        return self.share(cross_service_flags(self.tools))

    def summary(self) -> dict[str, object]:
        """The figures a person reads after a run (JSON-ready)."""
        return {
            "documents": self.documents,
            "already_ingested": self.skipped,
            "services": self.services,
            "tools": len(self.tools),
            "write_share": round(self.write_share, 4),
            "classified_share": round(self.classified_share, 4),
            "cross_service_share": round(self.cross_service_share, 4),
            "errors": {
                f"{kind}/{severity}": n for (kind, severity), n in sorted(self.errors.items())
            },
        }


def cross_service_flags(tools: list[ToolSummary]) -> list[bool]:
    """Per tool: does another service produce one of its inputs or consume one of its outputs,
    through a shared semantic type (ids match only on the same resource)?"""
    producers: dict[str, set[str]] = defaultdict(set)
    consumers: dict[str, set[str]] = defaultdict(set)
    for t in tools:
        for key in t.outputs:
            producers[key].add(t.service)
        for key in t.inputs:
            consumers[key].add(t.service)

    def other(services: set[str], me: str) -> bool:
        return len(services) > 1 or (bool(services) and me not in services)

    return [
        any(other(producers.get(k, set()), t.service) for k in t.inputs)
        or any(other(consumers.get(k, set()), t.service) for k in t.outputs)
        for t in tools
    ]
