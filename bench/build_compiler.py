"""Compiler tier throughput on the bundled corpus: services and tools compiled and verified per
minute, the share of tools verified, and why the others were not. Prints figures; asserts
nothing.

    .venv/bin/python bench/build_compiler.py [--shared]

``--shared`` runs the same over the real third-party specs in ../shared/specs.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from library.ingest import ingest_document
from library.verify import build_documents

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "library" / "specs"
SHARED = ROOT.parent / "shared" / "specs"
FORMAT_DIRS = ("openapi", "swagger", "mcp", "functions", "docker", "bfcl")


def spec_files(shared: bool) -> list[Path]:
    if shared:
        return sorted(p for p in SHARED.rglob("*") if p.is_file() and p.suffix != ".md")
    return sorted(p for d in FORMAT_DIRS for p in (CORPUS / d).iterdir() if p.is_file())


def main() -> None:
    shared = "--shared" in sys.argv
    files = spec_files(shared)
    start = time.perf_counter()
    for path in files:  # ingestion is another stage: time it apart
        ingest_document(path)
    ingest_s = time.perf_counter() - start

    start = time.perf_counter()
    builds = build_documents(files)
    wall = time.perf_counter() - start - ingest_s  # build_documents ingests again
    compile_s = sum(b.compile_s for b in builds)
    verify_s = sum(b.verify_s for b in builds)
    outcomes = Counter(o.outcome for b in builds for o in b.outcomes.values())
    tools = sum(outcomes.values())
    compiled = outcomes["verified"] + outcomes["failed"]
    verified = outcomes["verified"]
    per_min = 60.0 / max(wall, 1e-9)

    print(f"{'shared specs' if shared else 'bundled corpus'}: {len(files)} files")
    print(f"  services        {len(builds):6}")
    print(f"  tools           {tools:6}")
    print(f"  compiled        {compiled:6}  ({compiled / tools:.1%})")
    print(f"  verified        {verified:6}  ({verified / tools:.1%} of all tools)")
    print(f"  ingest          {ingest_s:6.2f} s")
    print(f"  compile + load  {compile_s:6.2f} s")
    print(f"  conformance     {verify_s:6.2f} s")
    print(f"  services/min    {len(builds) * per_min:8.0f}")
    print(f"  tools compiled/min  {compiled * per_min:8.0f}")
    print(f"  tools verified/min  {verified * per_min:8.0f}")
    reasons = Counter(
        f"{o.outcome}: {o.reason.split(':')[0][:70]}"
        for b in builds
        for o in b.outcomes.values()
        if o.outcome != "verified"
    )
    print("  not verified, by reason:")
    for reason, n in reasons.most_common(15):
        print(f"    {n:4}  {reason}")


if __name__ == "__main__":
    main()
