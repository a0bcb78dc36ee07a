"""Real specs, mutated at random: the ingester never lets an exception escape, never reports a
bug of its own, and every row it produces fits the warehouse tables."""

from __future__ import annotations

import contextlib
import copy
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from library.ingest import ingest_document
from library.toolspec import ErrorKind
from warehouse.schemas import table_schema
from warehouse.store import to_table

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
FILES = (
    sorted(p for p in SPECS.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
    if SPECS.is_dir()
    else []
)
pytestmark = pytest.mark.skipif(not FILES, reason="../shared/specs is not present")

_CACHE: dict[Path, tuple[Any, str]] = {}


def _load(path: Path) -> tuple[Any, str]:
    """(value, syntax): JSON Lines files come back as a list of lines."""
    if path not in _CACHE:
        raw = path.read_bytes()
        try:
            _CACHE[path] = (orjson.loads(raw), "json")
        except orjson.JSONDecodeError:
            _CACHE[path] = ([orjson.loads(x) for x in raw.splitlines() if x.strip()], "jsonl")
    value, syntax = _CACHE[path]
    return json.loads(json.dumps(value)), syntax  # a fresh copy to mutate


def _containers(node: Any, out: list[Any], depth: int = 0) -> list[Any]:
    if depth > 30:
        return out
    if isinstance(node, dict):
        out.append(node)
        for v in node.values():
            _containers(v, out, depth + 1)
    elif isinstance(node, list):
        out.append(node)
        for v in node:
            _containers(v, out, depth + 1)
    return out


_WRONG = [None, 0, -1, 2**70, 1.5, float("inf"), True, "", "x", [], {}, [1, "a"], {"type": 7}]
_REFS = ["#/nope/x", "other.yaml#/A", "#/components/schemas/Missing", "#", "#/paths", "#anchor", ""]
_TYPES = ["dict", "float", "any", "tuple", "String", "nonsense", ["null", "integer"], 5, None]


def _deep(depth: int, rng: random.Random) -> Any:
    node: Any = {"type": "string"}
    for _ in range(depth):
        node = (
            {"type": "object", "properties": {"a": node}}
            if rng.random() < 0.7
            else {"type": "array", "items": node}
        )
    return node


def _mutate(doc: Any, op: str, seed: int) -> Any:
    rng = random.Random(seed)
    nodes = _containers(doc, [])
    if not nodes:
        return doc
    node = rng.choice(nodes)
    if isinstance(node, dict) and node:
        key = rng.choice(list(node))
    elif isinstance(node, list) and node:
        key = rng.randrange(len(node))
    else:
        return doc
    if op == "drop":
        del node[key]
    elif op == "wrong_type":
        node[key] = copy.deepcopy(rng.choice(_WRONG))
    elif op == "broken_ref":
        node[key] = {"$ref": rng.choice(_REFS)}
    elif op == "self_ref":
        node[key] = {"$ref": "#"} if rng.random() < 0.5 else {"allOf": [{"$ref": "#"}]}
    elif op == "deep":
        node[key] = _deep(rng.choice([5, 45, 200, 400]), rng)
    elif op == "huge_string":
        node[key] = "x" * rng.choice([10_000, 300_000])
    elif op == "weird_type":
        if isinstance(node, dict):
            node["type"] = copy.deepcopy(rng.choice(_TYPES))
    elif op == "nullable":
        if isinstance(node, dict):
            node["nullable"] = rng.choice([True, "yes", None])
            node["exclusiveMinimum"] = rng.choice([True, 3, "a"])
    elif op == "duplicate" and isinstance(node, list):
        # An earlier "deep" mutation may be too deep to copy: the harness's limit, not the test's.
        with contextlib.suppress(RecursionError):
            node.append(copy.deepcopy(node[key]))
    return doc


def _json(value: Any) -> bytes:
    # The stdlib encoder, not orjson: orjson refuses nesting deeper than 255 levels.
    return json.dumps(value, allow_nan=True).encode()


def _serialize(doc: Any, syntax: str, how: str, seed: int) -> bytes:
    if syntax == "jsonl" and isinstance(doc, list):
        data = b"\n".join(_json(x) for x in doc)
    elif how == "yaml":
        try:
            data = yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper)).encode()
        except RecursionError:
            data = _json(doc)
    else:
        data = _json(doc)
    if how == "truncate":
        data = data[: random.Random(seed).randrange(1, max(2, len(data)))]
    return data


OPS = ["drop", "wrong_type", "broken_ref", "self_ref", "deep", "huge_string", "weird_type",
       "nullable", "duplicate"]  # fmt: skip


def _check(data: bytes, name: str) -> None:
    specs, errors = ingest_document(data, source_file=name)
    internal = [e for e in errors if e.kind == ErrorKind.INTERNAL]
    assert not internal, internal[0].message
    # Every row must fit its table: no exotic values reach the warehouse.
    to_table([{**s.to_row(), "ingested_at": None} for s in specs][:0], table_schema("specs"))
    rows = [{**s.to_row(), "ingested_at": _NOW} for s in specs]
    to_table(rows, table_schema("specs"))
    to_table([{**e.to_row(), "ingested_at": _NOW} for e in errors], table_schema("spec_errors"))
    orjson.dumps(rows, option=orjson.OPT_NON_STR_KEYS)


import datetime as _dt  # noqa: E402

_NOW = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    index=st.integers(0, max(0, len(FILES) - 1)),
    ops=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2**31)), min_size=1, max_size=6),
    how=st.sampled_from(["json", "json", "json", "yaml", "truncate"]),
)
def test_mutated_real_specs_never_escape(index: int, ops: list[tuple[str, int]], how: str) -> None:
    path = FILES[index]
    doc, syntax = _load(path)
    for op, seed in ops:
        doc = _mutate(doc, op, seed)
    _check(_serialize(doc, syntax, how, ops[0][1]), path.name)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_escape(data: bytes) -> None:
    _check(data, "random.bin")
