"""Output schemas for function-style tools that declare none, inferred from their family.

Most MCP servers and function-calling tool sets (tau, OpenAI function lists, Docker's MCP
catalog) publish input schemas only, yet a service needs to know what a tool gives back. A
resource's tools describe its record between them: ``create_x`` and ``update_x`` say what a
record holds (their inputs), ``get_x(x_id)`` and ``delete_x(x_id)`` name its id, a read keyed
by other parameters (``get_customer_by_phone(phone_number)``) shows stored fields, list
filters show more. From that record, each tool without an output gets the answer its verb
implies: the record for create, read, update, action and delete, a list of records for list
and search.

Every synthesized schema says so: its root carries ``x-compoworld-inferred`` (what it was
inferred from) and the spec's ``vendor["output_inferred"]`` the same, so the ingested data and
the coverage report tell declared outputs from inferred ones. A tool's id stays the hash of
what its publisher declared: inference is derived data, re-run on every ingest.

OpenAPI and Swagger operations are left alone: there a missing response schema usually means
no body (``204``), not an unknown one.
"""

from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson

from library.ingest.naming import singular, snake, tokens
from library.ingest.semantics import infer_fields
from library.ingest.stateless import STATELESS_KEY
from library.toolspec import SpecFormat, ToolSpec, Verb

INFERRED_KEY = "x-compoworld-inferred"
# On a field a state change is told (``cancel_booking(reason)``, ``modify_items(new_item_ids)``):
# the tool that tells it, so the seed sets it only on records in the state that tool leads to
# (on none, where the seed cannot tell which records that tool has changed).
TOLD_BY = "x-compoworld-told-by"
# On a status whose values come from what the tools say (``_named_states``): which state each
# tool requires (``{"requires": {"cancel_pending_order": "pending"}}``, from its name) and
# which it leads to (``{"leads": {"cancel_pending_order": "cancelled"}}``, from its
# description), so the compiler refuses a record in another state and writes that one.
STATES_BY = "x-compoworld-states"
VENDOR_KEY = "output_inferred"

FUNCTION_FORMATS = frozenset(
    {SpecFormat.MCP, SpecFormat.OPENAI, SpecFormat.BFCL, SpecFormat.DOCKER_MCP}
)
_ID_WORDS = frozenset({("id",), ("sid",), ("uuid",), ("guid",)})
# Parameters that shape a query rather than describe a record.
_PAGING = frozenset(
    {"limit", "offset", "cursor", "page", "page_size", "per_page", "page_token", "max_results",
     "starting_after", "sort", "sort_by", "order", "order_by", "direction", "max_count", "count",
     "num_results", "top_k"}
)  # fmt: skip
# How to run a call, not what a record holds (``edit_file(path, edits, dryRun)``).
_OPTIONS = frozenset({"dry_run", "force", "confirm", "overwrite", "recursive", "validate_only"})
_QUERY = frozenset({"query", "q", "search", "keyword", "keywords", "text", "term", "filter"})
_RANGE = re.compile(
    r"^(?:(min|max|from|to|since|until|start|end)_.+|.+_(after|before|since|until|from|to|min|"
    r"max|gte|lte|gt|lt))$"
)
# Action words that move a record through states: such a record keeps a ``status``, which
# no input shows (``cancel_reservation(reservation_id)`` implies one).
_STATUS_ACTIONS = frozenset(
    {"cancel", "void", "close", "complete", "finish", "archive", "unarchive", "restore",
     "publish", "unpublish", "send", "approve", "reject", "decline", "accept", "submit",
     "suspend", "pause", "resume", "activate", "reactivate", "enable", "deactivate", "disable",
     "refund", "capture", "subscribe", "unsubscribe", "resolve", "reopen", "confirm", "ship",
     "deliver", "start", "stop", "escalate", "return", "pay", "exchange"}
)  # fmt: skip


