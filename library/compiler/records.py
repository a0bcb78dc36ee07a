"""Resources and their records: which collection each tool acts on, and the record's fields.

Ingestion names a tool's resource from its path or name, which is right for CRUD and often wrong
for actions (``POST /assets/{asset_id}/retire`` reads as creating ``retires``). The compiler
trusts data shapes over names: a tool whose output is an asset record acts on ``assets``. Record
fields are the union of what the spec shows about the resource: record outputs first (they say
what is stored and what is required), then create and update bodies, then list filters.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from library.compiler.arguments import (
    change_set,
    location,
    path_keys,
    shadowed,
    shapes_answer,
    stored_name,
)
from library.compiler.ids import ID_WORDS, id_key, id_style, told_id
from library.compiler.model import RUNTIME, FieldPlan, IdStyle, Kind, RecordPlan, TypeSpec
from library.compiler.naming import MODEL_ATTRS, collection_for, field_attr, identifier
from library.compiler.types import (
    TypeMapper,
    infos_by_path,
    json_types,
    names_itself,
    single_branch,
)
from library.ingest.infer_output import TOLD_BY, new_value_of
from library.ingest.naming import pluralize, singular, snake, tokens
from library.runtime import State
from library.toolspec import ToolSpec

_UNIQUE = re.compile(r"\bunique\b", re.IGNORECASE)
_ID_EXAMPLE = re.compile(r"^([A-Za-z][A-Za-z0-9]{0,7})[_-][A-Za-z0-9]+$")
PAGING = frozenset(
    {"limit", "offset", "cursor", "page", "page_size", "per_page", "page_token", "starting_after",
     "next_token", "max_results", "page_number"}
)  # fmt: skip
QUERY_NAMES = frozenset({"query", "q", "search", "keyword", "keywords", "text", "term"})
_RANGE = re.compile(
    r"^(?:(?P<pre>min|max|from|to|since|until|start|end)_(?P<f1>.+)|"
    r"(?P<f2>.+?)_(?P<post>after|before|since|until|from|to|min|max|gte|lte|gt|lt|start|end))$"
)
_LOWER = {"min", "from", "since", "start", "after", "gte", "gt"}
_VERB_PRIORITY = {"read": 0, "create": 1, "update": 2, "list": 3, "search": 4, "delete": 5}


@dataclass(slots=True)
class RecordSource:
    """Where a tool's output holds records: the record node and the FieldInfo path prefix."""

    schema: dict[str, Any]
    prefix: str  # "" (the output is a record), "[]." (an array), "data[]." (a page wrapper)
    container: str  # record | list | page | envelope
    items_key: str | None = None  # page: the key of the records; envelope: of the record
    id_key: str = "id"  # the record property holding its id


def deref(node: Any, root: dict[str, Any] | None) -> dict[str, Any]:
    if not isinstance(node, dict):
        return {}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and root:
        target = (root.get("$defs") or {}).get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            return dict(single_branch(target))
    return dict(single_branch(node))


ENVELOPE_KEYS = ("data", "result", "item", "record", "resource", "value")


def record_source(spec: ToolSpec, prefer: str | None = None) -> RecordSource | None:
    """The record(s) a tool returns, if its output is record-shaped: the record itself, an
    array of records, a page (``{items: [...], next_cursor}``) or an envelope holding one record
    (``{data: {...}}``, ``{result: {...}}``, ``{<resource>: {...}}``)."""
    root = spec.output_schema
    out = deref(root, root)
    if not out:
        return None
    own = own_id_param(spec, spec.resource) if spec.resource else None

    def key_of(node: dict[str, Any]) -> str | None:
        props = node.get("properties")
        if not isinstance(props, dict):
            return None
        if prefer is not None and prefer in props and "id" not in props:
            return prefer
        return id_key(props, spec.resource, own)

    if (key := key_of(out)) is not None:
        return RecordSource(out, "", "record", id_key=key)
    if json_types(out)[0] == {"array"}:
        items = deref(out.get("items"), root)
        key = key_of(items)
        return RecordSource(items, "[].", "list", id_key=key) if key else None
    props = out.get("properties") or {}
    arrays = [
        (key, deref(deref(node, root).get("items"), root))  # ``allOf`` parts merged first
        for key, node in props.items()
        if isinstance(node, dict) and json_types(deref(node, root))[0] == {"array"}  # or null
    ]
    arrays = [(key, items, k) for key, items in arrays if (k := key_of(items))]
    if len(arrays) == 1:
        key, items, ident = arrays[0]
        return RecordSource(items, f"{key}[].", "page", key, ident)
    objects = [
        (key, deref(node, root))
        for key, node in props.items()
        if isinstance(node, dict) and not arrays
    ]
    named = {*ENVELOPE_KEYS, *(snake(singular(spec.resource or "")),)}
    # ``{api, method, status, response: {...}}``: beside call metadata (scalars only), the one
    # object is the answer, whatever its key
    scalars = sum(_scalar(deref(node, root)) for node in props.values()) == len(props) - 1
    objects = [
        (key, node, k)
        for key, node in objects
        if (len(props) == 1 or snake(key) in named or scalars) and (k := key_of(node))
    ]
    if len(objects) == 1:
        key, node, ident = objects[0]
        return RecordSource(node, f"{key}.", "envelope", key, ident)
    return None


