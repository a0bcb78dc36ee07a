"""Log-in and log-out tools (``ticket_login(username, password)``, ``trading_logout()``) act on
the service's one session: log-in sets ``logged_in`` and the identity it was given (never the
password), log-out clears the flag; both answer the acknowledgement the spec declares."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Kind
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
ACK = {"type": "dict", "properties": {"success": {"type": "boolean", "description": "Done."}}}


def _function(name: str, description: str, params: dict, required: list[str]) -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "dict", "properties": params, "required": required},
        "response": ACK,
    }


TEXT = {"type": "string", "description": "A value."}
LIBRARY = [
    _function("library_login", "Log a member in.", {"username": TEXT, "password": TEXT},
              ["username", "password"]),
    _function("library_logout", "Log the current member out.", {}, []),
    _function("reserve_book", "Reserve a book by title.", {"title": TEXT}, ["title"]),
]  # fmt: skip
JSONL = b"\n".join(orjson.dumps(f) for f in LIBRARY)


def _specs() -> list:
    specs, _ = ingest_document(JSONL, source_file="library.json")
    return specs


def test_log_in_and_out_act_on_the_one_session() -> None:
    plan = plan_service(_specs())
    tools = {t.name: t for t in plan.tools}
    session = plan.records[tools["library_login"].resource]
    assert tools["library_logout"].resource == session.resource
    assert session.singleton
    assert session.fields["logged_in"].type.kind is Kind.BOOL
    assert "username" in session.fields
    assert "password" not in session.fields  # what proves the identity is not stored


def test_log_in_sets_the_session_and_log_out_clears_it() -> None:
    specs = _specs()
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)

    def session() -> dict:
        (record,) = world.services[cls.name].state.sessions.values()
        return record.model_dump()

    args = {"username": "ada", "password": "s3cret"}
    assert world.call(qualified(cls.name, "library_login"), args)["success"]
    assert session()["logged_in"] is True
    assert session()["username"] == "ada"
    assert "s3cret" not in str(session())
    assert world.call(qualified(cls.name, "library_logout"), {})["success"]
    assert session()["logged_in"] is False


def test_log_in_and_out_verify() -> None:
    built = build_service(_specs())
    for name in ("library_login", "library_logout"):
        assert name in built.verified, built.outcomes[name]


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_bfcl_log_ins_verify() -> None:
    for path, names in (
        ("functions/bfcl_multi_turn/ticket_api.json", ("ticket_login", "logout")),
        ("functions/bfcl_multi_turn/trading_bot.json", ("trading_login", "trading_logout")),
    ):
        specs, _ = ingest_document(SPECS / path)
        built = build_service(specs)
        for name in names:
            assert name in built.verified, built.outcomes[name]


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_a_log_in_by_user_id_checks_the_user() -> None:
    """``message_login(user_id)``, which ingestion found no resource for, is a session tool too
    (not an action on users); the user it names must exist."""
    specs, _ = ingest_document(SPECS / "functions/bfcl_multi_turn/message_api.json")
    built = build_service(specs)
    assert "message_login" in built.verified, built.outcomes["message_login"]
    cls = load_service(built.compiled.source)  # type: ignore[union-attr]
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    missing = world.call(qualified(cls.name, "message_login"), {"user_id": "nobody"})
    assert missing["error"]["code"] == "not_found"
    user_id = next(iter(world.services[cls.name].state.users))
    assert world.call(qualified(cls.name, "message_login"), {"user_id": user_id})["success"]
    (session,) = world.services[cls.name].state.sessions.values()
    assert session.logged_in and session.user_id == user_id
