"""``SandboxPolicy``: the limits a sandbox worker runs under. Sent to the worker as JSON."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# Top-level modules (or dotted prefixes) that untrusted service code may import. Each is
# imported by the worker before it locks down, so untrusted imports never load new code.
# Left out on purpose: os, sys, io, pathlib, subprocess, socket, ctypes, importlib, builtins,
# threading (capabilities), and time, uuid, secrets (non-deterministic: tools must use the
# World's seeded clock and ``Service.new_id``).
DEFAULT_ALLOWED_IMPORTS: tuple[str, ...] = (
    "__future__",
    "abc",
    "annotated_types",
    "bisect",
    "calendar",
    "collections",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "json",
    "library.runtime",
    "library.seed",
    "math",
    "numbers",
    "operator",
    "pydantic",
    "pydantic_core",  # pydantic imports parts of its core lazily from generated serializers
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "typing",
    "typing_extensions",
)

# Trusted functions the parent may run inside a worker with ``Sandbox.invoke``. Nothing that
# decides a verdict belongs here: untrusted code shares the worker and can replace it.
DEFAULT_INVOKE_PREFIXES: tuple[str, ...] = ("library.sandbox.probes.",)


class SandboxPolicy(BaseModel):
    """Limits for one sandbox worker. CPU, memory and file limits are kernel rlimits on the
    whole worker, hard ones that it cannot raise; ``wall_timeout_s`` and the CPU of each
    request are also enforced by the parent, which kills the worker."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cpu_seconds: float = Field(
        10.0, gt=0, description="CPU seconds per request (soft RLIMIT_CPU; the parent's check)."
    )
    cpu_lifetime_s: float = Field(
        3600.0, gt=0, description="CPU seconds for the worker's whole life (hard RLIMIT_CPU)."
    )
    wall_timeout_s: float = Field(20.0, gt=0, description="Wall-clock seconds per request.")
    start_timeout_s: float = Field(30.0, gt=0, description="Wall-clock seconds to start.")
    memory_mb: int = Field(1024, ge=128, description="Address space of the worker (RLIMIT_AS).")
    max_file_mb: int = Field(64, ge=1, description="Largest file the worker may write.")
    tmp_quota_mb: int = Field(
        64, ge=1, description="Size of the worker's temporary folder (a tmpfs) in all."
    )
    max_open_files: int = Field(64, ge=16, description="RLIMIT_NOFILE.")
    max_message_mb: int = Field(256, ge=1, description="Largest protocol message accepted.")
    allowed_imports: tuple[str, ...] = DEFAULT_ALLOWED_IMPORTS
    invoke_prefixes: tuple[str, ...] = DEFAULT_INVOKE_PREFIXES
    tmp_root: str | None = Field(
        None, description="Where each worker's private temporary folder is made (None: $TMPDIR)."
    )
    isolate_network: bool = Field(True, description="Move the worker to an empty network ns.")
    kernel_filters: bool = Field(
        True, description="Install seccomp and Landlock filters where the kernel allows."
    )
