"""Tool names that lead with their service's noun (``expense_add`` in ``expense_tracker``, as
many MCP servers name tools): the noun is what the verb acts on, unless it names the product
itself (``git_add`` in ``git``, ``kubectl_explain`` in ``kubectl_mcp_server``)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.ingest import ingest_document
from library.ingest.verbs import name_verb_resource
from library.toolspec import Verb

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"


@pytest.mark.parametrize(
    ("name", "service", "verb", "resource"),
    [
        ("expense_add", "expense_tracker", Verb.CREATE, "expenses"),
        ("expense_list", "expense_tracker", Verb.LIST, "expenses"),
        ("expense_delete", "expense_tracker", Verb.DELETE, "expenses"),
        ("note_create", "notes", Verb.CREATE, "notes"),
        ("git_add", "git", Verb.CREATE, None),  # stages files: git is the product
        ("kubectl_explain", "kubectl_mcp_server", Verb.READ, None),
        ("message_login", "message_api", Verb.ACTION, None),  # logs in: the api's
        ("expense_approve", "expense_tracker", Verb.ACTION, "expenses"),
        ("ticket_get_login_status", "ticket_api", Verb.READ, "login_status"),
    ],
)
def test_a_service_noun_before_the_verb_is_the_resource(
    name: str, service: str, verb: Verb, resource: str | None
) -> None:
    assert name_verb_resource(name, service, [])[:2] == (verb, resource)


def test_a_docker_mcp_server_with_prefixed_names_builds_its_records() -> None:
    """The shape of docker/mcp-registry's expense-tracker tools: every CRUD tool is
    ``expense_<verb>``; all of them used to be "no resource recognised"."""

    def arg(name: str, kind: str = "string") -> dict[str, str]:
        return {"name": name, "type": kind, "desc": ""}

    fields = [arg("amount", "number"), arg("currency"), arg("merchant"), arg("date")]
    document = orjson.dumps(
        [
            {"name": "expense_add", "description": "Record one expense.", "arguments": fields},
            {"name": "expense_list", "description": "List expenses.", "arguments": []},
            {
                "name": "expense_update",
                "description": "Change any field of a stored expense by id.",
                "arguments": [arg("id"), *fields],
            },
            {"name": "expense_delete", "description": "Delete one.", "arguments": [arg("id")]},
        ]
    )
    specs, _ = ingest_document(document, source_file="expense-tracker.json")
    assert {s.name: s.resource for s in specs} == dict.fromkeys(
        ("expense_add", "expense_list", "expense_update", "expense_delete"), "expenses"
    )
    listed = next(s for s in specs if s.name == "expense_list").output_schema
    assert listed is not None and {"amount", "merchant"} <= set(listed["items"]["properties"])


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_git_tools_keep_no_resource() -> None:
    specs, _ = ingest_document(SPECS / "mcp/livemcp/git.json")
    named = {s.name: s.resource for s in specs}
    assert named["git_add"] is None and named["git_status"] is None


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_task_lists_and_tasks_are_two_resources() -> None:
    """simplechecklist: ``create_task_list`` makes a task list (``list`` is part of the noun
    when a list is made), ``list_tasks(task_list_id)`` lists tasks (the verb ``list`` is not
    the id parameter's noun)."""
    specs, _ = ingest_document(SPECS / "mcp/docker/simplechecklist.json")
    resource = {s.name: s.resource for s in specs}
    assert resource["create_task_list"] == resource["list_task_lists"] == "task_lists"
    assert resource["list_tasks"] == resource["create_task"] == "tasks"
    assert resource["get_all_tasks"] == "tasks"


@pytest.mark.parametrize(
    ("name", "takes_arguments", "verb"),
    [
        ("check_installed_apps", False, Verb.LIST),  # every installed app
        ("check_notifications", False, Verb.LIST),
        ("check_installed_apps", True, Verb.READ),  # one, picked by its arguments
        ("check_apn_settings", False, Verb.READ),  # the settings are one state
        ("check_data_restriction_status", False, Verb.READ),
    ],
)
def test_checking_a_plural_with_no_arguments_lists_them(
    name: str, takes_arguments: bool, verb: Verb
) -> None:
    assert name_verb_resource(name, "phone", [], takes_arguments=takes_arguments)[0] == verb
