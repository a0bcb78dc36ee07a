"""Planning one tool: what each parameter does, what the tool returns, and its effect.

A tool the compiler cannot express raises ``Skip`` with a reason; the service is still built
from the others, and the skipped ones go to the coding-agent tier.
"""

from __future__ import annotations

import json
import re
from typing import Any

from library.compiler.actions import (
    AUTHORS,
    DERIVES,
    RECIPIENTS,
    REOPENS,
    SENDERS,
    SETTERS,
    TARGETS,
    TERMINAL,
    action_word,
    is_action_word,
    named_states,
    plan_action,
    stamp_field,
    status_field,
    status_mapping,
)
from library.compiler.arguments import (
    change_set,
    location,
    path_keys,
    shadowed,
    shapes_answer,
    stored_name,
)
from library.compiler.device import switch
from library.compiler.ids import ID_WORDS
from library.compiler.model import (
    MISSING,
    ActionPlan,
    FieldPlan,
    Kind,
    OutputPlan,
    ParamPlan,
    RecordPlan,
    Role,
    Shape,
    ToolPlan,
    TypeSpec,
    WrapperPlan,
)
from library.compiler.naming import (
    MODEL_ATTRS,
    SERVICE_ATTRS,
    a_or_an,
    collection_for,
    identifier,
    words,
)
from library.compiler.records import (
    QUERY_NAMES,
    RecordSource,
    answer_source,
    deref,
    jaccard,
    keys_answer,
    names_record,
    own_id_param,
    props_of,
    range_target,
    record_source,
)
from library.compiler.selection import moves_pointer, pointer_word, reads_current, selects
from library.compiler.session import SESSION_NAMES, session_action, session_word
from library.compiler.types import TypeMapper, infos_by_path, json_types
from library.compiler.values import answer_constant, json_literal, server_value
from library.ingest.naming import singular, snake, tokens
from library.toolspec import ToolSpec

# Locals of generated tool bodies: parameters with these names are renamed (and aliased).
BODY_LOCALS = frozenset(
    {
        "self",
        "record",
        "record_id",
        "found",
        "now",
        "start",
        "end",
        "selected",
        "q",
        "changes",
        "transition",
        "data",
    }
)
PAGE_META = {
    "total": "total", "total_count": "total", "totalCount": "total", "count": "total",
    "total_results": "total", "totalResults": "total", "total_items": "total",
    "limit": "limit", "page_size": "limit", "per_page": "limit", "pageSize": "limit",
    "perPage": "limit", "offset": "offset", "skip": "offset", "next_cursor": "next_cursor",
    "nextCursor": "next_cursor", "next_page_token": "next_cursor", "nextPageToken": "next_cursor",
    "cursor": "next_cursor", "has_more": "has_more", "hasMore": "has_more", "page": "page",
    "nextToken": "next_cursor", "NextToken": "next_cursor", "next_token": "next_cursor",
    "pageNumber": "page", "page_number": "page",
}  # fmt: skip
PARAM_PAGING = {
    "limit": Role.LIMIT, "page_size": Role.LIMIT, "per_page": Role.LIMIT, "offset": Role.OFFSET,
    "cursor": Role.CURSOR, "page_token": Role.CURSOR, "starting_after": Role.CURSOR,
    "page": Role.PAGE, "next_token": Role.CURSOR, "max_results": Role.LIMIT,
    "page_number": Role.PAGE,
}  # fmt: skip
COUNTING = frozenset({Role.LIMIT, Role.OFFSET, Role.PAGE})  # paging roles that count records
RECORD_VERBS = ("create", "read", "update", "action")


