"""Tools of real specs (the npm-wild set) that answered ``not_found`` to valid input, or failed
their paging, for causes that were not theirs:

- a record may store a reference to nothing the world holds (Vimeo's categories keep a
  ``channel_id: 46.4``): conformance then names a channel the world holds, and a tool that
  checks the channel exists is verified (before: "no channel with id '46.4'");
- a record found by values it holds, not by its own id (GitLab's ``get_issue(project_id,
  issue_iid)``, Keycloak's realm settings found by ``realm`` where the spec's resource names
  no collection): conformance takes the values a record of the world holds for the call's
  required parameters (before: ``issue_iid`` was sampled, "no issue with issue_iid 'sample
  issue_iid'"); a tool that finds no record for them is still refused ``not_found``;
- ``/routing-profiles/{InstanceId}/{RoutingProfileId}``: of two path parameters after one
  collection, the one named for it is its id and ``InstanceId`` an instance's (before: both
  routing profiles, so the tool looked the instance up among the routing profiles); and
  ``/users/{InstanceId}`` (list a Connect instance's users) beside ``/users/{InstanceId}/
  {UserId}`` takes an instance's id too;
- an array declared with an enum of single values (Vimeo's ``content_filter: {type: array,
  items: {type: string}, enum: [drugs, ...]}``), which no value satisfies, has that enum for
  its items (before: every tool answering a user failed its output schema once it was found);
- ``limit: number`` (JSON Schema written from TypeScript has no integer) pages a list in
  whole records (before: the limit was ignored, "limit=1 listed 10 records"), and a text
  ``offset`` (Asana's token) is a cursor, not a count to page by.
"""

from __future__ import annotations

import random
from typing import Any

import orjson

from library.compiler import compile_service, load_service
from library.compiler.model import Role
from library.ingest import ingest_document
from library.ingest.verbs import path_shape
from library.runtime import ErrorCode, Record, Service, State, ToolError, tool
from library.seed import SeedPool
from library.verify import run_conformance
from library.verify.conformance import _Suite
from library.verify.contracts import contract
from tests.test_conformance_paging import _ingest, _notes, _query

TEXT = {"type": "string"}


def _spec(
    name: str, verb: str, resource: str, inputs: dict[str, Any], output: dict[str, Any],
    refs: dict[str, str] | None = None, path: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    fields = [
        {"side": "input", "path": p, "type": "string", "semantic": "id", "ref": r}
        for p, r in (refs or {}).items()
    ]
    spec: dict[str, Any] = {
        "service": "wild",
        "name": name,
        "verb": verb,
        "resource": resource,
        "access": "read" if verb in ("read", "list") else "write",
        "input_schema": {"type": "object", "properties": inputs, "required": list(inputs)},
        "output_schema": output,
        "fields": fields,
    }
    if path is not None:
        where = {p: "path" for p in inputs}
        spec["http"] = {"method": "GET", "path": path, "params": where}
    return spec


def _failures(cls: type[Service], specs: list[dict[str, Any]]) -> dict[str, str]:
    return {f"{r.tool}.{r.check}": r.detail for r in run_conformance(cls, specs) if not r.passed}


# -- a stored reference to nothing ---------------------------------------------------------
class Channel(Record):
    title: str


class Category(Record):
    label: str
    channel_id: float | None = None  # seeded as a number that names no channel


class Review(Record):
    workspace: str
    channel_id: float | None = None  # seeded as a number that names no channel


class ChannelState(State):
    channels: dict[str, Channel] = {}
    categories: dict[str, Category] = {}
    reviews: dict[str, Review] = {}


class Channels(Service):
    name = "wild"
    State = ChannelState
    state: ChannelState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> ChannelState:
        self.state = ChannelState()
        for k in range(1, size + 1):
            self.put("channels", Channel(id=str(k), title=f"Channel {k}"))
            self.put("categories", Category(id=f"cat{k}", label=f"C{k}", channel_id=k + 0.5))
            self.put("reviews", Review(id=f"r{k}", workspace=f"ws{k}", channel_id=k + 0.5))
        return self.state

    @tool
    def get_channel_category(self, category: str, channel_id: float) -> Category:
        """Read a category of a channel.

        Args:
            category: The category.
            channel_id: The channel (its number).
        """
        key = str(int(channel_id)) if channel_id.is_integer() else str(channel_id)
        if key not in self.state.channels:
            raise ToolError(ErrorCode.NOT_FOUND, f"no channel with id {key!r}")
        return self.get("categories", category)

    @tool(write=True)
    def tag_channel_category(self, category: str, channel_id: float, tag: str) -> Category:
        """Tag a category of a channel (a value the category does not keep).

        Args:
            category: The category.
            channel_id: The channel (its number).
            tag: The tag.
        """
        found = self.get_channel_category(category, channel_id)
        return self.put("categories", found.model_copy(update={"label": f"{found.label} {tag}"}))

    @tool
    def get_channel_review(self, workspace: str, channel_id: float) -> Review:
        """Read a workspace's review of a channel (found by its workspace).

        Args:
            workspace: The workspace.
            channel_id: The channel (its number).
        """
        found = next((r for r in self.state.reviews.values() if r.workspace == workspace), None)
        if found is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"no review with workspace {workspace!r}")
        self.get_channel_category("cat1", channel_id)  # the channel must exist
        return found


