"""JSON pointers (RFC 6901) and local ``$ref`` strings."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote


class RefError(Exception):
    """A ``$ref`` that cannot be followed; the message says what to fix."""


def escape(token: object) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def child(pointer: str, *tokens: object) -> str:
    """``child("/paths", "/users/{id}", "get")`` -> ``/paths/~1users~1{id}/get``."""
    return pointer + "".join("/" + escape(t) for t in tokens)


def ref_pointer(ref: str) -> str:
    """The JSON pointer a local ``$ref`` names: ``#/components/x`` -> ``/components/x``."""
    if not ref.startswith("#"):
        raise RefError(
            f"external $ref {ref[:200]!r} is not bundled into this document; "
            "bundle the spec first (e.g. `redocly bundle` or `swagger-cli bundle`)"
        )
    fragment = unquote(ref[1:])
    if fragment and not fragment.startswith("/"):
        raise RefError(f"$ref {ref[:200]!r} uses an anchor; only JSON-pointer refs are supported")
    return fragment


def resolve(root: Any, pointer: str) -> Any:
    """The value at ``pointer`` in ``root``; RefError naming the first missing step."""
    node = root
    if not pointer:
        return node
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            if token not in node:
                raise RefError(f"$ref target #{pointer[:200]} does not exist (no {token!r})")
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise RefError(f"$ref target #{pointer[:200]} does not exist (stops at {token!r})")
    return node
