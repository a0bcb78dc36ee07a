"""A write never gives a record a name another record of its kind holds (a SCIM group
renamed "Shipping" beside the "Shipping" group): two records of one name, and a request
that cannot say which it means. Nor does a request carry a tool description's own
phrasing about its parameters ("log in a user with the given user ID to ...")."""

from __future__ import annotations

from types import SimpleNamespace

from library.compose.catalog import summary
from library.compose.compose import _name_taken

GROUPS = {"scim": {"groups": {"5": {"id": "5", "displayName": "Returns"},
                              "7": {"id": "7", "displayName": "Shipping"}}}}  # fmt: skip


def _rename(target: str | None, value: str, stated: bool = True) -> SimpleNamespace:
    return SimpleNamespace(
        write=True,
        tool=SimpleNamespace(service="scim", collection="groups"),
        entity=SimpleNamespace(id=target) if target else None,
        args={"displayName": value},
        binds={"displayName": {"from": "user" if stated else "step"}},
    )


def test_a_new_name_is_no_other_records_name() -> None:
    assert _name_taken([_rename("5", "Shipping")], GROUPS)  # renamed onto a namesake
    assert _name_taken([_rename(None, "returns")], GROUPS)  # made beside one
    assert not _name_taken([_rename("5", "Logistics")], GROUPS)
    assert not _name_taken([_rename("7", "Shipping")], GROUPS)  # its own name
    assert not _name_taken([_rename("5", "Shipping", stated=False)], GROUPS)  # carried over


def test_a_tool_description_s_parameter_phrasing_is_no_request() -> None:
    doc = "Tool description: Log in a user with the given user ID to messeage application."
    assert summary(doc) == "log in a user"
    assert summary("Create a task for a user") == "create a task"
    assert summary("Close a ticket.") == "close a ticket"
