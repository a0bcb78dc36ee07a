"""seccomp-bpf through the system's libseccomp: after this the kernel answers EPERM to the
system calls a service has no use for and an escape would need: new processes and threads,
program execution, sockets, namespaces and mounts, tracing other processes, signals to other
processes, loading kernel code, and file metadata changes that Landlock does not cover
(chmod, chown, xattrs, timestamps, links). It holds for root too and cannot be lifted.
"""

from __future__ import annotations

import ctypes
import errno
import resource

_ACT_ALLOW = 0x7FFF0000
_CMP_NE, _CMP_MASKED_EQ = 1, 7
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_PR_SET_PDEATHSIG = 1

DENIED = (
    # processes, threads and programs
    "fork", "vfork", "clone", "execve", "execveat",
    # network (the audit hook refuses first, with a reason; this is the floor)
    "socket", "socketpair",
    # namespaces, mounts, roots
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd",
    "pidfd_send_signal", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    # the kernel itself
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct",
    "quotactl", "syslog", "iopl", "ioperm", "personality", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "vhangup",
    "name_to_handle_at", "open_by_handle_at",
    # file metadata and links, which Landlock leaves alone
    "mknod", "mknodat", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown",
    "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
    "lremovexattr", "fremovexattr", "link", "linkat", "symlink", "symlinkat", "utime",
    "utimes", "utimensat", "futimesat",
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
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        return False
    eperm = _errno_action(errno.EPERM)

    def rule(name: str, action: int, *conds: tuple[int, int, int, int]) -> None:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:  # unknown on this architecture or to this libseccomp
            return
        array = (_ArgCmp * max(len(conds), 1))(*(_ArgCmp(*c) for c in conds))
        if lib.seccomp_rule_add_array(ctx, action, nr, len(conds), array) < 0:
            raise OSError(f"seccomp: cannot add a rule for {name}")

    try:
        for name in DENIED:
            rule(name, eperm)
        # glibc falls back from clone3 on ENOSYS; its arguments cannot be inspected anyway.
        rule("clone3", _errno_action(errno.ENOSYS))
        # Signals only to itself (abort() and raise() use tgkill on the own process).
        rule("kill", eperm, (0, _CMP_NE, own_pid, 0))
        rule("tgkill", eperm, (0, _CMP_NE, own_pid, 0))
        # rlimits: only this process, and only the CPU budget may change (kernel.arm_cpu).
        rule("prlimit64", eperm, (0, _CMP_NE, 0, 0))
        rule("prlimit64", eperm, (1, _CMP_NE, resource.RLIMIT_CPU, 0), (2, _CMP_NE, 0, 0))
        rule("setrlimit", eperm, (0, _CMP_NE, resource.RLIMIT_CPU, 0))
        # The parent-death signal is what kills an orphaned worker: it stays.
        rule("prctl", eperm, (0, _CMP_MASKED_EQ, 0xFFFFFFFF, _PR_SET_PDEATHSIG))
        # Typing into a terminal, the old tty escape (the kernel reads the request as 32 bits).
        for request in (_TIOCSTI, _TIOCLINUX):
            rule("ioctl", eperm, (1, _CMP_MASKED_EQ, 0xFFFFFFFF, request))
        if lib.seccomp_load(ctx) < 0:
            raise OSError("seccomp: the kernel refused the filter")
    finally:
        lib.seccomp_release(ctx)
    return True
