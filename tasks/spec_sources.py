"""Spec sources given as http(s) URLs: fetched into a local folder that ingest then reads."""

from __future__ import annotations

import hashlib
import urllib.request
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

MAX_BYTES = 64 * 1024 * 1024  # one spec document; larger is refused, not truncated
TIMEOUT_S = 60.0


class SpecFetchError(ValueError):
    pass


def is_url(source: str) -> bool:
    return urlparse(source).scheme in ("http", "https")


def fetch_spec(url: str, folder: Path) -> Path:
    """Download one spec document to ``folder`` under a name keyed by its URL (the
    extension kept, so ingest's format detection sees .json / .yaml / .jsonl)."""
    name = PurePosixPath(urlparse(url).path).name or "spec.json"
    digest = hashlib.blake2b(url.encode(), digest_size=6).hexdigest()
    target = folder / f"{digest}-{name}"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            data = response.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SpecFetchError(f"could not fetch spec {url}: {exc}") from None
    if len(data) > MAX_BYTES:
        raise SpecFetchError(f"spec {url} is larger than {MAX_BYTES // 2**20} MiB")
    folder.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def local_sources(sources: Iterable[str], folder: Path) -> list[str]:
    """``sources`` with every URL replaced by the file it was fetched to."""
    return [str(fetch_spec(s, folder)) if is_url(s) else s for s in sources]
