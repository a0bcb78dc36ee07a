"""Mail: one person's mailbox of messages in folders, with threads, labels and drafts.

The mailbox belongs to the workspace user (the shared pool's first person, who also owns the
calendar and the files); the seeded inbox holds messages from other pool people about the
pool's products and companies, so the sender in the mailbox is the contact in the CRM.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Literal

from pydantic import BaseModel, Field

from library.runtime import (
    DateTime,
    Email,
    ErrorCode,
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
from library.seed.pool import Person

MailFolder = Literal["inbox", "sent", "archive", "trash"]
MessageId = Ref["messages"]
DraftId = Ref["drafts"]
ThreadId = Ref["threads"]

MAX_LABEL = 50


class Message(Record):
    thread_id: ThreadId
    from_address: Email
    from_name: PersonName | None = None
    to: tuple[Email, ...]
    cc: tuple[Email, ...] = ()
    subject: str
    body: str
    folder: MailFolder
    read: bool = False
    labels: tuple[str, ...] = ()
    sent_at: DateTime
    in_reply_to: MessageId | None = None


class Draft(Record):
    to: tuple[Email, ...] = ()
    cc: tuple[Email, ...] = ()
    subject: str
    body: str
    thread_id: ThreadId | None = None
    in_reply_to: MessageId | None = None
    updated_at: DateTime


class Mailbox(BaseModel):
    """Who owns the mailbox and how many messages each folder holds."""

    owner: Email
    owner_name: PersonName
    inbox: int
    sent: int
    archive: int
    trash: int
    unread: int = Field(description="Unread messages outside the trash.")
    drafts: int


class MailState(State):
    owner: Email = "me@example.com"
    owner_name: PersonName = "Mailbox Owner"
    messages: dict[str, Message] = {}
    drafts: dict[str, Draft] = {}


def _utc(value: dt.datetime) -> dt.datetime:
    """Timestamps without a zone are read as UTC (the World's clock is in UTC)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _unique(addresses: list[str], exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Addresses in order, without case-insensitive duplicates or any of ``exclude``."""
    seen = {e.lower() for e in exclude}
    out: list[str] = []
    for address in addresses:
        if address.lower() not in seen:
            seen.add(address.lower())
            out.append(address)
    return tuple(out)


def _reply_subject(subject: str) -> str:
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def _clean_label(label: str) -> str:
    label = label.strip()
    if not label or len(label) > MAX_LABEL:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"label: must be 1 to {MAX_LABEL} characters")
    return label


# (subject, body) templates for the seeded inbox; {product}, {company}, {sender}, {owner},
# {qty}, {amount}, {day} and {number} are filled from the pool.
_INBOUND = (
    (
        "Order #{number}: {qty} x {product}",
        "Hi {owner},\n\nPlease confirm our order of {qty} x {product} for {company}. "
        "We need delivery by {day}.\n\nThanks,\n{sender}",
    ),
    (
        "Invoice INV-{number} from {company}",
        "Hello {owner},\n\nAttached is invoice INV-{number} for {product}, total {amount} USD, "
        "due in 30 days.\n\nBest regards,\n{sender}\n{company}",
    ),
    (
        "Meeting request: {product} review on {day}",
        "Hi {owner},\n\nCould we meet on {day} to review the {product} rollout at {company}? "
        "Any time after 10:00 works for me.\n\n{sender}",
    ),
    (
        "Proposal for {company}: {product}",
        "Hi {owner},\n\nFollowing our call, here is our proposal: {qty} licences of {product} "
        "at {amount} USD in total. Happy to discuss terms.\n\nRegards,\n{sender}",
    ),
    (
        "Question about our {product} deal",
        "Hello {owner},\n\nBefore we sign, can you tell me whether the {product} deal includes "
        "onboarding for the {company} team?\n\nThanks,\n{sender}",
    ),
    (
        "Payment reminder: INV-{number}",
        "Dear {owner},\n\nThis is a friendly reminder that invoice INV-{number} over {amount} USD "
        "for {product} is now overdue.\n\nKind regards,\n{sender}, {company}",
    ),
    (
        "Shipping update for order #{number}",
        "Hi {owner},\n\nYour order #{number} ({qty} x {product}) has shipped and should arrive "
        "on {day}.\n\n{sender}\n{company}",
    ),
)
_LABELS = ("important", "finance", "follow-up", "customers")


