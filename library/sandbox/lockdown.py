"""Turn a fresh worker process into a sandbox, once, for the rest of its life.

Order matters: everything trusted is imported first (nothing new needs loading later);
namespaces need privileges that seccomp then takes away; the audit hook goes last so the
setup itself is not judged by it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import resource
import sys
import sysconfig
import time
import zoneinfo
from typing import Any

import library
from library.sandbox import guard, kernel, landlock, seccomp
from library.sandbox.policy import SandboxPolicy

# Imported before lockdown besides the policy's allowlist: what the worker and the runtime
# use, and the stdlib modules that they load lazily (strptime, idna, zoneinfo, difflib for
# World's "did you mean"). A lazy import missing here shows up as "forbidden import: <name>".
TRUSTED_PRELOAD = (
    "difflib",
    "library.runtime",
    "library.seed",
    "library.services",
    "orjson",
    "pydantic",
    "pydantic.json_schema",
    "_strptime",
    "encodings.idna",
    "zoneinfo",
)
# Top-level packages trusted code may still load after lockdown (lazy submodules).
TRUSTED_IMPORT_ROOTS = frozenset(
    {
        "library",
        "pydantic",
        "pydantic_core",
        "typing_extensions",
        "typing_inspection",
        "annotated_types",
        "orjson",
        "faker",
        "encodings",
        "_strptime",
        "zoneinfo",
        "_zoneinfo",
        "email_validator",
        "idna",
        "tzdata",
    }
)
# Read-only for the dynamic loader (Landlock only; Python never opens these itself).
SYSTEM_LIBRARIES = (
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ld.so.cache",
)


def import_roots(policy: SandboxPolicy) -> frozenset[str]:
    """Top-level packages any code in the worker may still load: the trusted ones, the
    policy's allowlist and the packages of the invoke targets."""
    names = (*policy.allowed_imports, *policy.invoke_prefixes)
    return TRUSTED_IMPORT_ROOTS | {name.partition(".")[0] for name in names}


def preload(policy: SandboxPolicy) -> list[str]:
    """Import what untrusted and trusted code will use; returns the allowlisted names that
    are not installed (they stay allowed, and fail as ImportError if used)."""
    missing = []
    for name in (*TRUSTED_PRELOAD, *policy.allowed_imports):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    for prefix in policy.invoke_prefixes:  # trusted check packages, where they exist yet
        with contextlib.suppress(ImportError):
            importlib.import_module(prefix.rstrip("."))
    from library.seed import seed_pool

    seed_pool(0)  # warms Faker's providers
    return missing


def read_roots(tmp_dir: str) -> list[str]:
    """Folders Python may read after lockdown: the interpreter's libraries, our ``library``
    package (not the whole checkout), time zone data and the worker's tmp folder."""
    paths = sysconfig.get_paths()
    roots = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    roots.append(os.path.dirname(os.path.abspath(library.__file__)))
    roots.extend(zoneinfo.TZPATH)
    roots.append(tmp_dir)
    return sorted({os.path.realpath(r) for r in roots if os.path.exists(r)})


def _memory_mb() -> dict[str, float]:
    found: dict[str, float] = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmSize"):
                found[key] = round(int(value.split()[0]) / 1024, 1)
    return found


def protections(report: dict[str, Any]) -> dict[str, bool]:
    """Which layers hold in this worker (the build records it; a missing one is a gap)."""
    spaces = set(report["namespaces"])
    return {
        "no_new_privs": bool(report["no_new_privs"]),
        "no_capabilities": report["privileges"] is not None,
        "not_root": report["uid"] != 0,
        "pid_namespace": "pid" in spaces,
        "ipc_namespace": "ipc" in spaces,
        "mount_namespace": "mount" in spaces,
        "network_namespace": "network" in spaces,
        "tmp_quota": report["tmp_quota_mb"] is not None,
        "cpu_hard_limit": report["rlimits"]["RLIMIT_CPU"] != resource.RLIM_INFINITY,
        "seccomp_allowlist": bool(report["seccomp"]),
        "landlock": bool(report["landlock_abi"]),
        "parent_death_signal": bool(report["parent_death_signal"]),
    }


def lock_down(policy: SandboxPolicy, tmp_dir: str, parent_pid: int) -> dict[str, Any]:
    """Apply every layer; returns a report of what holds (some layers are best effort)."""
    started = time.perf_counter()
    sys.dont_write_bytecode = True  # a .pyc write would be a write outside tmp
    missing = preload(policy)
    roots = read_roots(tmp_dir)
    pid, in_pid_namespace = kernel.host_pid()  # before /proc shows the new namespace only
    report: dict[str, Any] = {
        "pid": pid,
        "uid": os.getuid(),
        "missing_imports": missing,
        "memory_mb": _memory_mb(),
        "read_roots": roots,
        "tmp_dir": tmp_dir,
    }
    report["no_new_privs"] = kernel.no_new_privs()
    spaces = kernel.namespaces(policy.isolate_network, in_pid_namespace)
    report["namespaces"] = sorted(name for name, held in spaces.items() if held)
    report["network_isolated"] = spaces.get("network", False)
    # Root becomes nobody, which must still read the interpreter: one under a private home
    # is mounted in reach first (in the worker's own mount namespace).
    private = [r for r in roots if r != os.path.realpath(tmp_dir)]
    as_nobody = os.geteuid() == 0 and (
        kernel.readable_by_anyone(private) or (spaces["mount"] and kernel.reveal(private))
    )
    quota = spaces["mount"] and kernel.quota_tmp(tmp_dir, policy.tmp_quota_mb, as_nobody)
    report["tmp_quota_mb"] = policy.tmp_quota_mb if quota else None
    report["privileges"] = kernel.drop_privileges(tmp_dir, quota, as_nobody)
    report["uid"] = os.getuid()
    # After the uid change, which clears the parent-death signal.
    report["parent_death_signal"] = kernel.parent_death_signal(parent_pid)
    report["rlimits"] = kernel.set_rlimits(policy)
    kernel.arm_cpu(policy.cpu_seconds)
    os.chdir(tmp_dir)
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != tmp_dir]
    report["landlock_abi"] = report["seccomp"] = None
    if policy.kernel_filters:
        report["landlock_abi"] = landlock.restrict([tmp_dir], [*roots, *SYSTEM_LIBRARIES])
        report["seccomp"] = seccomp.install(os.getpid())
    report["protections"] = protections(report)
    guard.refuse_unaudited()
    hook = guard.AuditGuard(tmp_dir, roots, import_roots(policy), kernel.arm_cpu.__code__)
    sys.addaudithook(hook)
    report["lockdown_s"] = round(time.perf_counter() - started, 3)
    return report