class Skip(Exception):
    """The compiler tier cannot express this tool; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def effective_verb(spec: ToolSpec, resource: str, record: RecordPlan | None) -> str:
    """The verb the tool behaves as, from its parameters rather than its path alone."""
    verb = str(spec.verb) if spec.verb else ""
    own = own_id_param(spec, resource)
    word = action_word(spec.name)
    if verb in ("update", "action") and not spec.input_schema.get("properties"):
        return "action"  # ``toggle_wifi()``, ``reboot_device()``: nothing to set or create
    if resource in SESSION_NAMES and session_word(spec) is not None:
        return "action"  # ``ticket_login(username, password)``: sets the one session
    if moves_pointer(spec) and own is None and verb in ("", "create", "update", "action"):
        # ``switch_project(project_name)``: names the record it selects, creating none
        # (``git_checkout(repo_path, branch_name)`` takes what ``git_create_branch`` takes)
        return "action"
    if verb == "create":
        return "action" if own else "create"
    if verb == "action" or not verb:
        return "action" if own else "create"
    if verb == "update" and own and record is not None:
        props = spec.input_schema.get("properties") or {}
        # what the update sets: fields (a renamed body member's too), or a change set's
        settable = [
            p
            for p, node in props.items()
            if p != own
            and (
                stored_name(spec, p) in record.fields
                or change_set(deref(node, spec.input_schema), record.fields, p, path_keys(spec))
            )
        ]
        return "update" if settable else "action"
    if verb == "delete" and own is None and not spec.input_schema.get("properties"):
        return "clear"  # ``DELETE /cache``, ``memory_clear()``: every record goes
    if verb == "read" and spec.access == "write" and own and is_action_word(word):
        return "action"
    if verb in ("list", "search") and own is not None:
        source = record_source(spec)  # a "list" answering one record, by its id, reads it
        if source is not None and source.container == "record":  # (``GET /findingsfilters/{id}``)
            return "read"
        if not spec.output_schema and _reads_one_by_its_id(spec, resource, own):
            return "read"
    if verb in ("list", "search") and record is not None and record.parent_key:
        return "read"  # ``GET /networks/{networkId}/snmpSettings``: the network's one record
    lookup = record is not None and record.lookup
    if verb in ("list", "search") and own is None and lookup and answer_source(spec):
        return "read"  # one answer, not a list: ``GET /taxes/settings``
    listing = verb in ("list", "search") and own is None and record is not None
    if listing and _keyed_view(spec, record):  # type: ignore[arg-type]
        return "read"  # ``core_memory_retrieve(key) -> {value}``: one record, by its key
    if verb == "read" and own is None:
        source = record_source(spec)  # a "read" that returns a page of records lists them
        if source is not None and source.container in ("page", "list"):
            return "list"
        if count_key(spec) is not None:
            return "count"
    return verb


def _reads_one_by_its_id(spec: ToolSpec, resource: str, own: str) -> bool:
    """``woo_products_get(productId)``: a name that reads the plural of what its id
    parameter, named for the record (not a bare ``id``, which may name a parent: "the ID of
    the page to get revisions for"), identifies: one record, however the name is worded."""
    if tokens(own) in ID_WORDS:
        return False
    plural = tokens(resource)[-1:]
    return bool(plural) and plural[0] in tokens(spec.name)


def _keyed_view(spec: ToolSpec, record: RecordPlan) -> bool:
    """A "list" answering one object of the record's own fields (no arrays), looked up by
    required parameters that all hold text or integer fields of the record: a read by a
    natural key (``retrieve(key) -> {value}`` of records made by ``add(key, value)``)."""
    root = deref(spec.output_schema, spec.output_schema) if spec.output_schema else {}
    props = root.get("properties")
    if json_types(root)[0] != {"object"} or not isinstance(props, dict) or not props:
        return False
    if not set(props) <= set(record.fields) | {record.id_key}:
        return False
    if any(json_types(deref(n, root))[0] & {"array", "object"} for n in props.values()):
        return False
    inputs = spec.input_schema.get("properties") or {}
    keys = [k for k in spec.input_schema.get("required") or () if k in inputs]
    fields = [record.fields.get(k) for k in keys]
    return bool(keys) and all(
        f is not None and f.type.kind in (Kind.STR, Kind.INT) and k not in props
        for k, f in zip(keys, fields, strict=True)
    )


COUNT_KEYS = frozenset({"count", "total", "total_count", "totalcount", "number", "size"})


def count_key(spec: ToolSpec) -> str | None:
    """The key of a read that answers with how many records there are (``{"count": 12}``),
    ``""`` when the answer is the number itself (``GET /activities/count``)."""
    root = deref(spec.output_schema, spec.output_schema) if spec.output_schema else {}
    if json_types(root)[0] == {"integer"}:
        named = {"count", "total"} & set(tokens(spec.name))
        path = spec.http.path.rstrip("/") if spec.http else ""
        counted = named or path.endswith("/count") or "number of" in spec.description.lower()
        return "" if counted else None
    props = root.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return None
    key, node = next(iter(props.items()))
    node = deref(node, spec.output_schema)
    if key.lower() not in COUNT_KEYS or json_types(node)[0] != {"integer"}:
        return None
    return key


class ToolPlanner:
    def __init__(self, service: str, records: dict[str, RecordPlan], mapper: TypeMapper) -> None:
        self.service = service
        self.records = records
        self.mapper = mapper
        self.collections = frozenset(records)
        self.wrappers: dict[tuple, WrapperPlan] = {}
        self.methods: set[str] = set()
        self.selectable: set[str] = set()  # collections some tool selects a record of

    # -- one tool -------------------------------------------------------------------------
    def plan(
        self, spec: ToolSpec, resource: str, verb: str, source: RecordSource | None
    ) -> ToolPlan:
        record = self.records[resource]
        params = self._params(spec, record, verb)
        if verb == "create" and not any(p.role is Role.FIELD for p in params):
            raise Skip(f"no parameter says what the new {words(singular(resource))} holds")
        output = self._output(spec, record, verb, source)
        method = identifier(spec.name, frozenset(SERVICE_ATTRS | self.methods))
        tool = ToolPlan(
            name=spec.name,
            method=method,
            verb=verb,
            resource=resource,
            description=spec.description.strip() or f"{verb.title()} {words(resource)}.",
            params=params,
            output=output,
            write=verb in ("create", "update", "delete", "action", "clear"),
        )
        if verb in ("update", "action"):
            # a state the seed counts final (``delivered``) it draws too seldom for a call
            # to find a record in: such a requirement only keeps the action from refusing it
            required = named_states(record, spec.name)[0]
            tool.requires = (required,) if required not in (None, *TERMINAL) else ()
        if verb == "create":
            tool.server_values = self._server_values(tool, record)
            if spec.verb in (None, "action"):
                self._creating_action(action_word(spec.name), tool, record)
        elif verb == "action":
            tool.action = self._action(spec, tool, record)
        elif verb == "read" and not tool.by_role(Role.ID, Role.KEY) and not record.singleton:
            tool.current = self._current(spec, record)
        elif verb == "search":
            tool.search_fields = self._search_fields(spec, record)
        for p in params:
            if p.role is Role.IGNORED:
                tool.notes.append(p.name)
        self.methods.add(method)
        return tool

    # -- parameters -----------------------------------------------------------------------
    def _params(self, spec: ToolSpec, record: RecordPlan, verb: str) -> list[ParamPlan]:
        # ``collections_`` (``collections`` is a State attribute) is named as ``collections``
        own = own_id_param(spec, record.resource.rstrip("_"))
        path_params = {k for k, v in (spec.http.params if spec.http else {}).items() if v == "path"}
        owner = singular(record.resource)
        # a parameter never shadows a type the body builds (``Network=Network`` in ``Network(...)``)
        taken = BODY_LOCALS | frozenset(self.mapper.taken)
        out = input_params(spec, self.mapper, owner, taken, self.collections)
        for param in out:
            if self._told_only(spec, param, record, verb):
                continue
            stored = stored_name(spec, param.name)
            self._role(param, record, verb, own, param.name in path_params, stored)
        if verb in ("list", "search") and own is not None:
            raise Skip(
                f"lists by the id of one {words(singular(record.resource))}: it reads something "
                "the spec does not describe"
            )
        if verb in ("read", "update", "delete", "action") and own is None:
            keys = [p for p in out if p.role is Role.KEY]
            if record.singleton and verb != "delete":
                return out  # the one record is the one acted on
            if not keys and not record.lookup:
                # a read, a delete or a selection: all its parameters say which record
                every = verb in ("read", "delete") or moves_pointer(spec)
                found = natural_key(out, record, every=every)
                chosen = [id(p) for p, _ in found]
                sets = (Role.FIELD, Role.CHANGES)
                others = [p for p in out if p.role in sets and id(p) not in chosen]
                # ``set_headlights(mode)``: the one value is what it sets, not which record
                if verb != "update" or others:
                    for p, target in found:
                        p.role, p.target = Role.KEY, target
                    keys = [p for p, _ in found]
            if not keys and verb == "read" and self._current(spec, record):
                return out  # the selected one: ``get_current_project()``
            if not keys:
                raise Skip(f"no parameter identifies the {words(singular(record.resource))}")
        return out

    def _current(self, spec: ToolSpec, record: RecordPlan) -> bool:
        """A read of the selected record of a kind some tool selects."""
        return reads_current(spec) and record.resource in self.selectable

    def _told_only(self, spec: ToolSpec, param: ParamPlan, record: RecordPlan, verb: str) -> bool:
        """Plan a parameter that is no value of the record: a display option (ignored; a
        read's, or a write's outside its body) or an update's change set (its members are
        written). Whether it was one."""
        reads = verb in ("list", "search", "count", "read")
        where = location(spec, param.name)
        told = (reads or where in ("query", "header")) and where != "path"
        if told and shapes_answer(param.name, param.description, record.resource):
            param.role = Role.IGNORED
            return True
        if shadowed(spec, param.name):  # the body's member of its name writes the field
            param.role = Role.REF if param.ref_collection else Role.IGNORED
            return True
        if verb != "update" or param.type.kind is not Kind.MODEL:
            return False
        node = deref((spec.input_schema.get("properties") or {}).get(param.name), spec.input_schema)
        members = change_set(node, record.fields, param.name, path_keys(spec))
        model = next((m for m in self.mapper.models.values() if m.name == param.type.model), None)
        if not members or model is None:
            return False
        for member in model.fields:
            field = record.fields.get(member.name)
            # a member the field cannot hold as typed (a float for an integer) is not written
            fitted = compatible(member.type, field.type) if field is not None else None
            if member.name in members and fitted and fitted.annotation == member.type.annotation:
                param.mapping[member.attr] = member.name
        if not param.mapping:
            return False
        param.role = Role.CHANGES
        return True

    def _role(
        self,
        param: ParamPlan,
        record: RecordPlan,
        verb: str,
        own: str | None,
        in_path: bool,
        stored: str,
    ) -> None:
        name = param.name
        # a body member renamed beside a query parameter (``body_rrsets``) writes its field
        field = record.fields.get(stored)
        if field is None and verb in ("list", "search", "count"):
            field = _field_named(name, record)  # Twilio's ``BindingType`` lists by ``binding_type``
        if name == record.parent_key and field is not None and verb not in ("list", "search"):
            # the one record under this parent: the parent's id finds it
            fitted = compatible(param.type, field.type)
            if fitted is not None:
                param.role, param.target, param.type = Role.KEY, field.name, fitted
                return
        if name == own:
            # a numbered record's id may be declared a number (``rule_id: number``)
            numbers = (Kind.INT, Kind.FLOAT)
            wire_int = record.id_style.numeric and param.type.kind in numbers
            if param.type.kind not in (numbers if wire_int else (Kind.STR, Kind.ANY)):
                kind = "integers" if wire_int else "strings"
                raise Skip(f"id parameter {name!r} is {param.type.kind}, record ids are {kind}")
            param.role, param.ref_collection = Role.ID, record.resource
            ref = "IntRef" if wire_int else "Ref"
            either = {"integer", "string"} <= json_types(param.type.schema)[0]
            if record.id_style.numeric and (param.type.kind is Kind.ANY or either):
                ref = "AnyRef"  # a number or a text (``oneOf: [integer, uuid]``): both name it
            param.type = TypeSpec(Kind.STR, f'{ref}["{record.resource}"]', semantic="id")
            param.default = MISSING
            return
        if verb in ("list", "search", "count"):
            self._list_role(param, record, field)
        elif verb == "create":
            param.role = Role.FIELD if field is not None else Role.IGNORED
        elif verb == "read":
            # a key or scope is a field every record holds: an optional one may be unset
            if param.required and field is not None and field.required:
                param.role = Role.KEY if own is None else Role.SCOPE
            else:
                param.role = Role.IGNORED
        elif verb == "update":
            if field is not None and in_path and param.required and field.required:
                param.role = Role.SCOPE
            else:
                param.role = Role.FIELD if field is not None else Role.IGNORED
                param.default = MISSING  # partial update: absent means unchanged
        elif verb == "delete":
            in_scope = param.required and field is not None and field.required
            param.role = Role.SCOPE if in_scope else Role.IGNORED
        else:  # action
            param.role = Role.FIELD if field is not None else Role.IGNORED
        if param.role in (Role.FIELD, Role.FILTER, Role.KEY, Role.SCOPE) and field is not None:
            # ``tags=x`` filters by membership: fitted to the list field's item, as listed
            member = _member_of(param.type, field.type) if param.role is Role.FILTER else None
            wanted = member or field.type
            fitted = compatible(param.type, wanted)
            if fitted is None:  # same name, other meaning (``rrsets: bool`` vs a list field)
                param.role = Role.IGNORED
            else:
                param.target, param.type = field.name, _bounded(fitted, wanted)
        if param.role is Role.IGNORED and param.ref_collection:
            param.role = Role.REF

    def _list_role(self, param: ParamPlan, record: RecordPlan, field: FieldPlan | None) -> None:
        name = param.name
        paging = PARAM_PAGING.get(snake(name))
        # a count of records may be declared ``number`` (JSON Schema from TypeScript has no
        # integer): the list counts it in whole records
        counts = (Kind.INT, Kind.FLOAT) if paging in COUNTING else (Kind.STR,)
        if paging is not None and param.type.kind in counts:
            param.role = paging
        elif name in QUERY_NAMES and param.type.kind is Kind.STR and field is None:
            param.role = Role.QUERY
        elif field is not None and field.type.kind not in (Kind.MODEL, Kind.DICT, Kind.ANY):
            # ``tag=x`` filters a list field by membership
            wanted = _member_of(param.type, field.type) or field.type
            fitted = compatible(param.type, wanted)
            if fitted is not None:
                param.role, param.target, param.type = Role.FILTER, field.name, fitted
            else:
                param.role = Role.IGNORED
        elif (
            field is None
            and param.ref_collection == record.resource
            and param.type.kind in (Kind.STR, Kind.INT, Kind.FLOAT)
            and not param.required
        ):
            # ``search(id=...)`` ("search files by given ID"): the record's own id filters the
            # list to that record, where an existence check alone would list every record
            param.role, param.target = Role.FILTER, "id"
        else:
            found = range_target(name, record.fields)
            fitted = compatible(param.type, record.fields[found[0]].type) if found else None
            if found is not None and fitted is not None:
                param.role, param.target, param.op = Role.RANGE, found[0], found[1]
                param.type = fitted
            else:
                param.role = Role.IGNORED
        if param.role is Role.LIMIT and default_literal(param) is None:
            maximum = param.type.schema.get("maximum")
            param.default = min(50, maximum) if isinstance(maximum, int) else 50
        if param.role in (Role.OFFSET, Role.PAGE) and default_literal(param) is None:
            param.default = 0 if param.role is Role.OFFSET else 1
        if param.role is Role.FILTER and not param.required:
            param.ref_collection = None  # an unknown id in an optional filter matches nothing
            # a list called without the filter lists every record: a declared default
            # (``dnssec=true``) would hide the others from every call that leaves it out
            param.default = MISSING

    # -- output ---------------------------------------------------------------------------
    def _output(
        self, spec: ToolSpec, record: RecordPlan, verb: str, source: RecordSource | None
    ) -> OutputPlan:
        schema = spec.output_schema
        root = deref(schema, schema) if schema else {}
        if verb == "clear":
            types, _ = json_types(root)
            if root.get("required") or (types and types != {"object"}):
                raise Skip("clearing answers something other than an acknowledgement")
            return OutputPlan(Shape.EMPTY)
        if not schema or _any_object(root):  # no schema, or ``{"type": "object"}``: anything
            return OutputPlan(Shape.LIST if verb in ("list", "search") else Shape.RECORD)
        items = deref(root.get("items"), schema) if json_types(root)[0] == {"array"} else None
        if verb in ("list", "search") and items is not None and _any_object(items):
            return OutputPlan(Shape.LIST)  # ``[{"type": "object"}]``: any records, as a list
        scalar = _scalar_answer(root, record, verb)
        if scalar is not None:
            return scalar
        undefined: list[str] = []
        for node in (root, source.schema if source is not None else {}):
            props = node.get("properties")
            if isinstance(props, dict) and props:
                undefined += sorted(set(node.get("required") or ()) - set(props))
        if undefined:  # a copy-pasted ``required`` list: no answer can satisfy it
            raise Skip(
                f"the output requires {', '.join(map(repr, undefined))} but never defines it"
            )
        known = frozenset(record.fields) | {record.id_key}
        if verb == "count":  # how many records match: computed from the state
            return OutputPlan(Shape.COUNT, None, None, {str(count_key(spec)): "total"})
        if verb in RECORD_VERBS or verb == "delete":
            view = self._view(root, record, known)
            if view is not None:
                return view
        matches = source is not None and jaccard(props_of(source), known) >= 0.5
        if matches and source is not None and source.id_key != record.id_key:
            matches = False
        shown: list[str] | None = None
        if not matches and source is not None and source.id_key == record.id_key:
            # a partial view in a list, or in an envelope (``{data: {id}, status_code}``)
            shown = self._shown(source.schema, record, known)
            matches = shown is not None and source.container in ("list", "page", "envelope")
        elif (
            matches
            and source is not None
            and source.container in ("envelope", "list", "page")
            and _closed(source.schema)
            and set(record.fields) - props_of(source)
        ):  # a closed record node: the record's other fields (from inputs) stay out
            shown = self._shown(source.schema, record, known)
            matches = shown is not None
        if verb in RECORD_VERBS or verb == "delete":
            if matches and source is not None and source.container == "record":
                return OutputPlan(Shape.RECORD)
            if matches and source is not None and source.container == "envelope":
                return self._envelope(schema, source, record, spec, verb, shown)
            if matches and source is not None and source.container == "list" and not shown:
                return OutputPlan(Shape.ONE)  # ``[record]``: the one record, in an array
            if verb == "delete":
                return self._deletion(schema, record)
            answer = self._answer(root, record) if verb != "read" else None
            if answer is not None:
                return answer
            raise Skip(f"output is not {a_or_an(words(singular(record.resource)))} record")
        keys = keys_answer(spec) if verb in ("list", "search") else None
        if keys is not None and (keys[1] == "string" or record.id_style.numeric):
            # the ids of the records listed, not the records (``{"keys": ["a", "b"]}``)
            return OutputPlan(Shape.KEYS, items=keys[0], meta={"type": keys[1]})
        keyed_apart = source is not None and not matches and source.id_key != record.id_key
        if verb in ("list", "search") and (source is None or keyed_apart):
            # items without the id, each a part of a record (``[{DomainName, EngineType}]``)
            found = self._idless(root, schema, record, known)
            if found is not None:
                source, shown = found
                matches = True
        if not matches or source is None or source.container == "record":
            raise Skip(f"output is not a list of {words(record.resource)}")
        if source.container == "list":
            return OutputPlan(Shape.LIST, shown=tuple(shown or ()))
        page = self._page(schema, source, record, bool(shown), spec, verb)
        page.shown = tuple(shown or ())
        return page

    def _idless(
        self, root: dict[str, Any], schema: dict, record: RecordPlan, known: frozenset[str]
    ) -> tuple[RecordSource, list[str]] | None:
        """A list whose items show part of each record but not its id: a bare array, or the
        one array of a wrapper; the items' keys must be the record's own, typed alike."""
        if json_types(root)[0] == {"array"}:
            items = deref(root.get("items"), schema)
            source = RecordSource(items, "[].", "list", None, record.id_key)
        else:
            props = root.get("properties") or {}
            arrays = [
                (k, deref(deref(n, schema).get("items"), schema))
                for k, n in props.items()
                if json_types(deref(n, schema))[0] == {"array"}
            ]
            if len(arrays) != 1:
                return None
            key, items = arrays[0]
            source = RecordSource(items, f"{key}[].", "page", key, record.id_key)
        if record.id_key in (items.get("properties") or {}):
            return None  # the id is there: the keyed paths above decide
        shown = self._shown(items, record, known)
        plain = (Kind.STR, Kind.INT, Kind.FLOAT, Kind.BOOL, Kind.ENUM, Kind.DATE, Kind.DATETIME)
        if not shown or not any(record.fields[k].type.kind in plain for k in shown):
            return None  # nothing but nested values (``[{taxRates: [...]}]``): another thing
        return source, shown

    def _view(
        self, root: dict[str, Any], record: RecordPlan, known: frozenset[str]
    ) -> OutputPlan | None:
        """A partial view of the record (``{Status, MFADelete}`` of a bucket), or the record
        where the answer allows no other keys: the keys it shows, each one the record has,
        every required one a required field."""
        shown = self._shown(root, record, known)
        if shown is None:
            return None
        return OutputPlan(Shape.VIEW, None, None, {k: k for k in shown})

    def _shown(
        self, root: dict[str, Any], record: RecordPlan, known: frozenset[str]
    ) -> list[str] | None:
        """The keys of a view of the record: each one the record has, typed alike, every
        required one a required field; None when the node is not such a view, or is the
        whole record."""
        props = root.get("properties")
        if not isinstance(props, dict) or not props or not set(props) <= known:
            return None
        required = set(root.get("required") or ())
        stored = {n for n, f in record.fields.items() if f.required} | {record.id_key}
        if not required <= stored:
            return None
        if set(props) == known - {record.id_key} | {record.id_key} and not _closed(root):
            return None  # the whole record: Shape.RECORD says it
        for key in props:  # a view holds what the record stores, typed alike
            field = record.fields.get(key)
            node = deref(props[key], root)
            want, have = _json_kind(node), _json_of_type(field.type) if field else None
            widened = (want, have) == ("number", "integer")  # an integer is a number
            if field is not None and have is not None and want not in (None, have) and not widened:
                return None  # (an enum's or any value's JSON type is its values')
        return list(props)

    def _answer(self, root: dict[str, Any], record: RecordPlan) -> OutputPlan | None:
        """A write that answers with an acknowledgement (``{"result": "ok"}``, ``{"id": ...,
        "queued": true}``), not the record: its required keys get the record's id or a fixed
        value; None when one of them can be neither."""
        if json_types(root)[0] - {"object"} or not isinstance(root.get("properties", {}), dict):
            return None
        props = root.get("properties") or {}
        own = (*tokens(singular(record.resource)), "id")
        meta: dict[str, str] = {}
        # the new record's id where the answer has a place for it, required or not
        # (``{id, uri}`` of a create: an empty answer would not say which record it made)
        named = [k for k in props if k == record.id_key or tokens(k) in (own, ("id",))]
        required = root.get("required") or ()
        for key in dict.fromkeys([*required, *named]):
            node = deref(props.get(key), root)
            wire = json_types(node)[0]
            if key == record.id_key or tokens(key) in (own, ("id",)):
                shaped = any(node.get(k) for k in ("pattern", "format", "minLength"))
                if wire <= {"string"} and (key in required or not shaped):
                    meta[key] = "data.id"
                elif wire <= {"integer", "number"} and record.id_style.numeric:
                    meta[key] = "int(data.id)"
                elif key in required:
                    return None
                continue
            value = self._answered(key, node, record)
            if value is None:
                return None
            meta[key] = value
        return OutputPlan(Shape.ANSWER, None, None, meta)

    def _answered(self, key: str, node: dict[str, Any], record: RecordPlan) -> str | None:
        """Source of one key of an acknowledgement: the record's own value where it has the
        field (``points_balance``), the moment of the call for a timestamp, else a fixed
        value."""
        field = record.fields.get(key)
        wire = _json_kind(node)
        if field is not None and field.required and not field.type.nullable:
            have = _json_of_type(field.type)
            if wire is not None and (wire == have or (wire, have) == ("number", "integer")):
                if field.type.kind is Kind.DATETIME:
                    return f"data.{field.attr}.isoformat()"
                if field.type.kind is Kind.DATE:
                    return f"data.{field.attr}.isoformat()"
                if field.type.kind in (Kind.STR, Kind.INT, Kind.FLOAT, Kind.BOOL):
                    return f"data.{field.attr}"
        if wire == "string" and node.get("format") == "date-time":
            return "self.now().isoformat()"
        if wire == "string" and node.get("format") == "date":
            return "self.now().date().isoformat()"
        return answer_constant(key, node)

    def _envelope(
        self,
        schema: dict,
        source: RecordSource,
        record: RecordPlan,
        spec: ToolSpec,
        verb: str,
        shown: list[str] | None = None,
    ) -> OutputPlan:
        """``{"data": <record>}``: the record (or the part of it ``shown``) under one key;
        other optional keys are left out, a required one is a status-like constant or says
        what call this was (``{service, resource, operation}``); one the compiler cannot fill
        refuses the tool."""
        key = source.items_key or "data"
        root = deref(schema, schema)
        props = root.get("properties") or {}
        inner = TypeSpec(Kind.DICT, "dict[str, Any]") if shown else TypeSpec(Kind.MODEL, record.cls)
        field = FieldPlan(key, identifier(key), inner, required=True)
        fields, constants = [field], {}
        for other in root.get("required") or ():
            if other == key:
                continue
            node = deref(props.get(other), schema)
            value = answer_constant(other, node) if other.isidentifier() else None
            if value is None and other.isidentifier():
                value = call_metadata(other, node, self.service, record.resource, spec, verb)
            if value is None:
                raise Skip(f"envelope field {other!r} has no meaning the compiler knows")
            attr = identifier(other, frozenset(f.attr for f in fields))
            fields.append(FieldPlan(other, attr, _constant_type(value), required=True))
            constants[other] = value
        cls = self._wrapper(record, fields, {}, "Envelope")
        return OutputPlan(Shape.ENVELOPE, cls, key, constants, shown=tuple(shown or ()))

    def _page(
        self,
        schema: dict,
        source: RecordSource,
        record: RecordPlan,
        views: bool = False,
        spec: ToolSpec | None = None,
        verb: str = "list",
    ) -> OutputPlan:
        required = set(schema.get("required") or ())
        meta: dict[str, str] = {}
        item = "dict[str, Any]" if views else record.cls  # views: the keys the items show
        fields = [
            FieldPlan(
                source.items_key or "data",
                identifier(source.items_key or "data"),
                TypeSpec(Kind.LIST, f"list[{item}]"),
                required=True,
            )
        ]
        for key, node in (schema.get("properties") or {}).items():
            if key == source.items_key:
                continue
            meaning = PAGE_META.get(key) or _counts_items(deref(node, schema))
            if meaning is None and key in required and key.isidentifier():
                # a status-like constant, or what call this was (``{status_code, service,
                # resource, operation, data: [...]}``): a fixed value, its type from the value
                fixed = self._fixed(key, deref(node, schema), record, spec, verb)
                if fixed is not None:
                    meta[key] = f"={fixed[0]}"
                    fields.append(FieldPlan(key, identifier(key), fixed[1], required=True))
                    continue
            if meaning is None:
                if key in required:
                    raise Skip(f"page field {key!r} has no meaning the compiler knows")
                continue
            meta[key] = meaning
            _, nullable = json_types(node if isinstance(node, dict) else {})
            annotation = {"has_more": "bool", "next_cursor": "str"}.get(meaning, "int")
            if meaning == "next_cursor":
                nullable = nullable or key not in required
            spec = TypeSpec(Kind.STR, annotation, nullable=nullable)
            fields.append(FieldPlan(key, identifier(key), spec, required=key in required))
        return OutputPlan(
            Shape.PAGE, self._wrapper(record, fields, meta, "Page"), source.items_key, meta
        )

    def _fixed(
        self,
        key: str,
        node: dict[str, Any],
        record: RecordPlan,
        spec: ToolSpec | None,
        verb: str,
    ) -> tuple[str, TypeSpec] | None:
        """A fixed value for a key beside the records (source text, and its type)."""
        value = answer_constant(key, node)
        if value is None and spec is not None:
            value = call_metadata(key, node, self.service, record.resource, spec, verb)
        return None if value is None else (value, _constant_type(value))

    def _deletion(self, schema: dict, record: RecordPlan) -> OutputPlan:
        required = set(schema.get("required") or ())
        own = f"{singular(record.resource)}_id"
        meanings = {"id": "id", own: "id", "deleted_id": "id", "deleted": "true"}
        meanings |= {record.id_key: "id", "success": "true", "ok": "true"}
        meta: dict[str, str] = {}
        fields: list[FieldPlan] = []
        for key, node in (schema.get("properties") or {}).items():
            meaning = meanings.get(key)
            if meaning is None:
                if key in required:
                    raise Skip(f"delete output field {key!r} has no meaning the compiler knows")
                continue
            meta[key] = meaning
            annotation = self._deleted_id(key, node, schema, record) if meaning == "id" else "bool"
            kind = Kind.STR if meaning == "id" else Kind.BOOL
            fields.append(
                FieldPlan(key, identifier(key), TypeSpec(kind, annotation), key in required)
            )
        if not fields and not required and json_types(schema)[0] <= {"object"}:
            return OutputPlan(Shape.VIEW, None, None, {})  # nothing required: an empty answer
        if not fields:
            raise Skip("delete output is neither the record nor a deletion confirmation")
        return OutputPlan(Shape.DELETION, self._wrapper(None, fields, meta, "Deletion"), None, meta)

    @staticmethod
    def _deleted_id(key: str, node: Any, schema: dict, record: RecordPlan) -> str:
        """The type of the deleted record's id in a confirmation, as the spec declares it:
        a number (``{deleted: true, id: 42}``) for records counted by integers, else text."""
        types, _ = json_types(deref(node, schema))
        if not types or not types <= {"integer", "number"}:
            return "str"
        if not record.id_style.numeric:
            raise Skip(
                f"delete output {key!r} is a number, {words(singular(record.resource))} ids "
                "are text"
            )
        return "IntId"

    def _wrapper(
        self, record: RecordPlan | None, fields: list[FieldPlan], meta: dict[str, str], kind: str
    ) -> str:
        signature = (
            record.cls if record else None,
            tuple((f.name, f.type.annotation, f.type.nullable, f.required) for f in fields),
        )
        found = self.wrappers.get(signature)
        if found is None:
            base = f"{record.cls}{kind}" if record else kind
            if "next_cursor" in meta.values():
                base = f"{record.cls}CursorPage" if record else base
            found = WrapperPlan(
                self.mapper.claim(base), fields, meta, record.cls if record else None
            )
            self.wrappers[signature] = found
        return found.cls

    # -- verb specifics -------------------------------------------------------------------
    def _server_values(self, tool: ToolPlan, record: RecordPlan) -> dict[str, str]:
        given = {p.target for p in tool.params if p.role is Role.FIELD}
        for p in tool.params:
            field = record.fields.get(p.target or "")
            optional = not p.required and default_literal(p) is None
            if p.role is Role.FIELD and field and field.required and optional:
                value = server_value(field, record, self.service)
                if value is None:
                    raise Skip(f"required field {field.name!r} may be left out on create")
                tool.fallbacks[p.name] = value
        out: dict[str, str] = {}
        for name, field in record.fields.items():
            if name in given:
                continue
            if name in ("created_at", "updated_at") and field.type.kind is Kind.DATETIME:
                out[name] = "now"
                continue
            if not field.required:
                if name in ("status", "state", "stage") and field.type.kind is Kind.ENUM:
                    value = server_value(field, record, self.service)
                    if value is not None:
                        out[name] = value
                continue
            value = server_value(field, record, self.service)
            if value is None:
                raise Skip(f"required field {name!r} has no value on create")
            out[name] = value
        return out

    def _creating_action(self, word: str, tool: ToolPlan, record: RecordPlan) -> None:
        """``send_message(to, ...)`` creates a message already in its sent state, stamped."""
        given = {p.target for p in tool.params if p.role is Role.FIELD}
        status = status_field(record)
        target = None
        if status is not None and status.name not in given and word in TARGETS:
            values = status.type.enum or TARGETS[word][:1]
            target = next((v for v in TARGETS[word] if v in values), None)
            if target is not None:
                tool.server_values[status.name] = json.dumps(target)
        stamp = stamp_field(record, word, target)
        if stamp is not None and stamp not in given:
            kind = record.fields[stamp].type.kind
            tool.server_values[stamp] = "now.date()" if kind is Kind.DATE else "now"

    def _action(self, spec: ToolSpec, tool: ToolPlan, record: RecordPlan) -> ActionPlan:
        word = action_word(spec.name)
        session = session_action(spec, record)
        if session is not None:
            return session
        pointer = pointer_word(spec)
        if pointer and not tool.by_role(Role.ID):  # it names the one it selects
            kind = words(singular(record.resource))
            if not selects(spec):
                raise Skip(
                    f"{pointer!r} moves the current {kind} to an existing one, but only its "
                    "parameters say what it selects"
                )
            if record.singleton:  # ``switch_context(context_name)`` would rename the one
                raise Skip(f"{pointer!r} moves the current {kind}, but the spec shows only one")
            if tool.by_role(Role.FIELD):
                raise Skip(f"{pointer!r} moves the current {kind}, but also sets its fields")
        if selects(spec) and tool.by_role(Role.ID, Role.KEY) and not tool.by_role(Role.FIELD):
            return ActionPlan(word=word, selects=True)
        found = switch(spec) if record.singleton else None
        if found is not None and found[0] in record.fields:  # a device's switch
            flag, _, value = found
            return ActionPlan(
                word=word,
                flag_field=flag,
                flag_value=bool(value),
                switch=True,
                flips=value is None,
            )
        fields = {p.name: record.fields.get(p.name) for p in tool.params if p.role is not Role.ID}
        status = status_field(record)
        plan = plan_action(word, record, fields)
        led = named_states(record, spec.name)[1]
        if led is not None and status is not None:  # where its description says it leads
            plan = plan or ActionPlan(word=word, reopens=word in REOPENS)
            plan.status_field, plan.target = status.name, led
            plan.stamp_field = stamp_field(record, word, led)
        if plan is None and status is not None and status.type.enum:
            plan = self._status_param(tool, record, word, status)
            if plan is not None:
                return plan
        sets_status = any(
            p.role is Role.FIELD and status is not None and p.target == status.name
            for p in tool.params
        )
        written = set(SENDERS + RECIPIENTS + AUTHORS) & set(record.fields)
        fielded = any(p.role is Role.FIELD for p in tool.params)
        if plan is None and word in DERIVES and written and fielded:
            # a reply to a message (a record someone wrote) is a message of its own
            return ActionPlan(word=word, derives=True)
        if plan is None and word in SETTERS and any(p.role is Role.FIELD for p in tool.params):
            plan = ActionPlan(word=word)  # ``resize(size)``: sets the fields it names
        if plan is None and word:
            # no field it changes: the call is kept as a transition in the record's history
            plan = ActionPlan(word=word, history=True)
        if plan is None:
            raise Skip(f"no recognisable state change for action {word!r}")
        if status is None or plan.reopens or sets_status or tool.requires:
            # reopening, or an explicit new status, may leave a final one; a required state
            # is the only one it leaves
            plan.blocked = ()
        else:
            required = named_states(record, spec.name)[0]  # ``return_delivered_order``
            plan.blocked = tuple(
                v for v in status.type.enum if v in TERMINAL and v not in (plan.target, required)
            )
        return plan

    def _status_param(
        self, tool: ToolPlan, record: RecordPlan, word: str, status: FieldPlan
    ) -> ActionPlan | None:
        """``close_deal(outcome: won|lost)`` moves ``stage`` to ``closed_won|closed_lost``."""
        for p in tool.params:
            if p.role is not Role.IGNORED or p.type.kind is not Kind.ENUM:
                continue
            mapping = status_mapping(p.type.enum, status)
            if mapping:
                p.role, p.target, p.mapping = Role.STATUS, status.name, mapping
                plan = ActionPlan(word=word, stamp_field=stamp_field(record, word, None))
                if all(v in TERMINAL for v in mapping.values()):  # once closed, stays closed
                    plan.blocked = tuple(v for v in status.type.enum if v in TERMINAL)
                return plan
        return None

    def _search_fields(self, spec: ToolSpec, record: RecordPlan) -> list[str]:
        named = re.findall(r"`([A-Za-z0-9_]+)`", spec.description)
        texty = [n for n, f in record.fields.items() if _searchable(f)]
        chosen = [n for n in named if n in texty]
        return chosen or texty


CALL_KEYS = frozenset({"service", "resource", "operation", "method", "api"})


def call_metadata(
    key: str, node: dict[str, Any], service: str, resource: str, spec: ToolSpec, verb: str
) -> str | None:
    """Source of a key of an answer that says what call this was, not what is stored: the
    service, the resource, the operation performed, the method (the tool) and the API path
    (``{"service": ..., "resource": "bills", "operation": "create", "data": {...}}``); None
    for any other key, or one whose schema a plain name cannot satisfy."""
    if key.lower() not in CALL_KEYS or json_types(node)[0] != {"string"}:
        return None
    if node.get("enum") or node.get("format") or node.get("pattern"):
        return None
    value = {
        "service": service,
        "resource": resource,
        "operation": verb,
        "method": spec.name,
        "api": spec.http.path if spec.http else spec.name,
    }[key.lower()]
    low, high = node.get("minLength"), node.get("maxLength")
    if (isinstance(low, int) and len(value) < low) or (isinstance(high, int) and len(value) > high):
        return None
    return json.dumps(value)


def input_params(
    spec: ToolSpec,
    mapper: TypeMapper,
    owner: str,
    taken: frozenset[str],
    collections: frozenset[str] = frozenset(),
) -> list[ParamPlan]:
    """One ParamPlan per input property, typed (``owner`` names the types it needs) and named
    apart from ``taken`` (a body's locals); roles are the caller's to decide."""
    schema = spec.input_schema
    required = set(schema.get("required") or ())
    infos = infos_by_path(spec.fields, "input")
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), dict) else {}
    names = set(taken)
    out: list[ParamPlan] = []
    for name, node in (schema.get("properties") or {}).items():
        node = node if isinstance(node, dict) else {}
        ptype = mapper.map(node, path=name, infos=infos, hint=name, owner=owner, defs=defs)
        # A parameter becomes a field of the arguments model the runtime builds from the
        # method: pydantic's own names (``model_config``) and its ``model_`` prefix are out.
        attr = identifier(name, frozenset(names) | MODEL_ATTRS)
        attr = f"p_{attr}" if attr.startswith("model_") else attr
        names.add(attr)
        info = infos.get(name)
        out.append(
            ParamPlan(
                name=name,
                attr=attr,
                type=ptype,
                required=name in required,
                default=node.get("default", MISSING),
                description=str(node.get("description") or ""),
                ref_collection=collection_for(name, info.ref if info else None, collections),
            )
        )
    return out


