"""Process-wide kernel limits for the worker: rlimits (a hard CPU cap for its life, a soft
budget per request), its own namespaces (PID, made by the parent's spawner; IPC, UTS, mount,
network; a user namespace when not root), a size-capped tmpfs as its temporary folder, no
capabilities (uid ``nobody``, or none left in its user namespace) and the parent-death
signal. Each holds for everything the worker runs, whatever the code does to the
interpreter. Each is best effort: what held is reported."""

from __future__ import annotations

import ctypes
import math
import os
import resource
import signal

from library.sandbox.policy import SandboxPolicy

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
NOBODY = 65534
# open_tree / move_mount (Linux 5.2+): the same numbers on every architecture.
_SYS_OPEN_TREE, _SYS_MOVE_MOUNT = 428, 429
_TREE_FLAGS = 1 | 0x8000 | 0o2000000  # OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC
_MOVE_EMPTY, _AT_FDCWD = 4, -100  # MOVE_MOUNT_F_EMPTY_PATH

_libc = ctypes.CDLL(None, use_errno=True)
_cpu_hard = resource.RLIM_INFINITY


def set_rlimits(policy: SandboxPolicy) -> dict[str, int]:
    """Limits that never change for the worker's life, all of them hard: raising one needs
    CAP_SYS_RESOURCE, which the worker never has (and seccomp refuses but the CPU one).
    NPROC is ignored for root (seccomp is what stops forks there); it still holds for an
    unprivileged parent."""
    global _cpu_hard
    mb = 1024 * 1024
    limits = {
        "RLIMIT_CORE": 0,  # SIGXCPU/SIGABRT must not leave core files outside tmp
        "RLIMIT_AS": policy.memory_mb * mb,
        "RLIMIT_FSIZE": policy.max_file_mb * mb,
        "RLIMIT_NOFILE": policy.max_open_files,
        "RLIMIT_NPROC": 0,
        # CPU for the worker's whole life; each request's budget is a soft limit under it.
        "RLIMIT_CPU": math.ceil(policy.cpu_lifetime_s),
    }
    for name, value in limits.items():
        res = getattr(resource, name)
        _, hard = resource.getrlimit(res)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(res, (value, value))
        limits[name] = value
    _cpu_hard = limits["RLIMIT_CPU"]
    if os.getpid() == 1:
        # PID 1 of its namespace: the kernel drops SIGXCPU and SIGXFSZ left at their default
        # action, so the worker exits on them itself, with 128 + the signal.
        for sig in (signal.SIGXCPU, signal.SIGXFSZ):
            signal.signal(sig, _exit_on_signal)
    else:
        # Exceeding the file size limit kills the worker with SIGXFSZ: a clear crash reason.
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    return limits


def _exit_on_signal(signum: int, frame: object) -> None:
    os._exit(128 + signum)


def arm_cpu(seconds: float) -> None:
    """Give the next request ``seconds`` of CPU: past that the kernel sends SIGXCPU, which
    ends the worker. The limit is cumulative over the process, hence re-armed per request,
    and never past the hard cap of ``set_rlimits`` (where the kernel sends SIGKILL)."""
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
    # The parent died before the signal was armed. In a PID namespace the parent is not
    # visible (getppid() is 0); its death there shows as the protocol pipe's end, read
    # before any untrusted code runs.
    if os.getppid() not in (parent_pid, 0):
        os._exit(1)
    return True


