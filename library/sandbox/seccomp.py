"""seccomp-bpf through the system's libseccomp: an ALLOWLIST. After this the kernel answers
EPERM to every system call not named here, so whatever the code does to the interpreter
(the audit hook switched off, ctypes recovered) it has only what a pure-Python service needs:
memory, its open descriptors, files (which Landlock confines), the clock and signals to
itself. No processes or threads, sockets, namespaces, mounts, tracing, SysV IPC, fanotify,
inotify, priorities or affinities of other processes, keys, BPF, io_uring. It holds for root
too and cannot be lifted.
"""

from __future__ import annotations

import ctypes
import errno
import resource

_CMP_EQ, _CMP_MASKED_EQ = 4, 7
_PR_GET_DUMPABLE, _PR_SET_NAME, _PR_GET_NAME = 3, 15, 16
_TCGETS, _FIONREAD, _FIONBIO, _FIONCLEX, _FIOCLEX = 0x5401, 0x541B, 0x5421, 0x5450, 0x5451

ALLOWED = (
    # descriptors and files (paths are Landlock's business)
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "lseek",
    "close", "close_range", "dup", "dup2", "dup3", "fcntl", "flock", "fstat", "stat", "lstat",
    "newfstatat", "statx", "statfs", "fstatfs", "open", "openat", "creat", "getdents64",
    "readlink", "readlinkat", "access", "faccessat", "faccessat2", "getcwd", "chdir", "fchdir",
    "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    "truncate", "ftruncate", "fallocate", "fsync", "fdatasync", "fadvise64", "sendfile",
    "copy_file_range", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
    "flistxattr", "umask", "poll", "ppoll", "select", "pselect6",
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync",
    # signals (delivery and handlers; sending is below) and waiting
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
    "rt_sigtimedwait", "sigaltstack", "restart_syscall", "futex", "sched_yield",
    "nanosleep", "clock_nanosleep",
    # who and when
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "getgroups", "getpgrp", "clock_gettime", "clock_getres", "gettimeofday",
    "time", "times", "getrusage", "getrlimit", "getrandom", "uname", "sysinfo", "getcpu",
    "capget",
    # leaving
    "exit", "exit_group",
)  # fmt: skip


class _ArgCmp(ctypes.Structure):
    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


_ACT_ALLOW = 0x7FFF0000


def install(own_pid: int) -> bool:
    """Load the filter; False when libseccomp is missing (nothing applied)."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        return False
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_load.argtypes = lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    # Everything not allowed below fails with EPERM: an error Python reports, not a crash.
    ctx = lib.seccomp_init(_errno_action(errno.EPERM))
    if not ctx:
        return False

    def rule(name: str, action: int, *conds: tuple[int, int, int, int]) -> None:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:  # unknown on this architecture or to this libseccomp
            return
        array = (_ArgCmp * max(len(conds), 1))(*(_ArgCmp(*c) for c in conds))
        if lib.seccomp_rule_add_array(ctx, action, nr, len(conds), array) < 0:
            raise OSError(f"seccomp: cannot add a rule for {name}")

    def allow(name: str, *conds: tuple[int, int, int, int]) -> None:
        rule(name, _ACT_ALLOW, *conds)

    try:
        for name in ALLOWED:
            allow(name)
        # glibc falls back from clone3 on ENOSYS (and clone itself is refused).
        rule("clone3", _errno_action(errno.ENOSYS))
        # Signals only to itself (abort() and raise() use tgkill on the own process).
        allow("kill", (0, _CMP_EQ, own_pid, 0))
        allow("tgkill", (0, _CMP_EQ, own_pid, 0))
        # Affinity of itself only (os.sched_getaffinity(0)); never setting it, nor priorities.
        allow("sched_getaffinity", (0, _CMP_EQ, 0, 0))
        # rlimits: read its own; change only its own CPU budget (kernel.arm_cpu).
        allow("prlimit64", (0, _CMP_EQ, 0, 0), (2, _CMP_EQ, 0, 0))
        allow("prlimit64", (0, _CMP_EQ, 0, 0), (1, _CMP_EQ, resource.RLIMIT_CPU, 0))
        allow("setrlimit", (0, _CMP_EQ, resource.RLIMIT_CPU, 0))
        # prctl: harmless reads and the thread name; never the parent-death signal.
        for option in (_PR_GET_DUMPABLE, _PR_SET_NAME, _PR_GET_NAME):
            allow("prctl", (0, _CMP_MASKED_EQ, 0xFFFFFFFF, option))
        # ioctl: isatty, bytes pending, (non)blocking and close-on-exec; no terminal input.
        for request in (_TCGETS, _FIONREAD, _FIONBIO, _FIONCLEX, _FIOCLEX):
            allow("ioctl", (1, _CMP_MASKED_EQ, 0xFFFFFFFF, request))
        if lib.seccomp_load(ctx) < 0:
            raise OSError("seccomp: the kernel refused the filter")
    finally:
        lib.seccomp_release(ctx)
    return True