@dataclass(slots=True)
class RecordShape:
    """What a resource's tools say about its record."""

    resource: str
    id_key: str = "id"
    id_schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # "create_x inputs", "get_x key", ...
    defs: dict[str, Any] = field(default_factory=dict)  # ``$defs`` the properties refer to

    def add(
        self,
        name: str,
        node: Any,
        required: bool,
        evidence: str,
        source: dict[str, Any] | None = None,
    ) -> None:
        """``source``: the input schema ``node`` comes from (its ``$defs`` travel along)."""
        if name == self.id_key or not isinstance(node, dict) or name in self.properties:
            if required and name in self.properties and name not in self.required:
                self.required.append(name)
            return
        self.properties[name] = _stored(node)
        defs = (source or {}).get("$defs")
        if isinstance(defs, dict) and '"$ref"' in orjson.dumps(node).decode():
            for key, value in defs.items():  # recursive schemas keep a $ref to their $defs
                self.defs.setdefault(key, copy.deepcopy(value))
        if required:
            self.required.append(name)
        if evidence not in self.evidence:
            self.evidence.append(evidence)

    def schema(self) -> dict[str, Any]:
        """The record's schema (its ``$defs`` are the caller's to place at the root)."""
        props = {self.id_key: dict(self.id_schema), **self.properties}
        return {
            "type": "object",
            "properties": props,
            "required": [self.id_key, *self.required],
        }


def own_id(spec: ToolSpec, resource: str) -> str | None:
    """The required parameter naming the record a tool acts on: ``<resource>_id`` or ``id``."""
    want = (*tokens(singular(resource)), "id")
    for name in spec.input_schema.get("required") or ():
        if isinstance(name, str) and (tokens(name) == want or tokens(name) in _ID_WORDS):
            return name
    return None


def record_shapes(specs: list[ToolSpec]) -> dict[str, RecordShape]:
    """The record of every resource the tools of one service act on."""
    by_resource: dict[str, list[ToolSpec]] = defaultdict(list)
    for spec in specs:
        if spec.resource and STATELESS_KEY not in spec.vendor:
            by_resource[spec.resource].append(spec)
    shapes = {resource: _shape(resource, tools) for resource, tools in by_resource.items()}
    _numbered(shapes, by_resource, specs)
    _owners(shapes, by_resource)
    _owned_lists(shapes, specs)
    _senders(shapes, by_resource)
    return shapes


# Mail-like records: a mailbox holds what was sent to it as well as what it sent.
_MAIL = frozenset({"message", "email", "mail"})
_RECIPIENT = frozenset({"to", "recipient", "recipients", "to_email", "to_address"})
_SENDER = frozenset({"from", "sender", "from_email", "from_address", "sender_email"})


def _senders(shapes: dict[str, RecordShape], tools: dict[str, list[ToolSpec]]) -> None:
    """A mailbox's messages come from someone: where the only tool that makes them
    sends to a recipient (``sendMessage(to, subject, body)``), the record also keeps its
    sender, which the mailbox's reads show (who wrote in about a refund)."""
    for resource, specs in tools.items():
        shape = shapes[resource]
        if not set(tokens(singular(resource))) & _MAIL or set(shape.properties) & _SENDER:
            continue
        sends = [
            t
            for t in specs
            if _creates(t, resource) and set(t.input_schema.get("properties") or ()) & _RECIPIENT
        ]
        if sends:
            node = {"type": "string", "format": "email", "description": "Sender email address"}
            shape.add("sender", node, True, f"{sends[0].name} recipients (mail has a sender)")


