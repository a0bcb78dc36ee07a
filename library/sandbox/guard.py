"""In-process rules for untrusted code: an audit hook and an import allowlist.

CPython's audit hooks are not a security boundary on their own (PEP 578): code running in
the same interpreter can find ways around them. Here they name the rule a service broke
before the kernel layers (``kernel``, ``landlock``, ``seccomp``) refuse the same thing, and
every refusal is recorded as a violation even when the untrusted code catches the error, so
verification fails with that reason rather than with whatever the code did next.
"""

from __future__ import annotations

import builtins
import os
import sys
from collections.abc import Callable, Iterable
from types import CodeType, FunctionType
from typing import Any

FORBIDDEN_OPERATION = "forbidden operation"
FORBIDDEN_IMPORT = "forbidden import"
MEMORY_LIMIT = "memory limit"

_violations: list[str] = []


def record(violation: str) -> None:
    if len(_violations) < 100:  # code that retries in a loop must not exhaust memory here
        _violations.append(violation)


def drain() -> list[str]:
    """The violations since the last drain (one request's worth)."""
    found = _violations[:]
    _violations.clear()
    return found


def kind_of(violation: str) -> str:
    for prefix, kind in (
        (FORBIDDEN_IMPORT, "forbidden_import"),
        (MEMORY_LIMIT, "memory_limit"),
    ):
        if violation.startswith(prefix):
            return kind
    return "forbidden_operation"


