"""A file request moves, uploads or archives as often as it shares: its words claim no share
("Vanessa and I have some file sharing to finish today" over a plan that moved one file)."""

from __future__ import annotations

import re

from library.compose.motifs import BY_NAME
from library.compose.openings import WORK
from library.compose.topics import REPORTED, topic_texts

SHARE = re.compile(r"\bshar(e|ed|es|ing)\b", re.IGNORECASE)


def test_the_words_for_file_work_claim_no_share() -> None:
    motif = BY_NAME["file sharing"]
    assert {"move", "upload"} <= set(motif.verbs)  # the work is more than sharing
    said = [WORK[motif.name], REPORTED[motif.name]]
    for kind in ("email_subject", "body:message"):
        said += topic_texts(motif.name, kind)
        said += topic_texts(motif.name, kind, reporting=True)
    assert said and not [s for s in said if SHARE.search(s)], said
