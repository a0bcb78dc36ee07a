"""Expand a :class:`Service` into concrete operations shared by every emitter.

An operation knows its tool name, HTTP method and path, its parameters split into path, query
and body, and the shape of its response. Emitters for REST formats use all of it; emitters for
flat tool formats (MCP, function calling, Docker, BFCL) merge the parameters into one object.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Literal

from .fields import dt, example_id, integer, s
from .model import Action, Field, Resource, Service

ResponseKind = Literal["record", "list", "deleted", "custom"]


@dataclass
class Op:
    name: str
    kind: str
    resource: Resource
    method: str
    path: str
    summary: str
    description: str
    path_params: list[Field] = field(default_factory=list)
    query_params: list[Field] = field(default_factory=list)
    body: list[Field] = field(default_factory=list)
    response: ResponseKind = "record"
    result: tuple[Field, ...] = ()
    status: int = 200
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    action: Action | None = None

    @property
    def params(self) -> list[Field]:
        """Path, query and body parameters merged, for the flat tool formats."""
        return [*self.path_params, *self.query_params, *self.body]

    @property
    def body_schema(self) -> str:
        """Component name of the request body."""
        if self.kind == "create":
            return f"{self.resource.schema_name}Create"
        if self.kind == "update":
            return f"{self.resource.schema_name}Update"
        return f"{pascal_name(self.name)}Request"


def pascal_name(snake: str) -> str:
    return "".join(p.capitalize() for p in snake.split("_"))


def _pick(key: str, variants: tuple[str, ...]) -> str:
    return variants[zlib.crc32(key.encode()) % len(variants)]


def _join(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


def _article(noun: str) -> str:
    if noun.startswith(("user", "use", "uni")):
        return "a"
    return "an" if noun[:1] in "aeiou" else "a"


def writable(res: Resource) -> list[Field]:
    return [f for f in res.fields if not f.readonly]


def create_fields(res: Resource) -> list[Field]:
    """Body of a create: writable fields, less the parent id when it travels in the path."""
    parent_id = f"{res.parent}_id" if res.parent else None
    return [f for f in writable(res) if f.name != parent_id]


def update_fields(res: Resource) -> list[Field]:
    """Body of an update: writable, mutable fields, all optional."""
    return [_optional(f) for f in create_fields(res) if not f.immutable]


def _optional(f: Field) -> Field:
    if not f.required and f.default is None:
        return f
    return Field(**{**f.__dict__, "required": False, "default": None})


def record_fields(res: Resource) -> list[Field]:
    """Every field of a stored record: ``id`` first, then the definition, then timestamps."""
    head = [
        s(
            "id",
            f"Unique identifier of the {res.noun}.",
            req=True,
            ro=True,
            ex=_id(res),
            ref=res.name,
        )
    ]
    tail: list[Field] = []
    if res.timestamps:
        tail = [
            dt("created_at", f"When the {res.noun} was created.", req=True, ro=True),
            dt("updated_at", f"When the {res.noun} was last modified.", req=True, ro=True),
        ]
    return [*head, *res.fields, *tail]


def _id(res: Resource) -> str:
    return example_id(res.id_prefix, res.name)


def id_param(res: Resource, verb: str = "") -> Field:
    desc = f"Unique identifier of the {res.noun}{verb}."
    return s(res.id_param, desc, req=True, ref=res.name, ex=_id(res))


def paging(svc: Service, noun: str) -> list[Field]:
    size = integer(
        "limit",
        f"Maximum number of {noun} to return (1-100).",
        default=20,
        minimum=1,
        maximum=100,
    )
    if svc.paging == "cursor":
        cursor = s(
            "cursor",
            "Opaque cursor from the `next_cursor` of the previous page; omit for the first page.",
        )
        return [size, cursor]
    return [
        size,
        integer(
            "offset",
            f"Number of {noun} to skip before the first one returned.",
            default=0,
            minimum=0,
        ),
    ]


def _filters(res: Resource) -> list[Field]:
    out: list[Field] = []
    for f in res.fields:
        if not f.filter:
            continue
        what = f.name.replace("_", " ")
        desc = f"Only return {res.nouns} whose {what} equals this value."
        if f.enum:
            desc = f"Only return {res.nouns} with this {what}."
        elif f.ref:
            desc = f"Only return {res.nouns} that belong to this {f.ref.replace('_', ' ')}."
        elif f.fmt == "email":
            desc = f"Only return {res.nouns} whose {what} matches this address (case-insensitive)."
        out.append(
            Field(
                name=f.name,
                type=f.type,
                desc=desc,
                fmt=f.fmt,
                enum=f.enum,
                example=f.example,
                pattern=f.pattern,
            )
        )
    return out


_CREATE = (
    "Creates {a} {noun} and returns it with its server-assigned `id`.",
    (
        "Adds a new {noun}. The response is the stored record, including "
        "generated fields such as `id` and `created_at`."
    ),
    (
        "Creates {a} {noun}. Required fields must be supplied; optional fields "
        "fall back to their documented defaults."
    ),
)
_GET = (
    "Retrieves {a} {noun} by its ID.",
    "Returns the full details of a single {noun}.",
    "Fetches one {noun}. Fails with a not-found error if no {noun} has that ID.",
)
_LIST = (
    "Lists {nouns}, most recently created first.",
    "Returns a page of {nouns}, newest first.",
    "Lists the {nouns} visible to the authenticated user, ordered by creation time (newest first).",
)
_UPDATE = (
    "Updates {a} {noun}. Only the fields present in the request are changed.",
    "Modifies an existing {noun}; omitted fields keep their current values.",
    "Partially updates {a} {noun} and returns the record as stored after the change.",
)
_DELETE = (
    "Deletes {a} {noun}. This cannot be undone.",
    "Permanently removes {a} {noun} and returns a deletion confirmation.",
    "Deletes the {noun}. Records that refer to it keep a dangling reference.",
)
_SEARCH = (
    (
        "Searches {nouns} by keyword{over}. Matching is case-insensitive and "
        "ranks exact matches first."
    ),
    "Full-text search over {nouns}{over}.",
    "Finds {nouns} whose text fields contain the query{over}; results are ranked by relevance.",
)
_SUMMARY = {
    "create": "Create {a} {noun}",
    "get": "Retrieve {a} {noun}",
    "list": "List {nouns}",
    "update": "Update {a} {noun}",
    "delete": "Delete {a} {noun}",
    "search": "Search {nouns}",
}


def _text(svc: Service, res: Resource, kind: str, variants: tuple[str, ...], **extra: str) -> str:
    template = _pick(f"{svc.name}/{res.name}/{kind}", variants)
    return template.format(a=_article(res.noun), noun=res.noun, nouns=res.nouns, **extra)


def expand(svc: Service) -> list[Op]:
    """Every operation of ``svc``, resource by resource, actions after their resource's CRUD."""
    ops: list[Op] = []
    for res in svc.resources:
        ops.extend(_crud(svc, res))
        ops.extend(_action(svc, a) for a in svc.actions if a.resource == res.name)
    known = {r.name for r in svc.resources}
    for a in svc.actions:
        if a.resource not in known:
            raise KeyError(f"{svc.name}: action {a.name} on unknown resource {a.resource}")
    return ops


