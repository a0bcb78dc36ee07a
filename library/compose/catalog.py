"""What composition needs to know of each service: its collections (fields, semantic keys) and
its tools (parameters, the collection a tool acts on, the kind of step it makes).

Everything is read from the Service classes' own schemas, so hand-written and compiled
services are treated alike.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from library.compiler.ids import told_id
from library.compose.service_names import human_service_name
from library.graph.keys import field_key
from library.graph.nodes import ToolNode, name_addressed, name_words, schema_fields, tool_verb
from library.ingest.infer_output import says_id_alone
from library.ingest.stated_values import kept_for
from library.runtime.semantic import REF_KEY, SEMANTIC_KEY
from library.runtime.service import Service
from library.runtime.world import qualified

# Step kinds: reads that find records, and the four ways of writing.
LOOKUP, FETCH, CREATE, UPDATE, ACTION, DELETE = (
    "lookup",
    "fetch",
    "create",
    "update",
    "action",
    "delete",
)
WRITE_KINDS = frozenset({CREATE, UPDATE, ACTION, DELETE})
DELETING = frozenset({"delete", "remove", "destroy", "purge", "uninstall"})
_UPDATING = frozenset({"update", "edit", "patch", "modify", "set"})
_CREATING = frozenset({"create", "add", "new", "insert", "register"})
ACRONYMS = frozenset(
    {"crm", "hr", "sms", "it", "cdp", "ats", "cpq", "kb", "api", "id", "url", "sku", "cta", "po"}
)


def words(name: str) -> str:
    """``customer_email`` -> ``customer email``; ``product_sku`` -> ``product SKU``."""
    return " ".join(
        t.upper() if t in ACRONYMS else t for t in name.replace("-", "_").split("_") if t
    )


# What a key, token or role lets its holder do, as yes/no fields (a MailScript key's
# ``read`` and ``write``): "turn off read access", where a message's lone ``read`` is a
# state ("mark it as unread").
_ACCESS_VERBS = frozenset(
    {"read", "write", "delete", "execute", "admin", "manage", "send", "receive", "publish"}
)


def access_words(name: str, fields: Mapping[str, FieldMeta]) -> str:
    """How a request names the yes/no field ``name`` of a record with ``fields``: ``read``
    -> ``read access`` where the record has two or more such permission flags."""
    flags = [f for f, meta in fields.items() if f in _ACCESS_VERBS and meta.type == "boolean"]
    if name in flags and len(flags) >= 2:
        return f"{name} access"
    return words(name)


def title(service: str) -> str:
    """``customer_success`` -> ``Customer Success``; ``braze_com`` -> ``Braze`` (see
    ``service_names``)."""
    return human_service_name(service)


def singular(name: str) -> str:
    if name.endswith("ouses"):
        return name[:-1]
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith(("sses", "uses", "xes", "ches", "shes")):
        return name[:-2]
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    required: bool
    type: str | None
    key: str | None = None
    enum: tuple[Any, ...] = ()
    item_type: str | None = None
    item_key: str | None = None
    item_enum: tuple[Any, ...] = ()
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    fmt: str | None = None
    # The ids of an id parameter the spec shows by example as something a person quotes (a
    # booking reference 'ZFA04Y', a username 'sara_doe_496'), as a pattern (``told_id``): a
    # request may state an id that matches it.
    quoted: str | None = None


@dataclass(frozen=True, slots=True)
class FieldMeta:
    name: str
    type: str | None
    key: str | None
    enum: tuple[Any, ...] = ()


@dataclass(slots=True)
class CollectionInfo:
    service: str
    name: str
    record_type: type
    fields: dict[str, FieldMeta] = field(default_factory=dict)

    @property
    def noun(self) -> str:
        return words(singular(self.name))

    @property
    def id_key(self) -> str:
        """The name a record's id has in tool outputs: ``id``, or the spec's own name for
        it (``project_id``, ``sid``) where the record declares one."""
        meta = self.record_type.model_fields.get("id")
        return meta.alias if meta is not None and meta.alias else "id"

    @property
    def nouns(self) -> str:
        noun = self.noun
        return f"{noun}s" if noun.isupper() else words(self.name)


@dataclass(frozen=True, slots=True)
class ToolInfo:
    service: str
    name: str
    write: bool
    kind: str | None  # LOOKUP ... DELETE; None: a tool composition does not use
    params: tuple[Param, ...]
    summary: str
    collection: str | None  # the collection the tool finds, creates or acts on
    own: str | None  # the parameter naming the record acted on
    many: bool  # returns a list of records
    # The record field ``own`` is matched against: its id, or its name where the tool
    # finds the record by name (``scale_deployment(name)``; ``graph.nodes.name_addressed``).
    own_field: str = "id"
    # A read answering the found record's id alone (``find_user_id_by_email``): what else
    # the record holds is known once a fetch by that id reads it.
    id_only: bool = False

    @property
    def qualified(self) -> str:
        return qualified(self.service, self.name)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def _param(name: str, node: Mapping[str, Any], required: bool) -> Param:
    items = node.get("items") if isinstance(node.get("items"), dict) else {}
    key = field_key(node.get(SEMANTIC_KEY), node.get(REF_KEY), name, node.get("type"))
    return Param(
        name=name,
        required=required,
        type=node.get("type") if isinstance(node.get("type"), str) else None,
        key=key,
        enum=tuple(node.get("enum") or ()),
        item_type=items.get("type") if isinstance(items.get("type"), str) else None,
        item_key=field_key(items.get(SEMANTIC_KEY), items.get(REF_KEY), name, items.get("type")),
        item_enum=tuple(items.get("enum") or ()),
        pattern=node.get("pattern"),
        min_length=node.get("minLength"),
        max_length=node.get("maxLength"),
        minimum=node.get("minimum", node.get("exclusiveMinimum")),
        maximum=node.get("maximum", node.get("exclusiveMaximum")),
        fmt=node.get("format"),
        quoted=told_id(node) if str(key).startswith("id:") else None,
    )


def _without_kept_kinds(
    params: tuple[Param, ...], props: Mapping[str, tuple[dict, bool]]
) -> tuple[Param, ...]:
    """A kind of record that needs a field the plan leaves out is not one a plan chooses:
    where an optional parameter is kept for one value of another's enum ("masters":
    "("Slave" type zones only)"), that value leaves the enum (a Slave zone with no masters
    is no zone anyone makes)."""
    drop: dict[str, set[str]] = {}
    for name, (node, required) in props.items():
        kind = kept_for(node.get("description")) if not required else None
        if kind is None:
            continue
        for p in params:
            if p.name != name and any(str(v).lower() == kind.lower() for v in p.enum):
                drop.setdefault(p.name, set()).add(kind.lower())
    out = []
    for p in params:
        gone = drop.get(p.name, set())
        kept = tuple(v for v in p.enum if str(v).lower() not in gone)
        out.append(dataclasses.replace(p, enum=kept) if gone and kept else p)
    return tuple(out)


def top_level(schema: Mapping[str, Any] | None) -> dict[str, tuple[dict, bool]]:
    """The root properties of a schema, resolved: ``{name: (node, required)}``."""
    return {
        path: (node, req)
        for path, node, req in schema_fields(schema)
        if "." not in path and "[" not in path
    }


def _imperative(verb: str) -> str:
    """``Creates`` -> ``create``: descriptions in the third person become requests."""
    lowered = verb.lower()
    if lowered.endswith(("sses", "shes", "ches", "xes", "zes")):
        return verb[:-2]
    if lowered.endswith("ies"):
        return verb[:-3] + "y"
    if lowered.endswith("s") and not lowered.endswith(("ss", "us", "is")):
        return verb[:-1]
    return verb


_TRAILING = frozenset(
    {"and", "or", "with", "to", "for", "immediately", "instantly", "asynchronously",
     "synchronously", "programmatically"}
)  # fmt: skip


def summary(description: str) -> str:
    """The first clause of a tool description, as a request: ``close a ticket``."""
    text = (description or "").strip()
    if "Tool description:" in text:  # BFCL docs prefix every tool with its system's name
        text = text.split("Tool description:", 1)[1].strip()
    # The first paragraph, unwrapped: docstrings break lines mid-sentence.
    first = " ".join(text.split("\n\n", 1)[0].split())
    # One clause: "Send a new message from the owner; it is filed in sent" -> the first part.
    for stop in (
        ". ",
        "; ",
        ", ",
        " (",
        " - ",
        ": ",
        " and return",
        " with its",
        " with the given",
    ):
        first = first.split(stop, 1)[0]
    # "create a task for a user": whom it is for, the request says by name
    first = re.sub(r" for (?:a|an) \w+$", "", first)
    first = first.rstrip(". ").replace("`", "")
    # "create a ticket in the system and queue it": a second verb on "it" is the system's
    # bookkeeping, and "the system" is the service the sentence names anyway.
    first = re.sub(r" and \w+ (?:it|them)\b.*$", "", first)
    first = re.sub(r" (?:in|into|to|on|from) the (?:system|database|platform|server)\b", "", first)
    tokens = first.split(" ")
    # (a dangling joint, or how the system does it: "send a new email immediately")
    while len(tokens) > 1 and tokens[-1].lower() in _TRAILING:
        tokens.pop()
    # "Creates a rental" -> "create a rental"; "Partially updates" -> "partially update".
    verb = 1 if len(tokens) > 1 and tokens[0].lower().endswith("ly") else 0
    tokens[verb] = _imperative(tokens[verb])
    if len(tokens) > verb + 2 and tokens[verb + 1] == "and":  # "Adds and removes labels"
        tokens[verb + 2] = _imperative(tokens[verb + 2])
    first = " ".join(tokens)
    if len(first) > 1 and not first[1].isupper():
        first = first[0].lower() + first[1:]
    return first


def _output_collection(
    schema: Mapping[str, Any] | None, by_shape: dict[frozenset[str], str]
) -> tuple[str | None, bool]:
    """(the collection whose records the output holds, whether it holds a list of them):
    the first object, depth first from the root, whose fields are exactly a record's."""
    if not schema:
        return None, False
    body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    wrapped = {**schema, "type": "object", "properties": {"_": body}}
    for path, node, _ in schema_fields(wrapped):
        props = node.get("properties")
        if isinstance(props, dict) and frozenset(props) in by_shape:
            return by_shape[frozenset(props)], "[]" in path
    return None, False