REVIEW = {
    "type": "object",
    "properties": {"id": TEXT, "workspace": TEXT, "channel_id": {"type": "number"}},
    "required": ["id", "workspace"],
}
CATEGORY = {
    "type": "object",
    "properties": {"id": TEXT, "label": TEXT, "channel_id": {"type": "number"}},
    "required": ["id", "label"],
}


def test_a_stored_reference_to_nothing_gives_way_to_an_id_the_world_holds() -> None:
    spec = _spec(
        "get_channel_category", "read", "categories",
        {"category": TEXT, "channel_id": {"type": "number"}}, CATEGORY,
        refs={"category": "categories", "channel_id": "channels"},
        path="/channels/{channel_id}/categories/{category}",
    )  # fmt: skip
    tag = _spec(
        "tag_channel_category", "action", "categories",
        {"category": TEXT, "channel_id": {"type": "number"}, "tag": TEXT}, CATEGORY,
        refs={"category": "categories", "channel_id": "channels"},
        path="/channels/{channel_id}/categories/{category}",
    )  # fmt: skip
    # found by a value it holds, beside a reference to nothing
    review = _spec(
        "get_channel_review", "read", "reviews",
        {"workspace": TEXT, "channel_id": {"type": "number"}}, REVIEW,
        refs={"channel_id": "channels"},
    )  # fmt: skip
    assert _failures(Channels, [spec, tag, review]) == {}


# -- records found by the values they hold ---------------------------------------------------
class Project(Record):
    title: str


class Issue(Record):
    project_id: str
    issue_iid: str
    title: str


class Setting(Record):
    realm: str
    theme: str


class TrackerState(State):
    projects: dict[str, Project] = {}
    issues: dict[str, Issue] = {}
    settings: dict[str, Setting] = {}


class Tracker(Service):
    name = "wild"
    State = TrackerState
    state: TrackerState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> TrackerState:
        self.state = TrackerState()
        for k in range(1, size + 1):
            self.put("projects", Project(id=f"p{k}", title=f"Project {k}"))
            issue = Issue(id=f"i{k}", project_id=f"p{k}", issue_iid=str(100 + k), title="Bug")
            self.put("issues", issue)
            self.put("settings", Setting(id=f"s{k}", realm=f"realm-{k}", theme="dark"))
        return self.state

    @tool
    def get_issue(self, project_id: str, issue_iid: str) -> Issue:
        """Read an issue of a project by its number in the project.

        Args:
            project_id: The project.
            issue_iid: The issue's number in the project.
        """
        for r in self.state.issues.values():
            if r.project_id == project_id and r.issue_iid == issue_iid:
                return r
        raise ToolError(ErrorCode.NOT_FOUND, f"no issue {issue_iid!r} in {project_id!r}")

    @tool
    def get_realm(self, realm: str) -> Setting:
        """Read a realm's settings.

        Args:
            realm: The realm's name.
        """
        for r in self.state.settings.values():
            if r.realm == realm:
                return r
        raise ToolError(ErrorCode.NOT_FOUND, f"no settings of realm {realm!r}")

    @tool
    def get_archived_issue(self, project_id: str, issue_iid: str) -> Issue:
        """Read an archived issue (the world holds none: no valid call can find one).

        Args:
            project_id: The project.
            issue_iid: The issue's number in the project.
        """
        raise ToolError(ErrorCode.NOT_FOUND, f"no archived issue {issue_iid!r}")


ISSUE = {
    "type": "object",
    "properties": {"id": TEXT, "project_id": TEXT, "issue_iid": TEXT, "title": TEXT},
    "required": ["id", "title"],
}
REALM = {
    "type": "object",
    "properties": {"id": TEXT, "realm": TEXT, "theme": TEXT},
    "required": ["realm"],
}


def test_a_record_found_by_values_it_holds_is_called_with_a_records_values() -> None:
    inputs = {"project_id": TEXT, "issue_iid": TEXT}
    issue = _spec("get_issue", "read", "issues", inputs, ISSUE, refs={"project_id": "projects"})
    # the spec's resource (``realms``) names no collection: the answer's shape finds it
    realm = _spec("get_realm", "read", "realms", {"realm": TEXT}, REALM)
    assert _failures(Tracker, [issue, realm]) == {}


