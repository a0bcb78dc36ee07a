"""Round trip: the ``tools/list`` that ``compoworld mcp --services X`` returns, saved to a file,
ingests through ``compoworld ingest`` into the same ToolSpecs (names, input schemas, semantic
tags, access, resource and verb) as the service's own MCP export, for every reference
service."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import orjson
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from library.runtime import World
from library.toolspec import ToolSpec, spec_from_row
from tests.serve_fixtures import CLASSES, ROOT, cli_args, cli_env
from warehouse import Warehouse


async def served_tools(home: Path, service: str) -> dict:
    params = StdioServerParameters(
        command=sys.executable,
        args=cli_args("--services", service, "--seed", "3"),
        env=cli_env(home),
        cwd=str(ROOT),
    )
    async with Client(stdio_client(params)) as client:
        listed = await client.list_tools()
    return listed.model_dump(mode="json", by_alias=True, exclude_none=True)


def ingest(home: Path, folder: Path) -> dict[tuple[str, str], ToolSpec]:
    out = subprocess.run(
        [sys.executable, "-m", "flows.cli", "ingest", str(folder), "--workers", "1"],
        env=cli_env(home),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rows = Warehouse(home / "warehouse").query("select * from specs").to_pylist()
    specs = [spec_from_row(r) for r in rows]
    return {(s.service, s.name): s for s in specs}


def view(spec: ToolSpec) -> dict:
    return {
        "input_schema": spec.input_schema,
        "input_semantics": spec.semantics("input"),
        "output_semantics": spec.semantics("output"),
        "access": spec.access,
        "resource": spec.resource,
        "verb": spec.verb,
        "description": spec.description,
    }


@pytest.mark.slow
def test_served_tools_ingest_into_the_services_own_toolspecs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    served_dir, own_dir = tmp_path / "served", tmp_path / "own"
    served_dir.mkdir()
    own_dir.mkdir()
    listed: dict[str, dict] = {}

    async def main() -> None:
        async def one(name: str) -> None:
            listed[name] = await served_tools(home, name)

        async with anyio.create_task_group() as tg:
            for cls in CLASSES:
                tg.start_soon(one, cls.name)

    anyio.run(main)
    for cls in CLASSES:
        (served_dir / f"{cls.name}.json").write_bytes(orjson.dumps(listed[cls.name]))
        own = {"tools": World([cls()]).tool_schemas("mcp")}
        (own_dir / f"{cls.name}.json").write_bytes(orjson.dumps(own))

    served = ingest(tmp_path / "a", served_dir)
    own = ingest(tmp_path / "b", own_dir)
    assert {s for s, _ in own} == {c.name for c in CLASSES}
    assert served.keys() == own.keys()
    for key, spec in own.items():
        assert view(served[key]) == view(spec), key
    # what an agent is told: some tools carry semantic types, ids link resources
    assert any(s.semantics("input") for s in served.values())
