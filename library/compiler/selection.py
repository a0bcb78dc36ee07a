"""Current selections: a tool that selects one record of a kind (``switch_project(project_name)``,
``select_workspace(workspace_id)``, ``choose_team(name)``) and a read of the one selected
(``get_current_project()``, ``get_active_workspace()``).

A selecting tool is named for a selection (``switch``, ``select``, ``choose``,
``set_current``, ``set_active``) and takes only what names a record of its resource (its id,
or a natural key); it keeps the record's id as the service's selection of that kind
(``State.selected[collection]``) and answers the record, changing none of its fields. An
unknown name is ``not_found``, as for any lookup. A read with no required parameter named for
the current one (``current``, ``active``, ``selected``) of a resource the service selects
answers the selected record; before any selection, the first one the service holds (the
default selection), and ``not_found`` when it holds none or the selected one was deleted.
"""

from __future__ import annotations

from library.ingest.naming import tokens
from library.toolspec import ToolSpec

# ``use`` is left out: ``Use_Short_URL`` shortens a link, it selects nothing
SELECT_WORDS = (("switch",), ("select",), ("choose",), ("set", "current"), ("set", "active"))
CURRENT_WORDS = frozenset({"current", "active", "selected"})
SELECTED = "selected"  # the State attribute: collection -> the selected record's id


def selects(spec: ToolSpec) -> bool:
    """The tool's name begins with a selection word (``switch_project``, ``setCurrentTeam``)
    and ingestion knows what it selects (else nothing, not even the conformance suite, could
    tell which records it names)."""
    words = tokens(spec.name)
    named = spec.access == "write" and spec.resource is not None
    return named and any(words[: len(w)] == w for w in SELECT_WORDS)


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
