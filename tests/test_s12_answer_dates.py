"""A reply may spell a date as a person does ("September 3, 2026", "3 Sep 2026"): the
answer criteria read the date, not its spelling, both ways (an asked date stated in words
passes; a decoy's date stated in words is still caught)."""

from __future__ import annotations

import pytest

from library.rubric import AnswerContains, AnswerOmits

ASKED = AnswerContains("2026-09-03", label="the due date of the ticket")
NOT_THE_DECOY = AnswerOmits(["2026-10-01"], label="due date of the ticket")


@pytest.mark.parametrize(
    "reply",
    [
        "It is due on September 3, 2026.",
        "Due 3 Sep 2026.",
        "The due date is the 3rd of September 2026.",
        "Due: 2026-09-03.",
        "Due Sept. 3, 2026",
    ],
)
def test_an_asked_date_is_stated_however_it_is_spelled(reply: str) -> None:
    assert ASKED.check({}, {}, reply)
    assert NOT_THE_DECOY.check({}, {}, reply)


@pytest.mark.parametrize(
    "reply", ["Due September 4, 2026.", "Due 13 Sep 2026.", "Due 2026-09-031", "Due 3 Sep 2027"]
)
def test_another_date_is_not_the_asked_one(reply: str) -> None:
    assert not ASKED.check({}, {}, reply)


@pytest.mark.parametrize("reply", ["Also October 1, 2026.", "and 1 Oct 2026", "2026-10-01"])
def test_a_decoys_date_in_words_is_still_caught(reply: str) -> None:
    assert not NOT_THE_DECOY.check({}, {}, f"Due September 3, 2026. {reply}")