def _scalar(node: dict[str, Any]) -> bool:
    """A node holding one plain value (a status, a code, a name): never an object or array."""
    types, _ = json_types(node)
    return bool(types) and types <= {"string", "integer", "number", "boolean"}


def answer_source(spec: ToolSpec) -> RecordSource | None:
    """A read's answer that is an object without an id (a whois entry, a VAT rate, usage
    counters): stored as a record the read looks up by its parameters, its id never shown."""
    if spec.access != "read" or str(spec.verb) not in ("read", "list", "search"):
        return None
    root = spec.output_schema
    out = deref(root, root)
    props = out.get("properties")
    if json_types(out)[0] - {"object"} or not isinstance(props, dict) or not props:
        return None
    if str(spec.verb) != "read" and any(
        json_types(deref(node, root))[0] == {"array"} for node in props.values()
    ):
        return None  # a list's answer holding an array is a page of something
    if not all(isinstance(k, str) and k.isidentifier() for k in props):
        return None
    return RecordSource(out, "", "answer")


def lookup_keys(spec: ToolSpec) -> list[str]:
    """The parameters a lookup is keyed by: the required ones, paging aside."""
    props = spec.input_schema.get("properties") or {}
    return [
        k
        for k in spec.input_schema.get("required") or ()
        if k in props and snake(k) not in PAGING and k.isidentifier()
    ]


def preferred_sources(
    specs: list[ToolSpec],
    resources: dict[str, str | None],
    sources: dict[str, RecordSource],
) -> dict[str, RecordSource]:
    """Sources read again with the id key most of their resource's tools show: a list whose
    items carry ``name`` is keyed like the get that looks records up by ``name``."""
    keys: dict[str, Counter[str]] = {}
    for spec in specs:
        src, resource = sources.get(spec.name), resources.get(spec.name)
        if src is not None and resource is not None:
            # a get by its own id parameter says best what names the record
            named = str(spec.verb) == "read" and own_id_param(spec, resource) is not None
            keys.setdefault(resource, Counter())[src.id_key] += 2 if named else 1
    out = dict(sources)
    for spec in specs:
        resource = resources.get(spec.name)
        if resource not in keys:
            continue
        key = keys[resource].most_common(1)[0][0]
        src = out.get(spec.name)
        if src is None or src.id_key != key:
            found = record_source(spec, prefer=key)
            if found is not None and found.id_key == key:
                out[spec.name] = found
    return out


def props_of(source: RecordSource) -> frozenset[str]:
    return frozenset(source.schema.get("properties") or ())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def input_refs(spec: ToolSpec) -> dict[str, str | None]:
    """Input parameter -> the resource whose id it holds (None: an id of no known kind)."""
    return {f.path: f.ref for f in spec.fields if f.side == "input"}


def own_id_param(spec: ToolSpec, resource: str) -> str | None:
    """The required parameter that names the record this tool acts on (``contact_id``)."""
    required = spec.input_schema.get("required") or []
    want = (*tokens(singular(resource)), "id")
    refs = input_refs(spec)
    path_params = {k for k, v in (spec.http.params if spec.http else {}).items() if v == "path"}
    for name in required:
        toks = tokens(name)
        named = toks == want or toks == (*want[:-1], "arn") or toks in ID_WORDS
        if named and refs.get(name) in (None, resource):
            return name
    for name in required:
        if name in path_params and refs.get(name) == resource:
            return name
    # the last path segment names the record: ``{policy_id}`` of insurance policies,
    # ``{stage_name}`` of stages
    last = _last_path_param(spec)
    mine = last in required and refs.get(last) in (None, resource)
    if mine and names_record(tokens(last or ""), resource, path=True):
        return last
    if mine and tokens(last or "") == ("name",) and spec.http is not None:
        return last  # ``GET /v1/{name}``: the full resource name is the id
    return None


KEY_WORDS = frozenset({"id", "name", "key", "slug", "code", "arn", "identifier", "sid", "uuid"})


