"""The mail service, exercised through ``World.call`` (the path agents use)."""

from __future__ import annotations

from typing import Any

import pytest

from library.runtime import World
from library.seed import seed_pool
from library.services.crm import Crm
from library.services.mail import Mail, MailState

from .service_calls import ServiceCalls

_calls = ServiceCalls("mail")
ok, read, err = _calls.ok, _calls.read, _calls.err

SEED = 0
SIZE = 20


def make_world(seed: int = SEED, size: int = SIZE) -> World:
    world = World([Mail()], seed=seed)
    world.seed_states(seed_pool(seed), size)
    return world


def state(world: World) -> MailState:
    return world.services["mail"].state  # type: ignore[return-value]


def first(world: World, **filters: Any) -> dict:
    found = read(world, "list_messages", **filters)
    assert found, filters
    return found[0]


@pytest.fixture
def world() -> World:
    return make_world()


@pytest.fixture
def owner(world: World) -> str:
    return state(world).owner


# -- schemas, seeding, serialisation -----------------------------------------------------------
def test_tool_schemas_are_fully_described() -> None:
    assert len(Mail.tools) >= 8
    for td in Mail.tools.values():
        assert td.description, td.name
        for prop, schema in td.input_schema["properties"].items():
            assert schema.get("description"), f"{td.name}.{prop} has no description"
    writes = {name for name, td in Mail.tools.items() if td.write}
    assert writes == {
        "send_message",
        "reply_to_message",
        "forward_message",
        "mark_read",
        "move_message",
        "delete_message",
        "add_label",
        "remove_label",
        "create_draft",
        "send_draft",
    }


def test_seeding_is_deterministic_per_seed() -> None:
    assert make_world(0).state_hash() == make_world(0).state_hash()
    assert make_world(0).state_hash() != make_world(1).state_hash()


def test_seeded_mailbox_is_realistic(world: World) -> None:
    pool = seed_pool(SEED)
    st = state(world)
    assert st.owner == pool.people[0].email
    assert st.owner_name == pool.people[0].full_name
    emails = {p.email for p in pool.people}
    inbox = [m for m in st.messages.values() if m.folder == "inbox"]
    assert len(inbox) >= SIZE // 2
    for message in st.messages.values():
        assert message.from_address in emails
        assert set(message.to) <= emails
        assert message.sent_at <= world.now()
    for message in inbox:
        assert message.to == (st.owner,)
        assert message.from_address != st.owner
    products = {p.name for p in pool.products}
    companies = {c.name for c in pool.companies}
    assert all(
        any(name in m.subject or name in m.body for name in products | companies) for m in inbox
    )
    assert any(m.folder == "sent" for m in st.messages.values())
    assert any(not m.read for m in inbox)


def test_seeded_senders_are_crm_contacts() -> None:
    world = World([Crm(), Mail()], seed=SEED)
    world.seed_states(seed_pool(SEED), SIZE)
    contacts = {c.email for c in world.services["crm"].state.contacts.values()}
    senders = {m.from_address for m in state(world).messages.values()}
    shared = contacts & senders
    assert shared
    # The agent can go from a message to the CRM contact through the sender address.
    address = sorted(shared)[0]
    found = world.call("crm__list_contacts", {"email": address})
    assert found["success"] and len(found["data"]) == 1


def test_state_round_trips_through_json(world: World) -> None:
    ok(world, "add_label", message_id=first(world, folder="inbox")["id"], label="vip")
    ok(world, "create_draft", subject="s", body="b", to=["x@example.com"])
    st = state(world)
    again = MailState.model_validate_json(st.model_dump_json())
    assert again == st
    assert again.model_dump() == st.model_dump()


def test_read_tools_leave_the_state_unchanged(world: World, owner: str) -> None:
    message = first(world, unread_only=True)  # reading must not mark it read
    read(world, "get_mailbox")
    read(world, "get_message", message_id=message["id"])
    read(world, "list_messages", unread_only=True, folder="inbox")
    read(world, "search_messages", query="invoice")
    read(world, "list_drafts")
    assert not any(
        td.write for name, td in Mail.tools.items() if name.startswith(("get_", "list_"))
    )


