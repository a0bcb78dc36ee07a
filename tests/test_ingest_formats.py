"""Each supported format, detected from content, parsed into ToolSpecs with the right shape."""

from __future__ import annotations

import orjson
import pytest
import yaml

from library.ingest import ingest_document
from library.ingest.openapi import derived_name
from library.toolspec import ErrorKind, SpecFormat, ToolSpec, Verb


def by_name(specs: list[ToolSpec]) -> dict[str, ToolSpec]:
    return {s.name: s for s in specs}


def semantic(spec: ToolSpec, side: str, path: str) -> tuple[str | None, str | None]:
    for f in spec.fields:
        if f.side == side and f.path == path:
            return f.semantic, f.ref
    raise AssertionError(
        f"no {side} field {path!r} in {spec.name}: {[f.path for f in spec.fields]}"
    )


OPENAPI_30 = {
    "openapi": "3.0.3",
    "x-service-name": "crm",
    "info": {"title": "CRM", "version": "1"},
    "paths": {
        "/contacts": {
            "get": {
                "operationId": "listContacts",
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    {"name": "X-Api-Key", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "data": {
                                            "type": "array",
                                            "items": {"$ref": "#/components/schemas/Contact"},
                                        }
                                    },
                                }
                            }
                        },
                    }
                },
            },
            "post": {
                "summary": "Create a contact",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/NewContact"}}
                    },
                },
                "responses": {
                    "201": {
                        "description": "created",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Contact"}}
                        },
                    }
                },
            },
        },
        "/contacts/{contact_id}": {
            "parameters": [{"$ref": "#/components/parameters/ContactId"}],
            "get": {
                "operationId": "getContact",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Contact"}}
                        },
                    }
                },
            },
            "patch": {
                "operationId": "updateContact",
                "parameters": [{"name": "notify", "in": "query", "schema": {"type": "boolean"}}],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "allOf": [
                                    {"$ref": "#/components/schemas/NewContact"},
                                    {"properties": {"owner_id": {"type": "string"}}},
                                ]
                            }
                        }
                    }
                },
                "responses": {"204": {"description": "no content"}},
            },
            "delete": {
                "operationId": "deleteContact",
                "responses": {"204": {"description": "gone"}},
            },
        },
        "/tickets/{id}/assign": {
            "post": {
                "operationId": "assignTicket",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"type": "array", "items": {"type": "string"}}
                        }
                    }
                },
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/tree": {
            "get": {
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
                        },
                    }
                }
            },
            "options": {"responses": {"200": {"description": "cors"}}},
        },
    },
    "components": {
        "parameters": {
            "ContactId": {
                "name": "contact_id",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
            }
        },
        "schemas": {
            "NewContact": {
                "type": "object",
                "required": ["email"],
                "properties": {
                    "email": {"type": "string", "format": "email"},
                    "full_name": {"type": "string"},
                    "phone": {"type": "string", "nullable": True},
                    "company_name": {"type": "string"},
                    "birthday": {"type": "string", "format": "date"},
                },
            },
            "Contact": {
                "allOf": [
                    {"$ref": "#/components/schemas/NewContact"},
                    {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "created_at": {"type": "string", "format": "date-time"},
                            "balance": {"type": "number"},
                            "currency": {"type": "string"},
                        },
                    },
                ]
            },
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                },
            },
        },
    },
}


@pytest.fixture(scope="module")
def crm() -> dict[str, ToolSpec]:
    specs, errors = ingest_document(orjson.dumps(OPENAPI_30), source_file="whatever.txt")
    assert [e.kind for e in errors] == [ErrorKind.UNSUPPORTED]  # only the OPTIONS operation
    return by_name(specs)


def test_openapi_30_operations_and_service(crm: dict[str, ToolSpec]) -> None:
    assert set(crm) == {
        "listContacts", "post_contacts", "getContact", "updateContact", "deleteContact",
        "assignTicket", "get_tree",
    }  # fmt: skip
    assert {s.service for s in crm.values()} == {"crm"}
    assert {s.format for s in crm.values()} == {SpecFormat.OPENAPI3}
    assert crm["post_contacts"].source_pointer == "/paths/~1contacts/post"
    assert crm["post_contacts"].description == "Create a contact"


