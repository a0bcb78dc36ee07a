"""What a spec states in words, and what an action is told, as the compiled service keeps it.

- Allowed values stated only in a description: tau2's retail ``cancel_pending_order`` declares
  ``reason`` a plain string "which should be either 'no longer needed' or 'ordered by
  mistake'", and the real tool refuses any other text. Ingestion reads a closed set of values
  a text node's own description states ("either 'a' or 'b'", "one of 'a', 'b'", "must be
  'x' or 'y'", "Allowed values: a, b") as its enum, exact spelling and case, so the seed, the
  tool's validation and composition use only those (before: any text, so composition stated
  reasons like "Customer asked to cancel"). Examples ("such as 'a' or 'b'") are no such set.
- A record field that exists only because an action is told it (a cancel's reason, a
  modification's new item ids) is not seeded on records that action has not been through:
  where the seed cannot put a record in the state that action leads to (tau2's orders have a
  free-text status), no seeded record holds it; the action sets it (before: every seeded
  order carried a stale cancellation reason and "new" item ids).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.compose.catalog import qualified
from library.ingest import ingest_document
from library.ingest.stated_values import stated_values, with_stated_values
from library.runtime import World
from library.seed.pool import seed_pool

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
TAU2_RETAIL = SPECS / "functions" / "tau2" / "retail.json"
TAU2_TELECOM = SPECS / "functions" / "tau2" / "telecom.json"
MEMORY = SPECS / "functions" / "bfcl_multi_turn" / "memory_vector.json"
needs_shared = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")

# (description, the values it states, or None where it states no closed set)
PHRASINGS: list[tuple[str, tuple[str, ...] | None]] = [
    (
        "The reason for cancellation, which should be either 'no longer needed' or "
        "'ordered by mistake'.",
        ("no longer needed", "ordered by mistake"),
    ),
    ("The type of invoice. Either 'sale' or 'refund'", ("sale", "refund")),
    ("Status, one of 'open', 'closed' and 'pending'.", ("open", "closed", "pending")),
    ("Must be 'x' or 'y'", ("x", "y")),
    ("Type of data to search for, one of \u201call\u201d, \u201czone\u201d", ("all", "zone")),
    ("The HTTP method. One of `GET` or `POST`.", ("GET", "POST")),
    ("Allowed values: a, b, c", ("a", "b", "c")),
    ("Possible values are active, inactive.", ("active", "inactive")),
    (
        "Only return messages with this direction. One of: outbound, inbound.",
        ("outbound", "inbound"),
    ),
    ("Interval. Accepted values are 'day', 'week' and 'month'.", ("day", "week", "month")),
    ('The mode: either "fast" or "slow" (default "fast")', ("fast", "slow")),
    # examples, open lists, and lists of something other than the value: no closed set
    ("The payment method id, such as 'gift_card_0000000' or 'credit_card_0000000'.", None),
    ("e.g. one of 'a' or 'b'", None),
    ("One of 'a', 'b', etc.", None),
    ("Sort in either ascending or descending order", None),
    ("Either 'folderId' or 'folderPath' is required.", None),
    ('This string must begin with either "http://" or "https://".', None),
    ("Specifies the API token string. Specify either `URL` or `Token`.", None),
    ("Specified as `Attribute:Order`, where `Order` can be either `asc` or `desc`.", None),
    ("A filter expression. The comparison operator must be `=`, `!=`, `>`, or `<`.", None),
    ("Allowed values are `JPEG`, `PNG`, and web-safe base64 encoding.", None),
    ("Valid values are between 1 and 10", None),
    (
        "The type of model e.g. `home-page`. Currently supported values: `similar-items`, `other`.",
        None,
    ),
    ("At least one of 'a' or 'b'.", None),
    ("Must be REPLACE or DELETE.", None),  # unquoted after "must be": not read
]


def test_closed_sets_are_read_and_examples_are_not() -> None:
    assert len(PHRASINGS) >= 20
    assert sum(want is not None for _, want in PHRASINGS) >= 10
    wrong = [(d, stated_values(d), want) for d, want in PHRASINGS if stated_values(d) != want]
    assert not wrong, wrong


def test_record_ids_and_names_of_other_properties_are_no_stated_values() -> None:
    """A record's id is the service's to issue, whatever values its description lists
    (Google Retail's ``branchId`` "must be one of "0", "1" or "2""); "Specify either `URL` or
    `Token`" names the two properties beside it."""
    said = 'This field must be one of "0", "1" or "2".'
    schema = {
        "type": "object",
        "properties": {
            "branchId": {"type": "string", "description": said},
            "branch": {"type": "string", "description": said},
            "url": {"type": "string", "description": "A URL. Specify `URL` or `Token`."},
            "token": {"type": "string", "description": "Must be `URL` or `Token`."},
        },
    }
    props = with_stated_values(schema)["properties"]
    assert "enum" not in props["branchId"] and "enum" not in props["token"]
    assert props["branch"]["enum"] == ["0", "1", "2"]


def _doc(tools: list[tuple[str, str, dict[str, Any], list[str]]]) -> bytes:
    return orjson.dumps(
        [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": description,
                    "parameters": {"type": "object", "properties": props, "required": req},
                },
            }
            for name, description, props, req in tools
        ]
    )


def _world(specs: list[Any], size: int = 12) -> tuple[World, str, Any]:
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=size)
    return world, cls.name, world.services[cls.name].state


TEXT = {"type": "string"}
DESK = [
    ("create_ticket", "Open a ticket.", {"subject": TEXT, "body": TEXT}, ["subject", "body"]),
    ("get_ticket", "Get a ticket.", {"ticket_id": TEXT}, ["ticket_id"]),
    (
        "set_ticket_priority",
        "Set a ticket's priority.",
        {
            "ticket_id": TEXT,
            "priority": {"type": "string", "description": "The priority: must be 'low' or 'high'."},
            "note": {"type": "string", "description": "A note, such as 'urgent' or 'later'."},
        },
        ["ticket_id", "priority"],
    ),
]


def test_a_stated_set_is_the_parameters_enum_and_the_only_values_accepted() -> None:
    specs, errors = ingest_document(_doc(DESK), source_file="desk.json")
    assert not [e for e in errors if e.severity == "error"], errors
    tool = next(s for s in specs if s.name == "set_ticket_priority")
    props = tool.input_schema["properties"]
    assert props["priority"]["enum"] == ["low", "high"]
    assert "enum" not in props["note"]  # examples, not a closed set
    world, service, state = _world(specs)
    ticket = next(iter(state.tickets))
    call = qualified(service, "set_ticket_priority")
    for refused in ("urgent", "High", "medium"):
        answer = world.call(call, {"ticket_id": ticket, "priority": refused})
        assert answer["error"]["code"] == "invalid_argument", (refused, answer)
    assert world.call(call, {"ticket_id": ticket, "priority": "high", "note": "later"})["success"]


@needs_shared
def test_tau2_cancel_reason_is_one_of_the_two_it_states() -> None:
    specs, _ = ingest_document(TAU2_RETAIL)
    cancel = next(s for s in specs if s.name == "cancel_pending_order")
    assert cancel.input_schema["properties"]["reason"]["enum"] == [
        "no longer needed",
        "ordered by mistake",
    ]
    world, service, state = _world(specs)
    orders = iter(state.orders)
    call = qualified(service, "cancel_pending_order")
    for refused in ("Customer asked to cancel", "Duplicate order", "No longer needed"):
        answer = world.call(call, {"order_id": next(orders), "reason": refused})
        assert answer["error"]["code"] == "invalid_argument", (refused, answer)
    answer = world.call(call, {"order_id": next(orders), "reason": "ordered by mistake"})
    assert answer["success"] and answer["data"]["reason"] == "ordered by mistake"


@needs_shared
def test_stated_sets_across_the_shared_specs() -> None:
    """Every field of ``../shared/specs`` that states its values gets exactly them; nothing
    else gets an enum from words (tau_bench's retail declares its ``reason`` enum itself)."""
    found: dict[tuple[str, str, str], list[Any]] = {}
    for path in sorted(SPECS.rglob("*.json")):
        with_words, _ = ingest_document(path)
        without, _ = _without_stated_values(path)
        declared = {(s.name, p): n for s in without for p, n in _params(s.input_schema)}
        for spec in with_words:
            for param, node in _params(spec.input_schema):
                if "enum" in node and "enum" not in declared.get((spec.name, param), {}):
                    found[(path.name, spec.name, param)] = node["enum"]
    assert found[("retail.json", "cancel_pending_order", "reason")] == [
        "no longer needed",
        "ordered by mistake",
    ]
    assert found[("vatapi.com.json", "create_invoice", "type")] == ["sale", "refund"]
    assert found[("vatapi.com.json", "invoice_update", "type")] == ["sale", "refund"]
    assert found[("powerdns.local.json", "searchData", "object_type")] == [
        "all",
        "zone",
        "record",
        "comment",
    ]
    assert len(found) == 4, found


def _params(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(k, v) for k, v in (schema.get("properties") or {}).items() if isinstance(v, dict)]


def _without_stated_values(path: Path) -> tuple[list[Any], list[Any]]:
    from library.ingest import build

    kept = build.with_stated_values
    build.with_stated_values = lambda schema: schema
    try:
        return ingest_document(path)
    finally:
        build.with_stated_values = kept


