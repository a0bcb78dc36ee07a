"""What specs written by others leave unsaid, met by general rules (issue 12's wild set):

- a number naming a record of a numbered collection is a reference, checked like an integer
  one (``search_contacts(companyID: number)``: an unknown company is ``not_found``);
- records other tools refer to by number are numbered (``create_ticket(contactID: number)``
  says contacts have whole-number ids, though no tool of theirs names one);
- a liveness, readiness or health probe with no body to fill (``GET /health``,
  ``GET /readyz -> string``) answers "ok" in its declared shape and changes nothing;
- a tool whose name holds no verb reads what it names when its description opens with a
  reading verb (``predictions_by_ticker``: "Get detailed predictions ...");
- a parameter the tools of every resource take (``repo_path``) is the context of a call,
  not a sign of which resource an orphan tool acts on.
"""

from __future__ import annotations

import orjson

from library.compiler import compile_service, load_service, plan_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.seed.vocab import DEPARTMENTS
from library.toolspec import Verb
from library.verify import build_service


def _mcp(tools: list[dict]) -> bytes:
    return orjson.dumps({"tools": tools})


def _tool(name: str, description: str, props: dict, required: list[str]) -> dict:
    schema = {"type": "object", "properties": props, "required": required}
    return {"name": name, "description": description, "inputSchema": schema}


NUM = {"type": "number"}
TEXT = {"type": "string"}


def _world(specs: list) -> tuple[World, str]:
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    return world, cls.name


def test_a_number_naming_a_numbered_record_is_checked() -> None:
    doc = _mcp([
        _tool("create_company", "Create a company", {"name": TEXT}, ["name"]),
        _tool("get_company", "Get a company", {"companyId": NUM}, ["companyId"]),
        _tool("list_companies", "List companies", {}, []),
        _tool("search_contacts", "Search contacts", {"companyID": NUM}, ["companyID"]),
        _tool("create_contact", "Create a contact",
              {"companyID": NUM, "firstName": TEXT}, ["companyID", "firstName"]),
    ])  # fmt: skip
    specs, _ = ingest_document(doc, source_file="crm.json")
    built = build_service(specs)
    for name in ("search_contacts", "create_contact"):
        assert name in built.verified, built.outcomes[name]
    world, service = _world(specs)
    company = next(iter(world.services[service].state.companies))
    found = world.call(qualified(service, "search_contacts"), {"companyID": float(company)})
    assert found["success"], found
    unknown = world.call(qualified(service, "search_contacts"), {"companyID": 987654.0})
    assert unknown["error"]["code"] == "not_found"
    part = world.call(qualified(service, "create_contact"), {"companyID": 1.5, "firstName": "A"})
    assert part["error"]["code"] == "not_found"  # no whole number: it names no company


def test_records_referred_to_by_number_are_numbered() -> None:
    doc = _mcp([
        _tool("create_contact", "Create a contact", {"firstName": TEXT}, ["firstName"]),
        _tool("list_contacts", "List contacts", {}, []),
        _tool("create_ticket", "Create a ticket",
              {"contactID": NUM, "title": TEXT}, ["contactID", "title"]),
        _tool("list_tickets", "List tickets", {}, []),
    ])  # fmt: skip
    specs, _ = ingest_document(doc, source_file="desk.json")
    listed = next(s for s in specs if s.name == "list_contacts")
    assert listed.output_schema["items"]["properties"]["contact_id"] == {"type": "integer"}
    built = build_service(specs)
    assert "create_ticket" in built.verified, built.outcomes["create_ticket"]
    world, service = _world(specs)
    contact = next(iter(world.services[service].state.contacts))
    args = {"contactID": int(contact), "title": "Printer jam"}
    assert world.call(qualified(service, "create_ticket"), args)["success"]
    args["contactID"] = 987654
    assert world.call(qualified(service, "create_ticket"), args)["error"]["code"] == "not_found"


def _answer(schema: dict | None) -> dict:
    if schema is None:
        return {"200": {"description": "Service is alive"}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


NOTE = {"type": "object", "required": ["id", "text"],
        "properties": {"id": {"type": "string"}, "text": {"type": "string"}}}  # fmt: skip
PROBES = {
    "openapi": "3.0.0",
    "info": {"title": "Notes", "version": "1"},
    "paths": {
        "/notes/{id}": {"get": {
            "operationId": "getNote",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": TEXT}],
            "responses": _answer(NOTE),
        }},
        "/health": {"get": {"responses": _answer(None)}},
        "/api/v1/readyz": {"get": {"responses": _answer({"type": "string"})}},
        "/healthz": {"get": {"responses": _answer(
            {"type": "object", "additionalProperties": {"type": "string"}})}},
        "/ping": {"get": {"responses": _answer({"type": "string", "enum": ["pong"]})}},
        # not probes: a check of something named, a write, a status that is data
        "/health/{component}": {"get": {
            "parameters": [{"name": "component", "in": "path", "required": True,
                            "schema": TEXT}],
            "responses": _answer(None),
        }},
        "/heartbeat": {"post": {"responses": _answer(None)}},
        "/status": {"get": {"responses": _answer(None)}},
    },
}  # fmt: skip


def test_probes_answer_that_the_service_is_up() -> None:
    specs, _ = ingest_document(orjson.dumps(PROBES), source_file="notes.json")
    names = {s.http.path: s.name for s in specs if s.http}
    probes = [names[p] for p in ("/health", "/api/v1/readyz", "/healthz", "/ping")]
    built = build_service(specs)
    for name in probes:
        assert name in built.verified, built.outcomes[name]
    plan = plan_service(specs)
    for path in ("/health/{component}", "/heartbeat", "/status"):
        assert names[path] in plan.skipped, path
    world, service = _world(specs)
    before = world.state_hash()
    answers = [world.call(qualified(service, name), {})["data"] for name in probes]
    assert answers == [{"status": "ok"}, "ok", {"status": "ok"}, "pong"]
    assert world.state_hash() == before


FINANCE = _mcp([
    _tool("predictions_by_ticker", "Get detailed predictions for a specific ticker",
          {"ticker": TEXT, "horizon": TEXT}, ["ticker"]),
    _tool("Trending_Headlines", "Get top headlines, optionally filtered by country.",
          {"country": TEXT}, []),
    _tool("available_markets", "Lists every market the service covers", {}, []),
    # a description that opens with a write: not taken from prose
    _tool("desktop_interrupt", "Stops the task the computer is running right now", {}, []),
    _tool("ticker_news", "News about one ticker", {"ticker": TEXT}, ["ticker"]),
])  # fmt: skip


def test_a_name_without_a_verb_reads_what_its_description_says() -> None:
    specs, _ = ingest_document(FINANCE, source_file="finance.json")
    by_name = {s.name: s for s in specs}
    read = {n: (by_name[n].verb, by_name[n].resource, by_name[n].access) for n in by_name}
    assert read["predictions_by_ticker"] == (Verb.LIST, "predictions", "read")
    assert read["Trending_Headlines"] == (Verb.LIST, "trending_headlines", "read")
    assert read["available_markets"] == (Verb.LIST, "markets", "read")
    assert read["desktop_interrupt"][:2] == (None, None)
    assert read["ticker_news"][:2] == (None, None)
    built = build_service(specs)
    for name in ("predictions_by_ticker", "Trending_Headlines", "available_markets"):
        assert name in built.verified, built.outcomes[name]
    assert built.outcomes["desktop_interrupt"] != "verified"


REPO = {"repo_path": TEXT}
GIT = _mcp([
    _tool("git_create_branch", "Creates a branch", {**REPO, "branch_name": TEXT},
          ["repo_path", "branch_name"]),
    _tool("git_branch", "List Git branches", REPO, ["repo_path"]),
    _tool("git_log", "Shows the commit logs", REPO, ["repo_path"]),
    _tool("git_commit", "Records changes to the repository", {**REPO, "message": TEXT},
          ["repo_path", "message"]),
])  # fmt: skip


def test_a_parameter_every_tool_takes_names_no_resource() -> None:
    specs, _ = ingest_document(GIT, source_file="git.json")
    plan = plan_service(specs)
    assert {t.name: t.resource for t in plan.tools}.get("git_branch") == "branches"
    # the repository every tool works in does not make a commit a branch
    assert plan.skipped.get("git_commit") == "no resource recognised"


def test_a_contact_s_department_is_a_department() -> None:
    """ "Name of the contact's department" names a department, not a person (WhatsApp's
    contact ``org``: read as a person's name, it was seeded with the contact's name or, for
    a contact with no department on record, left empty, which failed the field's type and
    stopped every tool of the service)."""
    dept = {"type": "string", "minLength": 1, "description": "Name of the contact's department"}
    org = {"type": "object", "properties": {"company": TEXT, "department": dept}}
    doc = _mcp([
        _tool("create_contact", "Create a contact",
              {"first_name": TEXT, "email": TEXT, "org": org}, ["first_name", "email", "org"]),
        _tool("get_contact", "Get a contact", {"contact_id": TEXT}, ["contact_id"]),
        _tool("list_contacts", "List contacts", {}, []),
    ])  # fmt: skip
    specs, _ = ingest_document(doc, source_file="contacts.json")
    world, name = _world(specs)
    contacts = world.services[name].state.contacts
    assert contacts and all(c.org.department in DEPARTMENTS for c in contacts.values())


def test_records_named_by_a_number_parameter_have_whole_number_ids() -> None:
    """Vimeo's paths take ``video_id`` as a JSON ``number`` while its videos show only a
    ``uri``: the ids are whole numbers, the parameters take them (108 of its tools were
    rejected as "id parameter 'video_id' is float, record ids are strings")."""
    video = {"type": "object", "properties": {"uri": TEXT, "name": TEXT, "description": TEXT}}
    ok = {"200": {"content": {"application/json": {"schema": video}}}}
    by_id = [{"name": "video_id", "in": "path", "required": True, "schema": NUM}]
    body = {"content": {"application/json": {"schema": video}}}
    doc = orjson.dumps({
        "openapi": "3.0.0",
        "info": {"title": "Videos", "version": "1"},
        "paths": {
            "/videos": {
                "get": {"operationId": "list_videos", "responses": {"200": {"content": {
                    "application/json": {"schema": {"type": "array", "items": video}}}}}},
                "post": {"operationId": "create_video", "requestBody": body, "responses": ok},
            },
            "/videos/{video_id}": {
                "get": {"operationId": "get_video", "parameters": by_id, "responses": ok},
                "patch": {"operationId": "edit_video", "parameters": by_id, "requestBody": body,
                          "responses": ok},
            },
        },
    })  # fmt: skip
    specs, _ = ingest_document(doc, source_file="videos.json")
    built = build_service(specs)
    for name in ("get_video", "edit_video"):
        assert name in built.verified, built.outcomes[name]