def _shape(resource: str, tools: list[ToolSpec]) -> RecordShape:
    # without an id parameter to copy, the id is ``<resource>_id``, not ``id``: two resources
    # known by a name alone must not look like one record
    shape = RecordShape(resource, id_key=f"{snake(singular(resource))}_id")
    ids = Counter(name for t in tools if (name := own_id(t, resource)) is not None)
    if ids:
        shape.id_key = ids.most_common(1)[0][0]
        node = _first_property(tools, shape.id_key)
        if node is not None and node.get("type") in ("string", "integer", "number"):
            # a numeric id is a whole number (MCP lists declare ids as ``number``)
            shape.id_schema = {"type": "string" if node["type"] == "string" else "integer"}
    named = {name for t in tools for name in t.input_schema.get("properties") or ()}
    # creates first: their required inputs are what a record cannot lack
    ordered = sorted(tools, key=lambda t: (not _creates(t, resource), t.verb != Verb.UPDATE))
    for spec in ordered:
        props = spec.input_schema.get("properties") or {}
        required = set(spec.input_schema.get("required") or ())
        own = own_id(spec, resource)
        creating = _creates(spec, resource)
        if creating or spec.verb == Verb.UPDATE:
            for name, node in props.items():
                if name != own and _describes_record(name):
                    evidence = f"{spec.name} inputs"
                    if not creating and new_value_of(name, named):
                        # ``modify_items(item_ids, new_item_ids)``: the new value a change is
                        # told, which a record holds only once that change has run
                        node = {**node, TOLD_BY: spec.name} if isinstance(node, dict) else node
                    shape.add(
                        name, node, creating and name in required, evidence, spec.input_schema
                    )
        elif spec.verb == Verb.ACTION and own is not None and _status_action(spec):
            # ``cancel_pending_order(order_id, reason)``: what a state change is told (a
            # reason, a resolution) is kept on the record it changes
            # (as plain values: the options one tool offers are its own, and another
            # document of the same service may offer others for the same field)
            for name in sorted(required - {own}):
                node = props.get(name)
                if _describes_record(name) and _scalar(node) and not _names_record(name):
                    told = {k: v for k, v in node.items() if k != "enum"}
                    told[TOLD_BY] = spec.name
                    shape.add(name, told, False, f"{spec.name} inputs", spec.input_schema)
        elif spec.verb in (Verb.READ, Verb.SEARCH) and own is None:
            # ``get_customer_by_phone(phone_number)``, ``find_user_id_by_email(email)``: the
            # key a record is found by, required to find it, is a stored field
            for name in sorted(required):
                if _describes_record(name) and not _RANGE.match(snake(name)):
                    shape.add(name, props.get(name), True, f"{spec.name} key", spec.input_schema)
    if not shape.properties:  # nothing writes the records: list filters are what they show
        for spec in tools:
            if spec.verb not in (Verb.LIST, Verb.SEARCH):
                continue
            for name, node in (spec.input_schema.get("properties") or {}).items():
                if _describes_record(name) and not _RANGE.match(snake(name)):
                    shape.add(name, node, False, f"{spec.name} filters", spec.input_schema)
    if "status" not in shape.properties:
        if any(_status_action(t) for t in tools):
            shape.add("status", _listed_status(resource, tools), False, "status actions")
        elif tokens(resource)[-1:] == ("status",) and (ids or shape.properties):
            # ``get_flight_status(flight_number, date)``: the status is what is read
            shape.add("status", {"type": "string"}, True, "the resource's name")
    if not shape.properties and (ids or any(t.verb in (Verb.LIST, Verb.SEARCH) for t in tools)):
        # Records listed or fetched by id, and nothing else known: they are at least named
        # (lists of nameless things are not what such tools describe).
        shape.properties["name"] = {"type": "string"}
        shape.required.append("name")
        shape.evidence.append("a name (nothing else is known)")
    return shape


def _listed_status(resource: str, tools: list[ToolSpec]) -> dict[str, Any]:
    """The status a resource's status actions imply: the states its list filter offers
    (``list_returns(status: requested|approved|...)``) where each such action leads to one
    of them, so the record's state machine is the one its tools describe; else the states
    its tools' names and descriptions say (``_named_states``); else free text."""
    for spec in tools:
        node = (spec.input_schema.get("properties") or {}).get("status")
        if spec.verb not in (Verb.LIST, Verb.SEARCH) or not isinstance(node, dict):
            continue
        values = node.get("enum")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            continue
        leads = [_leads_to(t, values) for t in tools if _status_action(t)]
        if all(leads):
            return {k: v for k, v in node.items() if k != "description"}
    return _named_states(resource, tools) or {"type": "string"}


# Words for the state a record is in, as a tool's name puts them between its verb and the
# record it acts on (``cancel_pending_order``, ``exchange_delivered_order_items``).
_STATE_WORDS = frozenset(
    {"pending", "delivered", "active", "inactive", "open", "closed", "shipped", "unshipped",
     "draft", "paid", "unpaid", "completed", "archived", "published", "unpublished",
     "scheduled", "processing", "processed", "confirmed", "unconfirmed", "approved",
     "submitted", "suspended", "paused", "expired", "failed", "fulfilled", "unfulfilled",
     "resolved", "unresolved", "enabled", "disabled", "locked", "unlocked", "sent", "unsent",
     "accepted", "rejected", "returned", "refunded", "cancelled", "canceled", "running",
     "stopped", "blocked", "overdue", "outstanding"}
)  # fmt: skip
# Verbs whose next word is the state they lead to, not the one they require
# (``mark_paid_invoice``, ``set_active_project``).
_MARKING = frozenset({"mark", "set", "make", "flag", "turn"})
# "the order status will be changed to 'cancelled'", "status is set to 'return requested'"
_LEADS_TO = re.compile(
    r"\bstatus\b[^.'\"]{0,40}?\b(?:changed|set|updated|moved|marked|turned)\s+(?:to|as)\s+"
    r"['\"\u2018\u201c]([A-Za-z][\w -]{0,38}[A-Za-z])['\"\u2019\u201d]",
    re.IGNORECASE,
)


