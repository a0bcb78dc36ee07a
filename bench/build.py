"""Build rate: services and tools built and verified per minute, per tier, with every service
verified in its own fresh sandbox worker (2 workers). Prints figures; asserts nothing.

    .venv/bin/python bench/build.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from library.llm import LLMSettings
from tasks.build import BuildSettings, build_services
from tasks.ingest import bundled_corpus, ingest_paths
from warehouse import Warehouse

SHARED = Path(__file__).resolve().parents[2] / "shared" / "specs"


def run(label: str, paths: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wh = Warehouse(tmp)
        ingest_paths(paths, wh.root)
        t0 = time.perf_counter()
        summary = build_services(wh, BuildSettings(workers=2, llm=LLMSettings(model=None)))
        wall = time.perf_counter() - t0
        s = summary.to_dict()
        print(f"== {label} ==")
        print(f"services {s['services_built']}, tools {s['tools']}, wall {wall:.1f} s")
        print(f"  {s['services_built'] / wall * 60:8.0f} services/min built and verified")
        print(f"  {s['tools'] / wall * 60:8.0f} tools/min through the tiers")
        for tier in s["tiers"]:
            print(
                f"  {tier['tier']:13s} verified {tier['verified']:5d}",
                f"fell back {tier['fell_back']}",
            )
        print(
            f"  rejected {s['rejected']} ({s['rejected'] / s['tools']:.1%}); "
            f"verified share {s['verified_share']:.1%}"
        )
        reasons = wh.query(
            "select split_part(reason, ';', 1) as why, count(*) as n from service_tools "
            "where status = 'rejected' group by all order by n desc limit 6"
        ).to_pylist()
        for r in reasons:
            print(f"    {r['n']:4d}  {r['why'][:90]}")


def main() -> None:
    run("bundled corpus (library/specs)", [str(bundled_corpus())])
    if SHARED.exists():
        run("../shared/specs", [str(SHARED)])


if __name__ == "__main__":
    main()
