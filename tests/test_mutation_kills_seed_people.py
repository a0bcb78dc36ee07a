"""Who a compiled service seeds into the people fields of a record that is not a message
(mutants of library/compiler/emit_seed.py that survived the other tests,
bench/mutation.py): a quote is ``from`` one of us and ``to`` someone outside, two different
people (a mail that comes in is the other way round: test_mutation_kills_emit_seed); and a
message of an SMS service is sent from one of our numbers to someone outside's."""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool
from tests.test_mutation_kills_seed_refs import _collection

EMAIL = {"type": "string", "format": "email"}
QUOTE = {
    "type": "object",
    "required": ["id", "from", "to", "amount"],
    "properties": {
        "id": {"type": "string"},
        "from": EMAIL,
        "to": EMAIL,
        "amount": {"type": "number"},
    },
}
QUOTES = {
    "openapi": "3.0.0",
    "info": {"title": "Quotes", "version": "1"},
    "paths": _collection("quotes", "Quote", QUOTE),
}
PHONE = {"type": "string", "description": "A phone number in E.164 format."}
MESSAGE = {
    "type": "object",
    "required": ["id", "from", "to", "body"],
    "properties": {
        "id": {"type": "string"},
        "from": PHONE,
        "to": PHONE,
        "body": {"type": "string"},
    },
}
SMS = {
    "openapi": "3.0.0",
    "info": {"title": "SMS", "version": "1"},
    "paths": _collection("messages", "Message", MESSAGE),
}
SIZE = 6


def _seeded(document: dict, name: str) -> dict[str, dict]:
    """The seeded state of a compiled service (its name comes from the file's: ``sms``)."""
    specs, errors = ingest_document(orjson.dumps(document), source_file=f"{name}.json")
    assert specs, errors
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=SIZE)
    return world.services[cls.name].state.model_dump(mode="json", by_alias=True)


def test_a_quote_is_from_a_colleague_to_someone_outside() -> None:
    pool = seed_pool()
    quotes = _seeded(QUOTES, "quotes")["quotes"]
    assert len(quotes) == SIZE
    for quote in quotes.values():
        sender, recipient = pool.person_by_email(quote["from"]), pool.person_by_email(quote["to"])
        assert sender is not None and recipient is not None, quote
        assert pool.is_staff(sender) and not pool.is_staff(recipient), quote


def test_an_sms_is_sent_from_our_number_to_someone_outside() -> None:
    pool = seed_pool()
    messages = _seeded(SMS, "sms")["messages"]
    assert len(messages) == SIZE
    for message in messages.values():
        sender, recipient = (
            pool.person_by_phone(message["from"]),
            pool.person_by_phone(message["to"]),
        )
        assert sender is not None and recipient is not None, message
        assert pool.is_staff(sender) and not pool.is_staff(recipient), message