def host_pid() -> tuple[int, bool]:
    """The worker's pid as the parent sees it, and whether it is in a PID namespace of its
    own (``/proc/self/status`` lists its pid in each namespace, outermost first)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("NSpid:"):
                pids = [int(p) for p in line.split()[1:]]
                return pids[0], len(pids) > 1
    return os.getpid(), False


def spawn_in_pid_namespace() -> int | None:
    """In the parent's spawner thread: the next process this thread forks becomes PID 1 of a
    new PID namespace, where no process of the host is visible (nothing to signal, renice
    or re-pin). Returns a descriptor of the thread's own namespace for
    ``spawn_in_own_pid_namespace``, or None when the kernel refuses (no CAP_SYS_ADMIN)."""
    try:
        own = os.open("/proc/thread-self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    if _libc.unshare(CLONE_NEWPID) != 0:
        os.close(own)
        return None
    return own


def spawn_in_own_pid_namespace(own: int) -> None:
    """Undo ``spawn_in_pid_namespace`` (each worker needs a namespace of its own, and the
    kernel makes a new one only from the thread's own)."""
    try:
        if _libc.setns(own, CLONE_NEWPID) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the own PID namespace failed")
    finally:
        os.close(own)


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


def namespaces(network: bool, pid: bool) -> dict[str, bool]:
    """Own IPC (SysV shared memory and semaphores die with it), UTS, mount and, when asked,
    network namespaces; each tried alone, so a kernel that refuses one still gives the rest.
    ``pid``: the worker is PID 1 of its own PID namespace (made by the parent's spawner);
    /proc is then mounted afresh, showing that namespace alone."""
    found = {"user": False, "pid": pid}
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
    if found["mount"] and pid:
        flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
        found["proc"] = _libc.mount(b"proc", b"/proc", b"proc", flags, None) == 0
    return found


def readable_by_anyone(paths: list[str]) -> bool:
    """Whether ``nobody`` could still read these folders (every ancestor searchable by
    others): Python loads stdlib modules lazily, so an interpreter kept under a private
    home (pyenv in /root) rules the uid change out, unless ``reveal`` mounted it in reach."""
    return all(_unsearchable(path) is None for path in paths)


def _unsearchable(path: str) -> str | None:
    """The first folder on the way to ``path`` that others may not search (or ``path``
    itself when others may not read it), None when there is none."""
    parts = os.path.realpath(path).split(os.sep)
    for i in range(1, len(parts) + 1):
        folder = os.sep.join(parts[:i]) or os.sep
        mode = os.stat(folder).st_mode
        if not mode & 0o001 or (i == len(parts) and not mode & 0o004):
            return folder
    return None


def reveal(paths: list[str]) -> bool:
    """In this worker's private mount namespace, make ``paths`` readable by ``nobody``: a
    folder on the way that others may not search (``/root`` above a pyenv interpreter) is
    covered by an empty tmpfs they may search, and only ``paths`` are mounted back into it,
    so the rest of that folder (keys, history) is out of the worker's sight. True when every
    path is then in reach."""
    covers: dict[str, list[str]] = {}
    for path in sorted({os.path.realpath(p) for p in paths}):
        blocked = _unsearchable(path)
        if blocked is None or blocked == path:
            continue
        inner = covers.setdefault(blocked, [])
        if not any(path.startswith(done + os.sep) for done in inner):
            inner.append(path)
    syscall = _libc.syscall
    for top, inner in covers.items():
        trees: list[tuple[str, int]] = []
        try:
            for path in inner:  # detached copies, taken before the cover hides them
                fd = syscall(_SYS_OPEN_TREE, _AT_FDCWD, os.fsencode(path), _TREE_FLAGS)
                if fd < 0:
                    return False
                trees.append((path, fd))
            flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
            opts = b"size=64k,nr_inodes=256,mode=0755"
            if _libc.mount(b"tmpfs", os.fsencode(top), b"tmpfs", flags, opts) != 0:
                return False
            for path, fd in trees:
                os.makedirs(path, mode=0o755, exist_ok=True)
                target = os.fsencode(path)
                if syscall(_SYS_MOVE_MOUNT, fd, b"", _AT_FDCWD, target, _MOVE_EMPTY) != 0:
                    return False
        finally:
            for _, fd in trees:
                os.close(fd)
    return readable_by_anyone(paths)


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
