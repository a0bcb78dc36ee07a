"""OpenAPI 3.0/3.1 and Swagger 2.0: one tool per operation.

Path, query and body parameters merge into one input schema (header and cookie parameters are
transport: auth, content negotiation); the first success response with a schema is the output.
Every operation that cannot become a tool leaves a SpecError saying why.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from library.ingest.detect import Detected
from library.ingest.issues import Issues
from library.ingest.naming import renamed_warning, snake, tool_name
from library.ingest.raw import RawTool, declared_access, text, vendor_tags
from library.ingest.refs import RefError, child, ref_pointer, resolve
from library.ingest.schema import SchemaNormalizer, jsonable
from library.toolspec import ErrorKind, HttpBinding, SpecFormat

METHODS = ("get", "put", "post", "delete", "patch", "head")
NOT_TOOLS = ("options", "trace")
_PATH_PARAM = re.compile(r"\{([^{}/]+)\}")
# Swagger 2 keeps a non-body parameter's schema keywords on the parameter itself.
_SWAGGER_SCHEMA_KEYS = (
    "type", "format", "items", "enum", "default", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
    "uniqueItems", "multipleOf", "x-nullable", "description",
)  # fmt: skip
_SUCCESS = ("200", "201", "202", "203", "206", "2XX")


def parse_openapi(det: Detected, issues: Issues) -> list[RawTool]:
    doc = det.doc
    paths = doc.get("paths")
    if paths is None or paths == {}:
        issues.add("/paths", ErrorKind.EMPTY, "the document has no paths, so no operations")
        return []
    if not isinstance(paths, dict):
        issues.add("/paths", ErrorKind.INVALID_DOCUMENT, "`paths` must be an object of path items")
        return []
    parser = _Parser(doc, issues, swagger=det.format == SpecFormat.SWAGGER2)
    tools: list[RawTool] = []
    for path, item in paths.items():
        tools.extend(parser.path_item(str(path), item))
    if not tools and not issues.items:
        issues.add("/paths", ErrorKind.EMPTY, "no path item declares an operation")
    return tools


class _Parser:
    def __init__(self, doc: dict[str, Any], issues: Issues, *, swagger: bool) -> None:
        self.doc = doc
        self.issues = issues
        self.swagger = swagger
        self.norm = SchemaNormalizer(doc, issues)
        consumes = doc.get("consumes") if swagger else None
        self.consumes = consumes if isinstance(consumes, list) else []

    # -- references outside schemas (parameters, bodies, responses, path items) -------------
    def deref(self, node: Any, pointer: str, what: str, tool: str | None) -> tuple[Any, str]:
        """Follow ``$ref`` chains on non-schema objects; ``(None, pointer)`` when broken."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            try:
                target = ref_pointer(ref)
                if target in seen:
                    raise RefError(f"$ref {ref[:200]!r} refers to itself")
                seen.add(target)
                node, pointer = resolve(self.doc, target), target
            except RefError as exc:
                self.issues.warn(pointer, ErrorKind.BAD_REF, f"{what} dropped: {exc}", tool=tool)
                return None, pointer
        return node, pointer

    # -- path items and operations ----------------------------------------------------------
    def path_item(self, path: str, item: Any) -> list[RawTool]:
        pointer = child("/paths", path)
        item, _ = self.deref(item, pointer, "path item", None)
        if not isinstance(item, dict):
            self.issues.add(
                pointer,
                ErrorKind.INVALID_OPERATION,
                f"path item {path[:200]!r} must be an object; none of its operations can be read",
            )
            return []
        tools = []
        for method, op in item.items():
            m = str(method).lower()
            op_pointer = child(pointer, method)
            if m in NOT_TOOLS:
                self.issues.add(
                    op_pointer,
                    ErrorKind.UNSUPPORTED,
                    f"{m.upper()} {path[:200]} describes the transport, not a tool; skipped",
                )
                continue
            if m not in METHODS:
                continue
            if not isinstance(op, dict):
                self.issues.add(
                    op_pointer,
                    ErrorKind.INVALID_OPERATION,
                    f"{m.upper()} {path[:200]} must be an object, got {type(op).__name__}",
                )
                continue
            try:
                tools.append(self.operation(path, m, op, item.get("parameters"), op_pointer))
            except Exception as exc:  # one broken operation must not sink the document
                self.issues.add(
                    op_pointer,
                    ErrorKind.INTERNAL,
                    f"{m.upper()} {path[:200]} could not be read ({type(exc).__name__}: {exc})",
                )
        return tools

    def operation(
        self, path: str, method: str, op: dict[str, Any], shared: Any, pointer: str
    ) -> RawTool:
        raw_id = op.get("operationId")
        if isinstance(raw_id, str) and raw_id.strip():
            name = tool_name(raw_id)
            if (renamed := renamed_warning(raw_id, name)) is not None:
                self.issues.warn(
                    child(pointer, "operationId"), ErrorKind.RENAMED, renamed, tool=name
                )
        else:
            name = derived_name(method, path)
        self.norm.tool = name
        vendor = vendor_tags(op)
        if isinstance(raw_id, str) and name != raw_id:
            vendor["operationId"] = raw_id[:300]

        self.norm.begin()
        props: dict[str, Any] = {}
        required: list[str] = []
        where: dict[str, str] = {}
        body: tuple[dict[str, Any], bool | None] | None = None  # (normalized schema, required)
        form: list[tuple[str, dict[str, Any], bool]] = []
        for (pname, loc), (param, ppointer) in self.parameters(shared, op, path, pointer, name):
            if loc in ("header", "cookie"):
                continue
            if self.swagger and loc == "body":
                schema = self.norm.piece(param.get("schema"), child(ppointer, "schema"))
                body = (schema, param.get("required") is True)
                continue
            schema = self.param_schema(param, ppointer)
            if self.swagger and loc == "formData":
                form.append((pname, schema, param.get("required") is True))
                continue
            props[pname] = schema
            where[pname] = loc
            if loc == "path" or param.get("required") is True:
                required.append(pname)
        for pname in _PATH_PARAM.findall(path):
            if pname not in props:
                self.issues.warn(
                    pointer,
                    ErrorKind.INVALID_SCHEMA,
                    f"path parameter {pname!r} of {path[:200]} is not declared; added as a string",
                    tool=name,
                )
                props[pname] = {"type": "string"}
                where[pname] = "path"
                required.append(pname)

        binding_body: str | None = None
        content_type: str | None = None
        if not self.swagger and "requestBody" in op:
            body, content_type = self.request_body(
                op["requestBody"], child(pointer, "requestBody"), name
            )
        elif form:
            form_props = {pname: schema for pname, schema, _ in form}
            form_required = [pname for pname, _, req in form if req]
            body = ({"type": "object", "properties": form_props, "required": form_required}, True)
            content_type = "application/x-www-form-urlencoded"
        elif body is not None and self.consumes:
            content_type = str(self.consumes[0])
        if body is not None:
            binding_body = _merge_body(body[0], body[1], props, required, where)

        input_schema: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            input_schema["required"] = list(dict.fromkeys(required))
        input_schema = self.norm.finish(input_schema)

        self.norm.begin()
        output = self.output(op, pointer, name)
        output_schema = self.norm.finish(output) if output is not None else None

        return RawTool(
            name=name,
            description=_description(op),
            input_schema=input_schema,
            output_schema=output_schema,
            pointer=pointer,
            http=HttpBinding(
                method=method.upper(),
                path=path,
                params=where,
                body=binding_body,
                content_type=content_type,
            ),
            vendor=vendor,
            declared_access=declared_access(op),
        )

    # -- parameters -------------------------------------------------------------------------
    def parameters(
        self, shared: Any, op: dict[str, Any], path: str, pointer: str, tool: str
    ) -> list[tuple[tuple[str, str], tuple[dict[str, Any], str]]]:
        """Path-item parameters overridden by operation parameters, keyed by (name, in)."""
        merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
        path_pointer = pointer.rsplit("/", 1)[0]
        for params, base in (
            (shared, child(path_pointer, "parameters")),
            (op.get("parameters"), child(pointer, "parameters")),
        ):
            if params is None:
                continue
            if not isinstance(params, list):
                self.issues.warn(
                    base, ErrorKind.INVALID_SCHEMA, "parameters must be a list; ignored", tool=tool
                )
                continue
            for i, param in enumerate(params):
                ppointer = child(base, i)
                param, ppointer = self.deref(param, ppointer, "parameter", tool)
                if param is None:
                    continue
                if (
                    not isinstance(param, dict)
                    or not isinstance(param.get("name"), str)
                    or not isinstance(param.get("in"), str)
                ):
                    self.issues.warn(
                        ppointer,
                        ErrorKind.INVALID_SCHEMA,
                        "a parameter needs a string `name` and `in`; this one was dropped",
                        tool=tool,
                    )
                    continue
                merged[(param["name"], param["in"])] = (param, ppointer)
        return list(merged.items())

    def param_schema(self, param: dict[str, Any], pointer: str) -> dict[str, Any]:
        if self.swagger and param.get("in") != "body":
            node: Any = {k: param[k] for k in _SWAGGER_SCHEMA_KEYS if k in param}
            return self.norm.piece(node, pointer)
        if "schema" in param:
            schema = self.norm.piece(param["schema"], child(pointer, "schema"))
        elif isinstance(param.get("content"), dict):
            media, mpointer = _pick_media(param["content"], child(pointer, "content"))
            schema = (
                self.norm.piece(media.get("schema"), child(mpointer, "schema")) if media else {}
            )
        else:
            schema = {}
        extra: dict[str, Any] = {}
        description = param.get("description")
        if isinstance(description, str) and description and "description" not in schema:
            extra["description"] = description[:4000]
        if "example" in param and "examples" not in schema:
            extra["examples"] = [jsonable(param["example"])]
        if param.get("deprecated") is True:
            extra["deprecated"] = True
        return {**schema, **extra} if extra else schema

    # -- bodies and responses ---------------------------------------------------------------
    def request_body(
        self, body: Any, pointer: str, tool: str
    ) -> tuple[tuple[dict[str, Any], bool | None] | None, str | None]:
        body, pointer = self.deref(body, pointer, "request body", tool)
        if not isinstance(body, dict):
            if body is not None:
                self.issues.warn(
                    pointer,
                    ErrorKind.INVALID_SCHEMA,
                    "requestBody must be an object; ignored",
                    tool=tool,
                )
            return None, None
        content = body.get("content")
        if not isinstance(content, dict) or not content:
            return None, None
        media, mpointer = _pick_media(content, child(pointer, "content"))
        if media is None:
            return None, None
        content_type = mpointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        required = body.get("required")
        schema = self.norm.piece(media.get("schema", {}), child(mpointer, "schema"))
        return (schema, required if isinstance(required, bool) else None), content_type

    def output(self, op: dict[str, Any], pointer: str, tool: str) -> dict[str, Any] | None:
        responses = op.get("responses")
        if not isinstance(responses, dict):
            return None
        by_code = {str(k).upper(): k for k in responses}
        codes = [c for c in _SUCCESS if c in by_code]
        codes += sorted(c for c in by_code if c.startswith("2") and c not in codes)
        if not codes and "DEFAULT" in by_code:
            codes = ["DEFAULT"]
        for code in codes:
            key = by_code[code]
            resp, rpointer = self.deref(
                responses[key], child(pointer, "responses", key), "response", tool
            )
            if not isinstance(resp, dict):
                continue
            if self.swagger:
                if "schema" in resp:
                    return self.norm.piece(resp["schema"], child(rpointer, "schema"))
                continue
            content = resp.get("content")
            if isinstance(content, dict) and content:
                media, mpointer = _pick_media(content, child(rpointer, "content"))
                if media is not None and "schema" in media:
                    return self.norm.piece(media["schema"], child(mpointer, "schema"))
        return None


