"""``plan_service``: from a service's ToolSpecs to the plan of its generated code."""

from __future__ import annotations

import re
from collections import defaultdict

from library.compiler.actions import FLAGS, TARGETS, action_word, status_field
from library.compiler.device import add_switch_fields, device_resources, switch
from library.compiler.envelopes import Layer, peel
from library.compiler.model import (
    FieldPlan,
    Kind,
    RecordPlan,
    Role,
    ServicePlan,
    ToolPlan,
    TypeSpec,
)
from library.compiler.naming import SERVICE_ATTRS, class_name, words
from library.compiler.records import (
    RecordBuilder,
    RecordSource,
    answer_source,
    assign_resources,
    keys_answer,
    preferred_sources,
    record_source,
    resource_key,
    split_by_parent,
)
from library.compiler.selection import selected_resources
from library.compiler.session import (
    LOGGED_IN,
    add_session_fields,
    session_resources,
    session_word,
)
from library.compiler.shell import plan_shell
from library.compiler.stateless import STATELESS_KINDS, plan_stateless
from library.compiler.tools import Skip, ToolPlanner, effective_verb
from library.compiler.types import TypeMapper
from library.ingest.naming import singular
from library.ingest.stateless import REASON as STATELESS_REASON
from library.ingest.stateless import STATELESS_KEY
from library.runtime.shell import is_shell, shell_command
from library.toolspec import ToolSpec


def plan_service(specs: list[ToolSpec]) -> ServicePlan:
    """Decide the records, types and tools of one service; tools the compiler tier cannot
    express are listed in ``skipped`` with the reason."""
    if not specs:
        raise ValueError("plan_service needs at least one ToolSpec")
    service = specs[0].service
    skipped: dict[str, str] = {}
    usable = _usable(specs, service, skipped)
    outers: dict[str, tuple[Layer, ...]] = {}
    for i, spec in enumerate(usable):
        if STATELESS_KEY not in spec.vendor:
            usable[i], layers = peel(spec)  # planned on its payload, the answer wrapped back
            if layers:
                outers[spec.name] = layers
    cls = class_name(service)
    mapper = TypeMapper({cls, f"{cls}State", f"{cls}Transition"})
    sources = {s.name: src for s in usable if (src := record_source(s)) is not None}
    resources = split_by_parent(usable, assign_resources(usable))
    resources, switches = device_resources(usable, resources)
    resources, logins = session_resources(usable, resources)
    sources = preferred_sources(usable, resources, sources)
    sources |= _answers(usable, resources, sources)
    by_resource: dict[str, list[tuple[ToolSpec, str]]] = defaultdict(list)
    stateless: list[ToolSpec] = []
    shell = is_shell([s.name for s in usable])
    commands: list[ToolSpec] = []
    for spec in usable:
        resource = resources.get(spec.name)
        if shell and shell_command(spec.name) is not None:
            commands.append(spec)  # a shell command on the service's file tree
        elif STATELESS_KEY in spec.vendor:
            if spec.vendor[STATELESS_KEY].get("kind") in STATELESS_KINDS:
                stateless.append(spec)
            else:
                skipped[spec.name] = STATELESS_REASON
        elif resource is None:
            skipped[spec.name] = "no resource recognised"
        else:
            by_resource[resource].append((spec, effective_verb(spec, resource, None)))
    records = _records(by_resource, sources, mapper, skipped)
    for resource in {resources.get(name) for name in switches} & set(records):
        add_switch_fields(records[resource], switches)  # type: ignore[index]
    for resource in {resources.get(name) for name in logins} & set(records):
        add_session_fields(records[resource], usable, logins)  # type: ignore[index]
    planner = ToolPlanner(service, {r.resource: r for r in records.values()}, mapper)
    planner.selectable = {resource_key(r) for r in selected_resources(usable, resources)}
    tools = _tools(usable, by_resource, records, sources, planner, skipped)
    tools += [plan_stateless(spec, mapper, planner.methods) for spec in stateless]
    for spec in commands:
        try:
            tools.append(plan_shell(spec, mapper, planner.methods))
        except Skip as exc:
            skipped[spec.name] = exc.reason
    for tool in tools:
        if tool.shell is None:
            tool.outer = outers.get(tool.name, ())
    _keys_held(tools, records)
    used = {t.resource for t in tools}
    kept = {r.resource: r for r in records.values() if r.resource in used}
    _unshadow(kept, mapper, planner)
    _unshadow_methods(tools, mapper)
    _forget_dropped_collections(tools, kept)
    order = {spec.name: i for i, spec in enumerate(specs)}
    plan = ServicePlan(
        service=service,
        cls=cls,
        description=_description(service, kept),
        records=kept,
        models=list(mapper.models.values()),
        enums=mapper.enums,
        wrappers=[
            w for w in planner.wrappers.values() if any(t.output.cls == w.cls for t in tools)
        ],
        tools=tools,
        skipped={name: skipped[name] for name in sorted(skipped, key=lambda n: order[n])},
    )
    _prune_types(plan)
    return plan


