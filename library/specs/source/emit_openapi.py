"""Emit OpenAPI 3.0 / 3.1 and Swagger 2.0 documents."""

from __future__ import annotations

from typing import Any

from .fields import boolean, integer, s
from .model import Field, Resource, Service, camel
from .ops import Op, expand, paging, record_fields
from .schema import Dialect, field_schema, object_schema


def host(svc: Service) -> str:
    return svc.host or f"api.{svc.name.replace('_', '')}.example.com"


def _info(svc: Service) -> dict[str, Any]:
    return {
        "title": svc.title,
        "version": svc.version,
        "description": svc.desc,
        "contact": {
            "name": f"{svc.title} support",
            "email": f"api-support@{host(svc).removeprefix('api.')}",
        },
    }


def _tag(res: Resource) -> str:
    return res.nouns[:1].upper() + res.nouns[1:]


class _Doc:
    """Shared machinery: component names and references for one dialect."""

    def __init__(self, svc: Service, dialect: Dialect) -> None:
        self.svc = svc
        self.d = dialect
        self.swagger = dialect == "swagger"
        self.schemas: dict[str, Any] = {}

    def ref(self, name: str) -> dict[str, str]:
        prefix = "#/definitions/" if self.swagger else "#/components/schemas/"
        return {"$ref": prefix + name}

    def param_ref(self, name: str) -> dict[str, str]:
        return {"$ref": ("#/parameters/" if self.swagger else "#/components/parameters/") + name}

    def response_ref(self, name: str) -> dict[str, str]:
        return {"$ref": ("#/responses/" if self.swagger else "#/components/responses/") + name}

    # -- schemas -------------------------------------------------------------------------------
    def resource_schemas(self, res: Resource, ops: list[Op]) -> None:
        kinds = {op.kind for op in ops if op.resource is res}
        name = res.schema_name
        self_ref = self.ref(name)["$ref"]
        fields = record_fields(res)
        create = next((op for op in ops if op.resource is res and op.kind == "create"), None)
        if self.d == "oas31" and create is not None:
            in_body = {f.name for f in create.body}
            extra = [f for f in fields if f.name not in in_body]
            rest = object_schema(extra, self.d, self_ref=self_ref, record=True)
            self.schemas[name] = {
                "description": res.desc,
                "allOf": [self.ref(f"{name}Create"), rest],
            }
        else:
            self.schemas[name] = object_schema(
                fields, self.d, desc=res.desc, self_ref=self_ref, record=True
            )
        for op in ops:
            if op.resource is res and op.kind in ("create", "update"):
                what = (
                    "Fields of a new" if op.kind == "create" else "Fields to change on an existing"
                )
                self.schemas[op.body_schema] = object_schema(
                    op.body,
                    self.d,
                    desc=f"{what} {res.noun}.",
                    required=op.kind == "create",
                    self_ref=self_ref,
                )
        if kinds & {"list", "search"}:
            self.schemas[f"{name}List"] = self.list_schema(res)

    def list_schema(self, res: Resource) -> dict[str, Any]:
        props: dict[str, Any] = {
            "data": {
                "type": "array",
                "description": f"The {res.nouns} on this page.",
                "items": self.ref(res.schema_name),
            }
        }
        if self.svc.paging == "cursor":
            extra = [
                s(
                    "next_cursor",
                    "Cursor for the next page; null on the last page.",
                    null=True,
                    req=True,
                ),
                boolean("has_more", "Whether more results follow this page.", req=True),
            ]
        else:
            extra = [
                integer("total", "Total number of matching records.", req=True, minimum=0),
                integer("limit", "Page size that was applied.", req=True),
                integer("offset", "Offset that was applied.", req=True),
            ]
        for f in extra:
            props[f.name] = field_schema(f, self.d)
        return {
            "type": "object",
            "description": f"A page of {res.nouns}.",
            "properties": props,
            "required": ["data", *[f.name for f in extra]],
        }

    def common_schemas(self, ops: list[Op]) -> None:
        if any(op.response == "deleted" for op in ops):
            self.schemas["Deleted"] = object_schema(
                [
                    s("id", "Identifier of the deleted record.", req=True),
                    boolean("deleted", "Always true.", req=True),
                ],
                self.d,
                desc="Confirmation that a record was deleted.",
            )
        self.schemas["Error"] = object_schema(
            [
                s(
                    "code",
                    "Machine-readable error code, e.g. `not_found` or `invalid_argument`.",
                    req=True,
                    ex="not_found",
                ),
                s(
                    "message",
                    "Human-readable explanation of the error.",
                    req=True,
                    ex="No record with that ID.",
                ),
            ],
            self.d,
            desc="Error body returned with every 4xx response.",
        )

    def action_schemas(self, op: Op) -> None:
        from .ops import pascal_name

        if op.body:
            self.schemas[op.body_schema] = object_schema(
                op.body, self.d, desc=f"Parameters of {op.name}."
            )
        if op.response == "custom":
            self.schemas[f"{pascal_name(op.name)}Result"] = object_schema(
                list(op.result), self.d, desc=f"Result of {op.name}.", record=True
            )

    def response_schema(self, op: Op) -> dict[str, str]:
        from .ops import pascal_name

        if op.response == "list":
            return self.ref(f"{op.resource.schema_name}List")
        if op.response == "deleted":
            return self.ref("Deleted")
        if op.response == "custom":
            return self.ref(f"{pascal_name(op.name)}Result")
        return self.ref(op.resource.schema_name)

    def response_text(self, op: Op) -> str:
        if op.kind == "create":
            return f"The created {op.resource.noun}."
        if op.response == "list":
            return f"A page of {op.resource.nouns}."
        if op.response == "deleted":
            return f"The {op.resource.noun} was deleted."
        if op.response == "custom":
            return f"Result of the {op.summary[0].lower()}{op.summary[1:]} request."
        if op.kind == "action":
            return f"The {op.resource.noun} after the change."
        return f"The {op.resource.noun}."

    def op_id(self, op: Op) -> str:
        return camel(op.name) if self.svc.op_style == "camel" else op.name