# -- imports --------------------------------------------------------------------------------
class ImportRule:
    """Dotted prefixes: ``library.runtime`` allows ``library.runtime.world`` but not
    ``library`` or ``library.sandbox``."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(allowed)

    def allows(self, name: str) -> bool:
        prefix = ""
        for part in name.split("."):
            prefix = f"{prefix}.{part}" if prefix else part
            if prefix in self.allowed:
                return True
        return False


def restricted_builtins(rule: ImportRule) -> dict[str, Any]:
    """A builtins namespace for untrusted modules whose ``__import__`` enforces ``rule``, so
    modules the worker already holds (os, sys, ctypes...) are refused all the same."""
    real_import = builtins.__import__

    def guarded_import(
        name: str,
        globals: dict | None = None,
        locals: dict | None = None,
        fromlist: tuple[str, ...] | list[str] | None = (),
        level: int = 0,
    ) -> Any:
        if level:
            denied = f"relative import (level {level}) of {name!r}"
        elif rule.allows(name):
            denied = None
        elif fromlist and all(rule.allows(f"{name}.{item}") for item in fromlist):
            denied = None  # `from library import runtime`
        else:
            denied = name
        if denied is not None:
            record(f"{FORBIDDEN_IMPORT}: {denied}")
            raise ImportError(f"sandbox: {FORBIDDEN_IMPORT}: {denied}")
        return real_import(name, globals, locals, fromlist, level)

    namespace = dict(vars(builtins))
    for name in ("input", "breakpoint", "help", "exit", "quit", "copyright", "credits"):
        namespace.pop(name, None)
    namespace["__import__"] = guarded_import
    return namespace


def refuse_unaudited() -> None:
    """Python 3.11 raises no audit event when a thread starts or when ``_posixsubprocess``
    forks. seccomp refuses both, but only as errors a service may swallow (and seccomp may
    be missing); replacing the entry points makes every attempt a recorded violation."""
    import _thread
    import threading

    def refusal(name: str) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            violation = f"{FORBIDDEN_OPERATION}: {name}"
            record(violation)
            raise PermissionError(f"sandbox: {violation}")

        return refuse

    targets: list[tuple[Any, str, str]] = [
        (_thread, "start_new_thread", "_thread.start_new_thread"),
        (_thread, "start_new", "_thread.start_new_thread"),
        (threading, "_start_new_thread", "_thread.start_new_thread"),
    ]
    if "_posixsubprocess" in sys.modules:  # only if a trusted import pulled subprocess in
        targets.append((sys.modules["_posixsubprocess"], "fork_exec", "_posixsubprocess"))
        targets.append((sys.modules["subprocess"], "_fork_exec", "_posixsubprocess"))
    for module, attr, event in targets:
        setattr(module, attr, refusal(event))


# -- the audit hook -------------------------------------------------------------------------
_DENY = frozenset(
    {
        "builtins.breakpoint",
        "builtins.input",
        "code.__new__",  # hand-made bytecode is the classic way out of an in-process sandbox
        "fcntl.ioctl",
        "gc.get_objects",
        "gc.get_referents",
        "gc.get_referrers",
        "os.chroot",
        "os.exec",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "os.link",
        "os.mknod",
        "os.posix_spawn",
        "os.spawn",
        "os.startfile",
        "os.symlink",
        "os.system",
        "pty.spawn",
        "signal.pthread_kill",
        "subprocess.Popen",
        "sys._current_frames",
        "sys.addaudithook",
        "sys.setprofile",
        "sys.settrace",
    }
)
_DENY_PREFIXES = (
    "_posixsubprocess.",
    "_thread.",
    "ctypes.",
    "ftplib.",
    "http.",
    "imaplib.",
    "nntplib.",
    "poplib.",
    "smtplib.",
    "socket.",
    "sqlite3.",
    "subprocess.",
    "syslog.",
    "telnetlib.",
    "urllib.",
    "webbrowser.",
)
# Events that change the file system: which arguments are paths (all must lie in tmp).
_PATH_EVENTS: dict[str, tuple[int, ...]] = {
    "os.chdir": (0,),
    "os.chflags": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.lchflags": (0,),
    "os.mkdir": (0,),
    "os.mkfifo": (0,),
    "os.remove": (0,),
    "os.removexattr": (0,),
    "os.rename": (0, 1),
    "os.rmdir": (0,),
    "os.setxattr": (0,),
    "os.truncate": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _within(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root + os.sep) for root in roots)


def _brief(args: tuple) -> str:
    text = repr(args)
    return text if len(text) <= 200 else text[:197] + "..."


class AuditGuard:
    """The worker's audit hook. ``arm_code`` is the one function allowed to change rlimits
    after lockdown (the per-request CPU budget)."""

    def __init__(
        self,
        tmp_dir: str,
        read_roots: Iterable[str],
        import_roots: Iterable[str],
        arm_code: CodeType,
    ) -> None:
        self.tmp = (os.path.realpath(tmp_dir),)
        self.read_roots = tuple(os.path.realpath(r) for r in read_roots) + self.tmp
        self.import_roots = frozenset(import_roots)
        self.arm_code = arm_code
        rules: dict[str, Callable[[str, tuple], None]] = dict.fromkeys(_DENY, self._deny)
        rules.update(dict.fromkeys(_PATH_EVENTS, self._path_event))
        rules["open"] = self._open
        rules["import"] = self._import
        rules["object.__setattr__"] = self._setattr
        rules["resource.setrlimit"] = rules["resource.prlimit"] = self._rlimit
        self.rules = rules

    def __call__(self, event: str, args: tuple) -> None:
        rule = self.rules.get(event)
        if rule is not None:
            rule(event, args)
        elif event.startswith(_DENY_PREFIXES):
            self._deny(event, args)

    def _deny(self, event: str, args: tuple, detail: str | None = None) -> None:
        violation = f"{FORBIDDEN_OPERATION}: {event} {detail or _brief(args)}"
        record(violation)
        raise PermissionError(f"sandbox: {violation}")

    def _resolve(self, path: Any) -> str | None:
        if isinstance(path, int):  # open(fd): judge the file the descriptor points at
            try:
                path = os.readlink(f"/proc/self/fd/{path}")
            except OSError:
                return None
        try:
            return os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return None

    def _open(self, event: str, args: tuple) -> None:
        path, mode, flags = args
        real = self._resolve(path)
        writes = bool(flags & _WRITE_FLAGS) or any(c in (mode or "") for c in "wax+")
        if real is None:
            self._deny(event, args)
        elif writes or os.path.isdir(real):
            # A directory outside tmp could serve as dir_fd for a relative write elsewhere.
            if not _within(real, self.tmp):
                self._deny(event, args, f"{path!r} mode {mode or flags!r}: outside the tmp folder")
        elif not _within(real, self.read_roots):
            self._deny(event, args, f"{path!r}: reading outside the allowed folders")

    def _path_event(self, event: str, args: tuple) -> None:
        for index in _PATH_EVENTS[event]:
            real = self._resolve(args[index]) if not isinstance(args[index], int) else None
            if real is None or not _within(real, self.tmp):
                self._deny(event, args, f"{args[index]!r}: outside the tmp folder")

    def _import(self, event: str, args: tuple) -> None:
        name = args[0]
        if name.partition(".")[0] not in self.import_roots:
            record(f"{FORBIDDEN_IMPORT}: {name}")
            raise ImportError(f"sandbox: {FORBIDDEN_IMPORT}: {name}")

    def _setattr(self, event: str, args: tuple) -> None:
        if args[1] == "__code__" and isinstance(args[0], FunctionType):
            if _networkx_lazy_compile(args[0], sys._getframe(2).f_code):
                return
            self._deny(event, args, f"replacing the code of {args[0].__qualname__}")

    def _rlimit(self, event: str, args: tuple) -> None:
        # frame 0 is this method, 1 is __call__, 2 is whoever called resource.setrlimit.
        if sys._getframe(2).f_code is not self.arm_code:
            self._deny(event, args)


def _networkx_lazy_compile(func: FunctionType, caller: object) -> bool:
    """networkx's ``argmap`` decorators compile themselves on first call and swap in the
    compiled code; that is allowed for networkx's own functions, from that one place only."""
    decorators = sys.modules.get("networkx.utils.decorators")
    if decorators is None or not (func.__module__ or "").startswith("networkx"):
        return False
    return caller is decorators.argmap._lazy_compile.__code__
