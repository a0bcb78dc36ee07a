"""Validated world-model answers, keyed by (tool, state hash, arguments).

An answer depends only on what the model was shown, so the same call on the same state is
answered again without a model, a prompt or a validation round. ``MemoryAnswerCache`` lasts
one process; ``DirectoryAnswerCache`` keeps answers in a folder for later runs (rollouts use
it). Beneath both, the LLMClient's call store replays the model reply itself wherever the
same prompt comes again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import orjson
from pydantic import ValidationError

from library.llm.records import canonical_json
from library.runtime import State
from library.world_model.answer import Answer
from library.world_model.state import StateView, as_view


def cache_key(tool_id: str, state: State | StateView, arguments: dict[str, Any]) -> str:
    args = hashlib.blake2b(canonical_json(arguments), digest_size=12).hexdigest()
    return f"{tool_id}:{as_view(state).digest()}:{args}"


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


class DirectoryAnswerCache:
    """Validated answers kept as one JSON file per key in a folder, so a later run (another
    process, the model server gone) answers the same calls without a model. Writes are
    atomic (a temporary file renamed into place): concurrent writers of one key leave one
    whole file, and a reader never sees half of one. A file that does not parse as an
    answer for its key is ignored (and overwritten by the next answer)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.hits = 0
        self._lock = threading.Lock()

    def _path(self, key: str) -> Path:
        digest = hashlib.blake2b(key.encode(), digest_size=16).hexdigest()
        return self.folder / digest[:2] / f"{digest}.json"

    def get(self, key: str) -> Answer | None:
        try:
            data = orjson.loads(self._path(key).read_bytes())
            if data.get("key") != key:  # a digest collision, or a file from elsewhere
                return None
            answer = Answer.model_validate(data["answer"])
        except (OSError, orjson.JSONDecodeError, ValidationError, KeyError, TypeError):
            return None
        with self._lock:
            self.hits += 1
        return answer

    def put(self, key: str, answer: Answer) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = orjson.dumps({"key": key, "answer": answer.model_dump(mode="json")})
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.json")) if self.folder.exists() else 0
