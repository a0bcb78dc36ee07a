"""Validated world-model answers, keyed by (tool, state hash, arguments).

An answer depends only on what the model was shown, so the same call on the same state is
answered again without a model, a prompt or a validation round. (Across processes the
LLMClient's call store replays the model reply itself; this cache saves the rest.)
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Protocol, runtime_checkable

from library.llm.records import canonical_json
from library.runtime import State
from library.runtime.world import hash_state
from library.world_model.answer import Answer


def cache_key(tool_id: str, state: State, arguments: dict[str, Any]) -> str:
    args = hashlib.blake2b(canonical_json(arguments), digest_size=12).hexdigest()
    return f"{tool_id}:{hash_state(state)}:{args}"


@runtime_checkable
class AnswerCache(Protocol):
    def get(self, key: str) -> Answer | None: ...

    def put(self, key: str, answer: Answer) -> None: ...


class MemoryAnswerCache:
    """A bounded LRU cache in process memory."""

    def __init__(self, max_entries: int = 4096) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[str, Answer] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: str) -> Answer | None:
        with self._lock:
            answer = self._data.get(key)
            if answer is not None:
                self._data.move_to_end(key)
                self.hits += 1
            return answer

    def put(self, key: str, answer: Answer) -> None:
        with self._lock:
            self._data[key] = answer
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)