def test_openapi_parameters_merge_into_one_input(crm: dict[str, ToolSpec]) -> None:
    listing = crm["listContacts"].input_schema
    assert set(listing["properties"]) == {"limit"}  # header parameters are transport
    update = crm["updateContact"]
    assert set(update.input_schema["properties"]) == {
        "contact_id", "notify", "email", "full_name", "phone", "company_name", "birthday",
        "owner_id",
    }  # fmt: skip
    assert update.input_schema["required"] == ["contact_id", "email"]
    assert update.http is not None and update.http.params["contact_id"] == "path"
    assert update.http.params["notify"] == "query" and update.http.params["email"] == "body"
    assert update.output_schema is None  # 204
    assign = crm["assignTicket"]
    assert assign.input_schema["properties"]["body"]["type"] == "array"  # non-object body


def test_openapi_schema_normalization(crm: dict[str, ToolSpec]) -> None:
    create = crm["post_contacts"]
    assert create.input_schema["properties"]["phone"]["type"] == ["string", "null"]
    out = create.output_schema
    assert out is not None and out["type"] == "object"  # allOf of objects folded into one
    assert {"email", "id", "created_at", "balance"} <= set(out["properties"])
    tree = crm["get_tree"].output_schema
    assert tree is not None
    assert tree["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert tree["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_openapi_verbs_resources_access(crm: dict[str, ToolSpec]) -> None:
    expect = {
        "listContacts": ("contacts", Verb.LIST, "read"),
        "post_contacts": ("contacts", Verb.CREATE, "write"),
        "getContact": ("contacts", Verb.READ, "read"),
        "updateContact": ("contacts", Verb.UPDATE, "write"),
        "deleteContact": ("contacts", Verb.DELETE, "write"),
        "assignTicket": ("tickets", Verb.ACTION, "write"),
    }
    for name, (resource, verb, access) in expect.items():
        spec = crm[name]
        assert (spec.resource, spec.verb, spec.access) == (resource, verb, access), name


def test_openapi_semantic_types(crm: dict[str, ToolSpec]) -> None:
    create = crm["post_contacts"]
    assert semantic(create, "input", "email") == ("email", None)
    assert semantic(create, "input", "full_name") == ("person_name", None)
    assert semantic(create, "input", "phone") == ("phone", None)
    assert semantic(create, "input", "company_name") == ("company", None)
    assert semantic(create, "input", "birthday") == ("date", None)
    assert semantic(create, "output", "id") == ("id", "contacts")
    assert semantic(create, "output", "created_at") == ("datetime", None)
    assert semantic(create, "output", "balance") == ("money", None)
    assert semantic(create, "output", "currency") == ("currency", None)
    assert semantic(crm["getContact"], "input", "contact_id") == ("id", "contacts")
    assert semantic(crm["listContacts"], "output", "data[].id") == ("id", "contacts")
    assert semantic(crm["updateContact"], "input", "owner_id") == ("id", "owners")
    assert "email" in crm["post_contacts"].semantics("input")
    assert crm["getContact"].id_refs == {"input:contact_id": "contacts", "output:id": "contacts"}


OPENAPI_31_YAML = """
openapi: 3.1.0
info: {title: Billing API, version: '2'}
paths:
  /invoices/{invoiceId}:
    get:
      parameters:
        - {name: invoiceId, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  amount: {type: number}
                  due_date: {type: string, format: date}
                  customer:
                    type: object
                    properties:
                      id: {type: [string, 'null']}
                      email: {type: string}
                  count: {type: ["null", "integer"]}
                  status:
                    oneOf: [{type: string}, {type: integer}]
"""


def test_openapi_31_yaml_type_unions_and_derived_name() -> None:
    specs, errors = ingest_document(OPENAPI_31_YAML.encode(), source_file="billing.json")
    assert errors == []
    (spec,) = specs
    assert spec.name == "get_invoices_by_invoice_id"  # no operationId: derived, stable
    assert spec.service == "billing"  # the file name, whatever its extension
    assert spec.format_version == "3.1.0"
    out = spec.output_schema
    assert out is not None and out["properties"]["count"]["type"] == ["null", "integer"]
    assert len(out["properties"]["status"]["oneOf"]) == 2
    assert semantic(spec, "input", "invoiceId") == ("id", "invoices")
    assert semantic(spec, "output", "customer.id") == ("id", "customers")
    assert semantic(spec, "output", "customer.email") == ("email", None)
    assert semantic(spec, "output", "due_date") == ("date", None)
    assert semantic(spec, "output", "amount") == ("money", None)
    assert (spec.resource, spec.verb, spec.access) == ("invoices", Verb.READ, "read")


def test_derived_names_are_stable_and_valid() -> None:
    assert derived_name("get", "/contacts/{contact_id}/notes") == "get_contacts_by_contact_id_notes"
    long = derived_name("post", "/" + "/".join(f"segment{i}/{{p{i}}}" for i in range(20)))
    assert len(long) <= 64 and long == derived_name(
        "post", "/" + "/".join(f"segment{i}/{{p{i}}}" for i in range(20))
    )


SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Pets", "version": "1"},
    "consumes": ["application/json"],
    "paths": {
        "/pets": {
            "post": {
                "operationId": "addPet",
                "parameters": [
                    {
                        "name": "body",
                        "in": "body",
                        "required": True,
                        "schema": {"$ref": "#/definitions/Pet"},
                    },
                    {"name": "dry_run", "in": "query", "type": "boolean"},
                ],
                "responses": {
                    "200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}
                },
            },
            "get": {
                "operationId": "findPets",
                "parameters": [
                    {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}},
                    {"name": "owner_email", "in": "query", "type": "string", "x-nullable": True},
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "schema": {"type": "array", "items": {"$ref": "#/definitions/Pet"}},
                    }
                },
            },
        },
        "/pets/{petId}/photo": {
            "post": {
                "operationId": "uploadPhoto",
                "consumes": ["multipart/form-data"],
                "parameters": [
                    {"name": "petId", "in": "path", "required": True, "type": "integer"},
                    {"name": "file", "in": "formData", "type": "file", "required": True},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
    "definitions": {
        "Pet": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "id": {"type": "integer", "format": "int64"},
                "name": {"type": "string"},
                "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            },
        }
    },
}


def test_swagger_20() -> None:
    specs, errors = ingest_document(orjson.dumps(SWAGGER), source_file="pets.json")
    assert errors == []
    s = by_name(specs)
    add = s["addPet"]
    assert add.format == SpecFormat.SWAGGER2
    assert set(add.input_schema["properties"]) == {"id", "name", "price", "dry_run"}
    assert add.input_schema["required"] == ["name"]
    assert add.input_schema["properties"]["price"] == {"type": "number", "exclusiveMinimum": 0}
    assert (
        add.output_schema is not None and add.output_schema["properties"]["id"]["type"] == "integer"
    )
    find = s["findPets"]
    assert find.input_schema["properties"]["owner_email"]["type"] == ["string", "null"]
    assert semantic(find, "input", "owner_email") == ("email", None)
    assert find.verb == Verb.SEARCH and find.access == "read"
    assert semantic(find, "output", "[].id") == ("id", "pets")
    upload = s["uploadPhoto"]
    assert upload.input_schema["properties"]["file"] == {"type": "string", "format": "binary"}
    assert upload.input_schema["required"] == ["petId", "file"]
    assert (
        upload.http is not None and upload.http.content_type == "application/x-www-form-urlencoded"
    )


MCP = {
    "tools": [
        {
            "name": "send_email",
            "description": "Send an email",
            "inputSchema": {
                "type": "object",
                "properties": {"to": {"type": "string", "description": "Recipient email address"}},
                "required": ["to"],
            },
            "annotations": {"readOnlyHint": False},
        },
        {
            "name": "lookup",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            "annotations": {"readOnlyHint": True},
            "outputSchema": {"type": "object", "properties": {"website": {"type": "string"}}},
        },
        {"description": "no name"},
    ]
}


def test_mcp_tools_list_with_annotations() -> None:
    specs, errors = ingest_document(orjson.dumps(MCP), source_file="mail-server.json")
    assert [(e.kind, e.pointer) for e in errors] == [(ErrorKind.INVALID_OPERATION, "/tools/2")]
    s = by_name(specs)
    assert s["send_email"].format == SpecFormat.MCP and s["send_email"].service == "mail_server"
    assert semantic(s["send_email"], "input", "to") == ("email", None)
    assert (s["send_email"].access, s["send_email"].access_source) == ("write", "readOnlyHint")
    assert (s["lookup"].access, s["lookup"].access_source) == ("read", "readOnlyHint")
    assert semantic(s["lookup"], "output", "website") == ("url", None)
    # MCP's JSON-RPC envelope is unwrapped too.
    wrapped = {"jsonrpc": "2.0", "id": 1, "result": MCP}
    specs2, _ = ingest_document(orjson.dumps(wrapped), source_file="mail-server.json")
    assert [x.name for x in specs2] == [x.name for x in specs]


OPENAI = [
    {
        "type": "function",
        "x-tool-type": "read",
        "function": {
            "name": "book_flight",
            "description": "Despite the name, declared read-only.",
            "parameters": {
                "$defs": {
                    "Passenger": {
                        "type": "object",
                        "properties": {
                            "first_name": {"type": "string"},
                            "email": {"type": "string"},
                            "phone_number": {"type": "string"},
                        },
                    }
                },
                "type": "object",
                "properties": {
                    "passengers": {"type": "array", "items": {"$ref": "#/$defs/Passenger"}},
                    "user_id": {"type": "string"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cancel_booking",
            "parameters": {"type": "object", "properties": {"booking_id": {"type": "string"}}},
        },
    },
]


def test_openai_functions_with_defs_and_tags() -> None:
    specs, errors = ingest_document(orjson.dumps(OPENAI), source_file="travel.json")
    assert errors == []
    s = by_name(specs)
    book = s["book_flight"]
    assert book.format == SpecFormat.OPENAI
    assert (book.access, book.access_source, book.vendor["x-tool-type"]) == (
        "read",
        "x-tool-type",
        "read",
    )
    items = book.input_schema["properties"]["passengers"]["items"]
    assert items["properties"]["email"] == {"type": "string"}  # $defs reference inlined
    assert semantic(book, "input", "passengers[].email") == ("email", None)
    assert semantic(book, "input", "passengers[].phone_number") == ("phone", None)
    assert semantic(book, "input", "user_id") == ("id", "users")
    cancel = s["cancel_booking"]
    assert (cancel.resource, cancel.verb, cancel.access) == ("bookings", Verb.ACTION, "write")


BFCL = "\n".join(
    orjson.dumps(x).decode()
    for x in [
        {
            "name": "get_stock_info",
            "description": "Get stock info.",
            "parameters": {
                "type": "dict",
                "properties": {
                    "symbol": {"type": "string"},
                    "price": {"type": "float"},
                    "meta": {"type": "any"},
                    "pair": {"type": "tuple", "items": {"type": "String"}},
                },
                "required": ["symbol"],
            },
            "response": {"type": "dict", "properties": {"price": {"type": "float"}}},
        },
        {
            "name": "place_order",
            "description": "Place an order.",
            "parameters": {"type": "dict", "properties": {}},
        },
    ]
)


def test_bfcl_json_lines_and_type_names() -> None:
    specs, errors = ingest_document(
        (BFCL + "\n{not json\n").encode(), source_file="trading_bot.json"
    )
    assert [(e.kind, e.pointer) for e in errors] == [(ErrorKind.INVALID_OPERATION, "/2")]
    s = by_name(specs)
    info = s["get_stock_info"]
    assert info.format == SpecFormat.BFCL
    props = info.input_schema["properties"]
    assert info.input_schema["type"] == "object"
    assert props["price"] == {"type": "number"} and props["meta"] == {}
    assert props["pair"] == {"type": "array", "items": {"type": "string"}}
    assert info.output_schema == {"type": "object", "properties": {"price": {"type": "number"}}}
    assert (info.verb, info.access) == (Verb.READ, "read")
    assert (s["place_order"].verb, s["place_order"].resource) == (Verb.CREATE, "orders")


DOCKER = [
    {
        "name": "sendMessage",
        "description": "Send an email message",
        "arguments": [
            {"name": "to", "type": "string", "desc": "Recipient email address"},
            {"name": "cc", "type": "string", "desc": "CC email address (optional)"},
            {"name": "count", "type": "number", "desc": "", "optional": True},
        ],
    },
    {"name": "listMessages", "description": "List recent messages"},
]


def test_docker_registry_list() -> None:
    specs, errors = ingest_document(orjson.dumps(DOCKER), source_file="gmail-mcp.json")
    assert errors == []
    s = by_name(specs)
    send = s["sendMessage"]
    assert send.format == SpecFormat.DOCKER_MCP
    assert send.input_schema["required"] == ["to"]
    assert send.input_schema["properties"]["count"] == {"type": "number"}
    assert semantic(send, "input", "cc") == ("email", None)
    assert (send.verb, send.resource, send.access) == (Verb.ACTION, "messages", "write")
    assert (s["listMessages"].verb, s["listMessages"].access) == (Verb.LIST, "read")


def test_yaml_and_json_give_the_same_tools() -> None:
    as_json, _ = ingest_document(orjson.dumps(OPENAPI_30), source_file="crm.json")
    as_yaml, _ = ingest_document(yaml.safe_dump(OPENAPI_30).encode(), source_file="crm.yaml")
    assert sorted(s.id for s in as_json) == sorted(s.id for s in as_yaml)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"", ErrorKind.PARSE_ERROR),
        (b'{"openapi": ', ErrorKind.PARSE_ERROR),
        (b"just: [a yaml, mapping]", ErrorKind.UNKNOWN_FORMAT),
        (b"[1, 2, 3]", ErrorKind.UNKNOWN_FORMAT),
        (b'{"openapi": "3.0.0", "info": {}}', ErrorKind.EMPTY),
        (b'{"openapi": "3.0.0", "paths": []}', ErrorKind.INVALID_DOCUMENT),
        (b'{"tools": []}', ErrorKind.EMPTY),
    ],
)
def test_unusable_documents_are_explained(data: bytes, kind: ErrorKind) -> None:
    specs, errors = ingest_document(data, source_file="bad.json")
    assert specs == []
    assert [e.kind for e in errors] == [kind]
    assert errors[0].message and errors[0].source_file == "bad.json"


def test_broken_operations_do_not_sink_the_document() -> None:
    doc = {
        "openapi": "3.0.0",
        "paths": {
            "/a": {"get": "not an object", "post": {"operationId": "makeA"}},
            "/b": ["nope"],
            "/c/{id}": {
                "get": {
                    "operationId": "getC",
                    "parameters": [{"$ref": "#/components/parameters/Missing"}, {"in": "query"}],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"$ref": "ext.yaml#/C"}}},
                        }
                    },
                }
            },
        },
    }
    specs, errors = ingest_document(orjson.dumps(doc), source_file="partial.json")
    assert sorted(s.name for s in specs) == ["getC", "makeA"]
    dropped = {(e.pointer, e.kind) for e in errors if e.severity == "error"}
    assert dropped == {
        ("/paths/~1a/get", ErrorKind.INVALID_OPERATION),
        ("/paths/~1b", ErrorKind.INVALID_OPERATION),
    }
    warnings = {e.kind for e in errors if e.severity == "warning"}
    assert warnings == {ErrorKind.BAD_REF, ErrorKind.INVALID_SCHEMA}
    external = next(e for e in errors if "external" in e.message)
    assert "bundle" in external.message  # says how to fix it
    get_c = next(s for s in specs if s.name == "getC")
    assert get_c.input_schema["properties"]["id"] == {"type": "string"}  # undeclared path param


def test_duplicates_are_renamed_or_dropped() -> None:
    tool = {"name": "get_user", "parameters": {"type": "object", "properties": {}}}
    other = {
        "name": "get_user",
        "description": "different",
        "parameters": {"type": "object", "properties": {}},
    }
    specs, errors = ingest_document(orjson.dumps([tool, tool, other]), source_file="users.json")
    assert [s.name for s in specs] == ["get_user", "get_user_2"]
    assert [e.kind for e in errors] == [ErrorKind.DUPLICATE, ErrorKind.DUPLICATE]


def test_a_renamed_tool_name_is_a_warning_naming_both_names() -> None:
    """Model APIs accept ``[A-Za-z0-9_-]{1,64}``: a unicode or dotted name is renamed, and
    the rename is reported where it happened (it used to happen without a word)."""
    openapi = {
        "openapi": "3.0.3",
        "info": {"title": "Küche", "version": "1"},
        "paths": {
            "/größe": {"get": {"operationId": "größe_prüfen", "responses": {"200": {}}}},
            "/ok": {"get": {"operationId": " listItems ", "responses": {"200": {}}}},
        },
    }
    functions = [
        {"type": "function", "function": {"name": "envoyer.réponse", "parameters": {}}},
        {"type": "function", "function": {"name": "send_reply", "parameters": {}}},
    ]
    got = []
    for label, doc in (("kueche.json", openapi), ("fr.json", functions)):
        tools, errors = ingest_document(orjson.dumps(doc), source_file=label)
        assert len(tools) == 2, label  # renamed, not dropped
        got += [(e.source_file, e.pointer, e.kind, e.severity, e.tool) for e in errors]
        got += [e.message for e in errors]
    assert got == [
        (
            "kueche.json",
            "/paths/~1größe/get/operationId",
            ErrorKind.RENAMED,
            "warning",
            "gr_e_pr_fen",
        ),
        "tool name 'größe_prüfen' renamed to 'gr_e_pr_fen': model APIs accept only A-Z, a-z, "
        "0-9, _ and - in a tool name, at most 64 characters",
        ("fr.json", "/0/function/name", ErrorKind.RENAMED, "warning", "envoyer_r_ponse"),
        "tool name 'envoyer.réponse' renamed to 'envoyer_r_ponse': model APIs accept only A-Z, "
        "a-z, 0-9, _ and - in a tool name, at most 64 characters",
    ]
