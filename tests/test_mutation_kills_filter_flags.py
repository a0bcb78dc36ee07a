"""How the conformance suite matches a listed record's value with a filter's (mutants of
library/verify/conformance.py that survived the other tests, bench/mutation.py): a flag
matches a flag (``True`` is ``1`` too, as Python counts), never its spelling: a record
showing the text ``"true"`` does not hold the filter ``archived=true``, nor does a flag hold
a text filter, whichever side the flag is on; text still matches text in any case."""

from __future__ import annotations

import pytest

from library.verify.conformance import _holds


@pytest.mark.parametrize(("shown", "value"), [(True, "true"), ("true", True), (False, "False")])
def test_a_flag_never_matches_its_spelling(shown: object, value: object) -> None:
    assert not _holds(shown, value)


def test_a_flag_matches_a_flag_or_its_number_and_text_any_case() -> None:
    assert _holds(True, True) and _holds(False, 0) and _holds(1, True)
    assert _holds("true", "TRUE")
