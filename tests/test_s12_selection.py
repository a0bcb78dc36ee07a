"""A selection rule is a real choice: the request names a record and, where several share
what it says, a rule a person states picks one (the task "File the expense report" that's
due first, the urgent one). A record found by a name only it holds is a plain lookup: no
"selection-rule" capability, no rule decoys (the other records listed beside it stay only
as records the work must leave be, where a step could change them). Real specs' untyped
levels and kinds (a checklist task's ``priority``) are something to pick by, as a spec's
enum is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from library.compose import ComposeConfig, Task, compose_tasks, make_env
from library.compose.catalog import CollectionInfo, FieldMeta
from library.compose.realism import MATCHING, Rule, categories, rule_options
from library.compose.spec_library import spec_library
from tests.spec_envs import spec_env

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
POWERDNS = SPECS / "openapi" / "powerdns.local.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"
CHECKLIST = SPECS / "mcp" / "docker" / "simplechecklist.json"
TICKETS = SPECS / "functions" / "bfcl_multi_turn" / "ticket_api.json"


def _stated(step: dict[str, Any]) -> set[str]:
    return {str(v).strip('"') for _, v in step["text"].get("by") or []}


def _by_stated_value(step: dict[str, Any]) -> bool:
    select = step["select"]
    return select["rule"] == MATCHING and str(select.get("value")) in _stated(step)


def test_a_record_found_by_the_name_the_request_states_is_no_selection() -> None:
    # PowerDNS lists its servers unfiltered: the request names the server by its domain,
    # which no other server holds; that is a lookup, not a choice among servers.
    tasks = compose_tasks([], 8, env=spec_env(POWERDNS, GMAIL), seed=0, max_candidates=800).tasks
    assert tasks
    listed = 0
    for task in tasks:
        for step in task.gold_plan:
            if step["tool"].endswith("__listServers"):
                listed += 1
                assert "select" not in step, (task.task_id, step["select"])
            if "select" in step:
                assert step["text"].get("rule"), (task.task_id, step)
                assert not _by_stated_value(step), (task.task_id, step["select"])
        selects = any("select" in s for s in task.gold_plan)
        assert ("selection-rule" in task.capabilities) == selects, task.task_id
        # the servers listed beside it are kept only as records the work must leave be:
        # where no step can change them, they are no part of the task
        guarded = {c["id"] for c in task.rubric if c["kind"] == "record_unchanged"}
        for decoy in task.decoys:
            if decoy["why"] == "matched":
                assert "select" in task.gold_plan[decoy["step"]], (task.task_id, decoy)
            else:
                assert decoy["id"] in guarded, (task.task_id, decoy)
    assert listed


def _checklist_tasks() -> list[Task]:
    spec_env(CHECKLIST, TICKETS)  # skips where the specs are missing
    library = spec_library([CHECKLIST, TICKETS])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(p_selection=1.0))
    return compose_tasks([], 6, env=env, seed=0, max_candidates=600).tasks


def test_tasks_that_share_the_stated_title_are_told_apart_by_a_rule_a_person_states() -> None:
    # Every checklist task is listed at once: two seeded to share the stated title differ in
    # when they are due or how urgent they are, and the rule says which one is meant.
    tasks = _checklist_tasks()
    chosen = 0
    for task in tasks:
        for k, step in enumerate(task.gold_plan):
            if not step["tool"].endswith("__get_all_tasks") or "select" not in step:
                continue
            chosen += 1
            select = step["select"]
            assert select["field"] in ("due_date", "priority"), select
            assert not _by_stated_value(step)
            (title,) = _stated(step)
            listed = task.initial_state["simplechecklist"]["tasks"]
            rivals = [d for d in task.decoys if d["why"] == "matched" and d["step"] == k]
            assert rivals, task.task_id
            for rival in rivals:
                assert listed[rival["id"]]["title"] == title, (task.task_id, rival)
    assert chosen, [t.instruction for t in tasks]


def _info(**fields: FieldMeta) -> CollectionInfo:
    info = CollectionInfo("svc", "tasks", dict)
    info.fields = dict(fields)
    return info


def test_an_untyped_level_is_picked_by_as_an_enum_is() -> None:
    priority = FieldMeta("priority", "string", None)
    assert categories("priority", priority, ["low", "urgent", "low", None]) == ("low", "urgent")
    # free text, an address's state, a url and a single value are not levels to pick by
    assert categories("priority", priority, ["Call them back today", "low"]) == ()
    assert categories("state", FieldMeta("state", "string", None), ["CA", "NY", "CA"]) == ()
    assert categories("type", FieldMeta("type", "string", "url"), ["a", "b"]) == ()
    assert categories("priority", priority, ["low", "low"]) == ()
    records = [
        {"id": "t1", "title": "Send the quote", "priority": "urgent"},
        {"id": "t2", "title": "Send the quote", "priority": "low"},
    ]
    options = rule_options(records, _info(priority=priority, title=FieldMeta("title", None, None)))
    assert Rule(MATCHING, "priority", "urgent") in options
    # a title is no level: the records are told apart by their priority only
    assert all(o.field == "priority" for o in options)