def _untyped(schema: Mapping[str, Any] | None) -> bool:
    """Whether an output schema says nothing of its fields (any object, or nothing)."""
    return not schema or (schema.get("type") == "object" and not schema.get("properties"))


def ref_collection(ref: str | None, collections: Iterable[str]) -> str | None:
    """The collection an ``id:<ref>`` refers to, tolerating singular/plural spellings."""
    if not ref:
        return None
    names = set(collections)
    for candidate in (ref, f"{ref}s", f"{ref}es", f"{ref[:-1]}ies", singular(ref)):
        if candidate in names:
            return candidate
    return None


class Catalog:
    """Collections and tools of a set of Service classes, optionally restricted to the tools
    of ``nodes`` (the verified ones)."""

    def __init__(
        self, classes: Iterable[type[Service]], nodes: Iterable[ToolNode] | None = None
    ) -> None:
        self.classes: dict[str, type[Service]] = {c.name: c for c in classes}
        nodes = None if nodes is None else list(nodes)
        allowed = None if nodes is None else {n.id for n in nodes}
        # What each tool acts on as ingestion classified it: the collection of a write
        # whose output the spec leaves untyped (BFCL's ``create_ticket`` answers a dict).
        self._resources = {n.id: n.resource for n in nodes or () if n.resource}
        self.collections: dict[tuple[str, str], CollectionInfo] = {}
        self.tools: dict[str, ToolInfo] = {}
        for name in sorted(self.classes):
            cls = self.classes[name]
            by_shape: dict[frozenset[str], str] = {}
            for coll, rtype in cls.State.collection_types.items():
                info = CollectionInfo(name, coll, rtype)
                for fname, (node, _) in top_level(rtype.model_json_schema()).items():
                    info.fields[fname] = FieldMeta(
                        fname,
                        node.get("type") if isinstance(node.get("type"), str) else None,
                        field_key(
                            node.get(SEMANTIC_KEY), node.get(REF_KEY), fname, node.get("type")
                        ),
                        tuple(node.get("enum") or ()),
                    )
                self.collections[(name, coll)] = info
                by_shape.setdefault(frozenset(info.fields), coll)
            for td in cls.tools.values():
                if allowed is not None and qualified(name, td.name) not in allowed:
                    continue
                self.tools[qualified(name, td.name)] = self._tool(cls, td, by_shape)

    def collection(self, service: str, name: str) -> CollectionInfo | None:
        return self.collections.get((service, name))

    def quoted(self, service: str, collection: str) -> str | None:
        """The pattern of a collection's ids where its tools show them as something a
        person quotes (``Param.quoted``: a booking reference), else None."""
        return next(
            (
                p.quoted
                for t in self.tools.values()
                if t.service == service and t.collection == collection
                for p in t.params
                if p.quoted and p.name == t.own
            ),
            None,
        )

    def _tool(self, cls: type[Service], td: Any, by_shape: dict[frozenset[str], str]) -> ToolInfo:
        props = top_level(td.input_schema)
        params = _without_kept_kinds(
            tuple(_param(n, node, req) for n, (node, req) in props.items()), props
        )
        colls = list(cls.State.collection_types)
        out_coll, many = _output_collection(td.output_schema, by_shape)
        id_params = [
            (p.name, ref_collection(p.key.split(":", 1)[1], colls))
            for p in params
            if p.required and p.key and p.key.startswith("id:")
        ]
        if out_coll is None and td.write and _untyped(td.output_schema):
            declared = ref_collection(self._resources.get(qualified(cls.name, td.name)), colls)
            # a record made under a parent (``POST /servers/{server_id}/zones``) is of the
            # collection the path makes, not an action on the parent
            under = tool_verb(td.name) in _CREATING and declared not in {c for _, c in id_params}
            if not id_params or under:
                out_coll = declared
        own = next((p for p, c in id_params if c is not None and c == out_coll), None)
        if own is None and out_coll is None and id_params and id_params[0][1] is not None:
            own = id_params[0][0]
            out_coll = id_params[0][1]
        verb = tool_verb(td.name)
        own_field = "id"
        named = name_addressed(cls, td) if own is None else None
        if named is not None:
            own, out_coll, own_field = named
            many = False
            # ``helm_chart_upgrade`` or ``git_checkout_branch``: the verb after the family.
            words = name_words(td.name)
            verb = next((w for w in words if w in DELETING | _UPDATING), verb)
        kind: str | None
        id_only = False
        if not td.write:
            # A read that returns one record found by values, not by its id (a customer by
            # name and date of birth), is a lookup as a list search is.
            by_values = out_coll is not None and any(
                p.required and not (p.key or "").startswith("id:") for p in params
            )
            kind = LOOKUP if many or (own is None and by_values) else (FETCH if own else None)
            declared = ref_collection(self._resources.get(qualified(cls.name, td.name)), colls)
            if kind is None and declared and _untyped(td.output_schema) and own is None:
                id_only = says_id_alone(td.name, td.description or "")
                kind, out_coll = (LOOKUP, declared) if id_only else (kind, out_coll)
        elif own is None:
            kind = CREATE if out_coll is not None and not many else None
        elif verb in DELETING:
            kind = DELETE
        elif verb in _UPDATING:
            kind = UPDATE
        else:
            kind = ACTION
        return ToolInfo(
            service=cls.name,
            name=td.name,
            write=td.write,
            kind=kind,
            params=params,
            summary=summary(td.description),
            collection=out_coll,
            own=own,
            many=many,
            own_field=own_field,
            id_only=id_only,
        )
