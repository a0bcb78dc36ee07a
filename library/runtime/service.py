"""``Service``: typed State plus ``@tool`` methods. Every service, hand-written or generated,
is written against this class."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, SerializationInfo, SerializerFunctionWrapHandler
from pydantic import model_serializer as _model_serializer
from pydantic_core import PydanticUndefined

from library.runtime.collection import Collection
from library.runtime.errors import ErrorCode, ToolError
from library.runtime.tool import TOOL_MARK, ToolDef, build_tool_def

if TYPE_CHECKING:
    from library.runtime.world import World
    from library.seed.pool import SeedPool

R = TypeVar("R", bound="Record")
_COPIED_ON_CLONE = (Collection, dict, list, set)

# Without a World the clock stands still here; inside one it is the World's seeded clock.
DEFAULT_EPOCH = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


class Record(BaseModel):
    """One row of a collection. Frozen: tools replace records (``model_copy(update=...)``)
    instead of mutating them, which is what makes World snapshots O(services)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str


class State(BaseModel):
    """A service's whole state: collections ``dict[id, Record]`` plus scalar settings.

    States are copy-on-write: a write call works on ``clone()`` and the World swaps it in only
    if the call succeeds, so published states are never mutated. Collections are held as
    ``Collection``s (persistent maps that behave as dicts), so a clone is O(collections) and a
    write O(log n) whatever the collection's size; they validate from and dump to plain dicts,
    so the schema, hashes and exports are those of ``dict[str, Record]``.
    """

    model_config = ConfigDict(extra="forbid")

    seq: int = 0  # id counter, part of the state so replay after restore() gives the same ids

    collection_types: ClassVar[dict[str, type[Record]]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        found: dict[str, type[Record]] = {}
        for name, info in cls.model_fields.items():
            ann = info.annotation
            if get_origin(ann) is dict:
                _, value = get_args(ann)
                if isinstance(value, type) and issubclass(value, Record):
                    found[name] = value
        cls.collection_types = found

    def model_post_init(self, context: Any, /) -> None:
        # Validation built plain dicts; hold them as persistent maps from here on.
        slots = self.__dict__
        for name in type(self).collection_types:
            value = slots.get(name)
            if type(value) is dict:
                slots[name] = Collection(value)

    def __setattr__(self, name: str, value: Any) -> None:
        # A tool that assigns a whole new dict (``self.state.notes = {...}``) keeps the
        # persistent representation: O(n) here, as building that dict was.
        if type(value) is dict and name in type(self).collection_types:
            value = Collection(value)
        super().__setattr__(name, value)

    @_model_serializer(mode="wrap")
    def _dump_collections(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        # pydantic-core serializes only real dicts in a dict-typed field: dump a shallow
        # copy whose collections are dicts (O(n), as the dump itself is).
        del info
        slots = self.__dict__
        if not any(type(v) is Collection for v in slots.values()):
            return handler(self)
        plain = self.__copy__()
        for name, value in slots.items():
            if type(value) is Collection:
                plain.__dict__[name] = value.to_dict()
        return handler(plain)

    def clone(self) -> State:
        """A copy that a write may change: O(fields), since a ``Collection``'s copy shares
        its structure. Written out (rather than ``__copy__`` then a pass) because it runs on
        every write call: this is pydantic's ``__copy__`` with the containers copied once."""
        cls = type(self)
        new = cls.__new__(cls)
        slots = self.__dict__.copy()
        for key, value in slots.items():
            if isinstance(value, _COPIED_ON_CLONE):
                slots[key] = value.copy()
        extra, private = self.__pydantic_extra__, getattr(self, "__pydantic_private__", None)
        _set = object.__setattr__
        _set(new, "__dict__", slots)
        _set(new, "__pydantic_extra__", None if extra is None else dict(extra))
        _set(new, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        if private is not None:
            private = {k: v for k, v in private.items() if v is not PydanticUndefined}
        _set(new, "__pydantic_private__", private)
        return new

    def collections(self) -> dict[str, dict[str, Record]]:
        return {name: getattr(self, name) for name in self.collection_types}


class Service:
    """Base of every service. Subclasses set ``name``, ``description``, ``State`` and define
    tools with ``@tool``; ``seed()`` builds an initial state from the shared pool."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    State: ClassVar[type[State]] = State
    tools: ClassVar[dict[str, ToolDef]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        tools: dict[str, ToolDef] = {}
        for klass in reversed(cls.__mro__):
            for value in vars(klass).values():
                if callable(value) and hasattr(value, TOOL_MARK):
                    td = build_tool_def(cls, value)
                    tools[td.name] = td
        cls.tools = tools

    def __init__(self, state: State | None = None) -> None:
        self.state = state if state is not None else self.State()
        self.world: World | None = None

    # -- seeding --------------------------------------------------------------------------
    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> State:
        """Initial state drawn from the shared pool; the default is an empty state."""
        del pool, rng, size
        return self.State()

    def load_state(self, data: dict | State) -> None:
        self.state = data if isinstance(data, State) else self.State.model_validate(data)
        if self.world is not None:
            self.world.invalidate(self.name)

    # -- helpers for tool bodies ----------------------------------------------------------
    def now(self) -> dt.datetime:
        return self.world.now() if self.world is not None else DEFAULT_EPOCH

    def today(self) -> dt.date:
        return self.now().date()

    def new_id(self, prefix: str) -> str:
        """A deterministic, non-guessable id: a hash of (service, prefix, counter)."""
        self.state.seq += 1
        digest = hashlib.blake2b(
            f"{self.name}:{prefix}:{self.state.seq}".encode(), digest_size=5
        ).hexdigest()
        return f"{prefix}_{digest}"

    def get(self, collection: str, record_id: str) -> Any:
        """The record or ``not_found`` naming the collection and id."""
        record = getattr(self.state, collection).get(record_id)
        if record is None:
            raise ToolError(
                ErrorCode.NOT_FOUND, f"no {_singular(collection)} with id {record_id!r}"
            )
        return record

    def put(self, collection: str, record: R) -> R:
        getattr(self.state, collection)[record.id] = record
        return record

    def update(self, collection: str, record_id: str, **changes: Any) -> Any:
        """Replace a record with changed fields. ``None`` values are ignored, which suits
        optional tool parameters; use ``set_fields`` to clear a field."""
        return self.set_fields(
            collection, record_id, **{k: v for k, v in changes.items() if v is not None}
        )

    def set_fields(self, collection: str, record_id: str, **changes: Any) -> Any:
        """Replace a record with exactly these field values (``None`` included)."""
        record = self.get(collection, record_id)
        updated = type(record).model_validate({**record.model_dump(), **changes})
        return self.put(collection, updated)

    def delete(self, collection: str, record_id: str) -> Any:
        record = self.get(collection, record_id)
        del getattr(self.state, collection)[record_id]
        return record


def paginate(items: Iterable[R], limit: int, offset: int = 0) -> list[R]:
    if limit < 1 or limit > 500:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "limit: must be between 1 and 500")
    if offset < 0:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "offset: must be >= 0")
    return list(items)[offset : offset + limit]


def _singular(collection: str) -> str:
    if collection.endswith("ies"):
        return collection[:-3] + "y"
    if collection.endswith(("sses", "uses", "xes", "ches", "shes")):
        return collection[:-2]
    return collection[:-1] if collection.endswith("s") else collection
