"""The module the compiler writes for a help desk, pinned whole: its tool methods
(library/compiler/emit_tools.py, for bench/mutation.py; most of its mutants change one line
of such a method) and what stands around them (library/compiler/emit.py: the header, the
imports, aliases, helpers, records, wrappers, state and service class):
a create checks the customer it names, fills the server's values and answers the view its
output shows; a list filters by status, a lower priority, a creation moment, a customer, an
upper amount, every tag given and a free-text query, notes what it only accepts and pages
by its cursor; a count counts what the filters keep; a get answers the record in its
envelope; an update changes what is given; a delete confirms the id; a close refuses a
closed ticket and stamps the closing; an assign refuses a closed ticket. And an outbox's
messages: a send with defaults, flags pinned once, a cancel, a search, integer ids, a count
and a singleton's settings. A change to the
writer shows here as a diff of generated code: when it is meant, copy the new method in."""

from __future__ import annotations

import ast
import textwrap

import orjson
import pytest

from library.compiler import compile_service
from library.ingest import ingest_document
from tests.test_mutation_kills_tool_table import HELPDESK
from tests.test_mutation_kills_tools import OUTBOX

METHODS = {
    "createTicket": '''\
def createTicket(
    self,
    title: str,
    customer_id: CustomerId,
    priority: Annotated[int, Field(ge=1, le=5)] = 3,
    tags: list[str] | None = None,
    assignee_email: Email | None = None,
    description: str | None = None,
    notify: bool | None = None,
) -> dict[str, Any]:
    """Create tickets.

    Args:
        title: The title.
        customer_id: The customer id.
        priority: The priority.
        tags: The tags.
        assignee_email: The assignee email.
        description: The description.
        notify: The notify.
    """
    self.get("customers", customer_id)
    now = self.now()
    data = self.put(
        "tickets",
        Ticket(
            id=self.new_id("tic"),
            title=title,
            status="pending",
            priority=priority,
            assignee_email=assignee_email,
            tags=tags,
            customer_id=customer_id,
            created_at=now,
            description=description,
            notify=notify,
        ),
    )
    return _view(data, CREATETICKET_KEYS)
''',
    "listTickets": '''\
def listTickets(
    self,
    status: Status | None = None,
    min_priority: int | None = None,
    created_after: DateTime | None = None,
    q_: Annotated[str | None, Field(alias="q")] = None,
    limit: Annotated[int, Field(le=100)] = 50,
    cursor: str | None = None,
    tag: str | None = None,
    customer_id: CustomerId | None = None,
    amount_max: float | None = None,
    color: str | None = None,
    tags: list[str] | None = None,
    priority: bool | None = None,
    offset: int = 0,
    search: int | None = None,
) -> TicketCursorPage:
    """List tickets.

    Args:
        status: The status.
        min_priority: The min priority.
        created_after: The created after.
        q_: The q.
        limit: The limit.
        cursor: The cursor.
        tag: The tag.
        customer_id: The customer id.
        amount_max: The amount max.
        color: The color.
        tags: The tags.
        priority: The priority.
        offset: The offset.
        search: The search.
    """
    # Accepted but not simulated: tag, color, priority, search.
    q = (q_ or "").strip().casefold()
    found = [
        r
        for r in self.state.tickets.values()
        if (not q or _mentions(q, r.title, r.assignee_email, r.customer_id, r.description))
        and (status is None or _same(r.status, status))
        and (min_priority is None or r.priority >= min_priority)
        and (created_after is None or r.created_at >= created_after)
        and (customer_id is None or r.customer_id == customer_id)
        and (amount_max is None or (r.amount is not None and r.amount <= amount_max))
        and (tags is None or set(tags) <= set(r.tags or []))
    ]
    start = _offset_of(cursor) if cursor else offset or 0
    selected = paginate(found, limit, start)
    end = start + len(selected)
    return TicketCursorPage(
        tickets=selected,
        total=len(found),
        next_cursor=str(end) if end < len(found) else None,
    )
''',
    "countTickets": '''\
def countTickets(self, status: Status | None = None) -> dict[str, Any]:
    """Count tickets.

    Args:
        status: The status.
    """
    found = [
        r for r in self.state.tickets.values() if (status is None or _same(r.status, status))
    ]
    return {"count": len(found)}
''',
    "getTicket": '''\
def getTicket(self, ticket_id: TicketId) -> TicketEnvelope:
    """Read tickets.

    Args:
        ticket_id: The ticket id.
    """
    data = self.get("tickets", ticket_id)
    return TicketEnvelope(data=data)
''',
    "updateTicket": '''\
def updateTicket(
    self,
    ticket_id: TicketId,
    title: str | None = None,
    priority: Annotated[int, Field(ge=1, le=5)] | None = None,
    status: Status | None = None,
) -> dict[str, Any]:
    """Update tickets.

    Args:
        ticket_id: The ticket id.
        title: The title.
        priority: The priority.
        status: The status.
    """
    data = self.update("tickets", ticket_id, title=title, priority=priority, status=status)
    return _view(data, CREATETICKET_KEYS)
''',
    "deleteTicket": '''\
def deleteTicket(self, ticket_id: TicketId) -> Deletion:
    """Delete tickets.

    Args:
        ticket_id: The ticket id.
    """
    record = self.delete("tickets", ticket_id)
    return Deletion(id=record.id, deleted=True)
''',
    "closeTicket": '''\
def closeTicket(self, ticket_id: TicketId, reason: str | None = None) -> dict[str, Any]:
    """Action tickets.

    Args:
        ticket_id: The ticket id.
        reason: The reason.
    """
    # Accepted but not simulated: reason.
    record = self.get("tickets", ticket_id)
    if record.status == "closed":
        raise ToolError(
            ErrorCode.FAILED_PRECONDITION,
            f"ticket {ticket_id!r} is already closed",
        )
    now = self.now()
    data = self.update("tickets", ticket_id, status="closed", closed_at=now)
    return _view(data, CREATETICKET_KEYS)
''',
    "assignTicket": '''\
def assignTicket(self, ticket_id: TicketId, assignee_email: Email) -> dict[str, Any]:
    """Action tickets.

    Args:
        ticket_id: The ticket id.
        assignee_email: The assignee email.
    """
    record = self.get("tickets", ticket_id)
    if record.status in ("closed",):
        raise ToolError(
            ErrorCode.FAILED_PRECONDITION,
            f"ticket {ticket_id!r} is {record.status}",
        )
    data = self.update("tickets", ticket_id, assignee_email=assignee_email)
    return _answer(data, {"ticket_id": data.id})
''',
}


