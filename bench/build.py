"""Build rate and coverage through the production build stage: specs ingested into a
warehouse, every service built by the tier cascade and verified in its own fresh sandbox worker
(2 workers), no model. Prints, per input format and per rejection reason, what is verified, so
the next gap is visible. Prints figures; asserts nothing.

    .venv/bin/python bench/build.py                      # bundled corpus, then ../shared/specs
    .venv/bin/python bench/build.py --more [--every N]   # ../shared/corpora/openapi-more
    .venv/bin/python bench/build.py PATH...              # any spec files or folders
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from library.llm import LLMSettings
from library.verify.reasons import reason_category
from tasks.build import BuildSettings, build_services
from tasks.ingest import bundled_corpus, ingest_paths
from warehouse import Warehouse

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "specs"
MORE = ROOT.parent / "shared" / "corpora" / "openapi-more"


def run(label: str, paths: list[str], workers: int, top: int, examples: str = "") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wh = Warehouse(tmp)
        ingest_paths(paths, wh.root)
        t0 = time.perf_counter()
        summary = build_services(wh, BuildSettings(workers=workers, llm=LLMSettings(model=None)))
        wall = time.perf_counter() - t0
        s = summary.to_dict()
        print(f"== {label} ==")
        print(f"services {s['services_built']}, tools {s['tools']}, wall {wall:.1f} s")
        print(f"  {s['services_built'] / wall * 60:8.0f} services/min built and verified")
        print(f"  {s['tools'] / wall * 60:8.0f} tools/min through the tiers ({workers} workers)")
        for tier in s["tiers"]:
            print(
                f"  {tier['tier']:13s} verified {tier['verified']:5d}",
                f"fell back {tier['fell_back']}",
            )
        print(
            f"  rejected {s['rejected']} ({s['rejected'] / max(s['tools'], 1):.1%}); "
            f"verified share {s['verified_share']:.1%}"
        )
        rows = wh.query(
            "select t.service, t.tool, t.status, t.reason, s.format from service_tools t "
            "left join (select distinct tool_id, format from specs) s on s.tool_id = t.tool_id"
        ).to_pylist()
        coverage(rows, top)
        if examples:
            show_examples(rows, examples)


def show_examples(rows: list[dict], category: str, limit: int = 12) -> None:
    """Rejected tools whose reason category starts with ``category``, with the full reason
    (``--examples sandbox``: which services a worker error refused, and why)."""
    found = [
        r
        for r in rows
        if r["status"] == "rejected" and reason_category(r["reason"] or "").startswith(category)
    ]
    by_service = Counter(r["service"] for r in found)
    print(f"  {len(found)} rejected as {category!r}, in {len(by_service)} services:")
    for service, n in by_service.most_common(limit):
        reason = next(r["reason"] for r in found if r["service"] == service)
        print(f"    {n:4}  {service}: {(reason or '')[:160]}")


def coverage(rows: list[dict], top: int) -> None:
    """Verified share per input format, then rejections grouped by reason category."""
    by_format: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_format[r["format"] or "?"][r["status"]] += 1
    print("  per format:")
    for fmt, counts in sorted(by_format.items()):
        n = sum(counts.values())
        print(f"    {fmt:11s} {n:6} tools  verified {counts['verified'] / n:6.1%}")
    reasons = Counter(reason_category(r["reason"] or "") for r in rows if r["status"] == "rejected")
    print("  rejected, by reason:")
    for reason, n in reasons.most_common(top):
        print(f"    {n:5}  {reason or '(no reason given)'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--more", action="store_true")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument(
        "--examples", default="", help="list the services a reason category rejected tools of"
    )
    args = parser.parse_args()
    if args.paths or args.more:
        roots = [*args.paths, *([MORE] if args.more else [])]
        files = sorted(
            p
            for root in roots
            for p in ([root] if root.is_file() else root.rglob("*"))
            if p.is_file() and p.suffix != ".md"
        )[:: max(1, args.every)]
        label = ", ".join(str(r) for r in roots)
        run(label, [str(p) for p in files], args.workers, args.top, args.examples)
        return
    run(
        "bundled corpus (library/specs)",
        [str(bundled_corpus())],
        args.workers,
        args.top,
        args.examples,
    )
    if SHARED.exists():
        run("../shared/specs", [str(SHARED)], args.workers, args.top, args.examples)


if __name__ == "__main__":
    main()
