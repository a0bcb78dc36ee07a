"""The free text a plan writes is said several ways: one comment or message body repeated
across a batch of requests reads as a template (29 of 32 comments and bodies were one
offboarding comment before)."""

from __future__ import annotations

from collections import Counter

from library.compose import compose_tasks, make_env
from library.compose.corpus import bundled_library
from library.compose.topics import TOPIC_TEXTS


def test_each_workflow_has_several_messages_for_the_customer() -> None:
    thin = [w for w, kinds in TOPIC_TEXTS.items() if len(kinds.get("body:message", ())) < 3]
    assert len(thin) <= len(TOPIC_TEXTS) // 2, thin


def test_no_one_text_dominates_what_a_batch_writes() -> None:
    lib = bundled_library()
    tasks = compose_tasks([], 150, env=make_env(lib.classes, lib.nodes), seed=0).tasks
    texts = Counter(
        value
        for task in tasks
        for step in task.gold_plan
        for name, value in step["arguments"].items()
        if name in ("body", "text", "content", "message")
        and isinstance(value, str)
        and len(value) > 25
    )
    total = sum(texts.values())
    assert total >= 20
    assert len(texts) >= 6 and texts.most_common(1)[0][1] <= 0.45 * total, texts.most_common(3)


def test_every_workflow_has_its_own_words() -> None:
    """A workflow without words of its own borrows the shared vocabulary: a task update's
    e-mail titled "Question about my invoice"."""
    from library.compose.motifs import MOTIFS
    from library.compose.openings import JOB, WORK

    for motif in MOTIFS:
        assert motif.name in WORK and motif.name in JOB, motif.name
        own = TOPIC_TEXTS.get(motif.name, {})
        if motif.name not in ("follow-up",):
            assert own.get("email_subject") and own.get("body:message"), motif.name
