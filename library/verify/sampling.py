"""Valid argument values sampled from a tool's input schema.

Spec examples come first (they are what the publisher considers valid), then formats,
semantic types, patterns and bounds. Everything is deterministic given the ``random.Random``.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from library.compiler.patterns import regex_sample
from library.compiler.types import merge_all_of
from library.compiler.values import of_format

MAX_DEPTH = 6
SEMANTIC_SAMPLES = {
    "email": "jane.cooper@example.com",
    "phone": "+14155550132",
    "person_name": "Jane Cooper",
    "company": "Acme Robotics Inc",
    "url": "https://example.com/sample",
    "currency": "USD",
    "country": "US",
    "address": "500 Market Street",
    "money": 125.5,
}
FORMAT_SAMPLES = {
    "email": "jane.cooper@example.com",
    "uri": "https://example.com/sample",
    "url": "https://example.com/sample",
    "uuid": "4c62e638-5a8e-4b3c-9d37-2f1f4c3b9a10",
    "ipv4": "192.0.2.10",
    "ipv6": "2001:db8::10",
    "hostname": "host.example.com",
    "time": "14:30:00",
}


def simplify(node: Any, root: dict[str, Any] | None = None) -> dict[str, Any]:
    """The node with a local ``$ref`` resolved and ``X | null`` unions reduced to ``X``."""
    if not isinstance(node, dict):
        return {}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and root:
        target = (root.get("$defs") or {}).get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    node = dict(merge_all_of(node))
    for key in ("anyOf", "oneOf"):
        branches = [b for b in node.get(key) or () if isinstance(b, dict)]
        real = [b for b in branches if b.get("type") != "null"]
        if real:
            rest = {k: v for k, v in node.items() if k != key}
            return {**simplify(real[0], root), **rest}
    return node


def main_type(node: dict[str, Any]) -> str | None:
    raw = node.get("type")
    if isinstance(raw, list):
        real = [t for t in raw if t != "null"]
        return real[0] if real else None
    if raw is None and "properties" in node:
        return "object"
    if raw is None and "items" in node:
        return "array"
    return raw if isinstance(raw, str) else None


class Sampler:
    """Samples JSON values for schema nodes; ``now`` anchors dates to the World clock."""

    def __init__(self, rng: random.Random, now: dt.datetime) -> None:
        self.rng = rng
        self.now = now

    def value(
        self,
        node: Any,
        *,
        name: str = "",
        path: str = "",
        semantics: dict[str, str] | None = None,
        root: dict[str, Any] | None = None,
        depth: int = 0,
    ) -> Any:
        """A value for ``node``; ``path`` (``items[].date``) finds its semantic type."""
        node = simplify(node, root)
        semantics = semantics or {}
        semantic = semantics.get(path)
        if "const" in node:
            return node["const"]
        enum = [v for v in node.get("enum") or () if v is not None]
        if enum:
            return enum[0]
        jtype = main_type(node)
        for example in [*(node.get("examples") or ()), node.get("example")]:
            if example is not None and _fits(example, node, jtype):
                return example
        if (
            "default" in node
            and node["default"] is not None
            and _fits(node["default"], node, jtype)
        ):
            return node["default"]
        if jtype == "string" or (jtype is None and semantic):
            return self._string(node, name, semantic)
        if jtype == "integer":
            return int(self._number(node, 10))
        if jtype == "number":
            base = SEMANTIC_SAMPLES["money"] if semantic == "money" else 10.5
            return self._number(node, base)
        if jtype == "boolean":
            return True

        def part(sub: Any, key: str, at: str) -> Any:
            return self.value(
                sub, name=key, path=at, semantics=semantics, root=root, depth=depth + 1
            )

        if jtype == "array":
            if depth >= MAX_DEPTH:
                return []
            count = max(1, int(node.get("minItems") or 0))
            return [part(node.get("items"), name, f"{path}[]") for _ in range(count)]
        if jtype == "object" or "properties" in node:
            if depth >= MAX_DEPTH:
                return {}
            extra = node.get("additionalProperties")
            least = node.get("minProperties")
            if isinstance(extra, dict) and not node.get("properties") and isinstance(least, int):
                # a map that must hold entries (``Tags``: minProperties 1): that many entries
                return {f"key{i + 1}": part(extra, name, f"{path}.*") for i in range(least)}
            required = set(node.get("required") or ())
            return {
                key: part(sub, key, f"{path}.{key}" if path else key)
                for key, sub in (node.get("properties") or {}).items()
                if depth < 2 or key in required  # optional parts only near the top: recursion ends
            }
        return "sample"

    def _string(self, node: dict[str, Any], name: str, semantic: str | None) -> str:
        fmt = node.get("format")
        pattern = node.get("pattern")
        low, high = node.get("minLength"), node.get("maxLength")
        low = low if isinstance(low, int) else 0
        high = high if isinstance(high, int) else None
        if isinstance(pattern, str):  # the declared pattern beats a format or a name's meaning
            found = regex_sample(pattern, self.rng, low, high)
            if found is not None:
                return found
        candidate: str | None = None
        if fmt == "date" or (semantic == "date" and not fmt):
            candidate = (self.now.date() + dt.timedelta(days=14)).isoformat()
        elif fmt == "date-time" or (semantic == "datetime" and not fmt):
            moment = self.now + dt.timedelta(days=14)
            candidate = moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        elif isinstance(fmt, str) and fmt in FORMAT_SAMPLES:
            candidate = FORMAT_SAMPLES[fmt]
        if candidate is not None and (fmt or _within(len(candidate), low, high)):
            return candidate
        sample = SEMANTIC_SAMPLES.get(semantic or "")
        if isinstance(sample, str) and _within(len(sample), low, high):
            return sample
        text = f"sample {name}".strip() if name else "sample"
        if semantic == "id":
            text = f"{name.removesuffix('_id') or 'rec'}_sample01"
        if len(text) < low:
            text = text + "x" * (low - len(text))
        if high is not None and len(text) > high:
            text = text[: max(high, 1)]
        return text

    def _number(self, node: dict[str, Any], base: float) -> float:
        low, high = node.get("minimum"), node.get("maximum")
        ex_low, ex_high = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
        value = base
        if isinstance(low, int | float) and value < low:
            value = low
        if isinstance(ex_low, int | float) and value <= ex_low:
            value = ex_low + 1
        if isinstance(high, int | float) and value > high:
            value = high
        if isinstance(ex_high, int | float) and value >= ex_high:
            value = ex_high - 1
        return value


def _fits(value: Any, node: dict[str, Any], jtype: str | None) -> bool:
    """A cheap check that an example suits its node (examples in the wild are often stale)."""
    checks = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    if jtype is not None and not checks.get(jtype, True):
        return False
    fmt = node.get("format")
    if isinstance(value, str) and fmt in ("date", "date-time") and not of_format(value, fmt):
        return False  # a date-time example of a date parameter is not a valid date
    if isinstance(value, str):
        pattern = node.get("pattern")
        try:
            if isinstance(pattern, str) and re.search(pattern, value) is None:
                return False
        except re.error:
            return False
        return _within(len(value), node.get("minLength"), node.get("maxLength"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _within(value, node.get("minimum"), node.get("maximum"))
    return True


def _within(value: float, low: Any, high: Any) -> bool:
    if isinstance(low, int | float) and value < low:
        return False
    return not (isinstance(high, int | float) and value > high)
