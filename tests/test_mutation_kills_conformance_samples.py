"""The values the conformance suite tries for a parameter (mutants of
library/verify/conformance.py that survived the other tests, bench/mutation.py): a parameter
the spec's fields type (``since``, a date, though its schema says only "string") is tried
with a value of that type, so a list that breaks on a valid date fails ``every_parameter``
with ``internal``, where a made-up text would only have been refused."""

from __future__ import annotations

import datetime as dt

from library.runtime import ErrorCode, ToolError, tool
from library.verify import run_conformance

from .test_mutation_kills_conformance import ARRAY, CREATE, GET, Memo, Memos, failed, spec

SINCE = {"side": "input", "path": "since", "type": "string", "semantic": "date"}
LIST = {**spec("list_memos", "list", {"since": {"type": "string"}}, [], ARRAY), "fields": [SINCE]}


class BreaksOnADate(Memos):
    @tool
    def list_memos(self, since: str | None = None) -> list[Memo]:
        """List memos (a bug: any valid date raises).

        Args:
            since: The first day listed.
        """
        if since is None:
            return self.every()
        try:
            day = dt.date.fromisoformat(since)
        except ValueError:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "since: not a date") from None
        return [m for m in self.every() if {}[day]]


def test_a_parameter_typed_by_the_specs_fields_is_tried_with_a_value_of_its_type() -> None:
    problems = failed(run_conformance(BreaksOnADate, [CREATE, GET, LIST]))
    detail = problems[("list_memos", "every_parameter")]
    assert detail.startswith("with since='") and "internal" in detail, detail
    assert dt.date.fromisoformat(detail.split("'")[1])