def natural_key(
    params: list[ParamPlan], record: RecordPlan, every: bool = False
) -> list[tuple[ParamPlan, str]]:
    """A write with no id parameter names its record by a natural key: the first required
    parameter holding a text or integer field of the record (``key`` of
    ``replace(key, value)``, ``path`` of ``edit_file(path, edits)``, ``name`` of
    ``scale(name, replicas)``); with ``every`` (a delete, whose parameters all say which
    record), all of them (``uninstall(name, namespace)``). (parameter, field) pairs, for the
    caller to make lookup KEYs; an empty list when no parameter can be one."""
    keys: list[tuple[ParamPlan, str]] = []
    for p in params:
        field = record.fields.get(p.target or p.name) or key_field(p.name, record)
        if not p.required or p.type.nullable or field is None:
            continue
        if p.role not in (Role.FIELD, Role.SCOPE, Role.IGNORED) or field.name in STAMPS:
            continue
        if p.ref_collection not in (None, record.resource):
            continue  # another record's id (``serial`` of a device): a scope, not this key
        if field.type.kind in (Kind.STR, Kind.INT) and p.type.kind is field.type.kind:
            keys.append((p, field.name))
            if not every:
                break
    return keys


STAMPS = frozenset({"created_at", "updated_at"})


def key_field(name: str, record: RecordPlan) -> FieldPlan | None:
    """The field a parameter named for the record's key holds: ``imagePipelineArn`` of image
    pipelines is their ``arn``, ``stage_name`` of stages their ``name``."""
    toks = tokens(name)
    if not names_record(toks, record.resource, path=True):
        return None
    return record.fields.get(toks[-1])


