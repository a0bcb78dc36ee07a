"""A follow-up's note says where the case stands, not that a customer was contacted: the
follow-up workflow also runs on a colleague's own record (a checklist task "Review the Q3
budget" assigned to them), where "Customer contacted; waiting to hear back." invents an
outsider the record never had."""

from __future__ import annotations

import re

import pytest

from library.compose.topics import topic_texts

OUTSIDER = re.compile(r"(?i)\b(customer|client|buyer|shopper)s?\b")


@pytest.mark.parametrize("internal", [False, True])
@pytest.mark.parametrize("kind", ["body:comment", "task_title"])
def test_follow_up_notes_name_no_outsider(kind: str, internal: bool) -> None:
    texts = topic_texts("follow-up", kind, internal=internal)
    assert texts, kind  # the workflow keeps words of its own for these
    assert not [t for t in texts if OUTSIDER.search(t)], texts
