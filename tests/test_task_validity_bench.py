"""``bench/task_validity.py``: the independent task audit runs end to end on a few tasks
(composed in-process and read back from a warehouse) and prints every figure; its
detectors behave on hand-made cases. Asserts nothing about the figures' values."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Every figure the audit promises, by its row label.
FIGURES = (
    "tasks replayed",
    "gold plan fails its own rubric",
    "binds do not reproduce",
    "single identity",
    "two roles of one call",
    "two roles of one written record",
    "purposeless reads",
    "transitive",
    "selection rules no criterion checks",
    "placeholder literal",
    "placeholder strings among gold tool-output strings",
    "unverifiable stated literal",
    "terminal state",
    "thresholds across unrelated records",
    "writes an inverted range",
    "seeded range pairs inverted",
    "id the plan creates",
    "name disagrees with its e-mail (calls",
    "name disagrees with its e-mail (seeded",
    "mutation catch rate",
    "3+ services",
    "capability: selection-rule",
    "capability: guard",
    "capability: threshold",
    "capability: answer",
    "hard band: >=5 services",
    "hard band: >=6 rules",
    "hard band: >=15 steps",
    "following a motif",
    "distinct openings",
    "distinct templates",
    "mean instruction words",
    "mean services",
    "mean rules",
    "mean steps",
    "composition wall time",
    "audit wall time",
)


@pytest.fixture(scope="module")
def tv() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_task_validity", ROOT / "bench" / "task_validity.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # Build the bundled library once for both runs below.
    module.bundled_library = functools.cache(module.bundled_library)
    return module


@pytest.fixture(scope="module")
def composed(tv: ModuleType) -> tuple[list, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        tasks = tv.main(["--n", "10", "--workers", "1", "--examples", "2"])
    return tasks, out.getvalue()


def _assert_every_figure(text: str) -> None:
    missing = [f for f in FIGURES if f not in text]
    assert not missing, f"figures not printed: {missing}\n{text}"


def test_composed_run_prints_every_figure(composed: tuple[list, str]) -> None:
    tasks, text = composed
    assert 5 <= len(tasks) <= 10
    _assert_every_figure(text)
    assert f"/{len(tasks)}" in text  # shares come with their counts


def test_warehouse_run_prints_every_figure(
    tv: ModuleType, composed: tuple[list, str], tmp_path: Path
) -> None:
    from warehouse import Warehouse

    tasks, _ = composed
    wh = Warehouse(tmp_path / "wh")
    now = dt.datetime.now(dt.UTC)
    wh.append(
        "tasks",
        [t.to_row() | {"compose_run": "test", "created_at": now} for t in tasks],
        batch_id="tasks-test",
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        read = tv.main(["--from-warehouse", str(tmp_path / "wh"), "--workers", "1", "--n", "0"])
    assert sorted(t.task_id for t in read) == sorted(t.task_id for t in tasks)
    text = out.getvalue()
    _assert_every_figure(text.replace("tasks read from a warehouse", "composition wall time"))


def test_detectors_on_hand_made_cases(tv: ModuleType) -> None:
    p = tv.placeholder
    for value in ("Quarterly review 45", "Title 4", "Name 10", "value-3", "user896", "foo"):
        assert p(value), value
    assert p("Lorem ipsum dolor sit amet")
    assert p("Memo", "memo") and p("Memo 3", "memo")
    for value in ("Room 101", "SKU-1038", "Acme Corp", "part_time", "Melissa Schwartz"):
        assert p(value) is None, value

    rec = {
        "starts_at": "2026-03-10T09:00:00Z",
        "ends_at": "2026-03-09T09:00:00Z",
        "salary_min": 10,
        "salary_max": 20,
        "issue_date": "2026-02-01",
        "due_date": "2026-01-01",
    }
    bad = {(lo, hi) for lo, hi, a, b in tv.range_pairs(rec) if tv.inverted(a, b)}
    assert bad == {("starts_at", "ends_at"), ("issue_date", "due_date")}

    # a threshold's source and the record it decides are linked by an id, a shared number,
    # or a number one names in its text (a to-do's notes citing the invoice's number)
    invoice = {"id": "inv_1", "invoice_number": "INV-2027-0042", "subtotal": 900}
    assert tv._linked(invoice, {"id": "tas_1", "notes": "INV-2027-0042"})
    assert tv._linked(invoice, {"id": "tas_1", "notes": "inv_1"})
    assert not tv._linked(invoice, {"id": "tas_1", "notes": "INV-2027-0043"})
    # ... or a name its log's text gives, as a whole phrase (not inside another word)
    sub = {"id": "sub_1", "company_name": "Atkinson Ltd", "mrr": 5200}
    assert tv._linked(sub, {"id": "tas_2", "notes": "Updated the subscription Atkinson Ltd."})
    assert tv._linked(sub, {"id": "tas_2", "notes": "Atkinson Ltd"})
    assert not tv._linked(sub, {"id": "tas_2", "notes": "Atkinson Ltda renewal"})
    assert not tv._linked(sub, {"id": "tas_2", "title": "Atkinson Ltd"})  # a title, not a log
    assert not tv._linked(invoice, {"id": "tas_1", "notes": "Voided INV-2027-00421."})

    assert tv.email_agrees("Robert Hill", "melissa.schwartz@x.com") is False
    assert tv.email_agrees("Melissa Schwartz", "mschwartz@x.com") is True
    assert tv.email_agrees("Robert Hill", "info@x.com") is None

    assert tv.resolve({"data": [{"id": "a"}, {"id": "b"}]}, "data[1].id") == (True, "b")
    swap = tv.Swap(0, "data", "data[2]")
    assert swap.rewrite("data[0].email") == "data[2].email"
    assert swap.rewrite("other[0].email") == "other[0].email"
    assert tv.role_of("customer_email", "crm__update_deal") == "customer"
    assert tv.role_of("email", "recruiting__create_candidate") == "candidate"