def _usable(specs: list[ToolSpec], service: str, skipped: dict[str, str]) -> list[ToolSpec]:
    usable: list[ToolSpec] = []
    seen: set[str] = set()
    for spec in specs:
        if spec.service != service:
            skipped[spec.name] = f"belongs to service {spec.service!r}, not {service!r}"
        elif spec.name in seen:
            skipped[spec.name] = "duplicate tool name"
        elif problem := malformed(spec):
            skipped[spec.name] = f"malformed spec: {problem}"
        else:
            seen.add(spec.name)
            usable.append(spec)
    return usable


def _records(
    by_resource: dict[str, list[tuple[ToolSpec, str]]],
    sources: dict[str, RecordSource],
    mapper: TypeMapper,
    skipped: dict[str, str],
) -> dict[str, RecordPlan]:
    """One record per resource; record class names are claimed before any nested type's."""
    builder = RecordBuilder(mapper, frozenset(by_resource))
    classes = {r: mapper.claim(class_name(singular(r))) for r in by_resource}
    records: dict[str, RecordPlan] = {}
    for resource, tools in list(by_resource.items()):
        try:
            record = builder.build(resource, classes[resource], tools, sources)
        except Exception as exc:  # a compiler bug: its tools go to the next tier, not the batch
            for spec, _ in tools:
                skipped[spec.name] = f"compiler error: {type(exc).__name__}: {exc}"
            del by_resource[resource]
            continue
        record.resource = resource_key(resource)
        records[resource] = record
    return records


def _tools(
    usable: list[ToolSpec],
    by_resource: dict[str, list[tuple[ToolSpec, str]]],
    records: dict[str, RecordPlan],
    sources: dict[str, RecordSource],
    planner: ToolPlanner,
    skipped: dict[str, str],
) -> list[ToolPlan]:
    planned = []
    for resource, tools in by_resource.items():
        record = records[resource]
        for spec, _ in tools:
            verb = effective_verb(spec, resource, record)
            if verb == "action" and not record.shaped and not _switched(spec, record):
                _extend_for_action(record, action_word(spec.name))
            planned.append((spec, record, verb))
    order = {spec.name: i for i, spec in enumerate(usable)}
    out = []
    for spec, record, verb in sorted(planned, key=lambda t: order[t[0].name]):
        if verb not in ("read", "list", "search", "count") and spec.access == "read":
            skipped[spec.name] = "read-only, yet it does not read a record the compiler can find"
        elif (
            not set(record.fields) - {"created_at", "updated_at"}
            and not _lists_ids(spec, verb)
            and not (record.singleton and verb == "action")  # kept as a transition
        ):
            unsaid = "" if spec.output_schema else "no output schema, and "
            skipped[spec.name] = (
                f"{unsaid}nothing is known about {words(record.resource)} but their id"
            )
        elif record.unfit:
            skipped[spec.name] = record.unfit
        else:
            try:
                out.append(planner.plan(spec, record.resource, verb, sources.get(spec.name)))
            except Skip as exc:
                skipped[spec.name] = exc.reason
            except Exception as exc:  # a compiler bug: this tool goes to the next tier
                skipped[spec.name] = f"compiler error: {type(exc).__name__}: {exc}"
    return out


def _switched(spec: ToolSpec, record: RecordPlan) -> bool:
    """A device's switch: its flag is a field of the device already."""
    found = switch(spec)
    if session_word(spec) is not None and LOGGED_IN in record.fields:
        return True  # a log-in or log-out: it sets the session's flag
    return found is not None and found[0] in record.fields


def _keys_held(tools: list[ToolPlan], records: dict[str, RecordPlan]) -> None:
    """A field a natural key looks records up by is held by every record (seeded always),
    where no create could leave it out (none creates them, or each sets it):
    ``switch_project(project_name)`` finds projects by their ``project_name``."""
    creates: dict[str, list[ToolPlan]] = defaultdict(list)
    for t in tools:
        if t.verb == "create":
            creates[t.resource].append(t)
    by_key = {r.resource: r for r in records.values()}
    for tool in tools:
        record = by_key.get(tool.resource)
        if record is None or record.lookup:
            continue
        for p in tool.by_role(Role.KEY):
            target = p.target or p.name
            # ``delete_message(receiver_id)``: every create sets the key, so every record has it
            if not all(_sets(create, target) for create in creates[tool.resource]):
                continue
            field = record.fields.get(target)
            if field is not None and field.type.kind in (Kind.STR, Kind.INT):
                field.required = True


def _sets(create: ToolPlan, field: str) -> bool:
    """The create always sets ``field``: a required parameter of it holds the field."""
    return any(
        p.role is Role.FIELD and p.required and (p.target or p.name) == field for p in create.params
    )


def _lists_ids(spec: ToolSpec, verb: str) -> bool:
    """A list of ids needs nothing of its records but their ids."""
    return verb in ("list", "search") and keys_answer(spec) is not None


