"""Matters: the separate pieces of business a request's writes work on.

A request a person writes is about one matter (a customer's order and what follows from
it: its refund, the ticket that logs it, the reply to the customer), or, when it is long,
a few that follow from one another. A plan that edits one customer's order, then comments
on an unrelated document, then closes someone else's ticket is three chores, not a
request. A matter is a group of records that already existed before the plan (records the
plan creates belong to what they hang on):

- records tied to each other by an id or a business key (an order and its shipment), not
  through a shared reference record (two orders of one plan are not one matter);
- the subject's own records of the kind one piece of the work is about (their order and
  their payment in a refund: ``work_of``).

Messages (an e-mail, a draft) are what tells people about a matter, never one of their own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from library.compose.catalog import CREATE
from library.compose.context import Entity, Fact, ties
from library.compose.plan import Step
from library.graph.nodes import name_words
from library.seed.vocab import is_person_resource

# Records that are messages to someone (an e-mail, a draft, a text, a chat message).
MESSAGE_NOUNS = frozenset(
    {"message", "messages", "email", "emails", "draft", "drafts", "sms", "text", "texts", "chat"}
)

# Records that remark on another record (a comment on a ticket, a reply to a review, an
# activity logged on a deal): what they say is about the record they hang on.
ANNOTATION_NOUNS = frozenset({"comment", "comments", "reply", "replies", "activity", "activities"})

Shared = frozenset[tuple[str, str]]  # (service, collection) of shared reference records


@functools.cache
def is_message(collection: str) -> bool:
    return bool(set(name_words(collection)) & MESSAGE_NOUNS)


@functools.cache
def is_annotation(collection: str) -> bool:
    return bool(set(name_words(collection)) & ANNOTATION_NOUNS)


def counts(entity: Entity) -> bool:
    """Whether working on ``entity`` is working on a matter: a record that was there before
    the plan and is not a message."""
    return not entity.created and not is_message(entity.collection)


def hung_on(facts: Iterable[Fact], shared: Shared) -> list[Entity]:
    """The records a create hangs its new record on (the order a return is for, the ticket
    a comment goes on): records that were there before, not shared reference records and
    not people (a message to a customer is no matter of theirs)."""
    out: list[Entity] = []
    for fact in facts:
        entity = fact.entity
        if not ties(fact.key) or not counts(entity) or entity in out:
            continue
        if (entity.service, entity.collection) in shared or is_person_resource(entity.collection):
            continue
        out.append(entity)
    return out


def worked_on(step: Step, shared: Shared) -> list[Entity]:
    """The records a write step works on: the record it edits, or those its new record
    hangs on."""
    if not step.write:
        return []
    if step.tool.kind == CREATE:
        return hung_on(step.sources, shared)
    entity = step.entity
    return [entity] if entity is not None and counts(entity) else []


@dataclass(frozen=True, slots=True)
class Matters:
    """The matters of a plan so far: how many, the records they reach (ids of entities)
    and the kinds of work of the subject's records among them."""

    count: int
    reached: frozenset[int]
    works: frozenset[str]
    shared: Shared = frozenset()

    def new(self, records: Sequence[Entity], work_of: Callable[[Entity], str | None]) -> int:
        """How many matters ``records`` would add."""
        fresh: list[set[int]] = []
        works = set(self.works)
        for entity in records:
            if id(entity) in self.reached or any(id(entity) in group for group in fresh):
                continue
            work = work_of(entity)
            if work is not None and work in works:
                continue
            if work is not None:
                works.add(work)
            fresh.append({id(e) for e in _tied(entity, self.shared)})
        return sum(1 for group in fresh if not group & self.reached)


def _tied(entity: Entity, shared: Shared) -> list[Entity]:
    """``entity`` and every record tied to it, not through shared reference records."""
    seen = [entity]
    todo = [entity]
    while todo:
        for other in todo.pop().links:
            if other in seen or (other.service, other.collection) in shared:
                continue
            seen.append(other)
            todo.append(other)
    return seen


def matters_of(
    records: Iterable[Entity], shared: Shared, work_of: Callable[[Entity], str | None]
) -> Matters:
    """The matters ``records`` (what a plan's writes worked on) make up."""
    reached: set[int] = set()
    works: set[str] = set()
    count = 0
    for entity in records:
        if id(entity) in reached:
            continue
        work = work_of(entity)
        group = {id(e) for e in _tied(entity, shared)}
        if work is None or work not in works:
            count += 1
        if work is not None:
            works.add(work)
        reached |= group
    return Matters(count, frozenset(reached), frozenset(works), shared)