def _named_states(resource: str, tools: list[ToolSpec]) -> dict[str, Any] | None:
    """The status enum a resource's tools state where no list offers one: the states tool
    names require (``cancel_pending_order``, ``return_delivered_order_items``: a state word
    between the verb and the record) and the states descriptions quote an action leading to
    ("status will be changed to 'cancelled'"), spelled as written. Only where some name
    requires a state and every status action says where it leads or where it starts (a name
    saying neither would lose the state its verb writes to free text); the status carries
    which tool requires and leads to which state (``STATES_BY``)."""
    requires: dict[str, str] = {}
    leads: dict[str, str] = {}
    for spec in tools:
        if own_id(spec, resource) is None or spec.verb not in (Verb.ACTION, Verb.UPDATE):
            continue
        state = _required_state(spec.name, resource)
        if state is not None:
            requires[spec.name] = state
        found = _LEADS_TO.findall(spec.description or "")
        if len(set(found)) == 1:
            leads[spec.name] = found[0]
    if not requires:
        return None
    if any(t.name not in requires and t.name not in leads for t in tools if _status_action(t)):
        return None
    values = list(dict.fromkeys([*requires.values(), *leads.values()]))
    return {"type": "string", "enum": values, STATES_BY: {"requires": requires, "leads": leads}}


def _required_state(name: str, resource: str) -> str | None:
    """``cancel_pending_order`` -> ``pending``: the one state word between a tool's verb and
    the record it names."""
    words, noun = tokens(name), tokens(singular(resource))
    if not noun or len(words) < len(noun) + 2 or tuple(words[2 : 2 + len(noun)]) != noun:
        return None
    if words[0] in _MARKING or words[1] not in _STATE_WORDS:
        return None
    return words[1]


def _leads_to(spec: ToolSpec, values: list[str]) -> bool:
    """Whether a status action's verb names one of ``values`` as where it leads
    (``cancel`` -> ``canceled``, ``receive`` -> ``received``)."""
    verb = next(iter(tokens(spec.name)), "").rstrip("e")  # tools are named verb first
    return bool(verb) and any(v.startswith(verb) for v in values)


def _numbered(
    shapes: dict[str, RecordShape], tools: dict[str, list[ToolSpec]], specs: list[ToolSpec]
) -> None:
    """Records no tool names by an id parameter of their own are numbered where the other
    tools refer to them by number: ``search_contacts(companyID: number)`` and
    ``create_ticket(contactID: number)`` say companies and contacts have whole-number ids
    (left as text, no number a caller gives could name one)."""
    for resource, shape in shapes.items():
        if any(own_id(t, resource) for t in tools[resource]):
            continue  # the record's own tools say what its id is
        want = (*tokens(singular(resource)), "id")
        types = {
            _one_type(node)
            for spec in specs
            for name, node in (spec.input_schema.get("properties") or {}).items()
            if tokens(name) == want
        }
        if types and types <= {"integer", "number"}:
            shape.id_schema = {"type": "integer"}


def _one_type(node: Any) -> str | None:
    """A schema node's one JSON type (``["integer", "null"]`` -> ``integer``), else None
    (a type a malformed document gives as anything else names none)."""
    kind = node.get("type") if isinstance(node, dict) else None
    if isinstance(kind, list):
        named = [k for k in kind if k != "null"]
        kind = named[0] if len(named) == 1 else None
    return kind if isinstance(kind, str) else None


def _owners(shapes: dict[str, RecordShape], tools: dict[str, list[ToolSpec]]) -> None:
    """Records every tool reaches only together with another record's id belong to that
    record (``suspend_line(customer_id, line_id)``, ``resume_line(customer_id, line_id)``:
    a line is a customer's) and keep its id; and where nothing lists them, the owner
    lists theirs (``line_ids``): the only way a caller learns which lines a customer has."""
    for resource, specs in tools.items():
        acting = [t for t in specs if own_id(t, resource) is not None]
        owners = _common_owner_ids(acting, resource, shapes)
        listed = any(t.verb in (Verb.LIST, Verb.SEARCH) for t in specs)
        for owner, key in owners.items():
            node = _first_property(acting, key) or {"type": "string"}
            shapes[resource].add(key, node, True, "the id its tools name it with")
            if not listed:
                shapes[owner].add(
                    f"{snake(singular(resource))}_ids",
                    {"type": "array", "items": dict(shapes[resource].id_schema)},
                    False,
                    f"its {resource}, which nothing lists",
                )


