"""The wild set of `bench/build_compiler.py --wild`: fetch its files by `bench/wild_manifest.json`
(raw GitHub at each file's recorded commit) into `corpora/wild/`, or check the files there.
Prints what it did; every file is kept only if its sha256 matches the manifest.

    .venv/bin/python bench/fetch_wild.py            # fetch what is missing (needs the network)
    .venv/bin/python bench/fetch_wild.py --check    # verify the files present, fetch nothing
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import urllib.error
import urllib.request
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "bench" / "wild_manifest.json"
WILD = ROOT / "corpora" / "wild"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="verify only, fetch nothing")
    args = parser.parse_args()
    entries = orjson.loads(MANIFEST.read_bytes())
    ok = fetched = missing = 0
    bad: list[str] = []
    for entry in entries:
        target = WILD / entry["file"]
        if target.is_file():
            if sha256(target.read_bytes()) == entry["sha256"]:
                ok += 1
            else:
                bad.append(f"{entry['file']}: sha256 differs from the manifest")
            continue
        if args.check or not entry.get("commit"):
            missing += 1
            continue
        url = RAW.format(**entry)
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                data = response.read()
        except (urllib.error.URLError, TimeoutError) as exc:
            bad.append(f"{entry['file']}: {url}: {exc}")
            continue
        if sha256(data) != entry["sha256"]:
            bad.append(f"{entry['file']}: {url}: sha256 differs from the manifest (not kept)")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        fetched += 1
    print(f"{len(entries)} files in the manifest: {ok} present and matching, {fetched} fetched, "
          f"{missing} missing, {len(bad)} failed")  # fmt: skip
    for line in bad:
        print(f"  {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
