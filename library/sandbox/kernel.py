"""Process-wide kernel limits for the worker: rlimits, the per-request CPU budget, an empty
network namespace and the parent-death signal. Each holds for everything the worker runs."""

from __future__ import annotations

import ctypes
import math
import os
import resource
import signal

from library.sandbox.policy import SandboxPolicy

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(None, use_errno=True)
_cpu_hard = resource.RLIM_INFINITY


def set_rlimits(policy: SandboxPolicy) -> dict[str, int]:
    """Limits that never change for the worker's life. NPROC is ignored for root (seccomp is
    what stops forks there); it still holds for an unprivileged parent."""
    global _cpu_hard
    _, _cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
    mb = 1024 * 1024
    limits = {
        "RLIMIT_CORE": 0,  # SIGXCPU/SIGABRT must not leave core files outside tmp
        "RLIMIT_AS": policy.memory_mb * mb,
        "RLIMIT_FSIZE": policy.max_file_mb * mb,
        "RLIMIT_NOFILE": policy.max_open_files,
        "RLIMIT_NPROC": 0,
    }
    for name, value in limits.items():
        res = getattr(resource, name)
        _, hard = resource.getrlimit(res)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(res, (value, value))
        limits[name] = value
    # Exceeding the file size limit kills the worker with SIGXFSZ: a clear crash reason.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    return limits


def arm_cpu(seconds: float) -> None:
    """Give the next request ``seconds`` of CPU: past that the kernel sends SIGXCPU, which
    kills the worker. The limit is cumulative over the process, hence re-armed per request."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    if _cpu_hard != resource.RLIM_INFINITY:
        soft = min(soft, _cpu_hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, _cpu_hard))


def no_new_privs() -> bool:
    """Required by Landlock and seccomp for an unprivileged process; harmless for root."""
    return _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0


def parent_death_signal(parent_pid: int) -> bool:
    """SIGKILL the worker when its parent dies, so no worker outlives the process that
    started it, even one stuck in untrusted code. It fires when the parent *thread* that
    forked the worker exits, hence the client's single long-lived spawner thread."""
    if _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    return True


def isolate_network() -> bool:
    """Move the worker into a new, empty network namespace (loopback down, no routes).
    Needs CAP_SYS_ADMIN; without it the audit hook and seccomp still refuse sockets."""
    return _libc.unshare(CLONE_NEWNET) == 0