def _searchable(field: FieldPlan) -> bool:
    t = field.type
    if t.kind is Kind.LIST:
        return t.item is not None and t.item.kind is Kind.STR and t.item.semantic != "id"
    return t.kind is Kind.STR and t.semantic != "id"


def compatible(param: TypeSpec, field: TypeSpec) -> TypeSpec | None:
    """The type a parameter stored into (or compared with) a field should have: its own, or
    the field's when its own would let through values the record refuses (a plain string for
    a date, a float for an integer); None when the two are different things."""
    if param.kind is Kind.LIST and field.kind is Kind.LIST:
        if param.item is None or field.item is None:
            return param
        item = compatible(param.item, field.item)
        if item is None:
            return None
        if item is param.item:
            return param
        return TypeSpec(Kind.LIST, f"list[{item.annotation}]", item=item, schema=param.schema)
    if param.kind is Kind.ANY or field.kind is Kind.ANY:
        return param if field.kind is Kind.ANY else _with_schema(field, param)
    text = (Kind.STR, Kind.ENUM)
    if param.kind in text and field.kind in text and param.is_text != field.is_text:
        return None  # text against an enum of numbers: another thing of the same name
    if param.kind in text and field.kind in (*text, Kind.DATE, Kind.DATETIME):
        if param.kind is Kind.ENUM and field.kind is Kind.ENUM:
            # values the field cannot hold make the parameter another thing (``mode``:
            # merge|overwrite against a record's ``mode``: import), not a narrower one
            return param if set(param.enum) <= set(field.enum) else None
        if param.kind is Kind.ENUM or (field.kind is Kind.STR and field.semantic in (None, "id")):
            return param
        if field.kind in (Kind.DATE, Kind.DATETIME):  # text compared with a moment: parse it
            return _with_schema(field, param)
        return param if param.semantic == field.semantic else _with_schema(field, param)
    if param.kind in (Kind.DATE, Kind.DATETIME) and field.kind in (Kind.DATE, Kind.DATETIME):
        return param
    if param.kind in (Kind.DATE, Kind.DATETIME) and field.kind is Kind.STR:
        return _with_schema(field, param)  # the record keeps text: compare and store text
    if {param.kind, field.kind} <= {Kind.INT, Kind.FLOAT}:
        return _with_schema(field, param) if field.kind is Kind.INT else param
    if param.kind is Kind.MODEL and field.kind is Kind.MODEL:
        if param.annotation == field.annotation:
            return param
        # the field's class must take every key the parameter may hold, or valid input fails
        return _with_schema(field, param) if _keys(param) <= _keys(field) else None
    if param.kind is Kind.DICT and field.kind is Kind.DICT:
        return param
    if {param.kind, field.kind} <= {Kind.MODEL, Kind.DICT}:
        # a dict parameter into a model field is validated as the model; a model into a
        # dict field would be stored as an object the record refuses
        return _with_schema(field, param) if field.kind is Kind.MODEL else None
    if param.kind is field.kind:
        return param
    return None


