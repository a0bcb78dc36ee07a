"""The conformance suite tries valid input with an existing record's id (a mutant of
library/verify/conformance.py that survived the other tests, bench/mutation.py): an optional
parameter named for a record (``item_id``) is given a seeded record's id, as a number where
the tool takes numbers and the ids are digits (``4001``, which a drawn number would hardly
hit), so a tool that breaks only on a real record (``internal``) is caught, whatever type
its id parameter has."""

from __future__ import annotations

import random

from library.runtime import Record, Service, State, tool
from library.seed import SeedPool
from library.verify import run_conformance
from tests.test_mutation_kills_conformance import failed

ITEM = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "title": {"type": "string"}},
    "required": ["id", "title"],
}


def _lister(id_type: str, param: str = "item_id") -> dict:
    fields = [{"side": "input", "path": param, "type": id_type, "semantic": "id", "ref": "items"}]
    return {
        "service": "shelf",
        "name": "list_items",
        "verb": "list",
        "resource": "items",
        "access": "read",
        "input_schema": {
            "type": "object",
            "properties": {param: {"type": id_type}},
            "required": [],
        },
        "output_schema": {"type": "array", "items": ITEM},
        "fields": fields if param != "item_id" else [],
    }


class Item(Record):
    title: str


class ShelfState(State):
    items: dict[str, Item] = {}


class Shelf(Service):
    """Items numbered 4001, 4002...; listing after a real item breaks (a bug the suite must see)."""

    name = "shelf"
    State = ShelfState
    state: ShelfState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> ShelfState:
        self.state = ShelfState()
        for k in range(1, size + 1):
            self.put("items", Item(id=str(4000 + k), title=f"Item {k}"))
        return self.state

    def _after(self, item_id: object) -> list[Item]:
        if item_id is not None and str(item_id) in self.state.items:
            raise RuntimeError("cursor bookkeeping lost")  # only for an existing record
        return list(self.state.items.values())


class ByNumber(Shelf):
    @tool
    def list_items(self, item_id: int | None = None) -> list[Item]:
        """List items.

        Args:
            item_id: Only items after this one (its number).
        """
        return self._after(item_id)


class ByText(Shelf):
    @tool
    def list_items(self, item_id: str | None = None) -> list[Item]:
        """List items.

        Args:
            item_id: Only items after this one (its id).
        """
        return self._after(item_id)


def test_an_optional_id_is_tried_with_a_real_records_id_as_a_number_or_a_text() -> None:
    for cls, id_type in ((ByNumber, "integer"), (ByText, "string")):
        problems = failed(run_conformance(cls, [_lister(id_type)]))
        assert any("internal" in detail for detail in problems.values()), (id_type, problems)


class AfterItem(Shelf):
    @tool
    def list_items(self, after: str | None = None) -> list[Item]:
        """List items.

        Args:
            after: Only items after this one (an item's id).
        """
        return self._after(after)


def test_an_optional_parameter_the_spec_declares_a_reference_is_tried_with_a_real_id() -> None:
    problems = failed(run_conformance(AfterItem, [_lister("string", "after")]))
    assert any("internal" in detail for detail in problems.values()), problems