class Mail(Service):
    name = "mail"
    description = "Email: the user's mailbox with folders, threads, labels and drafts."
    State = MailState
    state: MailState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> MailState:
        me = pool.people[0]
        self.state = MailState(owner=me.email, owner_name=me.full_name)
        now = self.now()
        others = [p for p in pool.people if p.email != me.email]
        senders = rng.sample(others, min(len(others), max(1, size)))
        for sender in senders:
            self._seed_thread(pool, rng, me, sender, now)
        return self.state

    def _seed_thread(
        self, pool: SeedPool, rng: random.Random, me: Person, sender: Person, now: dt.datetime
    ) -> None:
        product = rng.choice(pool.products)
        qty = rng.randint(1, 25)
        subject_tpl, body_tpl = rng.choice(_INBOUND)
        sent_at = now - dt.timedelta(minutes=rng.randint(30, 14 * 24 * 60))
        values = {
            "product": product.name,
            "company": sender.company,
            "sender": sender.full_name,
            "owner": me.first_name,
            "qty": qty,
            "amount": f"{product.price * qty:,.2f}",
            "day": (sent_at + dt.timedelta(days=rng.randint(2, 10))).strftime("%A %d %B"),
            "number": rng.randint(10000, 99999),
        }
        roll = rng.random()
        folder: MailFolder = "archive" if roll < 0.15 else "trash" if roll < 0.2 else "inbox"
        labels = (rng.choice(_LABELS),) if rng.random() < 0.3 else ()
        thread_id = self.new_id("thr")
        first = self.put(
            "messages",
            Message(
                id=self.new_id("msg"),
                thread_id=thread_id,
                from_address=sender.email,
                from_name=sender.full_name,
                to=(me.email,),
                subject=subject_tpl.format(**values),
                body=body_tpl.format(**values),
                folder=folder,
                read=folder != "inbox" or rng.random() < 0.4,
                labels=labels,
                sent_at=sent_at,
            ),
        )
        if folder == "inbox" and first.read and rng.random() < 0.5:
            self.put(
                "messages",
                Message(
                    id=self.new_id("msg"),
                    thread_id=thread_id,
                    from_address=me.email,
                    from_name=me.full_name,
                    to=(sender.email,),
                    subject=_reply_subject(first.subject),
                    body=f"Hi {sender.first_name},\n\nThanks, I will get back to you shortly."
                    f"\n\n{me.first_name}",
                    folder="sent",
                    read=True,
                    sent_at=min(now, sent_at + dt.timedelta(minutes=rng.randint(5, 240))),
                    in_reply_to=first.id,
                ),
            )

    # -- internals ------------------------------------------------------------------------
    def _deliver(
        self,
        to: list[str] | tuple[str, ...],
        cc: list[str] | tuple[str, ...],
        subject: str,
        body: str,
        thread_id: str | None = None,
        in_reply_to: str | None = None,
    ) -> Message:
        """File a message the owner sends in the sent folder."""
        recipients = _unique(list(to))
        if not recipients:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "to: needs at least one recipient")
        if not subject.strip() and not body.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "subject, body: both are empty")
        return self.put(
            "messages",
            Message(
                id=self.new_id("msg"),
                thread_id=thread_id or self.new_id("thr"),
                from_address=self.state.owner,
                from_name=self.state.owner_name,
                to=recipients,
                cc=_unique(list(cc), exclude=recipients),
                subject=subject,
                body=body,
                folder="sent",
                read=True,
                sent_at=self.now(),
                in_reply_to=in_reply_to,
            ),
        )

    def _sorted(self, messages: list[Message]) -> list[Message]:
        """Newest first; ties broken by id so the order never depends on insertion."""
        return sorted(messages, key=lambda m: (m.sent_at, m.id), reverse=True)

    # -- reading --------------------------------------------------------------------------
    @tool
    def get_mailbox(self) -> Mailbox:
        """Show whose mailbox this is and how many messages each folder holds."""
        messages = list(self.state.messages.values())
        return Mailbox(
            owner=self.state.owner,
            owner_name=self.state.owner_name,
            inbox=sum(1 for m in messages if m.folder == "inbox"),
            sent=sum(1 for m in messages if m.folder == "sent"),
            archive=sum(1 for m in messages if m.folder == "archive"),
            trash=sum(1 for m in messages if m.folder == "trash"),
            unread=sum(1 for m in messages if not m.read and m.folder != "trash"),
            drafts=len(self.state.drafts),
        )

    @tool
    def get_message(self, message_id: MessageId) -> Message:
        """Get one message by id. Reading it does not mark it read; use mark_read.

        Args:
            message_id: The message's id.
        """
        return self.get("messages", message_id)

    @tool
    def list_messages(
        self,
        folder: MailFolder | None = None,
        from_address: Email | None = None,
        unread_only: bool = False,
        label: str | None = None,
        since: DateTime | None = None,
        thread_id: ThreadId | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Message]:
        """List messages, newest first, optionally filtered.

        Args:
            folder: Only messages in this folder (inbox, sent, archive or trash).
            from_address: Only messages from this sender address.
            unread_only: Only messages not yet marked read.
            label: Only messages carrying this label.
            since: Only messages sent at or after this time (ISO 8601; UTC if no zone).
            thread_id: Only messages of this conversation thread.
            limit: Page size, 1 to 500.
            offset: How many matching messages to skip.
        """
        start = _utc(since) if since is not None else None
        found = [
            m
            for m in self.state.messages.values()
            if (folder is None or m.folder == folder)
            and (from_address is None or _same(m.from_address, from_address))
            and (not unread_only or not m.read)
            and (label is None or any(_same(x, label) for x in m.labels))
            and (start is None or m.sent_at >= start)
            and (thread_id is None or m.thread_id == thread_id)
        ]
        return paginate(self._sorted(found), limit, offset)

    @tool
    def search_messages(
        self, query: str, folder: MailFolder | None = None, limit: int = 20
    ) -> list[Message]:
        """Find messages whose subject, body, sender address or sender name contains the query.

        Case-insensitive; newest first.

        Args:
            query: Text to look for.
            folder: Only search this folder.
            limit: Maximum number of results, 1 to 500.
        """
        if not query.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "query: must not be empty")
        q = query.strip().lower()
        found = [
            m
            for m in self.state.messages.values()
            if (folder is None or m.folder == folder)
            and (
                q in m.subject.lower()
                or q in m.body.lower()
                or q in m.from_address.lower()
                or q in (m.from_name or "").lower()
            )
        ]
        return paginate(self._sorted(found), limit)

    # -- sending --------------------------------------------------------------------------
    @tool(write=True)
    def send_message(
        self, to: list[Email], subject: str, body: str, cc: list[Email] | None = None
    ) -> Message:
        """Send a new message from the mailbox owner; it is filed in the sent folder.

        Args:
            to: Recipient addresses; at least one.
            subject: Subject line.
            body: Plain-text body.
            cc: Addresses to copy.
        """
        return self._deliver(to, cc or [], subject, body)

    @tool(write=True)
    def reply_to_message(
        self, message_id: MessageId, body: str, reply_all: bool = False
    ) -> Message:
        """Reply to a message in its thread, with the subject prefixed "Re: ".

        The reply goes to the original sender (or, for a message the owner sent, to its
        recipients); reply_all also copies everyone else on the original. Messages in the
        trash cannot be replied to.

        Args:
            message_id: The message to answer.
            body: Plain-text body of the reply.
            reply_all: Also address every other recipient of the original.
        """
        original: Message = self.get("messages", message_id)
        if original.folder == "trash":
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"message {message_id!r} is in the trash; restore it before replying",
            )
        if not body.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "body: must not be empty")
        me = (self.state.owner,)
        if _same(original.from_address, self.state.owner):
            to = _unique(list(original.to), exclude=me)
        else:
            to = (original.from_address,)
        cc: tuple[str, ...] = ()
        if reply_all:
            to = _unique([*to, *original.to], exclude=me)
            cc = _unique(list(original.cc), exclude=(*me, *to))
        if not to:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION, f"message {message_id!r} has no one to reply to"
            )
        return self._deliver(
            to,
            cc,
            _reply_subject(original.subject),
            body,
            thread_id=original.thread_id,
            in_reply_to=original.id,
        )

    @tool(write=True)
    def forward_message(
        self, message_id: MessageId, to: list[Email], note: str | None = None
    ) -> Message:
        """Forward a message to new recipients, with the subject prefixed "Fwd: ".

        Args:
            message_id: The message to forward.
            to: Recipient addresses; at least one.
            note: Text to put above the forwarded message.
        """
        original: Message = self.get("messages", message_id)
        quoted = (
            f"---------- Forwarded message ----------\nFrom: {original.from_address}\n"
            f"Date: {original.sent_at.isoformat()}\nSubject: {original.subject}\n\n{original.body}"
        )
        body = f"{note}\n\n{quoted}" if note else quoted
        subject = original.subject
        if not subject.lower().startswith("fwd:"):
            subject = f"Fwd: {subject}"
        return self._deliver(to, [], subject, body)

    # -- organising -----------------------------------------------------------------------
    @tool(write=True)
    def mark_read(self, message_id: MessageId, read: bool = True) -> Message:
        """Mark a message read, or unread again.

        Args:
            message_id: The message's id.
            read: True to mark read, false to mark unread.
        """
        self.get("messages", message_id)
        return self.update("messages", message_id, read=read)

    @tool(write=True)
    def move_message(self, message_id: MessageId, folder: MailFolder) -> Message:
        """Move a message to another folder.

        Only messages the owner sent may be in the sent folder, and a message in the trash can
        only be restored to the inbox or the archive.

        Args:
            message_id: The message's id.
            folder: The folder to move it to: inbox, sent, archive or trash.
        """
        message: Message = self.get("messages", message_id)
        if message.folder == folder:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION, f"message {message_id!r} is already in {folder}"
            )
        if folder == "sent" and message.folder == "trash":
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"message {message_id!r} is in the trash; restore it to inbox or archive",
            )
        if folder == "sent" and not _same(message.from_address, self.state.owner):
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"message {message_id!r} was not sent by {self.state.owner}; it cannot go to sent",
            )
        return self.update("messages", message_id, folder=folder)

    @tool(write=True)
    def delete_message(self, message_id: MessageId) -> Message:
        """Delete a message: move it to the trash, or, if already there, delete it for good.

        Args:
            message_id: The message's id.
        """
        message: Message = self.get("messages", message_id)
        if message.folder == "trash":
            return self.delete("messages", message_id)
        return self.update("messages", message_id, folder="trash")

    @tool(write=True)
    def add_label(self, message_id: MessageId, label: str) -> Message:
        """Attach a label to a message.

        Args:
            message_id: The message's id.
            label: The label, 1 to 50 characters; labels compare case-insensitively.
        """
        message: Message = self.get("messages", message_id)
        label = _clean_label(label)
        if any(_same(x, label) for x in message.labels):
            raise ToolError(
                ErrorCode.CONFLICT, f"message {message_id!r} already has label {label!r}"
            )
        return self.update("messages", message_id, labels=(*message.labels, label))

    @tool(write=True)
    def remove_label(self, message_id: MessageId, label: str) -> Message:
        """Take a label off a message.

        Args:
            message_id: The message's id.
            label: The label to remove (case-insensitive).
        """
        message: Message = self.get("messages", message_id)
        kept = tuple(x for x in message.labels if not _same(x, label))
        if len(kept) == len(message.labels):
            raise ToolError(ErrorCode.NOT_FOUND, f"message {message_id!r} has no label {label!r}")
        return self.update("messages", message_id, labels=kept)

    # -- drafts ---------------------------------------------------------------------------
    @tool(write=True)
    def create_draft(
        self,
        subject: str,
        body: str,
        to: list[Email] | None = None,
        cc: list[Email] | None = None,
        reply_to_id: MessageId | None = None,
    ) -> Draft:
        """Save a draft to finish and send later; recipients may still be missing.

        Args:
            subject: Subject line.
            body: Plain-text body.
            to: Recipient addresses.
            cc: Addresses to copy.
            reply_to_id: The message this draft answers; the draft joins its thread.
        """
        thread_id = None
        if reply_to_id is not None:
            thread_id = self.get("messages", reply_to_id).thread_id
        recipients = _unique(list(to or []))
        draft = Draft(
            id=self.new_id("dft"),
            to=recipients,
            cc=_unique(list(cc or []), exclude=recipients),
            subject=subject,
            body=body,
            thread_id=thread_id,
            in_reply_to=reply_to_id,
            updated_at=self.now(),
        )
        return self.put("drafts", draft)

    @tool
    def list_drafts(self, limit: int = 50, offset: int = 0) -> list[Draft]:
        """List saved drafts, most recently edited first.

        Args:
            limit: Page size, 1 to 500.
            offset: How many drafts to skip.
        """
        drafts = sorted(
            self.state.drafts.values(), key=lambda d: (d.updated_at, d.id), reverse=True
        )
        return paginate(drafts, limit, offset)

    @tool(write=True)
    def send_draft(self, draft_id: DraftId) -> Message:
        """Send a draft as a message and remove the draft. It needs at least one recipient.

        Args:
            draft_id: The draft's id.
        """
        draft: Draft = self.get("drafts", draft_id)
        if not draft.to:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION, f"draft {draft_id!r} has no recipients yet"
            )
        self.delete("drafts", draft_id)
        return self._deliver(
            draft.to,
            draft.cc,
            draft.subject,
            draft.body,
            thread_id=draft.thread_id,
            in_reply_to=draft.in_reply_to,
        )