def _keys(spec: TypeSpec) -> set[str]:
    props = spec.schema.get("properties")
    return set(props) if isinstance(props, dict) else set()


def _member_of(param: TypeSpec, field: TypeSpec) -> TypeSpec | None:
    """A list field's item type, where a one-value parameter filters by membership in it."""
    if field.kind is Kind.LIST and param.kind is not Kind.LIST:
        return field.item
    return None


def _bounded(param: TypeSpec, field: TypeSpec) -> TypeSpec:
    """A number stored into a field takes the field's bounds where the parameter has none:
    the stored value must still satisfy the record's schema when it is read back."""
    if param.kind not in (Kind.INT, Kind.FLOAT):
        return param
    keys = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
    extra = {k: field.schema[k] for k in keys if k in field.schema and k not in param.schema}
    if extra:
        param.schema = {**param.schema, **extra}
    return param


def _with_schema(field: TypeSpec, param: TypeSpec) -> TypeSpec:
    return TypeSpec(
        field.kind,
        field.annotation,
        nullable=param.nullable,
        semantic=field.semantic,
        ref=field.ref,
        enum=field.enum,
        item=field.item,
        model=field.model,
        schema=param.schema,
    )


_ID_WORDS = re.compile(r"\b(id|ids|identifier|key|guid|uuid)\b", re.IGNORECASE)


