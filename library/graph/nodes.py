"""ToolNode: what the dependency graph knows of a tool (service, verb, keyed inputs/outputs),
built from ingested ToolSpecs or from a Service class's own schemas."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from library.graph.keys import field_key, leaf
from library.ingest.infer_output import answers_id
from library.ingest.naming import singular
from library.runtime.semantic import REF_KEY, SEMANTIC_KEY
from library.runtime.service import Service
from library.runtime.world import qualified
from library.toolspec import ToolSpec

MAX_DEPTH = 6

# Verbs of a class tool without a spec, read from its name (specs carry inferred verbs).
_VERB_PREFIXES = (
    ("create", "create"),
    ("get", "read"),
    ("retrieve", "read"),
    ("list", "list"),
    ("search", "search"),
    ("find", "search"),
    ("update", "update"),
    ("edit", "update"),
    ("delete", "delete"),
)


@dataclass(frozen=True, slots=True)
class FieldRef:
    path: str
    key: str
    required: bool = False

    @property
    def name(self) -> str:
        return leaf(self.path)


@dataclass(frozen=True, slots=True)
class ToolNode:
    service: str
    name: str
    verb: str
    access: str  # "read" | "write"
    inputs: tuple[FieldRef, ...] = ()
    outputs: tuple[FieldRef, ...] = ()
    resource: str | None = None

    @property
    def id(self) -> str:
        return qualified(self.service, self.name)

    def in_keys(self) -> dict[str, bool]:
        """Input key -> whether some input with that key is required."""
        out: dict[str, bool] = {}
        for f in self.inputs:
            out[f.key] = out.get(f.key, False) or f.required
        return out

    def out_keys(self) -> frozenset[str]:
        return frozenset(f.key for f in self.outputs)


def is_verified(
    service: str, tool: str, verified: Mapping[str, Any] | Collection[str] | None
) -> bool:
    if verified is None:
        return True
    if isinstance(verified, Mapping):
        per_service = verified.get(service)
        if isinstance(per_service, Mapping):
            return bool(per_service.get(tool))
        return bool(verified.get(qualified(service, tool)))
    return qualified(service, tool) in verified


def nodes_from_specs(
    specs: Iterable[ToolSpec],
    verified: Mapping[str, Any] | Collection[str] | None = None,
    classes: Mapping[str, type[Service]] | None = None,
) -> list[ToolNode]:
    """One node per (verified) spec. ``verified``: ``{service: {tool: bool}}``,
    ``{"service__tool": bool}`` or a set of qualified names; None keeps every tool.

    Function-calling formats publish no output schema; where a spec has none (or only one
    inferred at ingest), the output fields come from the service class in ``classes``
    (``{service: class}``), if given: what the built tool returns beats a guess.
    """
    nodes = []
    for spec in specs:
        if not is_verified(spec.service, spec.name, verified):
            continue
        fields: dict[str, list[FieldRef]] = {"input": [], "output": []}
        for f in spec.fields:
            key = field_key(f.semantic, f.ref, leaf(f.path), f.type)
            if key is not None:
                fields[f.side].append(FieldRef(f.path, key, f.required))
        cls = (classes or {}).get(spec.service)
        named = (
            name_addressed(cls, cls.tools[spec.name]) if cls and spec.name in cls.tools else None
        )
        if named is not None:
            # The record's name finds it, as an id would: a list of them feeds the tool.
            fields["input"].append(FieldRef(named[0], f"id:{named[1]}", True))
        declared = spec.output_schema and "output_inferred" not in spec.vendor  # else: built
        if not declared and cls is not None and spec.name in cls.tools:
            # (where the built tool answers an untyped object, what was inferred stands)
            built = keyed_fields(cls.tools[spec.name].output_schema)
            fields["output"] = built or (fields["output"] if answers_id(spec) else [])
        if cls is not None and spec.name in cls.tools:
            fields["output"] += record_ids(
                cls, cls.tools[spec.name].output_schema, {f.path for f in fields["output"]}
            )
        nodes.append(
            ToolNode(
                service=spec.service,
                name=spec.name,
                verb=str(spec.verb)
                if spec.verb
                else ("action" if spec.access == "write" else "read"),
                access=spec.access,
                inputs=tuple(fields["input"]),
                outputs=tuple(fields["output"]),
                resource=spec.resource,
            )
        )
    return sorted(nodes, key=lambda n: n.id)


def schema_fields(schema: Mapping[str, Any] | None) -> Iterator[tuple[str, dict, bool]]:
    """(dotted path, resolved node, required) for every node under a JSON schema's root,
    resolving local ``$ref``s and nullable ``anyOf``; recursion is cut at ``MAX_DEPTH``."""
    if not schema:
        return
    defs = schema.get("$defs") or schema.get("definitions") or {}

    def resolve(node: Any) -> dict:
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 8:
            node = defs.get(str(node["$ref"]).rsplit("/", 1)[-1], {})
            seen += 1
        if isinstance(node, dict) and "anyOf" in node:
            options = [resolve(o) for o in node["anyOf"] if o.get("type") != "null"]
            if len(options) == 1:
                merged = {k: v for k, v in node.items() if k != "anyOf"}
                return {**options[0], **merged}
        return node if isinstance(node, dict) else {}

    def walk(node: Any, path: str, required: bool, depth: int) -> Iterator[tuple[str, dict, bool]]:
        node = resolve(node)
        if path:
            yield path, node, required
        if depth >= MAX_DEPTH:
            return
        if node.get("type") == "array" or "items" in node:
            yield from walk(node.get("items") or {}, f"{path}[]", False, depth + 1)
        req = set(node.get("required") or ())
        for name, child in (node.get("properties") or {}).items():
            yield from walk(child, f"{path}.{name}" if path else name, name in req, depth + 1)

    yield from walk(schema, "", False, 0)


def keyed_fields(schema: Mapping[str, Any] | None) -> list[FieldRef]:
    out = []
    for path, node, required in schema_fields(schema):
        key = field_key(node.get(SEMANTIC_KEY), node.get(REF_KEY), leaf(path), node.get("type"))
        if key is not None:
            out.append(FieldRef(path, key, required))
    return out


def _id_shapes(cls: type[Service]) -> dict[frozenset[str], tuple[str, str]]:
    """Each record type's output shape (its field names) -> (the name its id has in
    outputs, its collection): ``project_id`` for a project whose spec calls its id so."""
    out: dict[frozenset[str], tuple[str, str]] = {}
    for coll, rtype in cls.State.collection_types.items():
        meta = rtype.model_fields.get("id")
        if meta is None:
            continue
        props = rtype.model_json_schema().get("properties") or {}
        out.setdefault(frozenset(props), (meta.alias or "id", coll))
    return out


def record_ids(
    cls: type[Service], schema: Mapping[str, Any] | None, known: Collection[str] = ()
) -> list[FieldRef]:
    """The ids of the records an output holds under their own name (``project_id`` as a
    project's id), keyed ``id:<collection>`` and by the reference names the service's
    inputs use for that collection: what makes a list of projects feed a tool that takes
    a project id. Paths in ``known`` (keyed already) are left alone."""
    shapes = _id_shapes(cls)
    refs: dict[str, set[str]] = {}
    for td in cls.tools.values():
        for ref in keyed_fields(td.input_schema):
            if ref.key.startswith("id:"):
                name = ref.key[3:]
                for coll in cls.State.collection_types:
                    if name in (coll, f"{coll}s", coll.removesuffix("s"), coll.removesuffix("es")):
                        refs.setdefault(coll, set()).add(ref.key)
    out = []
    root = {k: v for k, v in (schema or {}).items() if k not in ("$defs", "definitions")}
    for path, node in [("", root), *((p, n) for p, n, _ in schema_fields(schema))]:
        props = node.get("properties")
        hit = shapes.get(frozenset(props)) if isinstance(props, dict) else None
        if hit is None:
            continue
        alias, coll = hit
        where = f"{path}.{alias}" if path else alias
        if alias == "id" or where in known:
            continue  # a plain ``id`` is keyed at ingest when it is one
        for key in sorted({f"id:{coll}"} | refs.get(coll, set())):
            out.append(FieldRef(where, key))
    return out


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """A tool name's words, lower case, whatever its style: ``cancel_order``,
    ``cancelOrder``, ``CancelOrder`` and ``cancel-order`` are all ``cancel order``."""
    return list(_name_words(name))


@functools.cache  # composition asks this of the same few hundred names ~500,000 times
def _name_words(name: str) -> tuple[str, ...]:
    return tuple(t for t in _CAMEL.sub("_", name).lower().replace("-", "_").split("_") if t)


def tool_verb(name: str) -> str:
    """The verb a tool name starts with (``CancelOrder`` -> ``cancel``)."""
    tokens = name_words(name)
    return tokens[0] if tokens else ""


def class_verb(name: str, write: bool) -> str:
    head = name.split("_", 1)[0].lower()
    for prefix, verb in _VERB_PREFIXES:
        if head == prefix and (verb in ("create", "update", "delete")) == write:
            return verb
    return "action" if write else "read"


def nodes_from_service(
    cls: type[Service], verified: Mapping[str, Any] | Collection[str] | None = None
) -> list[ToolNode]:
    """Nodes from a Service class's own tool schemas (for services without ToolSpecs, such
    as the hand-written reference services). Verbs come from tool names."""
    nodes = []
    for td in cls.tools.values():
        if not is_verified(cls.name, td.name, verified):
            continue
        inputs = keyed_fields(td.input_schema)
        named = name_addressed(cls, td)
        if named is not None:
            inputs.append(FieldRef(named[0], f"id:{named[1]}", True))
        nodes.append(
            ToolNode(
                service=cls.name,
                name=td.name,
                verb=class_verb(td.name, td.write),
                access="write" if td.write else "read",
                inputs=tuple(inputs),
                outputs=tuple(keyed_fields(td.output_schema)),
            )
        )
    return sorted(nodes, key=lambda n: n.id)


# Verbs that make a new record: a name they take is the new record's, not a way to find one.
_MAKING = frozenset(
    {"create", "add", "new", "install", "insert", "register", "post", "upload", "send",
     "book", "make", "generate", "open", "submit", "invite", "import", "copy", "clone"}
)  # fmt: skip


def name_addressed(cls: type[Service], td: Any) -> tuple[str, str, str] | None:
    """``(parameter, collection, record field)`` where a write tool finds the record it acts
    on by the record's name instead of an id, as MCP tools and CLIs do
    (``scale_deployment(name, replicas)``, ``restart_pod(pod_name)``): the parameter is a
    required text input named like the record's ``name`` field (``name``, ``pod_name`` for
    a pod), the tool takes no id, and its verb does not make a new record."""
    tokens = name_words(td.name)
    if not td.write or set(tokens[:2]) & _MAKING:
        return None  # ``git_create_branch``: the verb may follow the tool family's name
    props = top_props(td.input_schema)
    if any(n.get(REF_KEY) or k.endswith(("_id", "Id", "_ids")) for k, (n, _) in props.items()):
        return None
    colls = cls.State.collection_types
    for pname, (node, required) in sorted(props.items()):
        if not required or node.get("type") != "string":
            continue
        words = name_words(pname)
        if words[-1:] != ["name"]:
            continue
        noun = "_".join(words[:-1])
        for coll, rtype in sorted(colls.items()):
            fields = rtype.model_fields
            if "name" not in fields and pname not in fields:
                continue
            one = singular(coll)
            named = noun in (one, coll) if noun else "_".join(tokens[1:]) in (one, coll)
            if named:
                return pname, coll, pname if pname in fields else "name"
    return None


def top_props(schema: Mapping[str, Any] | None) -> dict[str, tuple[dict, bool]]:
    """Root properties of a schema: ``{name: (node, required)}``."""
    return {p: (n, r) for p, n, r in schema_fields(schema) if "." not in p and "[" not in p}
