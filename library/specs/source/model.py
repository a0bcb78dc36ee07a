"""The compact vocabulary in which the bundled services are defined.

A :class:`Service` is a handful of :class:`Resource` definitions (typed fields, descriptions,
enums, relations) plus a few non-CRUD :class:`Action` definitions. :mod:`.ops` expands a service
into concrete operations; the emitters render those operations in each spec format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

FieldType = Literal["string", "integer", "number", "boolean", "array", "object"]
Format = Literal[
    "openapi30_yaml",
    "openapi30_json",
    "openapi31_json",
    "swagger",
    "mcp",
    "functions",
    "docker",
    "bfcl",
]
CRUD: tuple[str, ...] = ("create", "get", "list", "update", "delete", "search")


@dataclass(frozen=True)
class Field:
    """One typed field of a resource, an action parameter or an action result."""

    name: str
    type: FieldType
    desc: str
    fmt: str | None = None
    enum: tuple[str, ...] = ()
    default: Any = None
    example: Any = None
    required: bool = False
    readonly: bool = False
    nullable: bool = False
    immutable: bool = False
    filter: bool = False
    ref: str | None = None
    items: Field | None = None
    props: tuple[Field, ...] = ()
    pattern: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    recursive: bool = False


@dataclass(frozen=True)
class Resource:
    """A named collection of records (``contact``, ``work_order``) with its CRUD surface."""

    name: str
    desc: str
    fields: tuple[Field, ...]
    plural: str = ""
    label: str = ""
    ops: tuple[str, ...] = CRUD
    parent: str | None = None
    docs: Mapping[str, str] = field(default_factory=dict)
    search_fields: tuple[str, ...] = ()
    prefix: str = ""
    timestamps: bool = True

    @property
    def plural_name(self) -> str:
        return self.plural or f"{self.name}s"

    @property
    def noun(self) -> str:
        return self.label or self.name.replace("_", " ")

    @property
    def nouns(self) -> str:
        if not self.label:
            return self.plural_name.replace("_", " ")
        if self.label.endswith("y") and self.label[-2:-1] not in "aeiou":
            return f"{self.label[:-1]}ies"
        return f"{self.label}s"

    @property
    def id_param(self) -> str:
        return f"{self.name}_id"

    @property
    def schema_name(self) -> str:
        return pascal(self.name)

    @property
    def id_prefix(self) -> str:
        return self.prefix or self.name[:3]


@dataclass(frozen=True)
class Action:
    """A non-CRUD operation: ``assign_ticket``, ``refund_payment``, ``search_flights``."""

    name: str
    resource: str
    summary: str
    desc: str
    params: tuple[Field, ...] = ()
    returns: tuple[Field, ...] | None = None
    verb: str = ""
    on_item: bool = True
    method: str = "POST"
    read_only: bool = False
    destructive: bool = False
    path: str = ""


@dataclass(frozen=True)
class Service:
    """One bundled service, rendered to exactly one spec file."""

    name: str
    title: str
    domain: str
    format: Format
    desc: str
    resources: tuple[Resource, ...]
    actions: tuple[Action, ...] = ()
    version: str = "1.0.0"
    host: str = ""
    paging: Literal["offset", "cursor"] = "offset"
    op_style: Literal["snake", "camel"] = "snake"
    tool_types: bool = False

    def resource(self, name: str) -> Resource:
        for res in self.resources:
            if res.name == name:
                return res
        raise KeyError(f"{self.name}: no resource {name!r}")


def pascal(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.capitalize() for part in rest)
