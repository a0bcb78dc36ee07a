"""``Collection``, the persistent map behind a State's collections: it must behave exactly as
the dict it replaced (order included, so exports and list tools read the same), share its
structure between clones (a write allocates O(log n), not O(n)), and keep states' hashes,
dumps and rollback as they were."""

from __future__ import annotations

import copy
import hashlib
import pickle
import random
import tracemalloc

import orjson
import pytest

from library.runtime import Collection, Record, Service, State, World, tool
from library.runtime.world import hash_state


class Item(Record):
    label: str
    qty: int = 0


class ShopState(State):
    items: dict[str, Item] = {}
    tags: dict[str, Item] = {}


class Shop(Service):
    name = "shop"
    State = ShopState

    @tool(write=True)
    def set_qty(self, item_id: str, qty: int) -> Item:
        """Set an item's quantity.

        Args:
            item_id: The item.
            qty: The new quantity.
        """
        return self.update("items", item_id, qty=qty)

    @tool(write=True)
    def add_then_fail(self, label: str) -> Item:
        """Add an item, then fail (to show a failed call changes nothing).

        Args:
            label: The label.
        """
        self.put("items", Item(id=self.new_id("it"), label=label))
        self.state.tags = {}
        raise ValueError("boom")

    @tool
    def list_items(self) -> list[Item]:
        """Every item, in the order they were added."""
        return list(self.state.items.values())


def test_behaves_as_a_dict_through_random_operations() -> None:
    rng = random.Random(7)
    ref: dict[str, int] = {}
    coll = Collection()
    history: list[tuple[Collection, dict[str, int]]] = []
    for step in range(6000):
        op = rng.random()
        key = f"k{rng.randrange(300)}"
        if op < 0.45:
            ref[key] = coll[key] = step
        elif op < 0.75:
            assert coll.pop(key, None) == ref.pop(key, None)
        elif op < 0.8:
            assert coll.setdefault(key, step) == ref.setdefault(key, step)
        elif op < 0.82 and ref:
            assert coll.popitem() == ref.popitem()  # LIFO, as a dict
        elif op < 0.83:
            coll.update({key: -step})
            ref.update({key: -step})
        elif op < 0.84:
            history.append((coll.copy(), dict(ref)))
        assert len(coll) == len(ref)
        assert (key in coll) == (key in ref)
        assert coll.get(key) == ref.get(key)
    assert list(coll.items()) == list(ref.items())
    assert list(reversed(coll)) == list(reversed(ref))
    assert list(coll.values()) == list(ref.values())
    assert coll == ref and ref == coll
    # Copies taken along the way were never touched by later writes (structural sharing).
    assert history
    for snapshot, expected in history:
        assert list(snapshot.items()) == list(expected.items())


def test_deletes_compact_and_keep_order() -> None:
    coll = Collection({f"k{i}": i for i in range(1000)})
    for i in range(0, 990):
        del coll[f"k{i}"]
    assert list(coll) == [f"k{i}" for i in range(990, 1000)]
    assert len(coll._slots) < 100  # the holes were dropped
    coll["k5"] = 5
    coll["k995"] = -1  # an update keeps its place
    assert list(coll.items())[-2:] == [("k999", 999), ("k5", 5)]
    assert coll["k995"] == -1
    with pytest.raises(KeyError):
        del coll["k0"]


def test_copies_pickles_and_dict_parity() -> None:
    coll = Collection({"a": 1, "b": 2})
    other = copy.copy(coll)
    assert coll.shares(other) and other == coll
    other["c"] = 3
    assert not coll.shares(other)
    assert dict(coll) == {"a": 1, "b": 2} and dict(other) == {"a": 1, "b": 2, "c": 3}
    assert pickle.loads(pickle.dumps(other)) == other
    assert copy.deepcopy(other) == other
    assert (coll | {"z": 0}) == {"a": 1, "b": 2, "z": 0}
    assert ({"z": 0} | coll) == {"z": 0, "a": 1, "b": 2}
    assert repr(coll) == repr({"a": 1, "b": 2})
    assert coll != {"a": 1}
    coll.clear()
    assert not coll and list(coll) == []


def test_state_holds_collections_and_dumps_them_as_dicts() -> None:
    data = {"seq": 3, "items": {f"i{n}": {"id": f"i{n}", "label": f"L{n}"} for n in range(50)}}
    state = ShopState.model_validate(data)
    assert type(state.items) is Collection and type(state.tags) is Collection
    dumped = state.model_dump(mode="json")
    items = {k: {**v, "qty": 0} for k, v in data["items"].items()}
    assert dumped == {**data, "items": items, "tags": {}}
    assert list(dumped["items"]) == list(data["items"])  # insertion order, as exported before
    # The hash is the one of the plain JSON, computed independently of the runtime.
    expected = hashlib.blake2b(
        orjson.dumps(dumped, option=orjson.OPT_SORT_KEYS), digest_size=16
    ).hexdigest()
    assert hash_state(state) == expected
    assert ShopState.model_validate(orjson.loads(state.model_dump_json())) == state
    assert pickle.loads(pickle.dumps(state)) == state
    state.tags = {"t": Item(id="t", label="tag")}  # a whole dict assigned: held persistently
    assert type(state.tags) is Collection


def _world(records: int) -> World:
    shop = Shop()
    shop.load_state(
        ShopState(items={f"i{n:06d}": Item(id=f"i{n:06d}", label=f"L{n}") for n in range(records)})
    )
    return World([shop])


def test_writes_roll_back_and_snapshots_stay_exact() -> None:
    world = _world(200)
    before, digest = world.snapshot(), world.state_hash()
    failed = world.call("shop__add_then_fail", {"label": "x"})
    assert failed["success"] is False and failed["error"]["code"] == "internal"
    assert world.state_hash() == digest and len(world.services["shop"].state.items) == 200
    assert world.call("shop__set_qty", {"item_id": "i000007", "qty": 4})["success"]
    assert world.diff(before).to_dict() == {
        "shop": {"items": {"added": {}, "deleted": {}, "updated": {"i000007": {"qty": (0, 4)}}}}
    }
    listed = world.call("shop__list_items")["data"]
    assert [i["id"] for i in listed][:3] == ["i000000", "i000001", "i000002"]
    assert listed[7]["qty"] == 4
    world.restore(before)
    assert world.state_hash() == digest
    assert world.services["shop"].state.items["i000007"].qty == 0


def _write_allocations(world: World) -> int:
    world.call("shop__set_qty", {"item_id": "i000001", "qty": 1})  # warm caches
    tracemalloc.start()
    try:
        world.call("shop__set_qty", {"item_id": "i000001", "qty": 2})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def test_a_write_allocates_the_same_whatever_the_collection_size() -> None:
    # A copied dict of 20,000 entries alone is ~650 KB; a persistent write allocates a path
    # of the trie (a few KB), about the same at 200 records as at 20,000.
    small, large = _write_allocations(_world(200)), _write_allocations(_world(20_000))
    assert large < 64_000
    assert large < 3 * small + 8_000
