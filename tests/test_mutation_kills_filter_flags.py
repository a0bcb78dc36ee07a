"""How the conformance suite matches a listed record's value with a filter's (mutants of
library/verify/conformance.py that survived the other tests, bench/mutation.py): a flag
matches a flag only (``True`` is not ``1``, whatever Python counts), never its spelling: a record
showing the text ``"true"`` does not hold the filter ``archived=true``, nor does a flag hold
a text filter, whichever side the flag is on; text still matches text in any case."""

from __future__ import annotations

import pytest

from library.verify.conformance import _holds


@pytest.mark.parametrize(
    ("shown", "value"),
    [(True, "true"), ("true", True), (False, "False"), (False, 0), (1, True), (True, 1.0)],
)
def test_a_flag_never_matches_its_spelling_or_a_number(shown: object, value: object) -> None:
    assert not _holds(shown, value)


def test_a_flag_matches_a_flag_and_text_any_case() -> None:
    assert _holds(True, True) and _holds(False, False) and not _holds(True, False)
    assert _holds("true", "TRUE")
