"""When seeded times fall, by the words of their names (library/compiler/emit_seed.py,
``_time`` and ``_plan_times``, whose mutants survive in many small places,
bench/mutation.py): a record is created, then updated, before now; what happened to it (sent,
paid, last login, a stamp of no known meaning) happened between its creation and now; a due
time is about now, at the end of a working day; an expiry or a renewal is weeks to months
ahead; a scheduled time is in working hours, on the hour or half past, within weeks of now;
a birth date is of an adult; a range's start comes before its end, for times and days; and a
payroll covers two weeks and pays three days after they end."""

from __future__ import annotations

import datetime as dt

from tests.test_mutation_kills_emit_seed import _record
from tests.test_mutation_kills_seed_ours import _seeded_world

MOMENT = {"type": "string", "format": "date-time"}
DAY = {"type": "string", "format": "date"}
FIELDS = {
    "title": {"type": "string"},
    "created_at": MOMENT,
    "updated_at": MOMENT,
    "sent_at": MOMENT,
    "last_login_at": MOMENT,
    "paid_at": MOMENT,
    "noted_at": MOMENT,
    "due_at": MOMENT,
    "expires_at": MOMENT,
    "renewal_date": DAY,
    "scheduled_at": MOMENT,
    "birth_date": DAY,
    "starts_at": MOMENT,
    "ends_at": MOMENT,
    "check_in": DAY,
    "check_out": DAY,
}


def _at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_seeded_times_fall_where_the_words_of_their_names_say() -> None:
    world, rows = _seeded_world("subscriptions", "Subscription", _record(list(FIELDS), **FIELDS))
    now, day = world.now(), dt.timedelta(days=1)
    for row in rows:
        t = {k: _at(v) for k, v in row.items() if k.endswith("_at")}
        assert t["created_at"] <= t["updated_at"] <= now, row
        for key in ("sent_at", "last_login_at", "paid_at", "noted_at"):
            assert t["created_at"] <= t[key] <= now, (key, row)
        assert now - 5 * day <= t["due_at"] <= now + 31 * day, row
        assert (t["due_at"].hour, t["due_at"].minute) == (17, 0), row
        assert now + 7 * day <= t["expires_at"] <= now + 181 * day, row
        assert t["expires_at"].hour == 9, row
        renewal = dt.date.fromisoformat(row["renewal_date"])
        assert now.date() + 7 * day <= renewal <= now.date() + 181 * day, row
        scheduled = t["scheduled_at"]
        assert now - 15 * day <= scheduled <= now + 31 * day, row
        assert 8 <= scheduled.hour <= 17 and scheduled.minute in (0, 30), row
        assert 1962 <= dt.date.fromisoformat(row["birth_date"]).year <= 2003, row
        assert t["starts_at"] < t["ends_at"], row
        assert row["check_in"] < row["check_out"], row  # ISO days compare as text
    assert len({row["created_at"] for row in rows}) == len(rows), rows


def test_a_payroll_covers_two_weeks_and_pays_three_days_after_they_end() -> None:
    names = ["period_start", "period_end", "pay_date", "approved_at"]
    nodes = {n: MOMENT if n.endswith("_at") else DAY for n in names}
    _, payrolls = _seeded_world("payrolls", "Payroll", _record(names, **nodes))
    for payroll in payrolls:
        start, end, paid = (dt.date.fromisoformat(payroll[k]) for k in names[:3])
        assert (end - start).days == 13 and (paid - end).days == 3, payroll
        assert _at(payroll["approved_at"]).date() != paid, payroll  # a stamp of its own