def _scalar_answer(root: dict[str, Any], record: RecordPlan, verb: str) -> OutputPlan | None:
    """A write answering a bare value: the empty text (``maxLength: 0``) of an update, delete
    or action; or a create's new id (``"The ID (GUID) returned by an operation."``, an
    integer where ids are numbered), when ids of this record can be of that schema."""
    types, nullable = json_types(root)
    if nullable or root.get("enum") or "const" in root:
        return None
    if types == {"string"} and root.get("maxLength") == 0:
        return OutputPlan(Shape.BLANK) if verb in ("update", "delete", "action") else None
    described = str(root.get("description") or "")
    if verb != "create" or (described and not _ID_WORDS.search(described)):
        return None
    style = record.id_style
    if types <= {"integer"} and types and style.numeric:
        return OutputPlan(Shape.ID, meta={"type": "integer"})
    if types != {"string"} or root.get("pattern") or root.get("minLength"):
        return None
    fmt = root.get("format")
    if (fmt is None and root.get("maxLength") is None) or (fmt == "uuid" and style.kind == "uuid"):
        return OutputPlan(Shape.ID, meta={"type": "string"})
    return None


_COUNT_WORDS = re.compile(r"\b(total|number of|count of|how many)\b", re.IGNORECASE)


def _counts_items(node: dict[str, Any]) -> str | None:
    """``total`` for a page's integer said to count its items (Appwrite's ``sum``, "Total sum
    of items in the list."), whatever the key is called."""
    if json_types(node)[0] != {"integer"}:
        return None
    return "total" if _COUNT_WORDS.search(str(node.get("description") or "")) else None


