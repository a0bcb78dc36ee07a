"""What the compiler plans for tools of other shapes (mutants of library/compiler/tools.py,
records.py and emit_tools.py that survived the other tests, bench/mutation.py), on a small
inline spec: a default the spec gives with the wrong type, or outside its enum, is no default;
an action to a final state stamps it, refuses a second time and refuses a record already in
another final state; integer ids count up and are looked up as numbers; a
count answers how many records there are, a page wrapper holds the records under its key and
their count, an envelope holds the record under its key; a singleton (``/settings``) is not
found before it exists, then read and changed in place; a record whose schema is an ``allOf``
of parts holds the fields of every part; a list described "newest first" is; an update of a
record with aliased fields (``from``) changes what is given; a flag action (``pin``) raises
its flag once and a final state blocks it; a required query must say something; a value the
server makes (a link) names the new record; a delete that answers a confirmation removes the
record; a record that holds its own kind compiles; and skipped tools are listed in spec order,
each with its reason."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document

from .test_mutation_kills_emit_tools import Client, verified_service

TEXT = {"type": "string"}
CHANNEL = {"type": "string", "enum": ["sms", "email"]}
MESSAGE = {
    "type": "object",
    "required": ["id", "to", "body", "status", "priority", "channel", "link"],
    "properties": {
        "id": TEXT,
        "to": TEXT,
        "body": TEXT,
        "status": {"type": "string", "enum": ["draft", "sent", "failed", "canceled"]},
        "sent_at": {"type": ["string", "null"], "format": "date-time"},
        "canceled_at": {"type": ["string", "null"], "format": "date-time"},
        "priority": {"type": "integer"},
        "channel": CHANNEL,
        "from": TEXT,
        "pinned": {"type": "boolean"},
        "link": {"type": "string", "format": "uri"},
    },
}
NEW_MESSAGE = {
    "type": "object",
    "required": ["to", "body"],
    "properties": {
        "to": TEXT,
        "body": TEXT,
        "priority": {"type": "integer", "default": "high"},  # no integer: no default
        "channel": CHANNEL | {"default": "fax"},  # not one of the enum: no default
    },
}
MESSAGES = {
    "type": "object",
    "required": ["messages", "count"],
    "properties": {"messages": {"type": "array", "items": MESSAGE}, "count": {"type": "integer"}},
}
TICKET = {
    "type": "object",
    "required": ["id", "title"],
    "properties": {"id": {"type": "integer"}, "title": TEXT},
}
THEME = {"type": "string", "enum": ["light", "dark"]}
SETTINGS = {
    "type": "object",
    "required": ["theme"],
    "properties": {"theme": THEME, "language": TEXT},
}


def _ok(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


def _body(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _path(name: str, kind: str = "string") -> list[dict]:
    return [{"name": name, "in": "path", "required": True, "schema": {"type": kind}}]


OUTBOX = {
    "openapi": "3.0.0",
    "info": {"title": "Outbox", "version": "1"},
    "paths": {
        "/messages": {
            "post": {
                "operationId": "sendMessage",
                "requestBody": _body(NEW_MESSAGE),
                "responses": _ok(MESSAGE),
            },
            "get": {"operationId": "listMessages", "responses": _ok(MESSAGES)},
        },
        "/messages/{id}": {
            "patch": {
                "operationId": "updateMessage",
                "parameters": _path("id"),
                "requestBody": _body(
                    {"type": "object", "properties": {"from": TEXT, "body": TEXT}}
                ),
                "responses": _ok(MESSAGE),
            },
            "delete": {
                "operationId": "deleteMessage",
                "parameters": _path("id"),
                "responses": _ok(
                    {
                        "type": "object",
                        "required": ["deleted"],
                        "properties": {"deleted": {"type": "boolean"}},
                    }
                ),
            },
            "get": {
                "operationId": "getMessage",
                "parameters": _path("id"),
                "responses": _ok(
                    {"type": "object", "required": ["data"], "properties": {"data": MESSAGE}}
                ),
            },
        },
        "/messages/{id}/pin": {
            "post": {
                "operationId": "pinMessage",
                "parameters": _path("id"),
                "responses": _ok(MESSAGE),
            }
        },
        "/messages/{id}/unpin": {
            "post": {
                "operationId": "unpinMessage",
                "parameters": _path("id"),
                "responses": _ok(MESSAGE),
            }
        },
        "/messages/search": {
            "get": {
                "operationId": "searchMessages",
                "parameters": [{"name": "q", "in": "query", "required": True, "schema": TEXT}],
                "responses": _ok({"type": "array", "items": MESSAGE}),
            }
        },
        "/messages/{id}/cancel": {
            "post": {
                "operationId": "cancelMessage",
                "parameters": _path("id"),
                "responses": _ok(MESSAGE),
            }
        },
        "/tickets": {
            "post": {
                "operationId": "createTicket",
                "requestBody": _body(
                    {"type": "object", "required": ["title"], "properties": {"title": TEXT}}
                ),
                "responses": _ok(TICKET),
            },
            "get": {
                "operationId": "listTickets",
                "responses": _ok({"type": "array", "items": TICKET}),
            },
        },
        "/tickets/{id}": {
            "get": {
                "operationId": "getTicket",
                "parameters": _path("id", "integer"),
                "responses": _ok(TICKET),
            }
        },
        "/tickets/count": {
            "get": {
                "operationId": "countTickets",
                "responses": _ok(
                    {
                        "type": "object",
                        "required": ["count"],
                        "properties": {"count": {"type": "integer"}},
                    }
                ),
            }
        },
        "/settings": {
            "get": {"operationId": "getSettings", "responses": _ok(SETTINGS)},
            "patch": {
                "operationId": "updateSettings",
                "requestBody": _body(
                    {"type": "object", "properties": {"theme": THEME, "language": TEXT}}
                ),
                "responses": _ok(SETTINGS),
            },
        },
    },
}


CATEGORY = {"$ref": "#/components/schemas/Category"}
CATALOG = {
    "openapi": "3.0.0",
    "info": {"title": "Catalog", "version": "1"},
    "components": {
        "schemas": {
            "Base": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {"id": TEXT, "name": TEXT},
            },
            "Category": {
                "allOf": [
                    {"$ref": "#/components/schemas/Base"},
                    {
                        "type": "object",
                        "required": ["position"],
                        "properties": {"position": {"type": "integer"}, "note": TEXT},
                    },
                ]
            },
        }
    },
    "paths": {
        "/categories": {
            "post": {
                "operationId": "createCategory",
                "requestBody": _body(
                    {
                        "type": "object",
                        "required": ["name", "position"],
                        "properties": {"name": TEXT, "position": {"type": "integer"}, "note": TEXT},
                    }
                ),
                "responses": _ok(CATEGORY),
            },
            "get": {
                "operationId": "listCategories",
                "description": "Lists categories, newest first.",
                "responses": _ok({"type": "array", "items": CATEGORY}),
            },
        },
        "/categories/{id}": {
            "get": {
                "operationId": "getCategory",
                "parameters": _path("id"),
                "responses": _ok(CATEGORY),
            }
        },
    },
}


# Built for each test, not once per module: mutmut gives a mutant only the tests that reach
# its function, and counts a module fixture's calls for the first test alone.
@pytest.fixture
def compiled() -> type:
    return verified_service(OUTBOX)


@pytest.fixture
def client(compiled: type) -> Client:
    return Client(compiled)


def _send(client: Client, to: str = "+15550100", **more: Any) -> dict:
    return client.ok("sendMessage", to=to, body="Hello", **more)


def test_a_default_of_the_wrong_type_or_outside_the_enum_is_no_default(client: Client) -> None:
    made = _send(client)
    assert isinstance(made["priority"], int) and made["channel"] in ("sms", "email")
    assert (made["status"], made.get("sent_at"), made.get("canceled_at")) == ("draft", None, None)
    again = _send(client, priority=3, channel="email")
    assert again | {"id": "", "link": ""} == made | {
        "id": "", "link": "", "priority": 3, "channel": "email",
    }  # fmt: skip
    assert client.refused("sendMessage", to="x", body="y", channel="fax") == "invalid_argument"


def test_an_action_to_a_final_state_stamps_it_once(client: Client) -> None:
    made = _send(client)
    other = _send(client, to="+15550111")
    client.world.advance(90)
    canceled = client.ok("cancelMessage", id=made["id"])
    assert canceled == made | {"status": "canceled", "canceled_at": canceled["canceled_at"]}
    assert canceled["canceled_at"] is not None
    assert client.refused("cancelMessage", id=made["id"]) == "failed_precondition"
    service = client.world.services[client.name]
    record = service.state.messages[other["id"]]
    service.state.messages[other["id"]] = record.model_copy(update={"status": "failed"})
    client.world.invalidate()
    envelope = client.call("cancelMessage", id=other["id"])
    assert envelope["error"]["code"] == "failed_precondition"
    assert "failed" in envelope["error"]["message"]


def test_integer_ids_count_up_and_are_looked_up_as_numbers(client: Client) -> None:
    tickets = [client.ok("createTicket", title=t) for t in ("a", "b", "c")]
    assert [t["id"] for t in tickets] == [1, 2, 3]
    _send(client)  # the service's counter: a number is never given twice
    last = client.ok("createTicket", title="d")
    assert isinstance(last["id"], int) and last["id"] > 3
    assert client.ok("getTicket", id=2) == tickets[1]
    assert client.refused("getTicket", id=99) == "not_found"
    assert client.ok("listTickets") == [*tickets, last]


def test_a_count_answers_how_many_records_there_are(client: Client) -> None:
    assert client.ok("countTickets") == {"count": 0}
    for title in ("a", "b"):
        client.ok("createTicket", title=title)
    assert client.ok("countTickets") == {"count": 2}


def test_wrappers_hold_the_records_under_their_keys(client: Client) -> None:
    assert client.ok("listMessages") == {"messages": [], "count": 0}
    made = [_send(client, to=f"+1555010{k}") for k in range(3)]
    assert client.ok("listMessages") == {"messages": made, "count": 3}
    assert client.ok("getMessage", id=made[1]["id"]) == {"data": made[1]}
    assert client.refused("getMessage", id="mes_missing") == "not_found"


def test_a_singleton_is_not_found_before_it_exists_then_changed_in_place(
    compiled: type, client: Client
) -> None:
    assert client.refused("getSettings") == "not_found"
    assert client.refused("updateSettings", theme="dark") == "not_found"
    service = client.world.services[client.name]
    settings_cls = type(service.state).model_fields["settings"].annotation.__args__[1]
    service.put("settings", settings_cls(id="settings_1", theme="light", language="en"))
    client.world.invalidate()
    assert client.ok("getSettings") == {"theme": "light", "language": "en"}
    assert client.ok("updateSettings", theme="dark") == {"theme": "dark", "language": "en"}
    assert client.ok("getSettings") == {"theme": "dark", "language": "en"}
    assert list(service.state.settings) == ["settings_1"]


def test_a_record_of_all_of_parts_holds_every_part_and_a_list_may_be_newest_first() -> None:
    catalog = Client(verified_service(CATALOG))
    made = [catalog.ok("createCategory", name=n, position=k) for k, n in enumerate("abc")]
    assert made[0] == {"id": made[0]["id"], "name": "a", "position": 0}
    assert catalog.ok("createCategory", name="n", position=9, note="x")["note"] == "x"
    assert catalog.ok("getCategory", id=made[1]["id"]) == made[1]
    listed = catalog.ok("listCategories")
    assert listed[1:] == made[::-1] and listed[0]["note"] == "x"  # "newest first", as described
    assert catalog.refused("createCategory", name="d") == "invalid_argument"  # position required


def test_an_update_of_a_record_with_aliased_fields_changes_what_is_given(client: Client) -> None:
    made = _send(client)
    changed = client.ok("updateMessage", id=made["id"], **{"from": "Ops"})
    assert changed == made | {"from": "Ops"}
    again = client.ok("updateMessage", id=made["id"], body="Bye")
    assert again == made | {"from": "Ops", "body": "Bye"}
    assert client.ok("getMessage", id=made["id"]) == {"data": again}


def test_a_flag_action_raises_its_flag_once_and_a_final_state_blocks_it(client: Client) -> None:
    made = _send(client)
    assert client.ok("pinMessage", id=made["id"])["pinned"] is True
    assert client.call("pinMessage", id=made["id"])["error"] == {
        "code": "failed_precondition", "message": f"message {made['id']!r} is already pinned",
    }  # fmt: skip
    assert client.ok("unpinMessage", id=made["id"])["pinned"] is False
    assert client.refused("unpinMessage", id=made["id"]) == "failed_precondition"
    other = _send(client, to="+15550122")
    client.ok("cancelMessage", id=other["id"])
    assert client.call("pinMessage", id=other["id"])["error"]["message"] == (
        f"message {other['id']!r} is canceled"
    )


def test_a_required_query_must_say_something_and_reads_every_text(client: Client) -> None:
    made = _send(client)
    client.ok("updateMessage", id=made["id"], **{"from": "Ops desk"})
    other = _send(client, to="+15550133")
    assert client.refused("searchMessages", q="  ") == "invalid_argument"
    assert [m["id"] for m in client.ok("searchMessages", q="OPS")] == [made["id"]]
    assert [m["id"] for m in client.ok("searchMessages", q="0133")] == [other["id"]]
    assert len(client.ok("searchMessages", q="hello")) == 2
    assert client.ok("searchMessages", q="nothing like it") == []


def test_a_value_the_server_makes_names_the_new_record(client: Client) -> None:
    made = [_send(client, to=f"+1555014{k}") for k in range(2)]
    for message in made:
        assert message["link"].startswith("https://")
        assert message["link"].endswith(f"/messages/{message['id']}")


def test_a_delete_that_answers_a_confirmation_removes_the_record(client: Client) -> None:
    made, other = _send(client), _send(client, to="+15550155")
    assert client.ok("deleteMessage", id=made["id"]) == {"deleted": True}
    assert client.refused("getMessage", id=made["id"]) == "not_found"
    assert client.refused("deleteMessage", id=made["id"]) == "not_found"
    assert client.ok("getMessage", id=other["id"]) == {"data": other}


FOLDER = {"$ref": "#/components/schemas/Folder"}
ID_PATH = _path("id")
DRIVE = {
    "openapi": "3.0.0",
    "info": {"title": "Drive", "version": "1"},
    "components": {
        "schemas": {
            "Folder": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": TEXT,
                    "name": TEXT,
                    "children": {"type": "array", "items": FOLDER},  # folders in folders
                },
            }
        }
    },
    "paths": {
        "/folders": {
            "post": {
                "operationId": "createFolder",
                "requestBody": _body(
                    {"type": "object", "required": ["name"], "properties": {"name": TEXT}}
                ),
                "responses": _ok(FOLDER),
            },
        },
        "/folders/{id}/zip": {  # not a folder: the compiler cannot say what it answers
            "get": {
                "operationId": "zipFolder",
                "parameters": ID_PATH,
                "responses": _ok({"type": "array", "items": TEXT}),
            }
        },
        "/folders/{id}": {
            "get": {"operationId": "getFolder", "parameters": ID_PATH, "responses": _ok(FOLDER)}
        },
        "/folders/{id}/bytes": {
            "get": {
                "operationId": "bytesOfFolder",
                "parameters": ID_PATH,
                "responses": _ok({"type": "array", "items": {"type": "integer"}}),
            }
        },
    },
}


def test_a_record_that_holds_its_own_kind_compiles_and_skips_say_why_in_spec_order() -> None:
    specs, _ = ingest_document(orjson.dumps(DRIVE), source_file="drive.json")
    compiled = compile_service(specs)
    assert list(compiled.skipped) == ["zipFolder", "bytesOfFolder"]  # as the spec lists them
    assert compiled.skipped["zipFolder"] == "output is not a folder record"
    drive = Client(load_service(compiled.source))
    made = drive.ok("createFolder", name="Plans")
    assert drive.ok("getFolder", id=made["id"]) == made and made["name"] == "Plans"
    assert made.get("children") in (None, [])
