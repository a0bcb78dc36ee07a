"""``SandboxError``: every way a sandboxed request can fail, with a reason a person can read."""

from __future__ import annotations

from typing import Literal, get_args

# Kinds reported by the worker itself.
#   bad_request     the request was wrong (unknown service, no world mounted, target refused)
#   load_error      the source does not compile, its module body raised, or defines no service
#   service_error   untrusted code raised outside a tool call (constructor, seed, state dump)
#   invoke_error    a trusted ``invoke`` target raised
#   aborted         untrusted code raised SystemExit/KeyboardInterrupt through the worker
#   forbidden_operation / forbidden_import / memory_limit   a sandbox rule was hit
# Kinds the client decides from the outside:
#   timeout, cpu_limit, file_size_limit, crashed, protocol, start_failed
ErrorKind = Literal[
    "bad_request",
    "load_error",
    "service_error",
    "invoke_error",
    "aborted",
    "forbidden_operation",
    "forbidden_import",
    "memory_limit",
    "timeout",
    "cpu_limit",
    "file_size_limit",
    "crashed",
    "protocol",
    "start_failed",
]

# The kinds a worker may report; any other kind in a reply is a protocol breach.
CLIENT_KINDS = frozenset({"timeout", "cpu_limit", "file_size_limit", "crashed", "protocol"})
WORKER_KINDS: frozenset[str] = frozenset(get_args(ErrorKind)) - CLIENT_KINDS - {"start_failed"}

# After these the worker is not trusted to go on (or is already dead): the client kills it
# and the next request starts a fresh one.
FATAL_KINDS: frozenset[str] = frozenset(
    {
        "aborted",
        "forbidden_operation",
        "forbidden_import",
        "memory_limit",
        "timeout",
        "cpu_limit",
        "file_size_limit",
        "crashed",
        "protocol",
        "start_failed",
    }
)


class SandboxError(Exception):
    """A sandboxed request failed.

    ``kind`` is one of ``ErrorKind``; ``reason`` is the one-line explanation (also ``str(e)``);
    ``restarted`` says the worker was discarded (its loaded modules and world are gone);
    ``violations`` lists every sandbox rule the request hit; ``log_tail`` is the end of the
    worker's stderr when it died.
    """

    def __init__(
        self,
        kind: ErrorKind,
        reason: str,
        *,
        violations: list[str] | None = None,
        log_tail: str = "",
    ) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.violations = violations or []
        self.log_tail = log_tail

    @property
    def restarted(self) -> bool:
        return self.kind in FATAL_KINDS

    def __repr__(self) -> str:
        return f"SandboxError({self.kind!r}, {self.reason!r})"