# -- OpenAPI 3.x --------------------------------------------------------------------------------
def _param3(doc: _Doc, f: Field, where: str, required: bool) -> dict[str, Any]:
    schema = field_schema(f, doc.d)
    schema.pop("description", None)
    example = schema.pop("example", None)
    schema.pop("examples", None)
    out: dict[str, Any] = {"name": f.name, "in": where, "description": f.desc}
    if required:
        out["required"] = True
    out["schema"] = schema
    if example is not None or f.example is not None:
        out["example"] = f.example
    return out


_SHARED = {"limit": "Limit", "offset": "Offset", "cursor": "Cursor"}


def _shared_fields(svc: Service) -> dict[str, Field]:
    """Pagination parameters, described once for the whole document."""
    return {f.name: f for f in paging(svc, "records")}


def openapi(svc: Service, version: str) -> dict[str, Any]:
    dialect: Dialect = "oas31" if version.startswith("3.1") else "oas30"
    doc = _Doc(svc, dialect)
    ops = expand(svc)
    paths: dict[str, dict[str, Any]] = {}
    shared = _shared_fields(svc)
    shared_params: dict[str, Any] = {}
    for res in svc.resources:
        doc.resource_schemas(res, ops)
    for op in ops:
        if op.kind == "action":
            doc.action_schemas(op)
        params: list[Any] = [_param3(doc, f, "path", True) for f in op.path_params]
        for f in op.query_params:
            if op.kind in ("list", "search") and f.name in shared:
                key = _SHARED[f.name]
                shared_params[key] = _param3(doc, shared[f.name], "query", False)
                params.append(doc.param_ref(key))
            else:
                params.append(_param3(doc, f, "query", f.required))
        entry: dict[str, Any] = {
            "operationId": doc.op_id(op),
            "summary": op.summary,
            "description": op.description,
            "tags": [_tag(op.resource)],
        }
        if params:
            entry["parameters"] = params
        if op.body:
            entry["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": doc.ref(op.body_schema)}},
            }
        responses: dict[str, Any] = {
            str(op.status): {
                "description": doc.response_text(op),
                "content": {"application/json": {"schema": doc.response_schema(op)}},
            }
        }
        if op.body or op.query_params:
            responses["400"] = doc.response_ref("BadRequest")
        if op.path_params:
            responses["404"] = doc.response_ref("NotFound")
        entry["responses"] = responses
        paths.setdefault(op.path, {})[op.method.lower()] = entry
    doc.common_schemas(ops)
    error = {"application/json": {"schema": doc.ref("Error")}}
    components: dict[str, Any] = {
        "securitySchemes": {
            "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "API key"}
        },
        "parameters": shared_params,
        "responses": {
            "BadRequest": {
                "description": "The request was malformed or failed validation.",
                "content": error,
            },
            "NotFound": {
                "description": "No record exists with the given identifier.",
                "content": error,
            },
        },
        "schemas": doc.schemas,
    }
    out: dict[str, Any] = {"openapi": version, "info": _info(svc), "x-service-name": svc.name}
    if dialect == "oas31":
        out["jsonSchemaDialect"] = "https://spec.openapis.org/oas/3.1/dialect/base"
    out["servers"] = [{"url": f"https://{host(svc)}/v1", "description": "Production"}]
    out["security"] = [{"bearerAuth": []}]
    out["tags"] = [{"name": _tag(r), "description": r.desc} for r in svc.resources]
    out["paths"] = paths
    out["components"] = components
    return out


