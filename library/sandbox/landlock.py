"""Landlock (Linux 5.13+): the kernel confines the worker's file system access to reading a
few folders and writing one, and (ABI 4+) refuses TCP bind/connect, and (ABI 6+) signals to
processes outside the sandbox. It holds for root too and cannot be lifted once applied.

There is no stdlib binding, so the three system calls are made through libc's ``syscall``.
Their numbers are the same on every architecture (they postdate the syscall table merge).
"""

from __future__ import annotations

import ctypes
import os

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # rights valid on a file
READ = EXECUTE | READ_FILE | READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def abi_version() -> int:
    version = _libc.syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(write_dirs: list[str], read_paths: list[str]) -> int:
    """Apply the rules; returns the Landlock ABI used (0: unsupported, nothing applied).
    Raises OSError if the kernel refuses half-way (the caller treats that as fatal)."""
    abi = abi_version()
    if abi < 1:
        return 0
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled, 0b11 if abi >= 4 else 0, 0b11 if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24  # older kernels reject the newer fields
    ruleset = _libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        rules = [(p, handled) for p in write_dirs] + [(p, READ & handled) for p in read_paths]
        for path, rights in rules:
            if not os.path.exists(path):
                continue
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                if not os.path.isdir(path):
                    rights &= _FILE_ONLY
                rule = _PathBeneath(rights, fd)
                if _libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0):
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(fd)
        if _libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0):
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi
