"""Conformance catches a list whose filter or query does not narrow (``filter_narrows``).

The compiler once emitted an optional search split over lines as ``(not q or _mentions(...),)``:
a one-element tuple, always true, so the search ignored its query, and 8 such tools were
verified. Each optional filter of a list (a parameter named for a key its items show, an enum,
a list member) and each free-text query is now called with a value no listed record holds (the
answer lists none of the records listed without it) and with a listed record's own value (the
answer lists that record, and only records holding the value). A small hand-written service
passes; each variant with one filtering bug fails ``filter_narrows`` with a message naming the
parameter; a compiled search passes, and fails once the old emitter bug is put back.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Literal

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import Record, Service, State, World, tool
from library.runtime.world import qualified
from library.seed import SeedPool, seed_pool
from library.verify import CheckResult, run_conformance, verified_tools
from library.verify.conformance import _holds

Status = Literal["open", "on_hold", "closed", "archived"]
STATUSES = ["open", "on_hold", "closed", "archived"]
# seeded: (title, status, tags); no ticket is archived, so ``archived`` is a value none holds
SEEDED = [
    ("Printer jams on floor two", "open", ["hardware"]),
    ("Reset the VPN password", "on_hold", ["access", "network"]),
    ("Invoice total is wrong", "closed", ["billing"]),
    ("Laptop will not boot", "open", ["hardware"]),
    ("Grant access to the wiki", "closed", ["access"]),
]
TICKET = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "string", "enum": STATUSES},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "title", "status", "tags"],
}
LIST_TICKETS = {
    "service": "tickets",
    "name": "list_tickets",
    "verb": "list",
    "resource": "tickets",
    "access": "read",
    "input_schema": {
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "status": {"type": "string", "enum": STATUSES},
            "tags": {"type": "string"},
            "q": {"type": "string"},
        },
        "required": [],
    },
    "output_schema": {"type": "array", "items": TICKET},
    "fields": [],
}


class Ticket(Record):
    title: str
    status: Status
    tags: list[str] = []


class TicketsState(State):
    tickets: dict[str, Ticket] = {}


def _listed(
    svc: Tickets, limit: int, status: str | None, tags: str | None, q: str | None
) -> list[Ticket]:
    """The correct selection: equal status, a member tag, the query in the title."""
    text = (q or "").strip().casefold()
    found = [
        t
        for t in svc.state.tickets.values()
        if (status is None or t.status == status)
        and (tags is None or tags in t.tags)
        and (not text or text in t.title.casefold())
    ]
    return found[:limit]


class Tickets(Service):
    """A correct help desk: every filter narrows."""

    name = "tickets"
    State = TicketsState
    state: TicketsState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> TicketsState:
        self.state = TicketsState()
        for title, status, tags in SEEDED:
            ticket = Ticket(id=self.new_id("tkt"), title=title, status=status, tags=tags)
            self.put("tickets", ticket)
        return self.state

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        q: str | None = None,
    ) -> list[Ticket]:
        """List tickets.

        Args:
            limit: Page size.
            status: Only tickets in this status.
            tags: Only tickets with this tag.
            q: Only tickets whose title mentions this text.
        """
        return _listed(self, limit, status, tags, q)


class QueryIgnored(Tickets):
    """The emitter's bug: the query's test is a one-element tuple, always true."""

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        q: str | None = None,
    ) -> list[Ticket]:
        """List tickets (the query is never applied)."""
        text = (q or "").strip().casefold()
        found = [
            t
            for t in _listed(self, limit, status, tags, None)
            if (not text or text in t.title.casefold(),)
        ]
        return found


class StatusIgnored(Tickets):
    """An enum filter accepted and never applied."""

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        q: str | None = None,
    ) -> list[Ticket]:
        """List tickets (whatever the status asked for)."""
        return _listed(self, limit, None, tags, q)


class TagsIgnored(Tickets):
    """A filter by list membership accepted and never applied."""

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        q: str | None = None,
    ) -> list[Ticket]:
        """List tickets (whatever the tag asked for)."""
        return _listed(self, limit, status, None, q)


class StatusByInitial(Tickets):
    """A filter too loose: ``on_hold`` tickets listed for ``open`` (same first letter)."""

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        q: str | None = None,
    ) -> list[Ticket]:
        """List tickets whose status starts as the one asked for does."""
        found = _listed(self, limit, None, tags, q)
        return [t for t in found if status is None or t.status[0] == status[0]]


class StatusDropsFirst(Tickets):
    """A filter that loses a match: the first ticket in the status is never listed."""

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        q: str | None = None,
    ) -> list[Ticket]:
        """List tickets in a status (an off-by-one skips the first)."""
        found = _listed(self, limit, status, tags, q)
        return found[1:] if status is not None else found


class TitleContains(Tickets):
    """Correct too: ``title`` matches part of a title, in any case (a looser filter that
    still narrows to the records holding the value)."""

    @tool
    def list_tickets(
        self,
        limit: int = 20,
        status: Status | None = None,
        tags: str | None = None,
        title: str | None = None,
    ) -> list[Ticket]:
        """List tickets.

        Args:
            limit: Page size.
            status: Only tickets in this status.
            tags: Only tickets with this tag.
            title: Only tickets whose title contains this text.
        """
        found = _listed(self, limit, status, tags, None)
        return [t for t in found if title is None or title.casefold() in t.title.casefold()]


def _title_spec() -> dict[str, Any]:
    props = {k: v for k, v in LIST_TICKETS["input_schema"]["properties"].items() if k != "q"}
    props["title"] = {"type": "string"}
    return {**LIST_TICKETS, "input_schema": {"type": "object", "properties": props}}


def failed(results: list[CheckResult]) -> dict[tuple[str, str], str]:
    return {(r.tool, r.check): r.detail for r in results if not r.passed}


def test_a_list_whose_filters_narrow_passes() -> None:
    results = run_conformance(Tickets, [LIST_TICKETS])
    assert failed(results) == {}
    assert ("list_tickets", "filter_narrows") in {(r.tool, r.check) for r in results}
    assert verified_tools(results) == {"list_tickets": True}


def test_a_filter_matching_part_of_a_text_in_any_case_passes() -> None:
    assert failed(run_conformance(TitleContains, [_title_spec()])) == {}


def test_a_search_that_ignores_its_query_fails() -> None:
    problems = failed(run_conformance(QueryIgnored, [LIST_TICKETS]))
    detail = problems[("list_tickets", "filter_narrows")]
    assert re.fullmatch(
        r"q='[a-z]{12}', held by no listed record, still listed the record whose id is "
        r"'tkt_\w+'",
        detail,
    ), detail


def test_an_enum_filter_that_is_ignored_fails() -> None:
    problems = failed(run_conformance(StatusIgnored, [LIST_TICKETS]))
    assert problems[("list_tickets", "filter_narrows")].startswith(
        "status='archived', held by no listed record, still listed the record whose id is "
    )


def test_a_filter_by_list_membership_that_is_ignored_fails() -> None:
    problems = failed(run_conformance(TagsIgnored, [LIST_TICKETS]))
    detail = problems[("list_tickets", "filter_narrows")]
    assert detail.startswith("tags='") and "held by no listed record" in detail, detail
    assert "(tags ['hardware'])" in detail


def test_a_filter_too_loose_or_losing_a_match_fails() -> None:
    loose = failed(run_conformance(StatusByInitial, [LIST_TICKETS]))
    assert loose[("list_tickets", "filter_narrows")] == (
        "status='open' listed a record whose status is 'on_hold'"
    )
    drops = failed(run_conformance(StatusDropsFirst, [LIST_TICKETS]))
    assert drops[("list_tickets", "filter_narrows")] == (
        "status='open' left out the record whose status is 'open'"
    )


def test_holds_is_equality_in_any_case_or_containment_for_text() -> None:
    assert _holds("Open", "open") and _holds("Printer jams", "jams")
    assert _holds(3, 3.0) and _holds("17", 17) and not _holds(3, 4)
    assert _holds("2026-01-02T00:00:00Z", "2026-01-02T00:00:00+00:00")
    assert _holds(True, True) and not _holds(True, False) and not _holds("open", "on_hold")


# -- the compiler's own search, and the emitter bug put back ----------------------------------
TEXT = {"type": "string"}
ARTICLE = {
    "headline_text": TEXT,
    "summary_paragraph": TEXT,
    "body_markdown": TEXT,
    "author_display_name": TEXT,
    "category_label": TEXT,
}


def _mcp(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict:
    schema = {"type": "object", "properties": props, "required": required}
    return {"name": name, "description": description, "inputSchema": schema}


# a search over many long text fields, and a filter: the query's test does not fit a line
ARTICLES = {
    "tools": [
        _mcp("create_article", "Create an article.", ARTICLE, list(ARTICLE)),
        _mcp(
            "search_articles",
            "Search the articles whose text mentions the query.",
            {"query": TEXT, "category_label": TEXT},
            [],
        ),
    ]
}
SPLIT_SEARCH = re.compile(r"\(\n\s+not q\n\s+or (_mentions\([^)]*\))\n\s+\)")


def _compiled() -> tuple[str, list[Any]]:
    specs, errors = ingest_document(json.dumps(ARTICLES).encode(), source_file="articles.json")
    assert specs, errors
    return compile_service(specs).source, specs


def _search_problem_of(source: str, specs: list[Any], tool: str) -> str | None:
    """What ``filter_narrows`` says of ``tool`` of the service ``source`` defines."""
    results = run_conformance(load_service(source), specs)
    assert (tool, "filter_narrows") in {(r.tool, r.check) for r in results}
    return failed(results).get((tool, "filter_narrows"))


def _search_problem(source: str, specs: list[Any]) -> str | None:
    return _search_problem_of(source, specs, "search_articles")


def test_a_compiled_search_narrows_and_the_tuple_bug_is_caught() -> None:
    source, specs = _compiled()
    assert SPLIT_SEARCH.search(source), "the search no longer spans lines: test another way"
    assert _search_problem(source, specs) is None
    tuple_bug = SPLIT_SEARCH.sub(r"(not q or \1,)", source)  # the emitter's old output
    assert tuple_bug != source
    detail = _search_problem(tuple_bug, specs)
    assert detail is not None and detail.startswith("query='"), detail
    assert "held by no listed record, still listed the record whose article_id is" in detail


def test_a_compiled_filter_that_is_ignored_is_caught() -> None:
    source, specs = _compiled()
    ignored = source.replace("category_label is None or", "True or", 1)
    assert ignored != source
    detail = _search_problem(ignored, specs)
    assert detail is not None and detail.startswith("category_label='"), detail


# -- a real emitter bug the check found: a search's own optional ``id`` was only checked ------
# (``search-files(id)`` of HubSpot Files, "Search files by given ID", listed every file)
FILE = {
    "type": "object",
    "properties": {"id": TEXT, "name": TEXT, "path": TEXT},
    "required": ["id", "name", "path"],
}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _query(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": TEXT, "description": description}


FILES_OF = {"type": "array", "items": FILE}
FILE_BODY = {"type": "object", "properties": {"name": TEXT, "path": TEXT}, "required": ["name"]}
FILES = {
    "openapi": "3.0.0",
    "info": {"title": "Files", "version": "1"},
    "paths": {
        "/files": {
            "post": {
                "operationId": "create_file",
                "requestBody": {"content": {"application/json": {"schema": FILE_BODY}}},
                "responses": _ok(FILE),
            }
        },
        "/files/{file_id}": {
            "get": {
                "operationId": "get_file",
                "parameters": [{"name": "file_id", "in": "path", "required": True, "schema": TEXT}],
                "responses": _ok(FILE),
            }
        },
        "/files/search": {
            "get": {
                "operationId": "search_files",
                "summary": "Search files",
                "parameters": [
                    _query("id", "Search files by given ID."),
                    _query("name", "Search files by name."),
                ],
                "responses": _ok({"type": "object", "properties": {"results": FILES_OF}}),
            }
        },
    },
}


def test_a_compiled_search_by_its_records_own_id_lists_that_record_only() -> None:
    specs, errors = ingest_document(json.dumps(FILES).encode(), source_file="files.json")
    assert specs, errors
    source = compile_service(specs).source
    cls = load_service(source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 4)
    every = world.call(qualified(cls.name, "search_files"), {})["data"]["results"]
    assert len(every) == 4
    one = world.call(qualified(cls.name, "search_files"), {"id": every[2]["id"]})
    assert one["data"]["results"] == [every[2]]
    assert _search_problem_of(source, specs, "search_files") is None
    # the emission before: the id checked to exist, every file listed
    head, body = source.replace("(id is None or r.id == id) and ", "").split("def search_files")
    check = '        if id is not None:\n            self.get("files", id)\n'
    checked_only = (
        head
        + "def search_files"
        + body.replace("        found = [", check + "        found = [", 1)
    )
    assert 'self.get("files", id)' in checked_only
    detail = _search_problem_of(checked_only, specs, "search_files")
    assert detail is not None and re.fullmatch(
        r"id='(fil_\w+)' listed a record whose id is '(?!\1')fil_\w+'", detail
    ), detail


# -- and another: a one-value filter on a list field (``tags=x``) was dropped, not a membership
VIDEO = {
    "type": "object",
    "properties": {"id": TEXT, "title": TEXT, "tags": {"type": "array", "items": TEXT}},
    "required": ["id", "title", "tags"],
}
VIDEOS = {
    "openapi": "3.0.0",
    "info": {"title": "Videos", "version": "1"},
    "paths": {
        "/videos": {
            "get": {
                "operationId": "list_videos",
                "parameters": [_query("tags", "Only show videos with this tag.")],
                "responses": _ok({"type": "array", "items": VIDEO}),
            }
        },
        "/videos/{video_id}": {
            "get": {
                "operationId": "get_video",
                "parameters": [
                    {"name": "video_id", "in": "path", "required": True, "schema": TEXT}
                ],
                "responses": _ok(VIDEO),
            }
        },
    },
}


def test_a_compiled_filter_on_a_list_field_keeps_the_records_holding_the_value() -> None:
    specs, errors = ingest_document(json.dumps(VIDEOS).encode(), source_file="videos.json")
    assert specs, errors
    source = compile_service(specs).source
    assert "(tags is None or tags in (r.tags or []))" in source
    cls = load_service(source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 6)
    every = world.call(qualified(cls.name, "list_videos"), {})["data"]
    tag = next(t for v in every for t in v["tags"])
    tagged = world.call(qualified(cls.name, "list_videos"), {"tags": tag})["data"]
    assert tagged == [v for v in every if tag in v["tags"]] != every
    assert _search_problem_of(source, specs, "list_videos") is None
    ignored = source.replace("(tags is None or tags in (r.tags or []))", "True")
    detail = _search_problem_of(ignored, specs, "list_videos")
    assert detail is not None and detail.startswith("tags='"), detail


# -- a filter named in another case than the field it filters (Twilio: ``BindingType`` lists by
# ``binding_type``); it was ignored, and the list verified nothing about it
BINDING = {
    "type": "object",
    "properties": {"sid": TEXT, "binding_type": {"type": "string", "enum": ["apn", "gcm", "fcm"]}},
    "required": ["sid", "binding_type"],
}
BINDINGS = {
    "openapi": "3.0.0",
    "info": {"title": "Chat", "version": "1"},
    "paths": {
        "/Bindings": {
            "get": {
                "operationId": "ListBinding",
                "parameters": [
                    {"name": "BindingType", "in": "query",
                     "schema": {"type": "string", "enum": ["apn", "gcm", "fcm"]}},
                ],
                "responses": _ok({"type": "object", "properties": {
                    "bindings": {"type": "array", "items": BINDING}}}),
            }
        },
        "/Bindings/{Sid}": {
            "get": {
                "operationId": "FetchBinding",
                "parameters": [{"name": "Sid", "in": "path", "required": True, "schema": TEXT}],
                "responses": _ok(BINDING),
            }
        },
    },
}  # fmt: skip


def test_a_filter_named_in_another_case_filters_its_field() -> None:
    specs, errors = ingest_document(json.dumps(BINDINGS).encode(), source_file="chat.json")
    assert specs, errors
    source = compile_service(specs).source
    assert _search_problem_of(source, specs, "ListBinding") is None
    cls = load_service(source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(0), 6)
    every = world.call(qualified(cls.name, "ListBinding"), {})["data"]["bindings"]
    kind = every[0]["binding_type"]
    some = world.call(qualified(cls.name, "ListBinding"), {"BindingType": kind})["data"]
    assert some["bindings"] == [b for b in every if b["binding_type"] == kind]
