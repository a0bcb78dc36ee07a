"""``compoworld show task ID``: a task as a reviewer reads it, run as a person runs it (a fresh
process over a warehouse in a temporary ``$COMPOWORLD_HOME``), plus the review's pure parts
on a hand-made task."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from library.compose import Task, compose_tasks, make_env
from library.compose.review import FROM_RULE, FROM_STEP, FROM_USER, review_task, to_html
from library.rubric import load_criteria
from tests.libraries import bundled_library
from warehouse import Warehouse

SERVICES = ["crm", "helpdesk", "mail", "calendar"]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _compoworld(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COMPOWORLD_WAREHOUSE"}
    env |= {"COMPOWORLD_HOME": str(home), "COLUMNS": "1000", "NO_COLOR": "1"}
    script = Path(sys.executable).parent / "compoworld"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "flows.cli"]
    return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=120)


def _selection_step(task: Task) -> tuple[int, str, str, str] | None:
    """(step, service, collection, chosen id) of a selection rule whose pick a later step
    passes on by id."""
    for j, step in enumerate(task.gold_plan):
        for name, b in step["binds"].items():
            k = b.get("step")
            if b.get("from") != "step" or not str(b.get("path", "")).endswith("].id"):
                continue
            if not task.gold_plan[k].get("select"):
                continue
            rid = task.gold_plan[j]["arguments"][name]
            service = task.gold_plan[k]["tool"].split("__")[0]
            for coll, records in task.initial_state[service].items():
                if isinstance(records, dict) and rid in records:
                    return k, service, coll, rid
    return None


def _with_review_fields(task: Task) -> tuple[Task, dict[str, Any]]:
    """The task with decoys, a house rule, a mutation verdict and an answer exclusion, as the
    compose stage records them."""
    k, service, coll, chosen = _selection_step(task)  # type: ignore[misc]
    records = task.initial_state[service][coll]
    args = task.gold_plan[k]["arguments"]

    def near(rec: dict[str, Any]) -> bool:  # matches the lookup's filters, as decoys do
        return all(rec.get(n) == v for n, v in args.items() if n in rec)

    others = sorted(records, key=lambda rid: not near(records[rid]))
    others = [rid for rid in others if rid != chosen][:2]
    decoys = [
        {
            "step": k,
            "service": service,
            "collection": coll,
            "id": rid,
            "path": f"data[{i}]",
            "why": "matched",
        }
        for i, rid in enumerate(others)
    ]
    house = [
        {
            "service": service,
            "collection": coll,
            "id": others[0],
            "step": k,
            "text": "Latest note wins: never touch archived records.",
        }
    ]
    mutation = {
        "mutants": 10,
        "caught": 9,
        "catch_rate": 0.9,
        "by_kind": {"drop": [3, 3], "swap_decoy": [1, 2]},
        "escaped": ["swap_decoy"],
    }
    answer = [{**a, "excludes": ["decoy-value@example.com"]} for a in task.answer]
    update = {"decoys": decoys, "house_rules": house, "mutation": mutation, "answer": answer}
    info = {"step": k, "chosen": chosen, "decoys": others}
    return task.model_copy(update=update), info


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Task], dict[str, Any]]:
    library = bundled_library(SERVICES)
    env = make_env(library.classes, library.nodes)
    tasks = compose_tasks(library.classes, 12, env=env, seed=2).tasks
    pick = next(t for t in tasks if _selection_step(t) is not None)
    reviewed, info = _with_review_fields(pick)
    tasks = [reviewed if t.task_id == pick.task_id else t for t in tasks]
    home = tmp_path_factory.mktemp("show") / "home"
    Warehouse(home / "warehouse").append("tasks", [t.to_row() for t in tasks])
    return home, [reviewed, *(t for t in tasks if t is not reviewed)], info


def test_show_task_prints_what_a_reviewer_needs(shown) -> None:
    home, tasks, info = shown
    task = tasks[0]
    out = _compoworld(home, "show", "task", task.task_id)
    assert out.returncode == 0, out.stderr[-3000:]
    text = _flat(out.stdout)
    for value in (task.task_id, task.domain, task.difficulty, task.split, *task.services):
        assert value in text
    assert "catch rate 90% (9/10)" in text and "escaped: swap_decoy" in text
    assert _flat(task.instruction) in text
    for i, step in enumerate(task.gold_plan, 1):
        assert f"{i}. {step['tool']}" in text
    assert FROM_USER in text and FROM_STEP in text
    for criterion in load_criteria(task.rubric):
        assert _flat(criterion.describe()) in text
    for row in task.answer:
        assert row["label"] in text and "decoy-value@example.com" in text
    # the selection rule, its chosen record beside the decoys
    select = task.gold_plan[info["step"]]["select"]
    assert f"select: {select['rule']}" in text
    assert f"chosen {info['chosen']}" in text
    for rid in info["decoys"]:
        assert f"decoy {rid} (matched)" in text
    assert "Latest note wins: never touch archived records." in text
    assert "initial records" in text and info["chosen"] in text


def test_show_task_by_prefix_writes_a_self_contained_page(shown, tmp_path: Path) -> None:
    home, tasks, info = shown
    task = tasks[0]
    page = tmp_path / "review" / "task.html"
    out = _compoworld(home, "show", "task", task.task_id[:10], "--html", str(page))
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"wrote {page}" in out.stdout
    doc = page.read_text(encoding="utf-8")
    assert doc.startswith("<!DOCTYPE html>") and doc.rstrip().endswith("</html>")
    for external in ("<script", "<link", "src=", "href=", "@import", "url("):
        assert external not in doc
    assert html.escape(task.instruction) in doc
    for step in task.gold_plan:
        assert html.escape(step["tool"]) in doc
    assert FROM_USER in doc and FROM_STEP in doc
    for criterion in load_criteria(task.rubric):
        assert html.escape(criterion.describe()) in doc
    assert f"chosen {info['chosen']}" in doc and 'class="hl"' in doc


def test_unknown_task_id_is_an_error_naming_it(shown) -> None:
    home, _, _ = shown
    out = _compoworld(home, "show", "task", "nosuchtask42")
    assert out.returncode == 1
    assert "no task with id 'nosuchtask42'" in _flat(out.stderr)
    assert out.stdout == ""


def test_ambiguous_prefix_lists_the_candidates(tmp_path: Path) -> None:
    from tasks.review import TaskNotFound, find_task

    task = _hand_made_task()
    rows = [
        task.model_copy(update={"task_id": tid}).to_row() for tid in ("abc1", "abc2", "b_1", "bx1")
    ]
    wh = Warehouse(tmp_path / "wh")
    wh.append("tasks", rows)
    assert find_task(wh, "b_").task_id == "b_1"  # a unique prefix; "_" is not a wildcard
    with pytest.raises(TaskNotFound, match=r"ambiguous.*abc1, abc2"):
        find_task(wh, "abc")
    with pytest.raises(TaskNotFound, match="no task with id 'b%'"):
        find_task(wh, "b%")


# -- the review itself, on a hand-made task -------------------------------------------------------
def _hand_made_task() -> Task:
    deal = {"owner_email": "ann@acme.com", "stage": "open", "name": "Renewal"}
    state = {
        "crm": {
            "seq": 3,
            "deals": {
                "dea_1": {"id": "dea_1", **deal, "amount": 300.0},
                "dea_2": {"id": "dea_2", **deal, "amount": 800.0},
            },
        }
    }
    plan = [
        {
            "tool": "crm__list_deals",
            "arguments": {"owner_email": "ann@acme.com"},
            "write": False,
            "kind": "lookup",
            "binds": {"owner_email": {"from": "user"}},
            "text": {
                "kind": "lookup",
                "service": "CRM",
                "noun": "deal",
                "nouns": "deals",
                "by": [["owner email", '"ann@acme.com"']],
                "rule": "If more than one deal matches, use the one with the largest amount.",
                "label": "deal",
            },
            "select": {"rule": "largest", "field": "amount"},
        },
        {
            "tool": "crm__update_deal",
            "arguments": {"deal_id": "dea_2", "stage": "won"},
            "write": True,
            "kind": "update",
            "binds": {
                "deal_id": {"from": "step", "step": 0, "path": "data[1].id"},
                "stage": {
                    "from": "rule",
                    "rule": "threshold",
                    "step": 0,
                    "path": "data[1].amount",
                    "limit": 500,
                    "above": "won",
                    "otherwise": "lost",
                },
            },
            "text": {
                "kind": "update",
                "service": "CRM",
                "target": "the deal",
                "values": [],
                "threshold": {
                    "field": "amount",
                    "of": "the deal",
                    "limit": "500",
                    "param": "stage",
                    "above": '"won"',
                    "otherwise": '"lost"',
                },
            },
        },
    ]
    rubric = [
        {
            "kind": "field_updated",
            "service": "crm",
            "collection": "deals",
            "id": "dea_2",
            "field": "stage",
            "value": "won",
            "label": "the deal",
        },
        {
            "kind": "record_unchanged",
            "service": "crm",
            "collection": "deals",
            "id": "dea_1",
            "label": "the other deal",
        },
    ]
    return Task(
        task_id="hand0001",
        seed=0,
        services=["crm"],
        domain="sales",
        capabilities=["selection-rule", "threshold", "guard"],
        difficulty="easy",
        instruction="Find Ann's biggest deal and mark it won if it is above 500, else lost.",
        template_instruction="",
        initial_state=state,
        gold_plan=plan,
        rubric=rubric,
        decoys=[
            {
                "step": 0,
                "service": "crm",
                "collection": "deals",
                "id": "dea_1",
                "path": "data[0]",
                "why": "matched",
            }
        ],
    )


def test_review_names_records_rules_and_decoys() -> None:
    review = review_task(_hand_made_task())
    lookup, update = review.steps
    assert lookup.args[0].source == "user" and lookup.args[0].detail == FROM_USER
    assert lookup.select == "largest by amount"
    assert lookup.output == ["data[1]: crm.deals dea_2"]
    deal_id, stage = update.args
    assert deal_id.source == "step" and "crm.deals dea_2 · id" in deal_id.detail
    assert stage.source == "rule" and stage.detail.startswith(f"{FROM_RULE} threshold")
    assert "above 500" in stage.detail and "= 800, above 500" in stage.detail
    assert update.threshold.startswith("If the amount of the deal is above 500")
    view = lookup.decoys
    assert view is not None and view.highlight == ["amount"] and view.fields == ["amount"]
    assert view.chosen is not None and view.chosen.id == "dea_2"
    assert [(d.id, why) for d, why in view.decoys] == [("dea_1", "matched")]
    assert view.same == 3  # owner_email, stage, name equal: they are near-duplicates
    roles = {row.ref.id: row.roles for row in review.records}
    assert "written at step 2" in roles["dea_2"] and "decoy (matched) for step 1" in roles["dea_1"]
    assert "checked (record_unchanged)" in roles["dea_1"]
    assert [k for k, _ in review.rubric] == ["field_updated", "record_unchanged"]
    assert dict(review.header)["mutation"] == "not measured"
    page = to_html(review)
    assert '<tr class="hl"><td>amount</td><td>800</td><td>300</td></tr>' in page