def _common_owner_ids(
    acting: list[ToolSpec], resource: str, shapes: dict[str, RecordShape]
) -> dict[str, str]:
    """{owner resource: its id parameter} required by every tool acting on ``resource``."""
    if not acting:
        return {}
    out: dict[str, str] = {}
    for owner, shape in shapes.items():
        if owner == resource or shape.id_key == shapes[resource].id_key:
            continue
        if all(shape.id_key in (t.input_schema.get("required") or ()) for t in acting):
            out[owner] = shape.id_key
    return out


def _owned_lists(shapes: dict[str, RecordShape], specs: list[ToolSpec]) -> None:
    """A record whose read says it comes "including their orders" holds its orders' ids
    (``get_user_details``: "the details of a user, including their orders"): the only way
    a caller of such a service reaches those records. Added as ``<order>_ids``, a list of
    the other resource's ids, when that resource is one of the service's own."""
    for spec in specs:
        if spec.verb != Verb.READ or spec.resource not in shapes:
            continue
        for word in _INCLUDING.findall(spec.description or ""):
            other = next((r for r in shapes if r != spec.resource and _names(r, word)), None)
            if other is None:
                continue
            id_schema = shapes[other].id_schema
            shapes[spec.resource].add(
                f"{snake(singular(other))}_ids",
                {"type": "array", "items": dict(id_schema)},
                False,
                f"{spec.name} description",
            )


# "including their orders", "including its reservations": the records a read embeds.
_INCLUDING = re.compile(r"\bincluding (?:their|its|his|her|the) ([a-z_ ]+?)(?:[.,;]|$)", re.I)


def _names(resource: str, words: str) -> bool:
    """Whether a phrase names a resource: "orders" names ``orders``, "order" too."""
    return tokens(singular(resource)) == tokens(singular(words.strip().replace(" ", "_")))


def _creates(spec: ToolSpec, resource: str) -> bool:
    """A create, or an action naming no existing record (``send_message(to, body)``)."""
    if spec.verb == Verb.CREATE:
        return True
    return spec.verb in (Verb.ACTION, None) and own_id(spec, resource) is None


def _status_action(spec: ToolSpec) -> bool:
    if spec.verb != Verb.ACTION:
        return False
    return any(t in _STATUS_ACTIONS for t in tokens(spec.name))


def _describes_record(name: str) -> bool:
    key = snake(name)
    stored = key not in _PAGING and key not in _QUERY and key not in _OPTIONS
    return bool(key) and stored and name.isidentifier()


def new_value_of(name: str, fields: set[str]) -> bool:
    """Whether ``name`` is the new value of one of ``fields`` (the names the resource's tools
    give): ``new_item_ids`` beside ``item_ids``, ``new_text`` beside ``text`` (an update's
    argument, not what a record holds before that update)."""
    toks = tokens(name)
    if len(toks) < 2 or toks[0] != "new":
        return False
    return any(tokens(f) == toks[1:] for f in fields if f != name)


