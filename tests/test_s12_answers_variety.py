"""The reason a request gives for a value it asks back ("... so I can plan around it")
follows the work and the field, and is said several ways: a batch of requests must not
repeat one answer line (a reviewer found "so I can plan around it" in 5 of 20), and no
wording may contradict the story (the people a leaver's work was for are not asked about
"so I know who it's for")."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from library.compose.realism import PURPOSES, answer_purpose, answer_use, wordings

# The asks bundled composition makes, with how often each came up in 300 tasks (seed 0).
_ASKED = [
    ("mrr", "money", "renewal", 15),
    ("due_date", "date", "escalation", 17),
    ("close_date", "date", "offboarding", 15),
    ("customer_email", "email", "offboarding", 6),
    ("requester_name", "person_name", "escalation", 5),
    ("reporter_email", "email", "offboarding", 5),
    ("requester_name", "person_name", "offboarding", 5),
    ("quote_number", "key:quote", "renewal", 4),
    ("total", "money", "fulfilment", 4),
    ("total", "money", "billing", 3),
    ("order_number", "key:order", "fulfilment", 2),
    ("assignee_email", "email", "offboarding", 2),
]
_NAMES = ["Ann Lee", "Raj Patel", "Mia Chen", "Tom Ruiz", "Eva Novak", "Sam Okafor"]


def _value(key: str, i: int) -> object:
    if key == "date":
        return (dt.date(2026, 7, 1) + dt.timedelta(days=3 * i)).isoformat()
    if key == "money":
        return round(120.0 + 37.5 * i, 2)
    if key == "email":
        return f"person{i}@example.com"
    if key == "person_name":
        return f"{_NAMES[i % len(_NAMES)]} {chr(65 + i % 26)}."
    return f"{1040 + 7 * i}"


def _batch(scale: int = 4) -> list[tuple[str, str, str, str]]:
    """(field, motif, use, reason) for asks in the proportions composition makes them."""
    out = []
    for field, key, motif, n in _ASKED:
        for i in range(n * scale):
            reason = answer_purpose(field, key, _value(key, i), motif)
            assert reason is not None, (field, motif)
            out.append((field, motif, str(answer_use(field, key, _value(key, i), motif)), reason))
    return out


def test_no_answer_line_covers_more_than_a_tenth_of_a_batch() -> None:
    batch = _batch()
    reason, n = Counter(r for *_, r in batch).most_common(1)[0]
    assert n <= 0.1 * len(batch), (reason, n, len(batch))
    assert len({r for *_, r in batch}) >= 20


def test_each_use_is_said_several_ways() -> None:
    """Within one kind of ask (a due date in an escalation, an MRR at renewal) no wording
    takes more than half the asks."""
    by_case: dict[tuple[str, str], Counter[str]] = {}
    for field, motif, _, reason in _batch(scale=10):
        by_case.setdefault((field, motif), Counter())[reason] += 1
    for case, reasons in by_case.items():
        assert len(reasons) >= 2, case
        assert reasons.most_common(1)[0][1] <= 0.5 * sum(reasons.values()), (case, reasons)


def test_one_record_reads_the_same_every_time() -> None:
    for field, key, motif, _ in _ASKED:
        assert answer_purpose(field, key, _value(key, 3), motif) == answer_purpose(
            field, key, _value(key, 3), motif
        )


def test_the_reason_follows_the_work() -> None:
    """A leaver's work changes hands: whom it was for hears who takes over, whoever runs
    it is checked with about the handover, its dates go into the handover; an escalation
    is urgent; a renewal is talked through."""
    for i in range(12):
        for field, key in (("requester_name", "person_name"), ("customer_email", "email")):
            assert (
                answer_purpose(field, key, _value(key, i), "offboarding") in PURPOSES["handed_over"]
            )
        manager = answer_purpose(
            "manager_name", "person_name", _value("person_name", i), "offboarding"
        )
        assert manager in PURPOSES["in_charge_handover"], manager
        handover = answer_purpose("due_date", "date", _value("date", i), "offboarding")
        assert handover in PURPOSES["date_handover"], handover
        assert answer_purpose("due_date", "date", _value("date", i), "escalation") in wordings(
            "date_urgent", "due_date"
        )
        assert "renewal" in str(answer_purpose("mrr", "money", _value("money", i), "renewal"))
    told = {r for use in ("handed_over", "in_charge_handover") for r in PURPOSES[use]}
    assert "so I know who it's for" not in told


def test_every_wording_reads_as_a_clause() -> None:
    """What ``why_asked`` appends after the question: a "so ..." clause, no full stop."""
    for use, said in PURPOSES.items():
        assert len(said) >= 2, use
        assert len(set(said)) == len(said), use
        for reason in said:
            assert reason.startswith("so ") and not reason.endswith("."), reason