# -- reading --------------------------------------------------------------------------------
def test_get_mailbox_counts_folders(world: World, owner: str) -> None:
    box = read(world, "get_mailbox")
    messages = state(world).messages.values()
    assert box["owner"] == owner
    assert box["inbox"] == sum(1 for m in messages if m.folder == "inbox")
    assert box["inbox"] + box["sent"] + box["archive"] + box["trash"] == len(messages)
    assert box["unread"] == sum(1 for m in messages if not m.read and m.folder != "trash")
    assert box["drafts"] == 0


def test_get_message(world: World) -> None:
    message = first(world)
    assert read(world, "get_message", message_id=message["id"]) == message
    assert "msg_nope" in err(world, "get_message", "not_found", message_id="msg_nope")
    err(world, "get_message", "invalid_argument")


def test_list_messages_is_newest_first_and_paginates(world: World) -> None:
    everything = read(world, "list_messages", limit=500)
    assert len(everything) == len(state(world).messages)
    stamps = [m["sent_at"] for m in everything]
    assert stamps == sorted(stamps, reverse=True)
    page = read(world, "list_messages", limit=3, offset=2)
    assert page == everything[2:5]
    err(world, "list_messages", "invalid_argument", limit=0)
    err(world, "list_messages", "invalid_argument", offset=-1)
    err(world, "list_messages", "invalid_argument", folder="spam")