# -- Swagger 2.0 --------------------------------------------------------------------------------
def _param2(f: Field, where: str, required: bool) -> dict[str, Any]:
    schema = field_schema(f, "swagger")
    schema.pop("example", None)
    out: dict[str, Any] = {"name": f.name, "in": where, "description": schema.pop("description")}
    out["required"] = required
    out.update(schema)
    return out


def swagger(svc: Service) -> dict[str, Any]:
    doc = _Doc(svc, "swagger")
    ops = expand(svc)
    paths: dict[str, dict[str, Any]] = {}
    shared = _shared_fields(svc)
    shared_params: dict[str, Any] = {}
    for res in svc.resources:
        doc.resource_schemas(res, ops)
    for op in ops:
        if op.kind == "action":
            doc.action_schemas(op)
        params: list[Any] = [_param2(f, "path", True) for f in op.path_params]
        for f in op.query_params:
            if op.kind in ("list", "search") and f.name in shared:
                key = _SHARED[f.name]
                shared_params[key] = _param2(shared[f.name], "query", False)
                params.append(doc.param_ref(key))
            else:
                params.append(_param2(f, "query", f.required))
        if op.body:
            params.append(
                {
                    "name": "body",
                    "in": "body",
                    "description": f"The {op.resource.noun} fields."
                    if op.kind != "action"
                    else f"Parameters of {op.name}.",
                    "required": True,
                    "schema": doc.ref(op.body_schema),
                }
            )
        entry: dict[str, Any] = {
            "operationId": doc.op_id(op),
            "summary": op.summary,
            "description": op.description,
            "tags": [_tag(op.resource)],
        }
        if params:
            entry["parameters"] = params
        responses: dict[str, Any] = {
            str(op.status): {
                "description": doc.response_text(op),
                "schema": doc.response_schema(op),
            }
        }
        if op.body or op.query_params:
            responses["400"] = doc.response_ref("BadRequest")
        if op.path_params:
            responses["404"] = doc.response_ref("NotFound")
        entry["responses"] = responses
        paths.setdefault(op.path, {})[op.method.lower()] = entry
    doc.common_schemas(ops)
    err = doc.ref("Error")
    return {
        "swagger": "2.0",
        "info": _info(svc),
        "x-service-name": svc.name,
        "host": host(svc),
        "basePath": "/v2",
        "schemes": ["https"],
        "consumes": ["application/json"],
        "produces": ["application/json"],
        "securityDefinitions": {"apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        "security": [{"apiKey": []}],
        "tags": [{"name": _tag(r), "description": r.desc} for r in svc.resources],
        "paths": paths,
        "parameters": shared_params,
        "responses": {
            "BadRequest": {
                "description": "The request was malformed or failed validation.",
                "schema": err,
            },
            "NotFound": {
                "description": "No record exists with the given identifier.",
                "schema": err,
            },
        },
        "definitions": doc.schemas,
    }
