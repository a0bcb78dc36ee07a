"""The words a workflow puts in records tell the request's own story: a follow-up may be the
customer waiting on us, so the note we file never says we are waiting on them; a customer's
reply after a change to their order says their order was changed."""

from __future__ import annotations

import pytest

from library.compose.topics import topic_texts


@pytest.mark.parametrize("kind", ["email_subject", "body:message", "task_title"])
@pytest.mark.parametrize("internal", [True, False])
def test_a_follow_up_never_says_who_owes_the_next_word(kind: str, internal: bool) -> None:
    for text in topic_texts("follow-up", kind, internal=internal):
        low = text.lower()
        assert "waiting on the customer" not in low and "hear back from them" not in low, text


def test_a_delivery_reply_says_the_order_was_changed() -> None:
    for text in topic_texts("fulfilment", "body:message"):
        assert "as you asked" in text and "looked into" not in text, text