# -- values an action is told ---------------------------------------------------------------


@needs_shared
def test_tau2_orders_are_seeded_without_what_an_action_is_told() -> None:
    specs, _ = ingest_document(TAU2_RETAIL)
    world, service, state = _world(specs, size=20)
    orders = list(state.orders.values())
    assert len(orders) >= 10
    assert all(o.reason is None and o.new_item_ids is None for o in orders)
    assert all(o.item_ids and o.address1 for o in orders)  # what an order holds is still seeded
    # the tools act on pending orders (their names say so: test_compiler_status_from_names)
    first, second = [o.id for o in orders if o.status == "pending"][:2]
    answer = world.call(
        qualified(service, "cancel_pending_order"),
        {"order_id": first, "reason": "no longer needed"},
    )
    state = world.services[service].state
    assert answer["success"] and state.orders[first].reason == "no longer needed"
    item = next(iter(state.items))
    answer = world.call(
        qualified(service, "modify_pending_order_items"),
        {
            "order_id": second,
            "item_ids": [state.orders[second].item_ids[0]],
            "new_item_ids": [item],
            "payment_method_id": "gift_card_0000000",
        },
    )
    assert answer["success"], answer
    assert world.services[service].state.orders[second].new_item_ids == [item]


@needs_shared
def test_tau2_telecom_lines_are_seeded_without_a_suspension_reason() -> None:
    specs, _ = ingest_document(TAU2_TELECOM)
    _, _, state = _world(specs, size=20)
    lines = list(state.lines.values())
    assert len(lines) >= 10 and all(line.reason is None for line in lines)


@needs_shared
def test_bfcl_memories_are_seeded_without_the_new_text_of_an_update() -> None:
    """BFCL declares outputs (an id, a status), so the compiler shapes the record from the
    inputs: ``archival_memory_update(vec_id, new_text)`` tells the new value of ``text``."""
    specs, _ = ingest_document(MEMORY)
    _, _, state = _world(specs, size=15)
    for memories in (state.archival_memory, state.core_memory):
        entries = list(memories.values())
        assert len(entries) >= 10
        assert all(e.new_text is None and e.text for e in entries), entries[:3]


NOTES = [
    ("add_note", "Add a note.", {"text": TEXT}, ["text"]),
    ("get_note", "Get a note.", {"note_id": TEXT}, ["note_id"]),
    ("update_note", "Change a note's text.", {"note_id": TEXT, "new_text": TEXT}, ["note_id"]),
    (
        "cancel_booking",
        "Cancel a booking.",
        {"booking_id": TEXT, "reason": TEXT},
        ["booking_id", "reason"],
    ),
    ("get_booking", "Get a booking.", {"booking_id": TEXT}, ["booking_id"]),
    (
        "create_booking",
        "Book a room.",
        {"guest_name": TEXT, "nights": {"type": "integer"}},
        ["guest_name"],
    ),
]


def test_what_an_action_is_told_is_set_by_it_and_seeded_on_no_record() -> None:
    """A cancel's reason (the booking's status is free text: the seed cannot tell which
    bookings were canceled) and an update's ``new_text`` beside the ``text`` it replaces."""
    specs, _ = ingest_document(_doc(NOTES), source_file="desk.json")
    world, service, state = _world(specs, size=15)
    bookings, notes = list(state.bookings.values()), list(state.notes.values())
    assert len(bookings) >= 10 and len(notes) >= 10
    assert all(b.reason is None for b in bookings), [b.reason for b in bookings]
    assert all(n.new_text is None and n.text for n in notes)
    booking = bookings[0].id
    answer = world.call(
        qualified(service, "cancel_booking"), {"booking_id": booking, "reason": "Trip off"}
    )
    state = world.services[service].state
    assert answer["success"] and state.bookings[booking].reason == "Trip off"


def test_a_told_value_stays_on_records_in_the_state_its_action_leads_to() -> None:
    """Where the status is an enum the seed draws, a canceled booking keeps its reason and
    no other booking has one (as before)."""
    statuses = {"type": "string", "enum": ["confirmed", "canceled"]}
    tools = [*NOTES, ("list_bookings", "List bookings.", {"status": statuses}, [])]
    specs, _ = ingest_document(_doc(tools), source_file="desk.json")
    _, _, state = _world(specs, size=30)
    bookings = list(state.bookings.values())
    canceled = [b for b in bookings if b.status == "canceled"]
    assert canceled and len(canceled) < len(bookings)
    assert all(b.reason for b in canceled)
    assert all(b.reason is None for b in bookings if b.status != "canceled")