MODULE_HEAD = '''\
"""Helpdesk: customers, tickets.

Generated by the CompoWorld compiler tier from 10 tool specifications;
do not edit: change the spec or the compiler instead.
"""

import datetime as dt
import random
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from library.runtime import (
    DateTime,
    Email,
    ErrorCode,
    Money,
    PersonName,
    Record,
    Ref,
    Service,
    State,
    ToolError,
    paginate,
    tool,
)
from library.seed import SeedPool

CustomerId = Ref["customers"]
TicketId = Ref["tickets"]
Status = Literal["open", "pending", "closed"]


def _omit_unset(model: BaseModel, data: dict[str, Any]) -> dict[str, Any]:
    keep = type(model).keep_null
    return {k: v for k, v in data.items() if v is not None or k in keep}


class Value(BaseModel):
    """A nested value. Unset optional fields are left out of tool output, as the API does."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    keep_null: ClassVar[frozenset[str]] = frozenset()  # required fields that may be null

    @model_serializer(mode="wrap")
    def _serialize(self, handler):
        return _omit_unset(self, handler(self))


class Entity(Record):
    """A stored record. Unset optional fields are left out of tool output, as the API does."""

    keep_null: ClassVar[frozenset[str]] = frozenset()  # required fields that may be null

    @model_serializer(mode="wrap")
    def _serialize(self, handler):
        return _omit_unset(self, handler(self))


def _answer(record: BaseModel, answer: dict[str, Any]) -> dict[str, Any]:
    """A write's acknowledgement: the spec answers with these keys, not with the record the
    write stored (which supplies the id the answer may carry)."""
    del record
    return answer


def _mentions(q: str, *values: object) -> bool:
    """Search: the (casefolded) query occurs in one of the texts, or lists of texts."""
    for value in values:
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and q in text.casefold():
                return True
    return False


def _offset_of(cursor: str | None) -> int:
    """Cursors are opaque to callers; this service issues the offset of the next page."""
    if not cursor:
        return 0
    if not cursor.isdigit():
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"cursor: {cursor!r} was not issued here")
    return int(cursor)


def _pick_state(rng: random.Random, open_states: tuple[Any, ...], states: tuple[Any, ...]) -> Any:
    """A seeded status: mostly an open one, as in a live system, so actions find records."""
    return rng.choice(open_states) if rng.random() < 0.7 else rng.choice(states)


def _same(a: object, b: object) -> bool:
    """Equality for keys and filters: text compares case-insensitively."""
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return a == b


def _view(record: BaseModel, keys: frozenset[str]) -> dict[str, Any]:
    """The part of a record this answer shows (the spec lists its keys)."""
    return {k: v for k, v in record.model_dump(mode="json").items() if k in keys}


class Customer(Entity):
    """A customer."""

    name: PersonName
    email: Email | None = None


class Ticket(Entity):
    """A ticket."""

    title: str
    status: Status
    priority: int
    assignee_email: Email | None = None
    tags: list[str] | None = None
    customer_id: CustomerId | None = None
    amount: Money | None = None
    closed_at: DateTime | None = None
    created_at: DateTime
    description: str | None = None
    notify: bool | None = None


class TicketCursorPage(Value):
    """A page of ticket records."""

    tickets: list[Ticket]
    total: int | None = None
    next_cursor: str | None = None


class TicketEnvelope(Value):
    """A ticket record, under one key."""

    data: Ticket


class Deletion(Value):
    """Confirmation that a record was deleted."""

    id: str | None = None
    deleted: bool | None = None


class HelpdeskState(State):
    customers: dict[str, Customer] = {}
    tickets: dict[str, Ticket] = {}


CREATETICKET_KEYS = frozenset(
    {
        "amount",
        "assignee_email",
        "closed_at",
        "created_at",
        "customer_id",
        "description",
        "id",
        "priority",
        "status",
        "tags",
        "title",
    }
)


class Helpdesk(Service):
    name = "helpdesk"
    description = "Helpdesk: customers, tickets."
    State = HelpdeskState
    state: HelpdeskState
'''


