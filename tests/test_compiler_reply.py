"""A reply is a message of its own (``reply_to_message(message_id, body_text)`` of the
bundled mail service): a new message in the same thread, from whom the original was to,
back to whoever wrote it, sent now, carrying no copies or files; the message answered
keeps its own text. Before, the reply wrote its text over the customer's message, so a
task's rubric checked the customer's words erased and no reply sent."""

from __future__ import annotations

from pathlib import Path

from library.compiler import compile_service, load_service
from library.compose.spec_library import specs_by_service
from library.runtime import World
from library.runtime.world import qualified
from library.seed import seed_pool
from library.verify import run_conformance

MAIL = Path(__file__).resolve().parents[1] / "library" / "specs" / "mcp" / "mail.json"


def test_a_reply_is_a_new_message_back_to_the_sender() -> None:
    specs = specs_by_service([MAIL])["mail"]
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 10)
    messages = world.services["mail"].state.messages
    original = next(m for m in messages.values() if m.to).model_dump(by_alias=True, mode="json")
    before = len(messages)
    envelope = world.call(
        qualified("mail", "reply_to_message"),
        {"message_id": original["id"], "body_text": "Thanks, Thursday works for me."},
    )
    assert envelope["success"], envelope
    messages = world.services["mail"].state.messages
    reply = messages[envelope["data"]["id"]].model_dump(by_alias=True, mode="json")
    assert len(messages) == before + 1 and reply["id"] != original["id"]
    assert messages[original["id"]].model_dump(by_alias=True, mode="json") == original  # kept
    assert reply["body_text"] == "Thanks, Thursday works for me."
    assert reply["to"] == [original["from"]] and reply["from"] == original["to"][0]
    assert reply.get("thread_id") == original.get("thread_id") and not reply.get("cc")
    assert reply["sent_at"] == world.now().isoformat().replace("+00:00", "Z")
    results = run_conformance(cls, specs)
    assert all(r.passed for r in results if r.tool == "reply_to_message"), [
        (r.check, r.detail) for r in results if r.tool == "reply_to_message" and not r.passed
    ]
