"""The bundled corpus on disk is exactly what its generator produces (no hand edits drift)."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT


def test_bundled_corpus_matches_its_generator() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "library.specs.source", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_bundled_corpus_is_big_enough() -> None:
    files = [
        p
        for p in (ROOT / "library" / "specs").rglob("*")
        if p.suffix in {".json", ".yaml", ".jsonl"}
    ]
    assert len(files) >= 40