def _field_named(name: str, record: RecordPlan) -> FieldPlan | None:
    """The one field of the record named with the same words in another case (``deviceId``
    and ``DeviceId``, ``SimSid`` and ``sim_sid``)."""
    want = tokens(name)
    found = [f for key, f in record.fields.items() if tokens(key) == want]
    return found[0] if len(found) == 1 else None


def _constant_type(value: str) -> TypeSpec:
    """The type of a fixed value, from its source text (``True``, ``"ok"``, ``200``)."""
    kind = {"True": Kind.BOOL, "False": Kind.BOOL}.get(value)
    if kind is None:
        kind = Kind.STR if value.startswith('"') else Kind.FLOAT
        kind = Kind.INT if kind is Kind.FLOAT and value.lstrip("-").isdigit() else kind
    annotation = {Kind.BOOL: "bool", Kind.STR: "str", Kind.INT: "int"}.get(kind, "float")
    return TypeSpec(kind, annotation)


def _any_object(node: dict[str, Any]) -> bool:
    """``{"type": "object"}`` with nothing said about its keys: any object is an answer."""
    types, _ = json_types(node)
    open_ = node.get("additionalProperties") in (None, True)
    return types == {"object"} and not node.get("properties") and open_ and not node.get("required")


def _closed(node: dict[str, Any]) -> bool:
    return node.get("additionalProperties") is False