# The last word of a key naming one record: ``flow_id``, and AWS's ``flowArn`` (an Amazon
# Resource Name is the id every AWS API names its records by).
RECORD_ID_WORDS = frozenset({"id", "arn"})


def names_record(toks: tuple[str, ...], resource: str | None, path: bool = False) -> bool:
    """``insurance_policy_id`` names a critical illness insurance policy (a suffix of the
    resource's words and ``id``, or ``arn``); in a path, ``stage_name`` names a stage."""
    if not toks or not resource:
        return False
    words = tokens(singular(resource))
    head, last = toks[:-1], toks[-1]
    if last not in RECORD_ID_WORDS and not (path and last in KEY_WORDS):
        return False
    # the key's noun is the resource's: ``education_expense_id`` of expenses
    return bool(head) and bool(words) and head[-1] == words[-1]


def parent_key(spec: ToolSpec, resource: str) -> str | None:
    """The parent's id a record hangs under, one record per parent: ``networkId`` of
    ``GET /networks/{networkId}/bluetoothSettings`` (a network's Bluetooth settings). The
    path goes on past its last parameter with names only, the parameter is required and
    names a record of another kind, and no parameter names the record itself."""
    if spec.http is None or own_id_param(spec, resource) is not None:
        return None
    path = re.sub(r"\}:[A-Za-z]\w*$", "}", spec.http.path.rstrip("/"))
    segments = re.findall(r"\{([^}]+)\}", path)
    # a path going on with a name (``/bluetoothSettings``), not a format (``{id}.json``)
    if not segments or not re.match(r"/[A-Za-z]", path.rsplit("}", 1)[-1]):
        return None
    name = next((n for n, w in spec.http.params.items() if w == "path" and n == segments[-1]), None)
    refs = input_refs(spec)
    if name is None or name not in (spec.input_schema.get("required") or ()):
        return None
    ref = refs.get(name)
    return name if ref is not None and ref != resource else None


def split_by_parent(
    specs: list[ToolSpec], resources: dict[str, str | None]
) -> dict[str, str | None]:
    """A resource named by the last word of paths under different kinds of parent is one kind
    of record per parent and path: ``/devices/{deviceId}/metadata`` and
    ``/users/{userId}/metadata`` keep device metadata and user metadata."""
    under: dict[str, dict[str, str]] = {}  # resource -> tool -> its parent-qualified name
    parents: dict[str, set[str | None]] = {}  # resource -> the kinds of parent it hangs under
    for spec in specs:
        resource = resources.get(spec.name)
        if resource is None:
            continue
        key = parent_key(spec, resource)
        parent = input_refs(spec).get(key or "")
        parents.setdefault(resource, set()).add(parent)
        if key is not None and parent is not None and spec.http is not None:
            tail = spec.http.path.rstrip("/").rsplit("}", 1)[-1]
            words = tokens(singular(parent)) + tuple(t for t in tokens(tail) if not t.isdigit())
            under.setdefault(resource, {})[spec.name] = resource_key(pluralize("_".join(words)))
    out = dict(resources)
    for resource, named in under.items():
        # under one kind of parent (or none), the spec's name stands
        if None not in parents[resource] and len(parents[resource]) > 1:
            out.update(named)
    return out


def _keyed_by_parent(
    resource: str, tools: list[tuple[ToolSpec, str]], resources: frozenset[str]
) -> str | None:
    """The parent key every tool of a resource finds its record by, where none creates or
    lists the records: one per parent (a kind of record the service keeps), each read,
    changed or removed through its parent."""
    keys = {parent_key(spec, resource) for spec, _ in tools}
    if len(keys) != 1 or None in keys:
        return None
    key = next(iter(keys))
    if any(input_refs(spec).get(key) not in resources for spec, _ in tools):
        return None
    for spec, verb in tools:
        if verb in ("create", "clear", "count"):
            return None
        root = deref(spec.output_schema, spec.output_schema) if spec.output_schema else {}
        arrays = [n for n in (root.get("properties") or {}).values() if "array" in json_types(n)[0]]
        if verb in ("list", "search") and (json_types(root)[0] != {"object"} or arrays):
            return None  # an array, or one inside: the records under the parent, many of them
        source = record_source(spec)
        if source is not None and source.container in ("list", "page"):
            return None
    return keys.pop()


def _last_path_param(spec: ToolSpec) -> str | None:
    if spec.http is None:
        return None
    segments = re.findall(r"\{([^}]+)\}", spec.http.path)
    path = re.sub(r"\}:[A-Za-z]\w*$", "}", spec.http.path.rstrip("/"))  # ``{name}:cancel``
    if not segments or not path.endswith("}"):
        return None
    wanted = segments[-1]
    for name, where in spec.http.params.items():
        if where == "path" and (name == wanted or snake(name) == snake(wanted)):
            return name
    return None


