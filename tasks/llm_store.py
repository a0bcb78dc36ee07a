"""The ``llm_calls`` table as the LLM client's call store: every call recorded, replayable."""

from __future__ import annotations

import threading

from library.llm.records import CallRecord
from warehouse import Warehouse


class WarehouseCallStore:
    """Replays by prompt hash from ``llm_calls``; the table is read once, then kept in memory."""

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh
        self._lock = threading.Lock()
        self._ok: dict[str, CallRecord] | None = None

    def _index(self) -> dict[str, CallRecord]:
        if self._ok is None:
            rows = self.wh.query(
                "select * from llm_calls where error is null and response_message is not null "
                "order by created_at"
            ).to_pylist()
            self._ok = {r["prompt_hash"]: CallRecord.model_validate(r) for r in rows}
        return self._ok

    def lookup(self, prompt_hash: str) -> CallRecord | None:
        with self._lock:
            return self._index().get(prompt_hash)

    def record(self, record: CallRecord) -> None:
        self.wh.append("llm_calls", [record.to_row()], batch_id=record.call_id)
        with self._lock:
            if record.ok:
                self._index()[record.prompt_hash] = record