def _merge_body(
    schema: dict[str, Any],
    body_required: bool | None,
    props: dict[str, Any],
    required: list[str],
    where: dict[str, str],
) -> str:
    """Spread an object body into the input (renaming clashes with path/query parameters to
    ``body_<name>``); any other body becomes one ``body`` property."""
    properties = schema.get("properties")
    if (
        isinstance(properties, dict)
        and "$ref" not in schema
        and "oneOf" not in schema
        and "anyOf" not in schema
    ):
        body_req = set(schema.get("required", [])) if body_required is not False else set()
        for pname, sub in properties.items():
            key = pname if pname not in props else f"body_{pname}"
            props[key] = sub
            where[key] = "body" if key == pname else f"body:{pname}"
            if pname in body_req:
                required.append(key)
        return "merged"
    key = "body" if "body" not in props else "request_body"
    props[key] = schema
    where[key] = "body"
    if body_required is True:
        required.append(key)
    return key


def _pick_media(content: dict[str, Any], pointer: str) -> tuple[dict[str, Any] | None, str]:
    """JSON first, then any ``+json`` type, then forms, then whatever has a schema."""
    keys = [k for k, v in content.items() if isinstance(v, dict)]
    if not keys:
        return None, pointer

    def rank(k: Any) -> int:
        s = str(k).lower()
        if s.startswith("application/json"):
            return 0
        if "json" in s:
            return 1
        if "form" in s:
            return 2
        return 3 if "schema" in content[k] else 4

    best = min(keys, key=rank)
    return content[best], child(pointer, best)


def _description(op: dict[str, Any]) -> str:
    summary, description = text(op.get("summary")), text(op.get("description"))
    if summary and description and not description.startswith(summary.rstrip(".")):
        return f"{summary}\n\n{description}"
    return description or summary


def derived_name(method: str, path: str) -> str:
    """A stable name for an operation without ``operationId``:
    ``GET /contacts/{contact_id}/notes`` -> ``get_contacts_by_contact_id_notes``."""
    parts = [method.lower()]
    for segment in path.split("/"):
        if not segment:
            continue
        params = _PATH_PARAM.findall(segment)
        if params:
            parts.extend("by_" + snake(p) for p in params if snake(p))
        elif snake(segment):
            parts.append(snake(segment))
    name = "_".join(parts)
    if len(name) > 64:  # keep it unique when cut: a short hash of the whole path
        digest = hashlib.blake2b(f"{method} {path}".encode(), digest_size=3).hexdigest()
        name = f"{name[:57]}_{digest}"
    return tool_name(name)