def assign_resources(specs: list[ToolSpec]) -> dict[str, str | None]:
    """Each tool's resource, correcting ingestion's guess where the output shape says otherwise."""
    sources = {s.name: record_source(s) for s in specs}
    declared: dict[str, list[ToolSpec]] = {}
    for s in specs:
        if s.resource:
            declared.setdefault(s.resource, []).append(s)
    canon: dict[str, frozenset[str]] = {}
    for resource, tools in declared.items():
        shaped = [t for t in tools if sources[t.name] is not None]
        if shaped:
            best = min(shaped, key=lambda t: _VERB_PRIORITY.get(str(t.verb), 9))
            canon[resource] = props_of(sources[best.name])  # type: ignore[arg-type]

    def strength(resource: str) -> tuple[int, int, int]:
        verbs = {str(t.verb) for t in declared.get(resource, [])}
        return ("read" in verbs, "list" in verbs, len(declared.get(resource, [])))

    out: dict[str, str | None] = {}
    for s in specs:
        src = sources[s.name]
        resource = s.resource
        if src is not None:
            props = props_of(src)
            mine = resource is not None and any(
                t.name != s.name
                and sources[t.name] is not None
                and jaccard(props, props_of(sources[t.name])) >= 0.8  # type: ignore[arg-type]
                for t in declared.get(resource, [])
            )
            if not mine:
                near = [r for r, p in canon.items() if jaccard(props, p) >= 0.8]
                if near:
                    resource = max(near, key=lambda r: (strength(r), r == s.resource))
        elif resource is None or len(declared.get(resource, [])) <= 1:
            resource = _resource_by_params(s, declared) or resource
        out[s.name] = resource
    return out


def _lists_scalars(spec: ToolSpec) -> bool:
    """Whether a tool answers a list of plain values (``GET /folders/{id}/bytes`` -> ints):
    no records of its own, so its id parameter names the record it is about."""
    schema = spec.output_schema or {}
    items = schema.get("items") if schema.get("type") == "array" else None
    return isinstance(items, dict) and items.get("type") in ("integer", "number", "string")