def _answers(
    specs: list[ToolSpec], resources: dict[str, str | None], sources: dict[str, RecordSource]
) -> dict[str, RecordSource]:
    """Answer sources of the reads of resources no tool shows as a record with an id (and
    that nothing writes): those resources become lookup tables."""
    shown = {resources.get(name) for name in sources}
    # an answer table may be changed in place (``PUT /settings``), not grown or shrunk
    written = {resources.get(s.name) for s in specs if str(s.verb) in ("create", "delete")}
    out: dict[str, RecordSource] = {}
    for spec in specs:
        resource = resources.get(spec.name)
        if resource is None or resource in shown or resource in written:
            continue
        found = answer_source(spec)
        if found is not None:
            out[spec.name] = found
    return out


def _forget_dropped_collections(tools: list[ToolPlan], kept: dict[str, RecordPlan]) -> None:
    """A reference into a collection no compiled tool uses is not checked: it is not stored."""
    for tool in tools:
        for param in tool.params:
            if param.ref_collection and param.ref_collection not in kept:
                param.ref_collection = None
                if param.role is Role.REF:
                    param.role = Role.IGNORED
                    tool.notes.append(param.name)


def _prune_types(plan: ServicePlan) -> None:
    """Keep the enum aliases and nested models the emitted code refers to, and no others
    (skipped tools and unused collections leave some behind)."""
    texts = [f.type.annotation for r in plan.records.values() for f in r.fields.values()]
    texts += [p.type.annotation for t in plan.tools for p in t.params]
    texts += [f.type.annotation for w in plan.wrappers for f in w.fields]
    models = {m.name: m for m in plan.models}
    used: set[str] = set()
    pending = [name for text in texts for name in re.findall(r"[A-Za-z_]\w*", text)]
    while pending:
        name = pending.pop()
        if name in used:
            continue
        used.add(name)
        if name in models:
            pending += [
                n
                for f in models[name].fields
                for n in re.findall(r"[A-Za-z_]\w*", f.type.annotation)
            ]
    plan.models = [m for m in plan.models if m.name in used]
    plan.enums = {name: values for name, values in plan.enums.items() if name in used}


def malformed(spec: ToolSpec) -> str | None:
    """What makes a spec unusable (ingestion normalizes schemas, but specs also arrive as rows
    written by other code)."""
    for side, schema in (("input", spec.input_schema), ("output", spec.output_schema)):
        if schema is None and side == "output":
            continue
        if not isinstance(schema, dict):
            return f"{side} schema is not an object"
        if not isinstance(schema.get("properties", {}), dict):
            return f"{side} schema properties are not an object"
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return f"{side} schema required is not a list of names"
    return None


def _unshadow(records: dict[str, RecordPlan], mapper: TypeMapper, planner: ToolPlanner) -> None:
    """A field must not share its name with a module-level type (``TrackLinks: TrackLinks``):
    in the class body the field's default would shadow the type. Such fields get an alias."""
    names = set(mapper.taken)
    groups = [list(r.fields.values()) for r in records.values()]
    groups += [m.fields for m in mapper.models.values()]
    groups += [w.fields for w in planner.wrappers.values()]
    for fields in groups:
        attrs = {f.attr for f in fields}
        for f in fields:
            if f.attr in names:
                new = f"{f.attr}_"
                while new in attrs or new in names:
                    new += "_"
                attrs.add(new)
                f.attr = new


# Builtin types the annotations of a tool method may name.
_ANNOTATION_BUILTINS = frozenset(
    {"list", "dict", "str", "int", "float", "bool", "set", "tuple", "bytes", "type", "object"}
)


def _unshadow_methods(tools: list[ToolPlan], mapper: TypeMapper) -> None:
    """A tool method must not share its name with a module-level type or a builtin type
    (a tool ``AddColumn`` beside the model ``AddColumn``, a tool ``list`` beside ``list[str]``):
    in the class body, the annotations of every method defined after it would name the
    method. Such methods get another name; the tool keeps the spec's."""
    names = set(mapper.taken) | _ANNOTATION_BUILTINS
    methods = {t.method for t in tools}
    for t in tools:
        if t.method in names:
            new = f"{t.method}_"
            while new in methods or new in names or new in SERVICE_ATTRS:
                new += "_"
            methods.add(new)
            t.method = new


def _extend_for_action(record: RecordPlan, word: str) -> None:
    """A record known only from inputs gets the state field its actions need (``pinned``,
    ``status``): without record outputs the spec never shows it, but the action implies it."""
    if word in FLAGS and status_field(record) is None:
        names, _ = FLAGS[word]
        if not any(n in record.fields for n in names):
            record.fields[names[0]] = FieldPlan(names[0], names[0], TypeSpec(Kind.BOOL, "bool"))
    if word in TARGETS and status_field(record) is None and word not in FLAGS:
        record.fields["status"] = FieldPlan("status", "status", TypeSpec(Kind.STR, "str"))


def _description(service: str, records: dict[str, RecordPlan]) -> str:
    names = ", ".join(words(r) for r in records) or "no records"
    return f"{words(service).capitalize()}: {names}."
