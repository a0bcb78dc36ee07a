"""A record composition makes someone else's in place takes its own records along."""

from __future__ import annotations

from library.compose import ComposeConfig, make_env
from tests.compose_walks import finished_walks, forced, initial_world
from tests.libraries import bundled_library


def test_an_expense_report_made_someone_else_s_takes_its_lines_along() -> None:
    """A seeded expense report a walk gives to the person the request is about (in place,
    where it is free) moves its expenses with it: every line names the report's employee
    and is in its currency, in the world the request starts from."""
    library = bundled_library(["identity", "expenses", "mail", "calendar", "hr"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    moved = lines = 0
    for tag in ("lines", "lines2"):
        for walker in finished_walks(env, 80, tag, forced("expenses", "offboarding")):
            injected = {i.record.id for i in walker.injections if i.collection == "expense_reports"}
            world = initial_world(walker)
            state = world.services["expenses"].state
            for expense in state.expenses.values():
                report = state.expense_reports.get(expense.expense_report_id)
                if report is None:
                    continue
                lines += 1
                moved += report.id in injected
                assert expense.employee_email == report.employee_email, (expense, report)
                assert expense.currency == report.currency, (expense, report)
        if moved >= 5:
            break
    assert moved >= 5 and lines >= 50, (moved, lines)


def test_a_record_moved_to_an_open_state_holds_nothing_an_open_one_never_does() -> None:
    """A record composition moves to an open state (a decoy ticket made "pending" from a
    closed one) holds no moment only a finished one has (a pending ticket is solved at no
    time), whether or not the world has another record in that very state."""
    from library.compose.coherence import FINAL, status_of

    library = bundled_library(["mail", "helpdesk", "voice", "crm", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    checked = 0
    for walker in finished_walks(env, 150, "ns", forced("follow-up", "escalation")):
        for injection in walker.injections:
            record = injection.record.model_dump(mode="json")
            state = status_of(record)
            if state is None or state in FINAL:
                continue
            seeded = getattr(walker.base.states[injection.service], injection.collection)
            rows = [r.model_dump(mode="json") for r in seeded.values()]
            peers = [r for r in rows if status_of(r) == state] or [
                r for r in rows if status_of(r) not in FINAL | {None}
            ]
            checked += 1
            for name, value in record.items():
                if name.endswith("_at") and value is not None and peers:
                    assert any(p.get(name) is not None for p in peers), (name, record)
    assert checked >= 30, checked
