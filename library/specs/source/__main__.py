"""Regenerate the bundled spec corpus: ``python -m library.specs.source [--check]``."""

from __future__ import annotations

import argparse
import sys

from . import SERVICES, SPECS_DIR, generate, tool_count
from .render import FORMAT_DIRS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m library.specs.source", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="fail if any file differs from a fresh regeneration"
    )
    args = parser.parse_args(argv)
    files = generate()
    owned = {
        p.relative_to(SPECS_DIR).as_posix()
        for d in FORMAT_DIRS
        for p in (SPECS_DIR / d).glob("*")
        if p.is_file()
    }
    stale = sorted(owned - files.keys())
    changed = sorted(
        rel
        for rel, text in files.items()
        if not (SPECS_DIR / rel).exists() or (SPECS_DIR / rel).read_text(encoding="utf-8") != text
    )
    if args.check:
        for rel in changed:
            print(f"out of date: {rel}", file=sys.stderr)
        for rel in stale:
            print(f"not generated: {rel}", file=sys.stderr)
        return 1 if changed or stale else 0
    for rel in stale:
        (SPECS_DIR / rel).unlink()
    for rel in changed:
        path = SPECS_DIR / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[rel], encoding="utf-8", newline="\n")
    tools = sum(tool_count(svc) for svc in SERVICES)
    summary = f"{len(SERVICES)} services, {tools} tools"
    print(f"{summary}: {len(changed)} files written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
