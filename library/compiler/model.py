"""The plan of a compiled service: what ``plan_service`` decides and ``emit_source`` writes.

Plain dataclasses, so a plan can be inspected (and tested) without generating any code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


class Kind(StrEnum):
    """The shape of a value, which decides how it is typed, compared, seeded and sampled."""

    STR = "str"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    DATE = "date"
    DATETIME = "datetime"
    ENUM = "enum"
    LIST = "list"
    MODEL = "model"
    DICT = "dict"
    ANY = "any"


@dataclass(frozen=True, slots=True)
class IdStyle:
    """How a record's ids look: ``kind`` is runtime | int | digits | uuid | pattern
    (``digits``: text of digits on the wire, that id parameters may give as integers)."""

    kind: str = "runtime"
    pattern: str | None = None
    min_length: int = 0
    max_length: int | None = None

    @property
    def numeric(self) -> bool:
        """Ids are counted integers (shown as numbers, or as text of digits)."""
        return self.kind in ("int", "digits")


RUNTIME = IdStyle()


@dataclass(slots=True)
class TypeSpec:
    """A Python type for one JSON Schema node, as source text plus what the emitters need."""

    kind: Kind
    annotation: str  # source text of the type, without ``| None``
    nullable: bool = False  # the spec allows null
    semantic: str | None = None  # a name from library.runtime.semantic (or "id")
    # What the field holds where the spec's own pattern or bounds keep its base type: an
    # E.164-patterned ``phone`` is still a person's phone number, so seeds show theirs.
    meant: str | None = None
    ref: str | None = None  # for ids: the referenced resource
    enum: tuple[Any, ...] = ()
    item: TypeSpec | None = None  # for lists
    model: str | None = None  # for nested objects: the model class name
    schema: dict[str, Any] = field(default_factory=dict)  # the node (examples, bounds, pattern)

    @property
    def is_text(self) -> bool:
        return self.kind in (Kind.STR, Kind.ENUM) and all(isinstance(v, str) for v in self.enum)


@dataclass(slots=True)
class FieldPlan:
    """A field of a record, a nested model or an output wrapper."""

    name: str  # the spec's name (JSON key)
    attr: str  # the Python attribute (an alias keeps ``name`` on the wire when they differ)
    type: TypeSpec
    required: bool = False
    description: str = ""
    unique: bool = False  # a natural key: create/update refuse duplicates with ``conflict``

    @property
    def aliased(self) -> bool:
        return self.attr != self.name


@dataclass(slots=True)
class ModelPlan:
    """A nested value object (an address, a line item)."""

    name: str
    fields: list[FieldPlan]
    description: str = ""


@dataclass(slots=True)
class RecordPlan:
    """One collection of the State and the record class stored in it."""

    resource: str  # collection name == State attribute (resource names are snake_case)
    cls: str
    description: str
    fields: dict[str, FieldPlan]  # by spec name, without ``id``
    id_prefix: str
    order: str = "oldest"  # "newest" when the spec lists newest first
    shaped: bool = True  # fields come from record outputs (else from inputs and filters only)
    unfit: str | None = None  # why the runtime's records cannot stand for this resource
    id_key: str = "id"  # the output key holding the id (``sid``, ``changesetId``)
    id_style: IdStyle = RUNTIME  # integers, UUIDs, patterned strings
    # Answers of reads that show no id (a whois entry, a VAT rate, the account's usage): the
    # records are a table the reads look up by their parameters, the id never shown.
    lookup: bool = False
    singleton: bool = False  # one record per service (the account, ``/me``): no id selects it
    # one record per parent, found by the parent's id (``networkId`` of
    # ``/networks/{networkId}/bluetoothSettings``): the parameter and the field holding it
    parent_key: str | None = None

    @property
    def aliased(self) -> bool:
        return self.id_key != "id" or any(f.aliased for f in self.fields.values())

    def field(self, name: str) -> FieldPlan | None:
        return self.fields.get(name)


class Role(StrEnum):
    """What a tool parameter does in the tool body."""

    ID = "id"  # the id of the record the tool acts on
    SCOPE = "scope"  # a parent id or key that must match the record (``project_id`` of a task)
    KEY = "key"  # a natural key the record is looked up by (``sku``)
    REF = "ref"  # a reference to a record of another collection, checked to exist
    FIELD = "field"  # a value stored into a record field
    FILTER = "filter"  # list: equality (or membership) filter on a field
    RANGE = "range"  # list: bound on a field (``created_after``, ``min_amount``)
    QUERY = "query"  # search text
    LIMIT = "limit"
    OFFSET = "offset"
    CURSOR = "cursor"
    PAGE = "page"
    STATUS = "status"  # action: an enum mapped onto the status field (``outcome`` -> ``stage``)
    # update: an object of the record's fields (``updates: {title, priority}``), each member
    # written to its field (``mapping``: member attribute -> field name)
    CHANGES = "changes"
    IGNORED = "ignored"  # accepted, with no stored effect the compiler can express


@dataclass(slots=True)
class ParamPlan:
    name: str
    attr: str
    type: TypeSpec
    required: bool
    default: Any = MISSING  # a JSON default from the spec (MISSING: None for optional params)
    description: str = ""
    role: Role = Role.FIELD
    target: str | None = None  # the record field a FIELD/FILTER/RANGE/KEY/SCOPE param maps to
    op: str = "eq"  # RANGE: "ge" or "le"
    ref_collection: str | None = None  # REF/ID/SCOPE: the collection checked for existence
    mapping: dict[Any, Any] = field(default_factory=dict)  # STATUS: value -> status; CHANGES

    @property
    def aliased(self) -> bool:
        return self.attr != self.name


class Shape(StrEnum):
    RECORD = "record"  # the record itself
    PAGE = "page"  # a wrapper object: items plus metadata (total, cursor...)
    LIST = "list"  # a bare array of records
    DELETION = "deletion"  # a confirmation object ({id, deleted})
    ENVELOPE = "envelope"  # the record under one key (``{"data": {...}}``)
    VIEW = "view"  # the part of the record the answer shows (``meta``: the keys)
    # A write's acknowledgement that is not the record (``{"result": "ok"}``): ``meta`` maps
    # each required key to its source (the record's id, or a fixed value)
    ANSWER = "answer"
    ONE = "one"  # the record as the only item of an array (``[record]``)
    COUNT = "count"  # how many records match the filters (``{"count": 12}``)
    KEYS = "keys"  # the ids of the records listed (``items``: the key holding them, or "")
    EMPTY = "empty"  # an empty object: the write's acknowledgement shows nothing required
    ID = "id"  # a create's answer is the new record's id itself (``"7f3c..."``, ``42``)
    BLANK = "blank"  # a write's answer is the empty text (``{"type": "string", "maxLength": 0}``)


@dataclass(slots=True)
class OutputPlan:
    shape: Shape
    cls: str | None = None  # PAGE/DELETION wrapper class
    items: str | None = None  # PAGE/ENVELOPE: the spec key holding the record(s)
    meta: dict[str, str] = field(default_factory=dict)  # wrapper key -> meaning
    shown: tuple[str, ...] = ()  # LIST/PAGE of partial views: the keys each item shows


@dataclass(slots=True)
class WrapperPlan:
    """A generated output wrapper class (a page of records, a deletion confirmation)."""

    cls: str
    fields: list[FieldPlan]
    meta: dict[str, str]  # key -> meaning
    record: str | None = None  # PAGE: the record class


@dataclass(slots=True)
class ActionPlan:
    """What a status-changing action does to its record."""

    word: str
    status_field: str | None = None
    target: Any = None  # the value the status field moves to
    flag_field: str | None = None
    flag_value: bool = True
    assignee: tuple[str, str] | None = None  # (param, field)
    stamp_field: str | None = None  # ``sent_at`` and the like, set to now
    blocked: tuple[Any, ...] = ()  # statuses the action is refused from
    reopens: bool = False  # reopen-like actions may leave a terminal state
    history: bool = False  # no field change: the action is recorded in the state's transitions
    # a device's switch (``toggle_wifi()``, ``connect_vpn()``): sets ``flag_field`` to
    # ``flag_value`` whatever it was, or flips it (``flips``)
    switch: bool = False
    flips: bool = False
    # a selection (``switch_project(project_name)``): the record becomes the service's selected
    # one of its kind (``State.selected``); no field changes
    selects: bool = False
    # a reply or a forward (``reply_to_message(message_id, body_text)``): a new record of the
    # same kind, made from the one named, with the fields given; the one named is kept as it is
    derives: bool = False


@dataclass(slots=True)
class ToolPlan:
    name: str  # the spec's tool name
    method: str  # the Python method name
    verb: str  # effective verb: create/read/list/update/delete/search/action
    resource: str
    description: str
    params: list[ParamPlan]
    output: OutputPlan
    write: bool
    action: ActionPlan | None = None
    # statuses the record must be in, as the tool's name says (``cancel_pending_order``:
    # pending); any other is refused with failed_precondition (``actions.named_states``)
    requires: tuple[Any, ...] = ()
    server_values: dict[str, str] = field(default_factory=dict)  # create: field -> expression
    fallbacks: dict[str, str] = field(default_factory=dict)  # create: optional param -> default
    search_fields: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why a parameter has no effect, etc.
    # verb "compute": a stateless function (``vendor["stateless"]``), answered from its
    # arguments by ``library.runtime.compute`` (no resource, nothing stored)
    stateless: dict[str, Any] | None = None
    # a read of the selected record of its kind (``get_current_project()``)
    current: bool = False
    # verb "shell": a shell command on the service's file tree (``library.compiler.shell``):
    # {command, roles: parameter -> operand role, answer: answer key -> part of the result}
    shell: dict[str, Any] | None = None
    # call envelopes around the answer, outermost first (``library.compiler.envelopes``)
    outer: tuple[Any, ...] = ()

    def by_role(self, *roles: Role) -> list[ParamPlan]:
        return [p for p in self.params if p.role in roles]


@dataclass(slots=True)
class ServicePlan:
    service: str
    cls: str
    description: str
    records: dict[str, RecordPlan]
    models: list[ModelPlan]
    enums: dict[str, tuple[Any, ...]]  # Literal alias name -> values
    wrappers: list[WrapperPlan]
    tools: list[ToolPlan]
    skipped: dict[str, str]  # tool name -> reason
