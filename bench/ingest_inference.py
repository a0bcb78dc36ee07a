"""What ingest-time inference (stateless marks, inferred output schemas) adds to the compiler
tier: every service built twice in process, from the published tools alone and from the
tools as ingested, per input format. Prints figures; asserts nothing.

    .venv/bin/python bench/ingest_inference.py              # ../shared/specs (functions + mcp)
    .venv/bin/python bench/ingest_inference.py PATH...      # any spec files or folders
    .venv/bin/python bench/ingest_inference.py --all        # ../shared/specs, OpenAPI too

Both builds run against the compiler as it is in the working tree, so the difference is the
inference's alone.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from library.ingest import ingest_document
from library.ingest.infer_output import VENDOR_KEY
from library.ingest.stateless import STATELESS_KEY
from library.toolspec import ToolSpec
from library.verify import build_service
from library.verify.reasons import reason_category

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "specs"


def spec_files(roots: list[Path]) -> list[Path]:
    return sorted(
        p
        for root in roots
        for p in ([root] if root.is_file() else root.rglob("*"))
        if p.is_file() and p.suffix != ".md"
    )


def build_rows(files: list[Path], infer: bool) -> list[dict]:
    """One row per tool: format, outcome, reason category, and what inference marked."""
    rows: list[dict] = []
    for path in files:
        specs, _ = ingest_document(path, infer=infer)
        by_service: dict[str, list[ToolSpec]] = defaultdict(list)
        for spec in specs:
            by_service[spec.service].append(spec)
        for group in by_service.values():
            marks = {s.name: s.vendor for s in group}
            build = build_service(group)
            for row in build.rows():
                vendor = marks.get(row["tool"], {})
                stateless = vendor.get(STATELESS_KEY)
                rows.append(
                    {
                        "format": str(group[0].format),
                        "tool": f"{row['service']}.{row['tool']}",
                        "outcome": row["outcome"],
                        "category": reason_category(row["reason"]) if row["reason"] else "",
                        "inferred": VENDOR_KEY in vendor,
                        "stateless": stateless["kind"] if stateless else "",
                    }
                )
    return rows


def report(before: list[dict], after: list[dict], top: int) -> None:
    def verified(rows: list[dict]) -> Counter[str]:
        return Counter(r["format"] for r in rows if r["outcome"] == "verified")

    tools = Counter(r["format"] for r in after)
    vb, va = verified(before), verified(after)
    inferred = Counter(r["format"] for r in after if r["inferred"])
    print(f"{'format':11s} {'tools':>6s} {'inferred':>9s} {'declared only':>14s} {'ingested':>9s}")
    for fmt in sorted(tools):
        n = tools[fmt]
        print(
            f"{fmt:11s} {n:6d} {inferred[fmt]:9d} {vb[fmt] / n:14.1%} {va[fmt] / n:9.1%}"
            f"   ({vb[fmt]} -> {va[fmt]})"
        )
    n = sum(tools.values())
    print(
        f"{'all':11s} {n:6d} {sum(inferred.values()):9d} {sum(vb.values()) / n:14.1%} "
        f"{sum(va.values()) / n:9.1%}   ({sum(vb.values())} -> {sum(va.values())})"
    )
    inferred_rows = [r for r in after if r["inferred"]]
    if inferred_rows:
        ok = sum(r["outcome"] == "verified" for r in inferred_rows)
        print(f"tools with an inferred output: {len(inferred_rows)}, verified {ok}")
    kinds = Counter(r["stateless"] for r in after if r["stateless"])
    if kinds:
        print("stateless functions:", ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    was = {r["tool"]: r["outcome"] for r in before}
    lost = [r["tool"] for r in after if was.get(r["tool"]) == "verified" != r["outcome"]]
    if lost:
        print(f"verified only without inference ({len(lost)}): {', '.join(lost[:20])}")
    reasons = Counter(f"{r['outcome']}: {r['category']}" for r in after if r["category"])
    lines = [f"  {count:5d}  {reason}" for reason, count in reasons.most_common(top)]
    print("not verified (as ingested), by reason:", *lines, sep="\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--all", action="store_true", help="all of ../shared/specs")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    default = [SHARED] if args.all else [SHARED / "functions", SHARED / "mcp"]
    files = spec_files(args.paths or default)
    report(build_rows(files, infer=False), build_rows(files, infer=True), args.top)


if __name__ == "__main__":
    main()
