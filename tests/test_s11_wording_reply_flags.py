"""A reply is a new message: it holds the flags a message sent new holds (``send_message``
sets neither ``unread`` nor ``starred``), never the starred, unread state of the message it
answers. Before, the compiled ``reply_to_message`` copied the original and changed only the
addresses, text and time, so a reply to a starred, unread message came out starred and
unread (the strict reviewer's two reply tasks of 20)."""

from __future__ import annotations

from pathlib import Path

from library.compiler import compile_service, load_service
from library.compose.spec_library import specs_by_service
from library.runtime import World
from library.runtime.world import qualified
from library.seed import seed_pool

MAIL = Path(__file__).resolve().parents[1] / "library" / "specs" / "mcp" / "mail.json"


def test_a_reply_holds_a_new_messages_flags_not_the_originals() -> None:
    cls = load_service(compile_service(specs_by_service([MAIL])["mail"]).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 10)
    mail = world.services["mail"]
    original = next(m for m in mail.state.messages.values() if m.to)
    marked = world.call(
        qualified("mail", "update_message"),
        {"message_id": original.id, "unread": True, "starred": True},
    )
    assert marked["success"], marked
    sent = world.call(
        qualified("mail", "send_message"),
        {"to": ["ann@example.com"], "subject": "Hello", "body_text": "A new message."},
    )
    reply = world.call(
        qualified("mail", "reply_to_message"),
        {"message_id": original.id, "body_text": "Thanks, Thursday works for me."},
    )
    assert sent["success"] and reply["success"], (sent, reply)
    messages = mail.state.messages
    new, answered, fresh = (
        messages[reply["data"]["id"]],
        messages[original.id],
        messages[sent["data"]["id"]],
    )
    assert (answered.unread, answered.starred) == (True, True)  # the original keeps its own
    assert (new.unread, new.starred) == (fresh.unread, fresh.starred)
    # still its reply: the same subject, in the same thread
    assert new.subject == answered.subject and new.thread_id == answered.thread_id