OUTBOX_METHODS = {
    "sendMessage": '''\
def sendMessage(
    self,
    to: str,
    body: str,
    priority: int | None = None,
    channel: Channel | None = None,
) -> Message:
    """Create messages.

    Args:
        to: The to.
        body: The body.
        priority: The priority.
        channel: The channel.
    """
    record_id = self.new_id("mes")
    return self.put(
        "messages",
        Message(
            id=record_id,
            to=to,
            body=body,
            status="draft",
            priority=priority if priority is not None else 0,
            channel=channel if channel is not None else "sms",
            link=f"https://service.example.com/messages/{record_id}",
        ),
    )
''',
    "listMessages": '''\
def listMessages(self) -> MessagePage:
    """List messages."""
    found = list(self.state.messages.values())
    selected = found
    return MessagePage(messages=selected, count=len(found))
''',
    "updateMessage": '''\
def updateMessage(
    self,
    id: MessageId,
    from_: Annotated[str | None, Field(alias="from")] = None,
    body: str | None = None,
) -> Message:
    """Update messages.

    Args:
        id: The id.
        from_: The from.
        body: The body.
    """
    record = self.get("messages", id)
    changes = dict(from_=from_, body=body)
    changes = {k: v for k, v in changes.items() if v is not None}
    return self.put("messages", record.model_copy(update=changes))
''',
    "deleteMessage": '''\
def deleteMessage(self, id: MessageId) -> Deletion:
    """Delete messages.

    Args:
        id: The id.
    """
    self.delete("messages", id)
    return Deletion(deleted=True)
''',
    "getMessage": '''\
def getMessage(self, id: MessageId) -> MessageEnvelope:
    """Read messages.

    Args:
        id: The id.
    """
    data = self.get("messages", id)
    return MessageEnvelope(data=data)
''',
    "pinMessage": '''\
def pinMessage(self, id: MessageId) -> Message:
    """Action messages.

    Args:
        id: The id.
    """
    record = self.get("messages", id)
    if record.status in ("failed", "canceled"):
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"message {id!r} is {record.status}")
    if record.pinned:
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"message {id!r} is already pinned")
    changes = dict(pinned=True)
    changes = {k: v for k, v in changes.items() if v is not None}
    return self.put("messages", record.model_copy(update=changes))
''',
    "unpinMessage": '''\
def unpinMessage(self, id: MessageId) -> Message:
    """Action messages.

    Args:
        id: The id.
    """
    record = self.get("messages", id)
    if not record.pinned:
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"message {id!r} is already not pinned")
    changes = dict(pinned=False)
    changes = {k: v for k, v in changes.items() if v is not None}
    return self.put("messages", record.model_copy(update=changes))
''',
    "searchMessages": '''\
def searchMessages(self, q_: Annotated[str, Field(alias="q")]) -> list[Message]:
    """Search messages.

    Args:
        q_: The q.
    """
    q = q_.strip().casefold()
    if not q:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "q: must not be empty")
    found = [
        r for r in self.state.messages.values() if _mentions(q, r.to, r.body, r.from_, r.link)
    ]
    selected = found
    return selected
''',
    "cancelMessage": '''\
def cancelMessage(self, id: MessageId) -> Message:
    """Action messages.

    Args:
        id: The id.
    """
    record = self.get("messages", id)
    if record.status == "canceled":
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"message {id!r} is already canceled")
    if record.status in ("failed",):
        raise ToolError(ErrorCode.FAILED_PRECONDITION, f"message {id!r} is {record.status}")
    now = self.now()
    changes = dict(status="canceled", canceled_at=now)
    changes = {k: v for k, v in changes.items() if v is not None}
    return self.put("messages", record.model_copy(update=changes))
''',
    "createTicket": '''\
def createTicket(self, title: str) -> Ticket:
    """Create tickets.

    Args:
        title: The title.
    """
    return self.put("tickets", Ticket(id=_int_id(self, "tickets"), title=title))
''',
    "listTickets": '''\
def listTickets(self) -> list[Ticket]:
    """List tickets."""
    found = list(self.state.tickets.values())
    selected = found
    return selected
''',
    "getTicket": '''\
def getTicket(self, id: TicketIntId) -> Ticket:
    """Read tickets.

    Args:
        id: The id.
    """
    return self.get("tickets", id)
''',
    "countTickets": '''\
def countTickets(self) -> dict[str, Any]:
    """Count tickets."""
    found = list(self.state.tickets.values())
    return {"count": len(found)}
''',
    "getSettings": '''\
def getSettings(self) -> dict[str, Any]:
    """Read settings."""
    for r in self.state.settings.values():
        data = r
        return _view(data, GETSETTINGS_KEYS)
    raise ToolError(ErrorCode.NOT_FOUND, "no setting yet")
''',
    "updateSettings": '''\
def updateSettings(
    self,
    theme: Theme | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """Update settings.

    Args:
        theme: The theme.
        language: The language.
    """
    record_id = next(iter(self.state.settings), None)
    if record_id is None:
        raise ToolError(ErrorCode.NOT_FOUND, "no setting yet")
    data = self.update("settings", record_id, theme=theme, language=language)
    return _view(data, GETSETTINGS_KEYS)
''',
}


def _written(document: dict) -> dict[str, str]:
    """Each tool method of the service compiled from ``document``, by name."""
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    source = compile_service(specs).source
    return {
        node.name: textwrap.dedent(str(ast.get_source_segment(source, node, padded=True)))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef)
    }


@pytest.mark.parametrize(
    ("document", "name", "want"),
    [(HELPDESK, name, text) for name, text in METHODS.items()]
    + [(OUTBOX, name, text) for name, text in OUTBOX_METHODS.items()],
)
def test_the_tool_method_written(document: dict, name: str, want: str) -> None:
    assert _written(document)[name].splitlines() == want.strip("\n").splitlines()


def test_the_module_around_the_tools() -> None:
    specs, errors = ingest_document(orjson.dumps(HELPDESK), source_file="helpdesk.json")
    assert specs, errors
    source = compile_service(specs).source
    head = source[: source.index("    def seed(")].rstrip("\n")
    assert head.splitlines() == MODULE_HEAD.rstrip("\n").splitlines()
