"""The conformance suite calls a tool that names its record by a key rather than by its id
with the record's own value (mutants of library/verify/conformance.py that survived the other
tests, bench/mutation.py): ``get_memo_by_code(memo_code)`` of memos is called with a stored
memo's ``code`` (the key parameter names the record's field, as ``imagePipelineArn`` names
an image pipeline's ``arn``), so a service that finds memos by code passes."""

from __future__ import annotations

import random

from library.runtime import Record, tool
from library.seed import SeedPool
from library.verify import run_conformance

from .test_mutation_kills_conformance import TEXT, Memos, failed, spec


class CodedMemo(Record):
    title: str
    code: str


class CodedState(Memos.State):
    memos: dict[str, CodedMemo] = {}  # type: ignore[assignment]


class CodedMemos(Memos):
    """Memos with a unique code each, read by that code."""

    State = CodedState
    state: CodedState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> CodedState:
        self.state = CodedState()
        for k in range(size):
            self.put("memos", CodedMemo(id=self.new_id("memo"), title=f"Memo {k}", code=f"M-{k}"))
        return self.state

    @tool
    def get_memo_by_code(self, memo_code: str) -> CodedMemo:
        """Get the memo of a code.

        Args:
            memo_code: The memo's code.
        """
        found = [m for m in self.state.memos.values() if m.code == memo_code]
        return self.get("memos", found[0].id if found else memo_code)


CODED = {
    "type": "object",
    "properties": {"id": TEXT, "title": TEXT, "code": TEXT},
    "required": ["id", "title", "code"],
}
BY_CODE = spec("get_memo_by_code", "read", {"memo_code": TEXT}, ["memo_code"], CODED)


def test_a_read_by_a_key_named_after_the_record_is_called_with_its_value() -> None:
    results = run_conformance(CodedMemos, [BY_CODE])
    assert failed(results) == {}
    assert any(r.tool == "get_memo_by_code" and r.check == "valid_call" for r in results)
