"""Process-wide kernel limits for the worker: rlimits, the per-request CPU budget, its own
namespaces (IPC, UTS, mount, network; a user namespace when not root), a size-capped tmpfs as
its temporary folder, no capabilities (an unprivileged uid, or none left in its user
namespace) and the parent-death signal. Each holds for everything the worker runs, whatever
the code does to the interpreter. Each is best effort: what held is reported."""

from __future__ import annotations

import ctypes
import math
import os
import resource
import signal

from library.sandbox.policy import SandboxPolicy

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
NOBODY = 65534

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


def _write(path: str, text: str) -> bool:
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError:
        return False
    return True


def user_namespace() -> bool:
    """Not root: a user namespace of its own (same uid inside), so the other namespaces can be
    made; every capability it gets there is dropped by ``drop_privileges``."""
    uid, gid = os.geteuid(), os.getegid()
    if _libc.unshare(CLONE_NEWUSER) != 0:
        return False
    _write("/proc/self/setgroups", "deny")
    return _write("/proc/self/uid_map", f"{uid} {uid} 1") and _write(
        "/proc/self/gid_map", f"{gid} {gid} 1"
    )


def namespaces(network: bool) -> dict[str, bool]:
    """Own IPC (SysV shared memory and semaphores die with it), UTS, mount and, when asked,
    network namespaces; each tried alone, so a kernel that refuses one still gives the rest."""
    found = {"user": False}
    if os.geteuid() != 0:
        found["user"] = user_namespace()
    wanted = {"ipc": CLONE_NEWIPC, "uts": CLONE_NEWUTS, "mount": CLONE_NEWNS}
    if network:
        wanted["network"] = CLONE_NEWNET
    for name, flag in wanted.items():
        found[name] = _libc.unshare(flag) == 0
    if found["mount"]:
        # Nothing mounted here may propagate back to the host's namespace.
        found["mount"] = _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0
    return found


def readable_by_anyone(paths: list[str]) -> bool:
    """Whether ``nobody`` could still read these folders (every ancestor searchable by
    others): Python loads stdlib modules lazily, so an interpreter kept under a private
    home (pyenv in /root) rules the uid change out."""
    for path in paths:
        parts = os.path.realpath(path).split(os.sep)
        for i in range(1, len(parts) + 1):
            mode = os.stat(os.sep.join(parts[:i]) or os.sep).st_mode
            if not mode & 0o001 or (i == len(parts) and not mode & 0o004):
                return False
    return True


def owner(as_nobody: bool) -> tuple[int, int]:
    """The uid and gid the worker ends up as (``drop_privileges``)."""
    return (NOBODY, NOBODY) if as_nobody else (os.geteuid(), os.getegid())


def quota_tmp(tmp_dir: str, quota_mb: int, as_nobody: bool) -> bool:
    """A tmpfs of ``quota_mb`` over the worker's temporary folder, in its own mount namespace:
    writes past it fail with ENOSPC, and the files vanish with the namespace when the worker
    dies, however the parent ended. False: the folder stays a plain host folder."""
    uid, gid = owner(as_nobody)
    opts = f"size={quota_mb}m,nr_inodes=4096,mode=0700,uid={uid},gid={gid}".encode()
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    return _libc.mount(b"tmpfs", os.fsencode(tmp_dir), b"tmpfs", flags, opts) == 0


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


def drop_privileges(tmp_dir: str, quota: bool, as_nobody: bool) -> str | None:
    """``as_nobody`` (root only): become ``nobody`` (no groups, no capabilities). Otherwise
    every capability is dropped (root's own, or those a user namespace granted), and the uid
    stays. Returns who the worker now is, or None if nothing could be dropped."""
    if as_nobody:
        uid, gid = owner(as_nobody)
        if not quota:
            os.chown(tmp_dir, uid, gid)  # a plain host folder: it must stay writable
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)  # leaving uid 0 clears every capability set
        return f"uid {uid} (nobody), no capabilities"
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    if _libc.capset(ctypes.byref(header), data) != 0:
        return None
    return f"uid {os.geteuid()}, no capabilities"