def test_a_tool_no_valid_call_finds_a_record_for_is_still_refused() -> None:
    inputs = {"project_id": TEXT, "issue_iid": TEXT}
    spec = _spec(
        "get_archived_issue", "read", "issues", inputs, ISSUE, refs={"project_id": "projects"}
    )
    failures = _failures(Tracker, [spec])
    assert failures["get_archived_issue.valid_call"].startswith("not_found"), failures


# -- path parameters one after another -------------------------------------------------------
def test_of_two_path_ids_after_a_collection_the_one_named_for_it_is_its_id() -> None:
    shape = path_shape("/routing-profiles/{InstanceId}/{RoutingProfileId}")
    assert shape.params == {"RoutingProfileId": "routing_profiles"}
    assert path_shape("/items/{a}/{b}").params == {"b": "items"}  # none named: the last
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Connect", "version": "1"},
        "paths": {
            "/routing-profiles/{InstanceId}/{RoutingProfileId}": {
                "get": {
                    "operationId": "DescribeRoutingProfile",
                    "parameters": [
                        {"name": n, "in": "path", "required": True, "schema": TEXT}
                        for n in ("InstanceId", "RoutingProfileId")
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    (spec,), _ = ingest_document(orjson.dumps(doc), source_file="connect.json")
    refs = {f.path: f.ref for f in spec.fields if f.side == "input"}
    assert refs == {"InstanceId": "instances", "RoutingProfileId": "routing_profiles"}


def test_an_id_shown_to_be_no_id_of_a_collection_is_none_where_it_follows_it() -> None:
    def get(name: str, params: tuple[str, ...]) -> dict[str, Any]:
        return {
            "operationId": name,
            "parameters": [
                {"name": n, "in": "path", "required": True, "schema": TEXT} for n in params
            ],
            "responses": {"200": {"description": "ok"}},
        }

    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Connect", "version": "1"},
        "paths": {
            "/users/{InstanceId}": {"get": get("ListUsers", ("InstanceId",))},
            "/users/{InstanceId}/{UserId}": {"get": get("DescribeUser", ("InstanceId", "UserId"))},
            "/me/likes/{video_id}": {"get": get("CheckLike", ("video_id",))},
        },
    }
    specs, _ = ingest_document(orjson.dumps(doc), source_file="connect.json")
    refs = {s.name: {f.path: f.ref for f in s.fields if f.side == "input"} for s in specs}
    assert refs["ListUsers"] == {"InstanceId": "instances"}
    assert refs["DescribeUser"] == {"InstanceId": "instances", "UserId": "users"}
    assert refs["CheckLike"] == {"video_id": "likes"}  # nothing says otherwise: the path's


# -- paging ----------------------------------------------------------------------------------
def test_a_limit_declared_a_number_pages_in_whole_records() -> None:
    number = {"type": "number"}
    specs = _ingest(_notes([_query("limit", number), _query("offset", number)]))
    cls = load_service(compile_service(specs).source)
    checks = {(r.tool, r.check): r for r in run_conformance(cls, specs)}
    assert checks[("listNotes", "pagination")].passed, checks[("listNotes", "pagination")]
    assert checks[("listNotes", "every_parameter")].passed
    assert "limit = int(limit)" in compile_service(specs).source


def test_a_text_offset_is_a_cursor_not_a_count() -> None:
    lister = _spec(
        "list_tasks", "list", "tasks", {"limit": {"type": "integer"}, "offset": TEXT}, {}
    )
    lister["input_schema"]["required"] = []
    paging = _Suite(Tracker, [], 0, 1).paging_params(contract(lister))
    assert paging == {Role.LIMIT: "limit", Role.CURSOR: "offset"}


# -- an array's enum -------------------------------------------------------------------------
def test_an_arrays_enum_of_single_values_is_its_items_enum() -> None:
    flags = {"type": "array", "items": TEXT, "enum": ["drugs", "safe"], "example": "drugs"}
    user = {"type": "object", "required": ["id"], "properties": {"id": TEXT, "flags": flags}}
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Users", "version": "1"},
        "paths": {
            "/users/{user_id}": {
                "get": {
                    "operationId": "getUser",
                    "parameters": [
                        {"name": "user_id", "in": "path", "required": True, "schema": TEXT}
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": user}},
                        }
                    },
                }
            }
        },
    }
    (spec,), issues = ingest_document(orjson.dumps(doc), source_file="users.json")
    assert spec.output_schema is not None
    assert spec.output_schema["properties"]["flags"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["drugs", "safe"], "examples": ["drugs"]},
    }
    assert any("enum" in i.message for i in issues)