def test_list_messages_filters(world: World, owner: str) -> None:
    msgs = list(state(world).messages.values())
    inbox = read(world, "list_messages", folder="inbox", limit=500)
    assert inbox and {m["folder"] for m in inbox} == {"inbox"}
    assert len(inbox) == sum(1 for m in msgs if m.folder == "inbox")

    sender = inbox[0]["from_address"]
    by_sender = read(world, "list_messages", from_address=sender.upper())
    assert by_sender and all(m["from_address"] == sender for m in by_sender)

    unread = read(world, "list_messages", unread_only=True, limit=500)
    assert unread and all(not m["read"] for m in unread)
    assert len(unread) == sum(1 for m in msgs if not m.read)

    ok(world, "add_label", message_id=inbox[0]["id"], label="Urgent")
    labelled = read(world, "list_messages", label="urgent")
    assert [m["id"] for m in labelled] == [inbox[0]["id"]]

    cut = sorted(m.sent_at for m in msgs)[len(msgs) // 2]
    recent = read(world, "list_messages", since=cut.isoformat(), limit=500)
    assert recent and len(recent) == sum(1 for m in msgs if m.sent_at >= cut)
    naive = read(world, "list_messages", since=cut.replace(tzinfo=None).isoformat(), limit=500)
    assert naive == recent

    thread = next(m for m in msgs if m.in_reply_to)
    in_thread = read(world, "list_messages", thread_id=thread.thread_id)
    assert len(in_thread) == 2 and {m["thread_id"] for m in in_thread} == {thread.thread_id}


def test_search_messages(world: World) -> None:
    message = first(world, folder="inbox")
    word = message["subject"].split()[0]
    hits = read(world, "search_messages", query=word.lower(), limit=500)
    assert message["id"] in {m["id"] for m in hits}
    assert all(
        word.lower() in (m["subject"] + m["body"] + m["from_address"] + m["from_name"]).lower()
        for m in hits
    )
    by_name = read(world, "search_messages", query=message["from_name"].upper())
    assert message["id"] in {m["id"] for m in by_name}
    assert read(world, "search_messages", query="zzz-no-such-text") == []
    assert all(
        m["folder"] == "sent" for m in read(world, "search_messages", query="re:", folder="sent")
    )
    err(world, "search_messages", "invalid_argument", query="  ")


# -- sending --------------------------------------------------------------------------------
def test_send_message_then_read_it_back(world: World, owner: str) -> None:
    world.advance(60)
    sent = ok(
        world,
        "send_message",
        to=["ana@example.com", "ANA@example.com"],
        cc=["ana@example.com", "bo@example.com"],
        subject="Quarterly numbers",
        body="See attached.",
    )
    assert sent["from_address"] == owner
    assert sent["to"] == ["ana@example.com"]
    assert sent["cc"] == ["bo@example.com"]
    assert sent["folder"] == "sent" and sent["read"]
    assert sent["sent_at"] == world.now().isoformat().replace("+00:00", "Z")
    assert read(world, "get_message", message_id=sent["id"]) == sent
    assert first(world, folder="sent")["id"] == sent["id"]
    assert first(world)["id"] == sent["id"]
    hits = read(world, "search_messages", query="quarterly numbers")
    assert [m["id"] for m in hits] == [sent["id"]]


def test_send_message_refusals(world: World) -> None:
    assert "to" in err(world, "send_message", "invalid_argument", to=[], subject="s", body="b")
    err(world, "send_message", "invalid_argument", to=["not-an-email"], subject="s", body="b")
    err(world, "send_message", "invalid_argument", to=["a@example.com"], subject=" ", body="")
    err(world, "send_message", "invalid_argument", subject="s", body="b")


def test_failed_call_consumes_no_id() -> None:
    a, b = make_world(), make_world()
    err(a, "send_message", "invalid_argument", to=[], subject="s", body="b")
    args = {"to": ["x@example.com"], "subject": "s", "body": "b"}
    assert ok(a, "send_message", **args)["id"] == ok(b, "send_message", **args)["id"]
    assert a.state_hash() == b.state_hash()


def test_reply_keeps_the_thread(world: World, owner: str) -> None:
    original = first(world, folder="inbox")
    world.advance(60)
    reply = ok(world, "reply_to_message", message_id=original["id"], body="On it.")
    assert reply["thread_id"] == original["thread_id"]
    assert reply["subject"] == f"Re: {original['subject']}"
    assert reply["to"] == [original["from_address"]]
    assert reply["from_address"] == owner
    assert reply["in_reply_to"] == original["id"]
    assert reply["folder"] == "sent"
    thread = read(world, "list_messages", thread_id=original["thread_id"])
    assert thread[0]["id"] == reply["id"]

    # Replying to my own reply goes back to the same person, and "Re: " is not doubled.
    again = ok(world, "reply_to_message", message_id=reply["id"], body="Done.")
    assert again["subject"] == reply["subject"]
    assert again["to"] == [original["from_address"]]
    assert again["thread_id"] == original["thread_id"]


def test_reply_all_copies_everyone_but_me(world: World, owner: str) -> None:
    sent = ok(
        world,
        "send_message",
        to=["a@example.com", "b@example.com"],
        cc=["c@example.com"],
        subject="Plan",
        body="Draft plan.",
    )
    one = ok(world, "reply_to_message", message_id=sent["id"], body="x")
    assert one["to"] == ["a@example.com", "b@example.com"] and one["cc"] == []
    everyone = ok(world, "reply_to_message", message_id=sent["id"], body="x", reply_all=True)
    assert everyone["to"] == ["a@example.com", "b@example.com"]
    assert everyone["cc"] == ["c@example.com"]
    assert owner not in everyone["to"] + everyone["cc"]


def test_reply_refusals(world: World) -> None:
    err(world, "reply_to_message", "not_found", message_id="msg_nope", body="x")
    message = first(world, folder="inbox")
    err(world, "reply_to_message", "invalid_argument", message_id=message["id"], body=" ")
    ok(world, "delete_message", message_id=message["id"])
    msg = err(world, "reply_to_message", "failed_precondition", message_id=message["id"], body="x")
    assert "trash" in msg


def test_forward_message(world: World) -> None:
    original = first(world, folder="inbox")
    fwd = ok(world, "forward_message", message_id=original["id"], to=["z@example.com"], note="FYI")
    assert fwd["subject"] == f"Fwd: {original['subject']}"
    assert fwd["body"].startswith("FYI") and original["body"] in fwd["body"]
    assert fwd["thread_id"] != original["thread_id"]
    assert fwd["to"] == ["z@example.com"]
    err(world, "forward_message", "invalid_argument", message_id=original["id"], to=[])
    err(world, "forward_message", "not_found", message_id="msg_nope", to=["z@example.com"])


# -- organising -----------------------------------------------------------------------------
def test_mark_read_and_unread(world: World) -> None:
    message = first(world, unread_only=True)
    done = ok(world, "mark_read", message_id=message["id"])
    assert done["read"] and read(world, "get_message", message_id=message["id"])["read"]
    assert message["id"] not in {m["id"] for m in read(world, "list_messages", unread_only=True)}
    back = ok(world, "mark_read", message_id=message["id"], read=False)
    assert not back["read"]
    assert back == message
    err(world, "mark_read", "not_found", message_id="msg_nope")


def test_move_message(world: World) -> None:
    message = first(world, folder="inbox")
    moved = ok(world, "move_message", message_id=message["id"], folder="archive")
    assert moved["folder"] == "archive"
    archived = read(world, "list_messages", folder="archive", limit=500)
    assert message["id"] in {m["id"] for m in archived}
    err(world, "move_message", "failed_precondition", message_id=message["id"], folder="archive")
    msg = err(world, "move_message", "failed_precondition", message_id=message["id"], folder="sent")
    assert "not sent by" in msg
    err(world, "move_message", "invalid_argument", message_id=message["id"], folder="spam")
    err(world, "move_message", "not_found", message_id="msg_nope", folder="inbox")


def test_move_out_of_trash(world: World) -> None:
    sent = ok(world, "send_message", to=["a@example.com"], subject="s", body="b")
    ok(world, "move_message", message_id=sent["id"], folder="trash")
    msg = err(world, "move_message", "failed_precondition", message_id=sent["id"], folder="sent")
    assert "trash" in msg
    assert ok(world, "move_message", message_id=sent["id"], folder="inbox")["folder"] == "inbox"
    assert ok(world, "move_message", message_id=sent["id"], folder="sent")["folder"] == "sent"


def test_delete_moves_to_trash_then_deletes_for_good(world: World) -> None:
    message = first(world, folder="inbox")
    trashed = ok(world, "delete_message", message_id=message["id"])
    assert trashed["folder"] == "trash"
    assert read(world, "get_message", message_id=message["id"])["folder"] == "trash"
    before = world.snapshot()
    gone = ok(world, "delete_message", message_id=message["id"])
    assert gone["id"] == message["id"]
    assert message["id"] in world.diff(before).collection("mail", "messages").deleted
    err(world, "get_message", "not_found", message_id=message["id"])
    err(world, "delete_message", "not_found", message_id=message["id"])


def test_labels(world: World) -> None:
    message = first(world, folder="inbox")
    labelled = ok(world, "add_label", message_id=message["id"], label="  Follow-Up Now ")
    assert labelled["labels"][-1] == "Follow-Up Now"
    msg = err(world, "add_label", "conflict", message_id=message["id"], label="follow-up now")
    assert "follow-up now" in msg
    err(world, "add_label", "invalid_argument", message_id=message["id"], label=" ")
    err(world, "add_label", "invalid_argument", message_id=message["id"], label="x" * 51)
    err(world, "add_label", "not_found", message_id="msg_nope", label="x")
    unlabelled = ok(world, "remove_label", message_id=message["id"], label="FOLLOW-UP NOW")
    assert unlabelled["labels"] == message["labels"]
    err(world, "remove_label", "not_found", message_id=message["id"], label="follow-up now")


# -- drafts ---------------------------------------------------------------------------------
def test_draft_needs_recipients_before_sending(world: World) -> None:
    draft = ok(world, "create_draft", subject="Offer", body="Half-written")
    assert draft["to"] == []
    assert [d["id"] for d in read(world, "list_drafts")] == [draft["id"]]
    assert read(world, "get_mailbox")["drafts"] == 1
    msg = err(world, "send_draft", "failed_precondition", draft_id=draft["id"])
    assert "no recipients" in msg
    err(world, "send_draft", "not_found", draft_id="dft_nope")


def test_send_draft_files_it_and_removes_the_draft(world: World, owner: str) -> None:
    original = first(world, folder="inbox")
    draft = ok(
        world,
        "create_draft",
        subject="Re: order",
        body="Confirmed.",
        to=[original["from_address"]],
        reply_to_id=original["id"],
    )
    assert draft["thread_id"] == original["thread_id"]
    sent = ok(world, "send_draft", draft_id=draft["id"])
    assert sent["from_address"] == owner and sent["folder"] == "sent"
    assert sent["thread_id"] == original["thread_id"]
    assert sent["in_reply_to"] == original["id"]
    assert read(world, "list_drafts") == []
    err(world, "send_draft", "not_found", draft_id=draft["id"])
    err(world, "create_draft", "not_found", subject="s", body="b", reply_to_id="msg_nope")