def _scalar(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") in ("string", "integer", "number")


def _names_record(name: str) -> bool:
    """``customer_id``: another record's id, not a value the action keeps."""
    return tokens(name)[-1:] in (("id",), ("ids",))


def _first_property(tools: list[ToolSpec], name: str) -> dict[str, Any] | None:
    for spec in tools:
        node = (spec.input_schema.get("properties") or {}).get(name)
        if isinstance(node, dict):
            return node
    return None


def _stored(node: dict[str, Any]) -> dict[str, Any]:
    """A parameter's schema as the stored field's: its type and constraints, not its default
    (a stored value has no default) nor the parameter's prose about how to call the tool."""
    kept = {k: copy.deepcopy(v) for k, v in node.items() if k != "default"}
    return kept


def inferred_output(spec: ToolSpec, shape: RecordShape) -> dict[str, Any]:
    record = shape.schema()
    if spec.verb in (Verb.LIST, Verb.SEARCH):
        out: dict[str, Any] = {"type": "array", "items": record}
    else:
        out = record
    if shape.defs:
        out["$defs"] = copy.deepcopy(shape.defs)  # ``#/$defs/...`` resolves from the root
    out[INFERRED_KEY] = _basis(spec, shape)
    return out


def answers_id(spec: ToolSpec) -> bool:
    """Whether a read gives back a record's id alone (``says_id_alone``), looked up by other
    values than that id (a read by id answers the record)."""
    reads = spec.verb in (Verb.READ, Verb.SEARCH)
    if not reads or spec.resource is None or own_id(spec, spec.resource) is not None:
        return False
    return says_id_alone(spec.name, spec.description or "")


def says_id_alone(name: str, description: str) -> bool:
    """Whether a tool's name (``get_user_id``, ``find_user_id_by_email``) or description
    ("Find user id by email") says it gives back an id and nothing else."""
    words = list(tokens(name))
    after = words[words.index("id") + 1 :] if "id" in words else None
    return (after is not None and after[:1] in ([], ["by"])) or bool(
        _GIVES_ID.match(description.strip())
    )


# "Find user id by email", "Returns the id of the user": a description that says so.
_GIVES_ID = re.compile(
    r"^(?:find|get|look up|retrieve|return)s?\s+(?:the\s+)?(?:\w+\s+)?(?:id|ID)\b(?!\s+and)"
)


def _id_output(spec: ToolSpec, shape: RecordShape) -> dict[str, Any]:
    """``{<id key>: id}``: what a tool answering a record's id alone gives back."""
    keys = ", ".join(spec.input_schema.get("required") or ()) or "its inputs"
    return {
        "type": "object",
        "properties": {shape.id_key: dict(shape.id_schema)},
        "required": [shape.id_key],
        INFERRED_KEY: f"the id of a record of {shape.resource}, found by {keys}",
    }


def _computes(spec: ToolSpec) -> bool:
    marked = spec.vendor.get(STATELESS_KEY)
    return isinstance(marked, dict) and marked.get("kind") == "computation"


def _computed_output(stateless: dict[str, Any]) -> dict[str, Any]:
    """A computation answers one number (``evaluate`` returns ``{result_key: value}``)."""
    key = str(stateless.get("result_key") or "result")
    return {
        "type": "object",
        "properties": {key: {"type": "number"}},
        "required": [key],
        INFERRED_KEY: f"the value of {stateless.get('operation')}, computed from the arguments",
    }


def _basis(spec: ToolSpec, shape: RecordShape) -> str:
    what = "a list of records" if spec.verb in (Verb.LIST, Verb.SEARCH) else "the record"
    return f"{what} of {shape.resource}, from: {', '.join(shape.evidence)}"


def infer_outputs(specs: list[ToolSpec]) -> list[ToolSpec]:
    """The specs of one document, each function-style tool without an output schema given
    one inferred from its resource's tools (others unchanged, order kept)."""
    wanting = [
        s
        for s in specs
        if s.output_schema is None
        and s.format in FUNCTION_FORMATS
        and ((s.resource and s.verb) or _computes(s))
    ]
    if not wanting:
        return specs
    by_service: dict[str, list[ToolSpec]] = defaultdict(list)
    for spec in specs:
        by_service[spec.service].append(spec)
    shapes = {service: record_shapes(tools) for service, tools in by_service.items()}
    out: list[ToolSpec] = []
    wanted = {id(s) for s in wanting}
    for spec in specs:
        if id(spec) not in wanted:
            out.append(spec)
            continue
        verb = spec.verb
        if _computes(spec):
            schema = _computed_output(spec.vendor[STATELESS_KEY])
        elif spec.resource is None or not shapes[spec.service][spec.resource].properties:
            out.append(spec)  # a state with no record (a device's settings): no basis
            continue
        elif spec.verb in (Verb.LIST, Verb.SEARCH) and own_id(spec, spec.resource):
            # ``get_bills_for_customer(customer_id)``: what it lists is not the customer
            out.append(spec)
            continue
        elif answers_id(spec):
            # a read of the id alone, whatever its verb word ("find"): not a search's records
            schema = _id_output(spec, shapes[spec.service][spec.resource])
            verb = Verb.READ
        else:
            schema = inferred_output(spec, shapes[spec.service][spec.resource])
        fields = infer_fields(spec.input_schema, schema, spec.resource)
        vendor = {**spec.vendor, VENDOR_KEY: schema[INFERRED_KEY]}
        update = {"output_schema": schema, "fields": fields, "vendor": vendor, "verb": verb}
        out.append(spec.model_copy(update=update))
    return out
