"""``Collection``: the persistent, insertion-ordered map behind every ``dict[str, Record]``
field of a ``State``.

Why: a write call works on a clone of the service's state (published states are never
mutated, so snapshots are references). With plain dicts that clone copies every collection,
O(records) per write. A ``Collection`` clones in O(1) and writes in O(log n) by structural
sharing, from two maintained persistent structures:

- ``_index``: an ``immutables.Map`` (a HAMT, in C) from id to a position;
- ``_slots``: a ``pyrsistent`` ``pvector`` (a 32-way trie, in C) of ``(id, record)`` pairs in
  insertion order; a deleted id leaves ``None`` behind, dropped by an O(n) compaction once
  the holes outnumber the live records (amortised O(1) a delete).

It behaves as a dict does (``MutableMapping``; order: insertion, an update keeps a record's
place, a deleted and re-added id goes last; ``popitem`` is LIFO), so tool bodies and exports
read the same as before, and ``State`` dumps it as a plain dict: state hashes and exports are
unchanged byte for byte. A ``Collection`` is mutable as a dict is; what makes sharing safe is
that each clone gets its own ``Collection`` object over the shared persistent structures.
"""

from __future__ import annotations

import copy
import gc
from collections.abc import (
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    MutableMapping,
    ValuesView,
)
from typing import Any

import immutables
from pyrsistent import pvector

_MISSING: Any = object()
_EMPTY_INDEX: immutables.Map = immutables.Map()
_EMPTY_SLOTS = pvector()
_COMPACT_MIN_HOLES = 32  # small collections never pay for a compaction


class Collection(MutableMapping[Any, Any]):
    __slots__ = ("_index", "_slots")

    def __init__(self, data: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> None:
        # A dict first: later duplicates replace earlier values in place, as dict(items) does.
        merged = data if type(data) is dict else dict(data)
        if not merged:
            self._index, self._slots = _EMPTY_INDEX, _EMPTY_SLOTS
            return
        # The trie's nodes are many small tracked containers: with the collector on, each
        # allocation burst triggers a collection that walks every record already loaded
        # (measured: 2x the build time at 100,000 records). Nothing here makes a cycle.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._slots = pvector(merged.items())
            self._index = immutables.Map(zip(merged, range(len(merged)), strict=True))
        finally:
            if collecting:
                gc.enable()

    @classmethod
    def _of(cls, index: immutables.Map, slots: Any) -> Collection:
        new = cls.__new__(cls)
        new._index, new._slots = index, slots
        return new

    # -- reads: O(log n) -----------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        return self._slots[self._index[key]][1]

    def get(self, key: Any, default: Any = None) -> Any:
        pos = self._index.get(key)
        return default if pos is None else self._slots[pos][1]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._index)

    def __iter__(self) -> Iterator[Any]:
        for slot in self._slots:
            if slot is not None:
                yield slot[0]

    def __reversed__(self) -> Iterator[Any]:
        for slot in reversed(self._slots):
            if slot is not None:
                yield slot[0]

    def keys(self) -> KeysView[Any]:
        return KeysView(self)

    def values(self) -> ValuesView[Any]:
        return _Values(self)

    def items(self) -> ItemsView[Any, Any]:
        return _Items(self)

    # -- writes: O(log n) ----------------------------------------------------------------
    def __setitem__(self, key: Any, value: Any) -> None:
        pos = self._index.get(key)
        if pos is None:  # a new id goes last, as in a dict
            self._index = self._index.set(key, len(self._slots))
            self._slots = self._slots.append((key, value))
        else:  # an update keeps its place, and the index is untouched
            self._slots = self._slots.set(pos, (key, value))

    def __delitem__(self, key: Any) -> None:
        pos = self._index[key]
        self._index = self._index.delete(key)
        self._slots = self._slots.set(pos, None)
        holes = len(self._slots) - len(self._index)
        if holes > _COMPACT_MIN_HOLES and holes > len(self._index):
            self._compact()

    def _compact(self) -> None:
        live = [slot for slot in self._slots if slot is not None]
        self._slots = pvector(live)
        self._index = immutables.Map((k, i) for i, (k, _) in enumerate(live))

    def pop(self, key: Any, default: Any = _MISSING) -> Any:
        pos = self._index.get(key)
        if pos is None:
            if default is _MISSING:
                raise KeyError(key)
            return default
        value = self._slots[pos][1]
        del self[key]
        return value

    def popitem(self) -> tuple[Any, Any]:
        """The last item, as ``dict.popitem`` (LIFO; ``MutableMapping``'s is FIFO)."""
        for key in reversed(self):
            return key, self.pop(key)
        raise KeyError("popitem(): collection is empty")

    def setdefault(self, key: Any, default: Any = None) -> Any:
        pos = self._index.get(key)
        if pos is None:
            self[key] = default
            return default
        return self._slots[pos][1]

    def clear(self) -> None:
        self._index, self._slots = _EMPTY_INDEX, _EMPTY_SLOTS

    # -- copies: O(1), by sharing --------------------------------------------------------
    def copy(self) -> Collection:
        return Collection._of(self._index, self._slots)

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> Collection:
        return Collection(copy.deepcopy(self.to_dict(), memo))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Collection, (self.to_dict(),))

    def shares(self, other: object) -> bool:
        """True when ``other`` is a copy of this collection that neither side wrote since: the
        same content for certain, known in O(1) (a diff skips such collections)."""
        return isinstance(other, Collection) and other._slots is self._slots

    def to_dict(self) -> dict[Any, Any]:
        return {slot[0]: slot[1] for slot in self._slots if slot is not None}

    # -- dict parity ---------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self.shares(other):
            return True
        if isinstance(other, Mapping):
            return self.to_dict() == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dict

    def __or__(self, other: Any) -> Collection:
        if not isinstance(other, Mapping):
            return NotImplemented
        new = self.copy()
        new.update(other)
        return new

    def __ror__(self, other: Any) -> dict[Any, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return {**other, **self.to_dict()}

    def __ior__(self, other: Any) -> Collection:
        self.update(other)
        return self

    def __repr__(self) -> str:
        return repr(self.to_dict())


class _Values(ValuesView[Any]):
    """Values straight from the slots (``ValuesView`` would look every id up again)."""

    __slots__ = ()
    _mapping: Collection

    def __iter__(self) -> Iterator[Any]:
        for slot in self._mapping._slots:
            if slot is not None:
                yield slot[1]

    def __reversed__(self) -> Iterator[Any]:
        for slot in reversed(self._mapping._slots):
            if slot is not None:
                yield slot[1]


class _Items(ItemsView[Any, Any]):
    __slots__ = ()
    _mapping: Collection

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        for slot in self._mapping._slots:
            if slot is not None:
                yield slot

    def __reversed__(self) -> Iterator[tuple[Any, Any]]:
        for slot in reversed(self._mapping._slots):
            if slot is not None:
                yield slot