def _crud(svc: Service, res: Resource) -> list[Op]:
    base = f"/{res.plural_name}"
    collection = base
    nested: list[Field] = []
    if res.parent:
        parent = svc.resource(res.parent)
        collection = f"/{parent.plural_name}/{{{parent.id_param}}}/{res.plural_name}"
        nested = [id_param(parent)]
    item = f"{base}/{{{res.id_param}}}"
    summary = {
        k: v.format(a=_article(res.noun), noun=res.noun, nouns=res.nouns)
        for k, v in _SUMMARY.items()
    }
    ops: list[Op] = []
    for kind in res.ops:
        extra = res.docs.get(kind, "")
        if kind == "create":
            desc = _join(_text(svc, res, kind, _CREATE), extra)
            if res.parent:
                desc = _join(
                    desc,
                    f"The {res.noun} is attached to the "
                    f"{svc.resource(res.parent).noun} in the path.",
                )
            ops.append(
                Op(
                    f"create_{res.name}",
                    kind,
                    res,
                    "POST",
                    collection,
                    summary[kind],
                    desc,
                    path_params=list(nested),
                    body=create_fields(res),
                    status=201,
                )
            )
        elif kind == "get":
            ops.append(
                Op(
                    f"get_{res.name}",
                    kind,
                    res,
                    "GET",
                    item,
                    summary[kind],
                    _join(_text(svc, res, kind, _GET), extra),
                    path_params=[id_param(res)],
                    read_only=True,
                    idempotent=True,
                )
            )
        elif kind == "list":
            filters = _filters(res)
            names = [f"`{f.name}`" for f in filters]
            tail = "Page through results with `limit` and " + (
                "`cursor`." if svc.paging == "cursor" else "`offset`."
            )
            if names:
                by = ", ".join(names) + (" or creation time" if res.timestamps else "")
                tail = f"Filter by {by}; {tail[0].lower()}{tail[1:]}"
            since = (
                [dt("created_after", f"Only return {res.nouns} created at or after this time.")]
                if res.timestamps
                else []
            )
            ops.append(
                Op(
                    f"list_{res.plural_name}",
                    kind,
                    res,
                    "GET",
                    collection,
                    summary[kind],
                    _join(_text(svc, res, kind, _LIST), extra, tail),
                    path_params=list(nested),
                    query_params=[*filters, *since, *paging(svc, res.nouns)],
                    response="list",
                    read_only=True,
                    idempotent=True,
                )
            )
        elif kind == "update":
            ops.append(
                Op(
                    f"update_{res.name}",
                    kind,
                    res,
                    "PUT" if svc.format == "swagger" else "PATCH",
                    item,
                    summary[kind],
                    _join(_text(svc, res, kind, _UPDATE), extra),
                    path_params=[id_param(res)],
                    body=update_fields(res),
                    idempotent=True,
                )
            )
        elif kind == "delete":
            ops.append(
                Op(
                    f"delete_{res.name}",
                    kind,
                    res,
                    "DELETE",
                    item,
                    summary[kind],
                    _join(_text(svc, res, kind, _DELETE), extra),
                    path_params=[id_param(res)],
                    response="deleted",
                    destructive=True,
                    idempotent=True,
                )
            )
        elif kind == "search":
            over = ""
            if res.search_fields:
                cols = [f"`{n}`" for n in res.search_fields]
                over = " across " + (
                    ", ".join(cols[:-1]) + " and " + cols[-1] if len(cols) > 1 else cols[0]
                )
            query = s("query", f"Keywords to match against {res.nouns}.", req=True, ex="renewal")
            ops.append(
                Op(
                    f"search_{res.plural_name}",
                    kind,
                    res,
                    "GET",
                    f"{base}/search",
                    summary[kind],
                    _join(_text(svc, res, kind, _SEARCH, over=over), extra),
                    query_params=[query, *paging(svc, res.nouns)[:1]],
                    response="list",
                    read_only=True,
                    idempotent=True,
                )
            )
        else:
            raise ValueError(f"{svc.name}/{res.name}: unknown op {kind}")
    return ops


def _action(svc: Service, a: Action) -> Op:
    res = svc.resource(a.resource)
    verb = a.verb or a.name.removesuffix(f"_{res.name}").removesuffix(f"_{res.plural_name}")
    if a.path:
        path = a.path
    elif a.on_item:
        path = f"/{res.plural_name}/{{{res.id_param}}}/{verb}"
    else:
        path = f"/{res.plural_name}/{verb}"
    path_params = [id_param(res)] if a.on_item and "{" + res.id_param + "}" in path else []
    query: list[Field] = []
    body = list(a.params)
    if a.method == "GET":
        query, body = body, []
    return Op(
        a.name,
        "action",
        res,
        a.method,
        path,
        a.summary,
        a.desc,
        path_params=path_params,
        query_params=query,
        body=body,
        response="record" if a.returns is None else "custom",
        result=a.returns or (),
        status=200,
        read_only=a.read_only,
        destructive=a.destructive,
        action=a,
    )
