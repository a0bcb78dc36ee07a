"""The ingest stage end to end: discovery, warehouse rows, idempotence, the CLI."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from flows.cli import app
from tasks.ingest import discover, ingest_files
from warehouse import Warehouse

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
needs_specs = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")

GOOD = {
    "tools": [
        {
            "name": "create_contact",
            "description": "Create a contact",
            "inputSchema": {
                "type": "object",
                "properties": {"email": {"type": "string"}, "full_name": {"type": "string"}},
            },
        },
        {
            "name": "get_contact",
            "inputSchema": {"type": "object", "properties": {"contact_id": {"type": "string"}}},
        },
        "not a tool",
    ]
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "specs"
    (root / "nested").mkdir(parents=True)
    (root / "crm.json").write_bytes(orjson.dumps(GOOD))
    (root / "nested" / "broken.yaml").write_text("openapi: 3.0.0\npaths: [oops\n")
    (root / "nested" / "notes.md").write_text("# not a spec")
    (root / ".hidden.json").write_text("{}")
    return root


def test_discover_files_folders_globs_and_missing(folder: Path) -> None:
    found = discover(
        [str(folder), str(folder / "crm.json"), str(folder / "*" / "*.yaml"), "nope/", "x*.json"]
    )
    assert [p.name for p in found.files] == ["crm.json", "broken.yaml"]  # deduplicated, sorted
    assert found.missing == ["nope/", "x*.json"]
    empty = folder / "empty"
    empty.mkdir()
    assert discover([str(empty)]).empty == [str(empty)]


def test_ingest_writes_specs_and_errors_idempotently(folder: Path, tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    stats = ingest_files(discover([str(folder)]).files, wh.root, workers=1)
    assert (stats.documents, stats.skipped, len(stats.tools)) == (2, 0, 2)
    assert stats.errors == {("invalid_operation", "error"): 1, ("parse_error", "error"): 1}
    rows = wh.query(
        "SELECT name, service, verb, access, input_semantics FROM specs ORDER BY name"
    ).to_pylist()
    assert rows == [
        {"name": "create_contact", "service": "crm", "verb": "create", "access": "write",
         "input_semantics": ["email", "person_name"]},
        {"name": "get_contact", "service": "crm", "verb": "read", "access": "read",
         "input_semantics": ["id:contacts"]},
    ]  # fmt: skip
    errors = wh.query(
        "SELECT source_file, pointer, kind, message FROM spec_errors ORDER BY kind"
    ).to_pylist()
    assert [(Path(e["source_file"]).name, e["pointer"], e["kind"]) for e in errors] == [
        ("crm.json", "/tools/2", "invalid_operation"),
        ("broken.yaml", "", "parse_error"),
    ]
    assert all(e["message"] for e in errors)

    # Same content again, even under another name: nothing new.
    shutil.copy(folder / "crm.json", folder / "crm-copy.json")
    again = ingest_files(discover([str(folder)]).files, wh.root, workers=1)
    assert (again.documents, again.skipped) == (0, 3)
    assert wh.count("specs") == 2 and wh.count("spec_errors") == 2


@needs_specs
def test_process_pool_matches_serial(tmp_path: Path) -> None:
    files = discover([str(SPECS)]).files
    serial = ingest_files(files, tmp_path / "a", workers=1)
    pooled = ingest_files(files, tmp_path / "b", workers=2)
    assert len(pooled.tools) == len(serial.tools) > 800
    assert Warehouse(tmp_path / "b").count("specs") == Warehouse(tmp_path / "a").count("specs")
    assert pooled.classified_share == serial.classified_share


def test_cli_ingest_summary_and_exit_codes(folder: Path, home: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(folder)])
    assert result.exit_code == 0, result.output
    for text in (
        "services",
        "tools",
        "write share",
        "share classified",
        "parse_error",
        "invalid_operation",
    ):
        assert text in result.output
    missing = runner.invoke(app, ["ingest", str(folder), str(folder / "missing.json")])
    assert missing.exit_code == 2
    assert "missing.json" in missing.output
    rerun = runner.invoke(app, ["ingest", str(folder)])
    assert "0 new, 2 already ingested" in rerun.output
