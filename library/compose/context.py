"""What the agent knows at each point of a walk: the records it has found or created
(entities) and the field values it has seen in tool outputs (facts), with where each came
from. Arguments are bound only from these, or from literals the instruction states."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from library.compose.catalog import CollectionInfo, words
from library.ingest.naming import pluralize

# Field names that read badly as nouns ("the to of the call").
ROLE_WORDS = {"to": "recipient", "from": "sender", "cc": "cc recipients", "bcc": "bcc recipients"}


# Units a field name ends in, as a person says them ("duration in seconds", not "duration
# seconds").
_UNITS = {
    "seconds": "seconds", "secs": "seconds", "minutes": "minutes", "mins": "minutes",
    "hours": "hours", "days": "days", "weeks": "weeks", "months": "months", "years": "years",
    "ms": "milliseconds", "grams": "grams", "kg": "kg", "kilograms": "kg", "lbs": "pounds",
    "pounds": "pounds", "km": "km", "miles": "miles", "meters": "meters", "metres": "metres",
    "cm": "cm", "mm": "mm", "cents": "cents", "bytes": "bytes", "kb": "KB", "mb": "MB",
    "gb": "GB", "percent": "percent", "pct": "percent",
}  # fmt: skip
# The end of a range as a person says it: ``salary_max`` -> ``maximum salary`` (and
# ``employee_count`` -> ``number of employees``), never the field name read aloud.
_BOUNDS = {"min": "minimum", "max": "maximum"}
# Plural-looking words that name one thing.
_ONE_THING = frozenset(
    {"status", "address", "access", "business", "progress", "analysis", "series"}
)


# Field words people write in capitals ("the subscription's MRR", not "mrr").
_CAPITALS = frozenset(
    {"mrr", "arr", "nps", "csat", "sla", "ttl", "iban", "vin", "kpi", "eta", "vat", "ip", "dns"}
)


def field_words(name: str) -> str:
    """How the instruction names a field: ``customer_email`` -> ``customer email``,
    ``duration_seconds`` -> ``duration in seconds``, ``mrr`` -> ``MRR``."""
    said = _field_words(name)
    return " ".join(w.upper() if w in _CAPITALS else w for w in said.split(" "))


def _field_words(name: str) -> str:
    if name in ROLE_WORDS:
        return ROLE_WORDS[name]
    head, _, unit = name.rpartition("_")
    if head and unit.lower() in _UNITS:
        return f"{words(head)} in {_UNITS[unit.lower()]}"
    if head and unit.lower() in _BOUNDS:
        return f"{_BOUNDS[unit.lower()]} {words(head)}"
    if head and unit.lower() == "count":
        return f"number of {words(pluralize(head))}"
    return words(name)


def be(label: str) -> str:
    """``is`` or ``are`` after a field's words: "its seats are 19", "its status is"."""
    last = label.split(" in ")[0].split()[-1:] or [""]
    word = last[0].lower()
    plural = word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3
    return "are" if plural and word not in _ONE_THING else "is"


def ties(key: str | None) -> bool:
    """Whether a shared value of this semantic key ties two records together (an id or a
    business key does; an e-mail or a date does not)."""
    return bool(key) and str(key).startswith(("id:", "key:"))


@dataclass(slots=True, eq=False)
class Entity:
    """A record the agent has in hand, called ``label`` in the instruction (``the ticket``)."""

    service: str
    collection: str
    id: str
    record: dict[str, Any]
    step: int  # the step whose output showed it
    path: str  # where in that output
    label: str
    created: bool = False
    deleted: bool = False
    fetched_refs: set[str] = field(default_factory=set)
    # Records this one is tied to by an id reference or a shared business key (the order
    # of a shipment, the invoice with this number): what a threshold may read.
    links: list[Entity] = field(default_factory=list)
    # Fields the records a selection rule set aside share with this one.
    shared: frozenset[str] = frozenset()
    # The name the record's id has in tool outputs (``record`` holds it under ``id``).
    id_key: str = "id"
    # The step that first showed it (``step`` moves on to the last write that returned it).
    found: int = -1

    def __post_init__(self) -> None:
        if self.found < 0:
            self.found = self.step

    def link(self, other: Entity) -> None:
        if other is not self and all(o is not other for o in self.links):
            self.links.append(other)
            other.links.append(self)

    @property
    def the(self) -> str:
        return f"the {self.label}"

    def __eq__(self, other: object) -> bool:  # identity: two finds of one record differ
        return self is other

    def __hash__(self) -> int:
        return id(self)


@dataclass(frozen=True, slots=True)
class Fact:
    """One field value of an entity, as the agent saw it."""

    entity: Entity
    field: str
    value: Any
    key: str | None
    type: str | None

    @property
    def step(self) -> int:
        return self.entity.step

    @property
    def path(self) -> str:
        name = self.entity.id_key if self.field == "id" else self.field
        return f"{self.entity.path}.{name}" if self.entity.path else name

    def phrase(self) -> str:
        """How the instruction names the value: ``the customer email of the ticket``."""
        if self.field == "id":
            return self.entity.the
        return f"the {field_words(self.field)} of {self.entity.the}"


def facts_of(entity: Entity, info: CollectionInfo | None) -> list[Fact]:
    """Scalar (and list-of-scalar) fields of an entity's record, keyed where the schema says."""
    out = []
    for name in sorted(entity.record):
        value = entity.record[name]
        if value is None or isinstance(value, dict):
            continue
        if isinstance(value, list) and (not value or isinstance(value[0], dict | list)):
            continue
        meta = info.fields.get(name) if info else None
        key = meta.key if meta else None
        if name == "id":
            key = f"id:{entity.collection}"
        out.append(Fact(entity, name, value, key, meta.type if meta else None))
    return out
