"""Render services to files: the path each one lives at and its exact text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .emit_openapi import openapi, swagger
from .emit_tools import bfcl, docker, functions, mcp
from .model import Service
from .ops import expand

SPECS_DIR = Path(__file__).resolve().parent.parent
FORMAT_DIRS: tuple[str, ...] = ("openapi", "swagger", "mcp", "functions", "docker", "bfcl")
FORMAT_LABELS = {
    "openapi30_yaml": "OpenAPI 3.0 (YAML)",
    "openapi30_json": "OpenAPI 3.0 (JSON)",
    "openapi31_json": "OpenAPI 3.1 (JSON)",
    "swagger": "Swagger 2.0 (JSON)",
    "mcp": "MCP tools/list (JSON)",
    "functions": "OpenAI functions (JSON)",
    "docker": "Docker MCP registry list (JSON)",
    "bfcl": "BFCL function docs (JSONL)",
}


class _NoAliasDumper(yaml.SafeDumper):
    """Never emit YAML anchors: every node is written out in full."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _json(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _yaml(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True, width=100)


def relpath(svc: Service) -> str:
    folder, ext = {
        "openapi30_yaml": ("openapi", "yaml"),
        "openapi30_json": ("openapi", "json"),
        "openapi31_json": ("openapi", "json"),
        "swagger": ("swagger", "json"),
        "mcp": ("mcp", "json"),
        "functions": ("functions", "json"),
        "docker": ("docker", "json"),
        "bfcl": ("bfcl", "jsonl"),
    }[svc.format]
    return f"{folder}/{svc.name}.{ext}"


def render(svc: Service) -> str:
    fmt = svc.format
    if fmt == "openapi30_yaml":
        return _yaml(openapi(svc, "3.0.3"))
    if fmt == "openapi30_json":
        return _json(openapi(svc, "3.0.3"))
    if fmt == "openapi31_json":
        return _json(openapi(svc, "3.1.0"))
    if fmt == "swagger":
        return _json(swagger(svc))
    if fmt == "mcp":
        return _json(mcp(svc))
    if fmt == "functions":
        return _json(functions(svc))
    if fmt == "docker":
        return _json(docker(svc))
    if fmt == "bfcl":
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in bfcl(svc))
    raise ValueError(f"unknown format {fmt}")


def tool_count(svc: Service) -> int:
    return len(expand(svc))
