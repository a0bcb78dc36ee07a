"""Read-only views of World snapshots shaped like exported states, so rubric criteria run
on them as they run on JSON, without dumping every record of every service each time.

Records are frozen, so a record's JSON form can be cached by identity: a restored snapshot
shares record objects with the seeded base, and only the few records a plan wrote are new.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from library.runtime import Snapshot
from library.runtime.service import Record, State

MAX_CACHE = 200_000


class DumpCache:
    def __init__(self) -> None:
        self._cache: dict[int, tuple[Record, dict[str, Any]]] = {}

    def dump(self, record: Record) -> dict[str, Any]:
        hit = self._cache.get(id(record))
        if hit is not None and hit[0] is record:
            return hit[1]
        if len(self._cache) >= MAX_CACHE:
            self._cache.clear()
        data = record.model_dump(mode="json")
        self._cache[id(record)] = (record, data)
        return data

    def state_json(self, state: State) -> dict[str, Any]:
        """``state.model_dump(mode="json")``, each record's part from the cache: a task's
        initial and final states share most records with the seeded world, so only the
        records the walk made are dumped. The records' dicts are shared with the cache:
        copy before changing them (``orjson.loads(orjson.dumps(...))``)."""
        kinds = type(state).collection_types
        rest = state.model_dump(mode="json", exclude=set(kinds)) if kinds else None
        if rest is None:
            return state.model_dump(mode="json")
        out: dict[str, Any] = {}
        for name in type(state).model_fields:
            if name in kinds:
                out[name] = {rid: self.dump(r) for rid, r in getattr(state, name).items()}
            elif name in rest:
                out[name] = rest[name]
        return out


class _Collection(Mapping[str, Any]):
    __slots__ = ("_cache", "_records")
    holds_records = True  # every value is a record (``rubric.criteria.collections_of``)

    def __init__(self, records: dict[str, Record], cache: DumpCache) -> None:
        self._records = records
        self._cache = cache

    def __getitem__(self, rid: str) -> dict[str, Any]:
        return self._cache.dump(self._records[rid])

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, rid: object) -> bool:
        return rid in self._records

    @property
    def source(self) -> dict[str, Record]:
        """The records themselves: checks compare unchanged ones by identity."""
        return self._records


class _Service(Mapping[str, Any]):
    __slots__ = ("_cache", "_state")

    def __init__(self, state: State, cache: DumpCache) -> None:
        self._state = state
        self._cache = cache

    def __getitem__(self, name: str) -> Any:
        if name in type(self._state).collection_types:
            return _Collection(getattr(self._state, name), self._cache)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(type(self._state).collection_types)

    def __len__(self) -> int:
        return len(type(self._state).collection_types)


class StateView(Mapping[str, Any]):
    """``{service: {collection: {id: record JSON}}}`` over a snapshot, for some services."""

    __slots__ = ("_cache", "_services", "_snap")

    def __init__(self, snap: Snapshot, services: Iterable[str], cache: DumpCache) -> None:
        self._snap = snap
        self._services = [s for s in services if s in snap.states]
        self._cache = cache

    def __getitem__(self, service: str) -> Any:
        if service not in self._services:
            raise KeyError(service)
        return _Service(self._snap.states[service], self._cache)

    def __iter__(self) -> Iterator[str]:
        return iter(self._services)

    def __len__(self) -> int:
        return len(self._services)
