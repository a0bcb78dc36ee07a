"""Semantic types: the shared interfaces through which services exchange information.

Each is an ``Annotated`` type whose JSON schema carries ``x-semantic-type`` (and ``x-ref`` for
ids), so inference, the dependency graph and seed data all speak the same vocabulary.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, GetJsonSchemaHandler, StringConstraints
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

SEMANTIC_KEY = "x-semantic-type"
REF_KEY = "x-ref"


@dataclass(frozen=True, slots=True)
class Semantic:
    """Annotated metadata that tags a schema with a semantic type (and a resource for ids)."""

    name: str
    ref: str | None = None

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema[SEMANTIC_KEY] = self.name
        if self.ref:
            schema[REF_KEY] = self.ref
        return schema


@dataclass(frozen=True, slots=True)
class SemanticType:
    name: str
    annotation: Any
    description: str


Email = Annotated[
    str, StringConstraints(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", max_length=254), Semantic("email")
]
Phone = Annotated[str, StringConstraints(pattern=r"^\+?[0-9 ()./x-]{6,32}$"), Semantic("phone")]
PersonName = Annotated[
    str, StringConstraints(min_length=1, max_length=200), Semantic("person_name")
]
CompanyName = Annotated[str, StringConstraints(min_length=1, max_length=200), Semantic("company")]
Url = Annotated[str, StringConstraints(pattern=r"^https?://\S+$"), Semantic("url")]
Date = Annotated[dt.date, Semantic("date")]


def _assume_utc(value: dt.datetime) -> dt.datetime:
    # Naive timestamps are read as UTC, so they compare with the World's (aware) clock.
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


DateTime = Annotated[dt.datetime, AfterValidator(_assume_utc), Semantic("datetime")]
Money = Annotated[float, Semantic("money")]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$"), Semantic("currency")]
Country = Annotated[str, StringConstraints(min_length=2, max_length=100), Semantic("country")]
Address = Annotated[str, StringConstraints(min_length=1, max_length=500), Semantic("address")]

REGISTRY: dict[str, SemanticType] = {
    t.name: t
    for t in (
        SemanticType("email", Email, "an email address"),
        SemanticType("phone", Phone, "a phone number"),
        SemanticType("person_name", PersonName, "a person's full name"),
        SemanticType("company", CompanyName, "a company or organisation name"),
        SemanticType("url", Url, "an http(s) URL"),
        SemanticType("date", Date, "a calendar date (ISO 8601)"),
        SemanticType("datetime", DateTime, "a timestamp (ISO 8601)"),
        SemanticType("money", Money, "an amount of money"),
        SemanticType("currency", Currency, "an ISO 4217 currency code"),
        SemanticType("country", Country, "a country name or ISO code"),
        SemanticType("address", Address, "a postal address"),
    )
}
ID = "id"  # the semantic type of every Ref[...]
REF_MAX_LENGTH = 200  # the longest id a Ref[...] takes


class Ref:
    """``Ref["contacts"]`` is the id of a record in the ``contacts`` collection."""

    def __class_getitem__(cls, resource: str) -> Any:
        return Annotated[
            str, StringConstraints(min_length=1, max_length=REF_MAX_LENGTH), Semantic(ID, resource)
        ]


def semantic_of(schema: dict) -> tuple[str | None, str | None]:
    """The (semantic type, referenced resource) a JSON schema node is tagged with."""
    return schema.get(SEMANTIC_KEY), schema.get(REF_KEY)
