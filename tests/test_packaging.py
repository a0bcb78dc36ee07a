"""The control plane's core never imports torch (or other GPU-side packages)."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_core_and_cli_do_not_import_torch_or_vllm() -> None:
    code = (
        "import sys, library.runtime, library.services, warehouse, tasks.runs;"
        "import flows.cli, flows.factory;"
        "gpu = ('torch', 'trl', 'vllm', 'transformers', 'accelerate');"
        "print(','.join(sorted(m for m in gpu if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_library_and_warehouse_do_not_import_prefect() -> None:
    code = (
        "import sys, library.runtime, library.services, library.seed, warehouse;"
        "print('prefect' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


OURS = {"library", "warehouse", "tasks", "flows", "training"}
MAY_IMPORT = {
    "library": {"library"},
    "warehouse": {"warehouse"},
    "tasks": {"tasks", "library", "warehouse"},
    "training": {"training", "library", "warehouse"},
    "flows": {"flows", "tasks", "warehouse", "training"},
}


def test_layers_import_only_what_the_design_allows() -> None:
    import ast

    wrong = []
    for layer, allowed in MAY_IMPORT.items():
        for path in (ROOT / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top in OURS and top not in allowed:
                        wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []
