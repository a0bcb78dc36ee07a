"""Sessions: the log-in and log-out tools of a service (``ticket_login(username, password)``,
``trading_logout()``, ``POST /login``) act on its one session record, not on a resource of
their own.

A tool whose name begins or ends with a log-in word (``login``, ``log_in``, ``sign_in``,
``signin``) or a log-out word, and that ingestion found no resource for, is a session tool
where the service has a log-in. Log-in sets the session's ``logged_in`` flag and the
identity it was given (``username``, ``user_id``: its text parameters but secrets, each an
optional field of the session); log-out clears the flag. Both answer what the spec declares:
the session, or an acknowledgement (``{success: true}``) built from status-like constants as
any write's (``library.compiler.values.answer_constant``); an answer the compiler would have to
make up (a token, a user's profile) leaves the tool unverified, as before.
"""

from __future__ import annotations

from library.compiler.model import ActionPlan, FieldPlan, Kind, RecordPlan, TypeSpec
from library.compiler.naming import field_attr
from library.compiler.types import json_types
from library.ingest.naming import tokens
from library.toolspec import ToolSpec

LOGIN_WORDS = (("login",), ("log", "in"), ("signin",), ("sign", "in"))
LOGOUT_WORDS = (("logout",), ("log", "out"), ("signout",), ("sign", "out"))
SESSION_NAMES = ("sessions", "login_sessions")  # the session's collection, the first one free
LOGGED_IN = "logged_in"
# parameters never stored: what proves the identity, not the identity
SECRET_WORDS = frozenset({"password", "passwd", "secret", "pin", "otp", "code", "token"})


def session_word(spec: ToolSpec) -> bool | None:
    """True for a log-in (``ticket_login``, ``logIn``), False for a log-out, None otherwise:
    the word begins or ends the name (``get_login_history`` is neither)."""
    words = tokens(spec.name)
    for found, group in ((True, LOGIN_WORDS), (False, LOGOUT_WORDS)):
        for w in group:
            if words[: len(w)] == w or words[-len(w) :] == w:
                return found
    return None


def session_resources(
    specs: list[ToolSpec], resources: dict[str, str | None]
) -> tuple[dict[str, str | None], dict[str, bool]]:
    """Each tool's resource, the session tools moved onto the session; and those tools
    (tool -> whether it logs in). Unchanged where the service has no log-in."""
    found = {
        s.name: word
        for s in specs
        if (s.resource is None or resources.get(s.name) is None)
        and (word := session_word(s)) is not None
    }
    if not any(found.values()):
        return resources, {}
    taken = set(resources.values())
    name = next((n for n in SESSION_NAMES if n not in taken), None)
    if name is None:
        return resources, {}
    moved = {tool: (name if tool in found else r) for tool, r in resources.items()}
    return moved, found


def add_session_fields(record: RecordPlan, specs: list[ToolSpec], logins: dict[str, bool]) -> None:
    """The session's fields: ``logged_in``, always set, and the identity a log-in gives; the
    service holds one session, whatever names the identity (``message_login(user_id)``)."""
    record.singleton = True
    taken = {f.attr for f in record.fields.values()} | {"id"}

    def add(name: str, kind: Kind, annotation: str, required: bool) -> None:
        if name in record.fields:
            return
        attr = field_attr(name, taken)
        taken.add(attr)
        record.fields[name] = FieldPlan(name, attr, TypeSpec(kind, annotation), required)

    add(LOGGED_IN, Kind.BOOL, "bool", True)
    for spec in specs:
        if not logins.get(spec.name):
            continue
        for key, node in (spec.input_schema.get("properties") or {}).items():
            plain = isinstance(node, dict) and json_types(node)[0] == {"string"}
            if plain and key.isidentifier() and not SECRET_WORDS & set(tokens(key)):
                add(key, Kind.STR, "str", False)


def session_action(spec: ToolSpec, record: RecordPlan) -> ActionPlan | None:
    """What a log-in or log-out does to the session: sets ``logged_in`` whatever it was (the
    identity parameters are set as the fields they name)."""
    word = session_word(spec)
    if word is None or not record.singleton or LOGGED_IN not in record.fields:
        return None
    return ActionPlan(word="login" if word else "logout", flag_field=LOGGED_IN, flag_value=word,
                      switch=True)  # fmt: skip