_JSON_OF = {
    Kind.STR: "string", Kind.ENUM: None, Kind.INT: "integer", Kind.FLOAT: "number",
    Kind.BOOL: "boolean", Kind.DATE: "string", Kind.DATETIME: "string", Kind.LIST: "array",
    Kind.MODEL: "object", Kind.DICT: "object", Kind.ANY: None,
}  # fmt: skip


def _json_of(kind: Kind) -> str | None:
    return _JSON_OF.get(kind)


def _json_of_type(spec: TypeSpec) -> str | None:
    """The JSON type of a field's values; an enum's is its members' (``1, 2, 3``: integer)."""
    if spec.kind is not Kind.ENUM:
        return _json_of(spec.kind)
    kinds = {
        "boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else
        "number" if isinstance(v, float) else "string" if isinstance(v, str) else "null"
        for v in spec.enum
    } - {"null"}  # fmt: skip
    return kinds.pop() if len(kinds) == 1 else None


def _json_kind(node: dict[str, Any]) -> str | None:
    types, _ = json_types(node)
    if types == {"integer", "number"}:
        return "number"
    return next(iter(types)) if len(types) == 1 else None


def default_literal(param: ParamPlan) -> str | None:
    """Source of a parameter's default: the spec's, when it is a JSON scalar of the right type."""
    value = param.default
    if value is MISSING or value is None:
        return None
    kind = param.type.kind
    if kind is Kind.ENUM and value not in param.type.enum:
        return None
    ok = {
        Kind.STR: isinstance(value, str),
        Kind.ENUM: True,
        Kind.INT: isinstance(value, int) and not isinstance(value, bool),
        Kind.FLOAT: isinstance(value, int | float) and not isinstance(value, bool),
        Kind.BOOL: isinstance(value, bool),
    }.get(kind, False)
    if not ok or param.type.semantic not in (None, "money"):
        return None
    return json_literal(value)
