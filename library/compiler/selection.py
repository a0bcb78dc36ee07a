"""Current selections: a tool that selects one record of a kind (``switch_project(project_name)``,
``select_workspace(workspace_id)``, ``choose_team(name)``) and a read of the one selected
(``get_current_project()``, ``get_active_workspace()``).

A selecting tool is named for a selection (``switch``, ``select``, ``choose``, ``checkout``,
``set_current``, ``set_active``), past a prefix naming its service (``git_checkout`` in
``git``), and takes only what names a record of its resource (its id, or a natural key: all of
its parameters, as ``checkout_branch(repo_path, branch_name)`` names a branch by both); it keeps
the record's id as the service's selection of that kind (``State.selected[collection]``) and
answers the record, changing none of its fields. An unknown name is ``not_found``, as for any
lookup. A read with no required parameter named for the current one (``current``,
``active``, ``selected``) of a resource the service selects answers the selected record; before
any selection, the first one the service holds (the default selection), and ``not_found`` when
it holds none or the selected one was deleted.

Such a tool moves a pointer to a record that exists: it never creates one, even when it names
the record by parameters a create takes (``git_checkout(repo_path, branch_name)`` shares them
with ``git_create_branch``). One that cannot be a selection is rejected with its reason: it
also sets fields, or only its parameters say what it selects (ingestion named no resource, so
the conformance suite could not tell which records it names).
"""

from __future__ import annotations

from library.ingest.naming import tokens
from library.toolspec import ToolSpec

# ``use`` is left out: ``Use_Short_URL`` shortens a link, it selects nothing; ``open`` reads
# (``open_nodes``); ``check_out`` (two words) is a status change (a hotel guest's)
SELECT_WORDS = (
    ("switch",), ("select",), ("choose",), ("checkout",), ("set", "current"), ("set", "active"),
)  # fmt: skip
CURRENT_WORDS = frozenset({"current", "active", "selected"})
SELECTED = "selected"  # the State attribute: collection -> the selected record's id


def pointer_word(spec: ToolSpec) -> str:
    """The selection word a write's name begins with (``switch`` of ``switch_project``,
    ``set_current`` of ``setCurrentTeam``), past any words naming its service (``checkout``
    of ``git_checkout`` in ``git``); "" for any other tool."""
    words = tokens(spec.name)
    service = set(tokens(spec.service))
    start = 0
    while start < len(words) - 1 and words[start] in service:
        start += 1
    words = words[start:]
    found = next((w for w in SELECT_WORDS if words[: len(w)] == w), None)
    return "_".join(found) if found and spec.access == "write" else ""


def moves_pointer(spec: ToolSpec) -> bool:
    """A write named for moving a current pointer to a record (``pointer_word``)."""
    return bool(pointer_word(spec))


def selects(spec: ToolSpec) -> bool:
    """A tool named for a selection of which ingestion knows what it selects (else nothing,
    not even the conformance suite, could tell which records it names)."""
    return moves_pointer(spec) and spec.resource is not None


def reads_current(spec: ToolSpec) -> bool:
    """A read named for the current one of its kind, taking no required parameter."""
    return (
        spec.access == "read"
        and not spec.input_schema.get("required")
        and bool(CURRENT_WORDS & set(tokens(spec.name)))
    )


def selected_resources(specs: list[ToolSpec], resources: dict[str, str | None]) -> set[str]:
    """The resources some tool of the service selects."""
    return {r for s in specs if selects(s) and (r := resources.get(s.name)) is not None}