def _resource_by_params(spec: ToolSpec, declared: dict[str, list[ToolSpec]]) -> str | None:
    """For an orphan tool without output: the resource its id parameter names, else the one
    whose other tools share most of its parameter names (``send_sms(to, from)`` -> messages)."""
    known = sorted(r for r, tools in declared.items() if len(tools) > 1)  # sorted: replayable
    refs = input_refs(spec)
    # a listing's id parameter names the parent whose records it lists
    # (``GET /networks/{networkId}/accessPolicies``), never one record of what it lists
    listing = spec.verb in ("list", "search") and not _lists_scalars(spec)
    for name in () if listing else _deepest_first(spec):
        found = collection_for(name, refs.get(name), known)
        if found and own_id_param(spec, found) == name:
            return found
    if spec.verb not in (None, "action", "create"):
        return None  # a read names what it reads; only writes are matched by parameter names
    seen: dict[str, set[str]] = {}
    for resource, tools in declared.items():
        seen[resource] = set()
        for t in tools:
            seen[resource] |= set(t.input_schema.get("properties") or ())
    # what the tools of every resource take (``repo_path``, ``session_token``) is the
    # context of a call, not a sign of what it acts on: ``git_commit(repo_path, message)``
    # is not a branch because ``git_create_branch(repo_path, branch_name)`` takes a repo too
    # (function-style tools: an HTTP operation's path names what it acts on)
    context: set[str] = set()
    if spec.http is None and len(seen) > 1:
        context = set.intersection(*seen.values())
    params = set(spec.input_schema.get("properties") or ()) - context
    scores = Counter[str]()
    for resource in known:
        scores[resource] = len(params & (seen[resource] - PAGING))
    if scores:
        resource, score = scores.most_common(1)[0]
        if score >= max(1, len(params) // 2):
            return resource
    return None


def _deepest_first(spec: ToolSpec) -> list[str]:
    """Required parameters, those of the path deepest first: in
    ``/organizers/{organizerKey}/trainings/{trainingKey}/nameDescription`` the training is what
    the tool acts on, the organizer only its parent."""
    required = [n for n in spec.input_schema.get("required") or [] if isinstance(n, str)]
    path = re.findall(r"\{([^}]+)\}", spec.http.path) if spec.http is not None else []
    nested = [n for n in reversed(path) if n in required]
    return nested + [n for n in required if n not in nested]


def range_parts(name: str) -> tuple[list[str], str, bool] | None:
    """What a range filter bounds: (the field names it may bound, ``ge``/``le``, whether its
    name says the bound itself is left out: ``_gt``, ``_lt``, ``_after``, ``_before``)."""
    match = _RANGE.match(name)
    if not match:
        return None
    stem = match.group("f1") or match.group("f2")
    word = match.group("pre") or match.group("post")
    op = "ge" if word in _LOWER else "le"
    strict = word in ("gt", "lt", "after", "before")
    return [stem, f"{stem}_at", f"{stem}_date", f"{stem}_on"], op, strict


def range_target(name: str, fields: dict[str, FieldPlan]) -> tuple[str, str] | None:
    """``created_after`` -> (``created_at``, ``ge``); ``min_amount`` -> (``amount``, ``ge``).
    The compiler's bound keeps what is on it (``>=``): ``created_after`` of a record's own
    moment lists that record."""
    parts = range_parts(name)
    if parts is None:
        return None
    candidates, op, _ = parts
    for candidate in candidates:
        field = fields.get(candidate)
        if field and field.type.kind in (Kind.INT, Kind.FLOAT, Kind.DATE, Kind.DATETIME):
            return candidate, op
    return None


class RecordBuilder:
    """Builds the RecordPlan of each resource from the tools that touch it."""

    def __init__(self, mapper: TypeMapper, resources: frozenset[str] = frozenset()) -> None:
        self.mapper = mapper
        self.resources = resources  # every resource of the service: the parents it keeps

    def build(
        self,
        resource: str,
        cls: str,
        tools: list[tuple[ToolSpec, str]],
        sources: dict[str, RecordSource],
    ) -> RecordPlan:
        """``tools``: (spec, effective verb) of every tool acting on the resource; ``cls``: the
        record class name, claimed before any nested type could take it."""
        owner = singular(resource)
        fields: dict[str, FieldPlan] = {}
        taken = {"id"}
        required: set[str] = set()
        prefix = "rec"
        unfit = None
        style: IdStyle | None = None
        shaped = _consistent([(s, sources[s.name]) for s, _ in tools if s.name in sources])
        # one id key per record: the one most outputs show (others are plain fields there)
        keys = Counter(src.id_key for _, src in shaped)
        key_of_id = keys.most_common(1)[0][0] if keys else "id"
        if any("id" in props_of(src) for _, src in shaped):
            key_of_id = "id"  # an ``id`` field is the id, whatever else names the record
        for spec, src in shaped:
            required |= set(src.schema.get("required") or ())
            infos = infos_by_path(spec.fields, "output", src.prefix)
            for key, node in (src.schema.get("properties") or {}).items():
                if key == key_of_id:
                    prefix = _id_prefix(node, prefix)
                    # the most constrained style any output declares (one shows a UUID
                    # pattern, another a bare string: the ids are UUIDs)
                    if (style is None or style == RUNTIME) and not unfit:
                        found = id_style(deref(node, spec.output_schema))
                        if isinstance(found, IdStyle):
                            style = found if style is None or found != RUNTIME else style
                        else:
                            unfit = found
                    continue
                self._add(fields, taken, key, node, infos, owner, _defs(spec.output_schema))
        description = next((str(src.schema.get("description") or "") for _, src in shaped), "")
        lookup = bool(shaped) and all(src.container == "answer" for _, src in shaped)
        # ``get_user_id(user) -> {user_id}``: a read answering the id alone finds the record by
        # what it takes, which the record holds (else nothing would be known of it but its id)
        keyed = [(s, src) for s, src in shaped if _id_by_key(s, src, resource)]
        for spec, _ in keyed if not lookup else ():
            infos = infos_by_path(spec.fields, "input")
            props = spec.input_schema.get("properties") or {}
            for key in lookup_keys(spec):
                self._add(fields, taken, key, props[key], infos, owner, _defs(spec.input_schema))
                required.add(key)
        for spec, _ in shaped if lookup else ():  # what selects an answer is stored with it
            infos = infos_by_path(spec.fields, "input")
            props = spec.input_schema.get("properties") or {}
            for key in lookup_keys(spec):
                self._add(fields, taken, key, props[key], infos, owner, _defs(spec.input_schema))
                required.add(key)
        inputs = [(s, v) for s, v in tools if v in ("create", "update")]
        inputs.sort(key=lambda sv: sv[1] != "create")
        if style is None and not unfit:
            style = _style_from_params(resource, tools)
        if style == RUNTIME and not unfit:
            # outputs show a bare string; the id parameter's description shows the ids by
            # example ("The order id, such as '#W0000000'"): such numbers, not ``ord_3f...``
            style = _told_by_params(resource, tools) or style
        if (
            style is None
            and not unfit
            and any(
                verb in ("list", "search") and (keys_answer(spec) or ("", ""))[1] == "integer"
                for spec, verb in tools
            )
        ):
            style = IdStyle("int")  # the records are listed by integer ids
        if style in (None, RUNTIME) and not unfit and _integer_id_params(resource, tools):
            style = IdStyle("digits")  # text ids the paths take as integers: digits
        named = {*fields, *(k for s, _ in tools for k in s.input_schema.get("properties") or ())}
        for spec, verb in inputs:
            schema = spec.input_schema
            own = own_id_param(spec, resource)
            infos = infos_by_path(spec.fields, "input")
            for told, node in (schema.get("properties") or {}).items():
                key = stored_name(spec, told)  # ``body_rrsets`` (beside ``?rrsets``) is rrsets
                if key in (own, "id", key_of_id) or told == own:
                    continue
                if not _stored_input(spec, verb, told, deref(node, schema), fields, resource):
                    continue
                if verb == "update" and isinstance(node, dict) and new_value_of(key, named):
                    node = {**node, TOLD_BY: spec.name}  # set by that update (``new_text``)
                self._add(fields, taken, key, node, infos, owner, _defs(schema))
                if verb == "create" and not shaped and key in (schema.get("required") or ()):
                    required.add(key)
        if not shaped:
            self._add_filters(resource, tools, fields, taken, owner)
            required |= {"created_at", "updated_at"}
        parent = _keyed_by_parent(resource, tools, self.resources)
        if parent is not None:  # every record holds the parent it hangs under
            spec = next(s for s, _ in tools)
            node = (spec.input_schema.get("properties") or {}).get(parent)
            infos = infos_by_path(spec.fields, "input")
            self._add(fields, taken, parent, node, infos, owner, _defs(spec.input_schema))
            required.add(parent)
        for name, field in fields.items():
            field.required = name in required
        if prefix == "rec":
            prefix = _initials(owner)
        return RecordPlan(
            resource=resource,
            cls=cls,
            description=description,
            fields=fields,
            id_prefix=prefix,
            order=_order(tools),
            shaped=bool(shaped),
            unfit=unfit,
            id_key=key_of_id,
            id_style=style or RUNTIME,
            lookup=lookup,
            singleton=_singleton(resource, tools, lookup) and parent is None,
            parent_key=parent,
        )

    def _add(
        self,
        fields: dict[str, FieldPlan],
        taken: set[str],
        key: str,
        node: Any,
        infos: dict,
        owner: str,
        defs: dict[str, Any],
    ) -> None:
        description = str(node.get("description") or "") if isinstance(node, dict) else ""
        if key == "id":  # the record's own id, never a field of it
            return
        if key in fields:
            existing = fields[key]
            existing.type.nullable = existing.type.nullable or _nullable(node)
            if existing.type.kind is Kind.STR and existing.type.semantic is None:
                # output says "string", a body says "date" (or an enum): keep the specific one
                spec = self.mapper.map(
                    node, path=key, infos=infos, hint=key, owner=owner, defs=defs
                )
                if spec.kind in (Kind.DATE, Kind.DATETIME, Kind.ENUM) or spec.semantic:
                    spec.nullable = existing.type.nullable
                    existing.type = spec
            if _unique(description, owner):
                fields[key].unique = fields[key].unique or fields[key].type.kind is Kind.STR
            return
        spec = self.mapper.map(node, path=key, infos=infos, hint=key, owner=owner, defs=defs)
        attr = field_attr(key, taken)
        taken.add(attr)
        unique = spec.kind is Kind.STR and (
            _unique(description, owner)
            or key in ("username", "slug", f"{owner}_number")
            or names_itself(key)
        )
        fields[key] = FieldPlan(key, attr, spec, False, description, unique)

    def _add_filters(
        self,
        resource: str,
        tools: list[tuple[ToolSpec, str]],
        fields: dict[str, FieldPlan],
        taken: set[str],
        owner: str,
    ) -> None:
        """Without any record output, list filters are the best evidence of stored fields: all
        of them when nothing creates the records, else only enum and boolean ones (a status,
        a flag), which are stored attributes rather than options of the query."""
        creates = any(verb == "create" for _, verb in tools)
        fields.setdefault(
            "created_at",
            FieldPlan(
                "created_at",
                "created_at",
                TypeSpec(Kind.DATETIME, "DateTime", semantic="datetime"),
                True,
            ),
        )
        fields.setdefault(
            "updated_at",
            FieldPlan(
                "updated_at",
                "updated_at",
                TypeSpec(Kind.DATETIME, "DateTime", semantic="datetime"),
                True,
            ),
        )
        taken |= {"created_at", "updated_at"}
        for spec, verb in tools:
            if verb not in ("list", "search"):
                continue
            infos = infos_by_path(spec.fields, "input")
            for key, node in (spec.input_schema.get("properties") or {}).items():
                if snake(key) in PAGING or key in QUERY_NAMES or key in fields:
                    continue
                said = str(node.get("description") or "") if isinstance(node, dict) else ""
                if shapes_answer(key, said, resource):  # an option of the answer, not a field
                    continue
                if not key.isidentifier():
                    continue
                typed = isinstance(node, dict) and (
                    node.get("enum") or node.get("type") == "boolean"
                )
                if creates and not typed:
                    continue
                if _RANGE.match(key) or collection_for(key, None, {resource}) == resource:
                    continue
                self._add(fields, taken, key, node, infos, owner, _defs(spec.input_schema))


def _stored_input(
    spec: ToolSpec,
    verb: str,
    key: str,
    node: dict[str, Any],
    fields: dict[str, FieldPlan],
    resource: str,
) -> bool:
    """Whether a write's input property is a value the record holds: not a display option
    outside the body (``?rrsets``: "whether to include the rrsets in the response"), nor an
    update's change set (``updates: {title, priority}``), whose members are the fields."""
    description = str(node.get("description") or "")
    if location(spec, key) in ("query", "header") and shapes_answer(key, description, resource):
        return False
    if shadowed(spec, key):  # the body's member of this name is the value
        return False
    return verb != "update" or not change_set(node, fields, key, path_keys(spec))


def keys_answer(spec: ToolSpec) -> tuple[str, str] | None:
    """(key, item type) of a list that answers the ids of the records it lists, not the
    records: ``["a", "b"]`` (key ``""``) or ``{"keys": [...]}``, of strings or integers."""
    out = spec.output_schema
    root = deref(out, out) if out else {}
    key = ""
    props = root.get("properties")
    if json_types(root)[0] == {"object"} and isinstance(props, dict) and len(props) == 1:
        key, node = next(iter(props.items()))
        root = deref(node, out)
    if json_types(root)[0] != {"array"}:
        return None
    items = deref(root.get("items"), out)
    kinds, _ = json_types(items if isinstance(items, dict) else {})
    if kinds not in ({"string"}, {"integer"}) or (isinstance(items, dict) and items.get("enum")):
        return None
    return key, next(iter(kinds))


def _singleton(resource: str, tools: list[tuple[ToolSpec, str]], lookup: bool) -> bool:
    """One record per service (``GET /self/account``, ``PUT /me``): nothing creates, lists or
    deletes it, no tool names one by id or key, and a read takes no required parameter."""
    if lookup:  # a list that answers with one object reads the answer
        tools = [(s, "read" if answer_source(s) is not None else v) for s, v in tools]
    if any(verb in ("create", "list", "search", "delete", "clear") for _, verb in tools):
        return False
    if any(own_id_param(spec, resource) for spec, _ in tools):
        return False
    if lookup:
        return not any(lookup_keys(spec) for spec, _ in tools)
    reads = [spec for spec, verb in tools if verb == "read"]
    if not reads:  # ``setHeadlights(mode)``, ``pressBrakePedal(pedalPosition)``: set, never read
        return all(verb in ("update", "action") and _sets_values(spec) for spec, verb in tools)
    return all(not spec.input_schema.get("required") for spec in reads)


def _sets_values(spec: ToolSpec) -> bool:
    """The tool takes plain values only: no id of any record (``enable_roaming(customer_id,
    line_id)`` acts on a line), no objects (``items: [{orderIdentifier, status}]`` name
    records of their own)."""
    for name, node in (spec.input_schema.get("properties") or {}).items():
        node = deref(node, spec.input_schema)
        types, _ = json_types(node)
        items = deref(node.get("items"), spec.input_schema) if "array" in types else None
        item_types = json_types(items)[0] if isinstance(items, dict) else set()
        if "object" in types | item_types or tokens(name)[-1:] in (*ID_WORDS, ("ids",)):
            return False
    return True


def _id_by_key(spec: ToolSpec, src: RecordSource, resource: str) -> bool:
    """A read that answers a record's id alone, looked up by other parameters than an id."""
    return (
        str(spec.verb) == "read"
        and src.container == "record"
        and props_of(src) == {src.id_key}
        and own_id_param(spec, resource) is None
        and bool(lookup_keys(spec))
    )


def _consistent(shaped: list[tuple[ToolSpec, RecordSource]]) -> list[tuple[ToolSpec, RecordSource]]:
    """The record outputs that show the same record: a delete's ``{id, deleted}`` has an id too,
    but is not the record."""
    if not shaped:
        return shaped
    # the record is what its get (else create, update, list) shows: a search's hits or an
    # action's answer may carry more keys, but they are another thing
    _, best = min(
        shaped, key=lambda ss: (_VERB_PRIORITY.get(str(ss[0].verb), 9), -len(props_of(ss[1])))
    )
    canon = props_of(best)
    return [(s, src) for s, src in shaped if jaccard(props_of(src), canon) >= 0.5]


def _defs(schema: dict[str, Any] | None) -> dict[str, Any]:
    defs = (schema or {}).get("$defs")
    return defs if isinstance(defs, dict) else {}


_OF_OTHER = re.compile(r"\bunique\b[^.]*?\bof (?:a|an|the) ([A-Za-z]+)", re.IGNORECASE)


def _unique(description: str, owner: str) -> bool:
    """A field the description calls unique among the records (a natural key), not the unique
    name of another thing it refers to (``source``: "The unique name of an index." of a
    collection) nor an identifier."""
    if _UNIQUE.search(description) is None or "identifier" in description.lower():
        return False
    other = _OF_OTHER.search(description)
    mine = tokens(singular(owner))
    return other is None or not mine or singular(other.group(1).lower()) == mine[-1]


def _nullable(node: Any) -> bool:
    return isinstance(node, dict) and json_types(node)[1]


def _id_prefix(node: Any, current: str) -> str:
    if not isinstance(node, dict):
        return current
    for example in [*(node.get("examples") or []), node.get("example")]:
        if isinstance(example, str):
            match = _ID_EXAMPLE.match(example)
            if match:
                return match.group(1).lower()
    return current


def _id_param_nodes(resource: str, tools: list[tuple[ToolSpec, str]]) -> Iterator[Any]:
    """The schema nodes of the id parameter of each read, update or delete of ``resource``."""
    for spec, verb in tools:
        own = own_id_param(spec, resource)
        if own is not None and verb != "create":
            yield deref((spec.input_schema.get("properties") or {}).get(own), spec.input_schema)


def _style_from_params(resource: str, tools: list[tuple[ToolSpec, str]]) -> IdStyle | None:
    """Without a record output, the id parameter of a read, update or delete says the type."""
    for node in _id_param_nodes(resource, tools):
        found = id_style(node)
        if isinstance(found, IdStyle):
            return found
    return None


def _told_by_params(resource: str, tools: list[tuple[ToolSpec, str]]) -> IdStyle | None:
    """The ids an id parameter shows by example, when a person could quote them (a code, a
    booking reference, a handle: ``told_id``)."""
    for node in _id_param_nodes(resource, tools):
        told = told_id(node)
        if told is not None:
            return IdStyle("pattern", told, 0, None)
    return None


def _integer_id_params(resource: str, tools: list[tuple[ToolSpec, str]]) -> bool:
    """Whether a tool names the record by an integer parameter (``/groups/{groupKey}``), or
    by a ``number`` one (Vimeo's ``video_id: number``: ids are whole numbers whatever the
    JSON type says)."""
    for spec, _ in tools:
        own = own_id_param(spec, resource)
        if own is None:
            continue
        node = deref((spec.input_schema.get("properties") or {}).get(own), spec.input_schema)
        if json_types(node)[0] and json_types(node)[0] <= {"integer", "number"}:
            return True
    return False


def _id_unfit(node: dict[str, Any]) -> str | None:
    """Why ids of this shape cannot be the runtime's (``<prefix>_<10 hex digits>`` strings)."""
    types, _ = json_types(node)
    if types and "string" not in types:
        return f"record ids are {'/'.join(sorted(types))}, the runtime's are strings"
    low, high = node.get("minLength"), node.get("maxLength")
    if (isinstance(low, int) and low > 14) or (isinstance(high, int) and high < 14):
        return "record ids have a length the runtime's ids (14 characters) do not"
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        try:
            fits = re.search(pattern, "rec_0123456789")
        except re.error:
            fits = None
        if not fits:
            return f"record ids must match {pattern!r}, which runtime ids do not"
    return None


def _initials(owner: str) -> str:
    words = tokens(owner)
    if len(words) > 1:
        return "".join(w[0] for w in words)
    return words[0][:3] if words else "rec"


def _order(tools: list[tuple[ToolSpec, str]]) -> str:
    for spec, verb in tools:
        if verb == "list" and re.search(
            r"newest first|most recent|latest first|descending", spec.description, re.I
        ):
            return "newest"
    return "oldest"


STATE_ATTRS = frozenset(n for n in dir(State) if not n.startswith("__")) | MODEL_ATTRS


def resource_key(name: str) -> str:
    """Collection names are State attributes; ingestion's resource names (snake_case) already
    are identifiers, and keep their spelling so the conformance suite finds them."""
    return identifier(name, STATE_ATTRS)
