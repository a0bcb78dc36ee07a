"""``Sandbox``: the parent's handle on one sandbox worker process.

Every request has a wall-clock deadline. When the worker times out, dies (CPU or file size
limit, a signal, an exit), breaks a sandbox rule or sends garbage, the client kills its whole
process group, raises ``SandboxError`` with the reason, and the next request starts a fresh,
empty worker (modules must be loaded and worlds mounted again).

Each request carries a fresh random nonce that the worker's reply must echo, and each reply
must have the shape its op promises; anything else (a frame written by untrusted code, a
stale or replayed reply, a result of the wrong type) kills the worker as a protocol breach.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

import library
from library.sandbox import kernel, wire
from library.sandbox.errors import WORKER_KINDS, SandboxError
from library.sandbox.policy import SandboxPolicy

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(library.__file__)))
# Every worker is forked from this one long-lived thread: the parent-death signal fires when
# the *thread* that forked a worker exits, and callers' threads (pools, task runners) come
# and go while their sandboxes live on.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spawner")
_MEMORY_HINTS = ("MemoryError", "memory allocation of", "Cannot allocate memory", "out of memory")


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    description: str
    write: bool
    input_schema: dict
    output_schema: dict | None


@dataclass(frozen=True, slots=True)
class LoadedService:
    """A Service subclass found in loaded source; ``ref`` (``module:Class``) mounts it."""

    ref: str
    class_name: str
    service: str
    description: str
    tools: tuple[ToolInfo, ...]
    # collection -> record field -> its alias (None: none)
    collections: dict[str, dict[str, str | None]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict) -> LoadedService:
        tools = tuple(ToolInfo(**tool) for tool in data["tools"])
        return cls(
            data["ref"],
            data["class_name"],
            data["service"],
            data["description"],
            tools,
            {
                str(coll): {str(f): a if isinstance(a, str) else None for f, a in fields.items()}
                for coll, fields in (data.get("collections") or {}).items()
            },
        )


def _envelope(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("success"), bool):
        return False
    if value["success"]:
        return "data" in value
    error = value.get("error")
    return isinstance(error, dict) and isinstance(error.get("code"), str)


def _states(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())


# What a reply's result must look like, per op: anything else is a protocol breach.
_RESULT_SHAPES: dict[str, Any] = {
    "call": _envelope,
    "calls": lambda v: isinstance(v, list) and all(_envelope(e) for e in v),
    "state_hash": lambda v: isinstance(v, str),
    "snapshot": lambda v: type(v) is int,
    "world_new": lambda v: type(v) is int,
    "restore": lambda v: v is None,
    "load_states": lambda v: v is None,
    "export_states": _states,
    "view": lambda v: (
        isinstance(v, dict) and isinstance(v.get("now"), str) and _states(v.get("states"))
    ),
    "ping": lambda v: v == "pong",
    "digest": lambda v: isinstance(v, str),
    "load": lambda v: isinstance(v, list) and all(isinstance(d, dict) for d in v),
    "describe": lambda v: isinstance(v, list) and all(isinstance(d, dict) for d in v),
    "mount": lambda v: isinstance(v, dict) and isinstance(v.get("tools"), list),
    "tool_schemas": lambda v: isinstance(v, list),
}


def nonce() -> int:
    """A request id the worker cannot predict (it can still read the one it was sent)."""
    return int.from_bytes(os.urandom(8), "big") >> 1


_TMP_PREFIX = "compoworld-sandbox-"
_ORPHAN = re.compile(rf"{_TMP_PREFIX}(\d+)-")


def sweep_orphans(tmp_root: str | None) -> list[str]:
    """Remove the temporary folders of workers whose parent is gone (SIGKILLed before it
    could clean up). Their files already vanished with the worker's tmpfs where the kernel
    allows one; this removes the empty mount point, or the files where it does not."""
    root = tmp_root or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        match = _ORPHAN.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        removed.append(name)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _reap(proc: subprocess.Popen, tmp_dir: str, log: IO[bytes]) -> None:
    """Kill the worker's process group, reap it, remove its files. Safe to call twice.
    The group is killed before the leader is reaped, so its id cannot have been reused."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for stream in (proc.stdin, proc.stdout):
        with contextlib.suppress(OSError):
            stream.close()  # type: ignore[union-attr]
    shutil.rmtree(tmp_dir, ignore_errors=True)
    log.close()


def _start_worker(env: dict[str, str], tmp_dir: str, log: IO[bytes]) -> subprocess.Popen:
    """Run in the spawner thread: the worker is PID 1 of a PID namespace of its own where
    the kernel allows (no host process is visible to it), else in the parent's."""
    own = kernel.spawn_in_pid_namespace()
    try:
        # -P: no cwd on sys.path; -s: no user site; -B: no .pyc writes.
        return subprocess.Popen(
            [sys.executable, "-P", "-s", "-B", "-m", "library.sandbox.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=tmp_dir,
            env=env,
            start_new_session=True,  # its own process group, killed as a whole
            close_fds=True,
        )
    finally:
        if own is not None:
            kernel.spawn_in_own_pid_namespace(own)


class _Worker:
    """One live worker process with its pipes, private tmp folder and stderr log."""

    def __init__(self, policy: SandboxPolicy) -> None:
        sweep_orphans(policy.tmp_root)
        # The parent's pid in the name: a later parent can tell an orphan (see sweep_orphans).
        self.tmp_dir = tempfile.mkdtemp(prefix=f"{_TMP_PREFIX}{os.getpid()}-", dir=policy.tmp_root)
        # Unnamed, outside tmp: the worker can append to its log but not reopen or replace it.
        self.log = tempfile.TemporaryFile(prefix="compoworld-sandbox-log-")  # noqa: SIM115
        env = {
            "PATH": os.defpath,
            "HOME": self.tmp_dir,
            "TMPDIR": self.tmp_dir,
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",  # set iteration order, hence replays, are deterministic
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": _REPO_ROOT,
        }
        # A fresh env: no credentials of the parent's reach untrusted code.
        try:
            self.proc = self._spawn(env)
        except OSError:
            shutil.rmtree(self.tmp_dir, ignore_errors=True)
            self.log.close()
            raise
        self.pid = self.proc.pid
        self.cpu_clock = (~self.pid << 3) | 2  # the process's CPU clock (CPUCLOCK_SCHED)
        self._finalizer = weakref.finalize(self, _reap, self.proc, self.tmp_dir, self.log)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.channel = wire.Channel(
            self.proc.stdin.fileno(), self.proc.stdout.fileno(), policy.max_message_mb << 20
        )

    def _spawn(self, env: dict[str, str]) -> subprocess.Popen:
        return _SPAWNER.submit(_start_worker, env, self.tmp_dir, self.log).result()

    def exit_status(self, wait_s: float = 0.0) -> int | None:
        """The return code if the worker has exited (negative: killed by that signal),
        without reaping it; waits up to ``wait_s`` for it to exit."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return self.proc.returncode
            if info is not None:
                killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
                return -info.si_status if killed else info.si_status
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)

    def cpu_seconds(self) -> float | None:
        """The CPU the worker has used in all (a zombie's too: its clock stays readable
        until it is reaped)."""
        try:
            return time.clock_gettime(self.cpu_clock)
        except OSError:
            return None

    def log_tail(self, size: int = 4096) -> str:
        try:
            end = os.fstat(self.log.fileno()).st_size
            data = os.pread(self.log.fileno(), size, max(0, end - size))
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace")

    def kill(self) -> None:
        self._finalizer()


def _classify_exit(
    status: int, policy: SandboxPolicy, log: str, cpu: float | None = None
) -> SandboxError:
    """Why a worker died, from its exit status, the CPU it used and the end of its stderr.
    A worker that is PID 1 of its namespace exits with 128 + SIGXCPU or SIGXFSZ itself (the
    kernel does not kill a namespace's init with them)."""
    memory = any(hint in log for hint in _MEMORY_HINTS)
    if status in (128 + signal.SIGXCPU, 128 + signal.SIGXFSZ):
        status = 128 - status
    if status == -signal.SIGKILL and cpu is not None and cpu >= policy.cpu_lifetime_s - 0.5:
        return SandboxError(
            "cpu_limit",
            f"cpu limit: the worker used its {policy.cpu_lifetime_s:g} s of CPU "
            "(the hard RLIMIT_CPU, SIGKILL)",
            log_tail=log,
        )
    if status < 0:
        sig = signal.Signals(-status)
        if sig == signal.SIGXCPU:
            return SandboxError(
                "cpu_limit",
                f"cpu limit: more than {policy.cpu_seconds:g} s of CPU in one request (SIGXCPU)",
                log_tail=log,
            )
        if sig == signal.SIGXFSZ:
            return SandboxError(
                "file_size_limit",
                f"file size limit: wrote past {policy.max_file_mb} MB (SIGXFSZ)",
                log_tail=log,
            )
        if memory:
            return SandboxError(
                "memory_limit",
                f"memory limit: {policy.memory_mb} MB exhausted (killed by {sig.name})",
                log_tail=log,
            )
        return SandboxError("crashed", f"crashed: killed by {sig.name}", log_tail=log)
    if memory:
        return SandboxError(
            "memory_limit", f"memory limit: {policy.memory_mb} MB exhausted", log_tail=log
        )
    last = log.strip().splitlines()[-1:] or [""]
    return SandboxError(
        "crashed",
        f"crashed: worker exited with code {status} {last[0][:200]}".strip(),
        log_tail=log,
    )


class _CpuSpent(Exception):
    def __init__(self, used: float) -> None:
        self.used = used


class Sandbox:
    """A sandboxed worker process that loads untrusted service source and runs its tools.

    Use as a context manager (or call ``close()``); workers are also killed when the Sandbox
    is garbage collected, at interpreter exit, and (parent-death signal) when the parent dies.
    Thread-safe: requests are serialized.
    """

    def __init__(self, policy: SandboxPolicy | None = None) -> None:
        self.policy = policy or SandboxPolicy()
        self.info: dict[str, Any] = {}
        self.restarts = 0
        self.last_failure: SandboxError | None = None
        self._worker: _Worker | None = None
        self._lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------------------------
    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return self._worker.pid if self._worker is not None else None

    def start(self) -> dict[str, Any]:
        """Start the worker now (requests start it lazily); returns its lockdown report."""
        with self._lock:
            self._ensure()
        return self.info

    def close(self) -> None:
        with self._lock:
            self._discard()

    restart = close  # the next request starts a fresh worker

    def _discard(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def _fail(self, error: SandboxError) -> SandboxError:
        self.last_failure = error
        if error.restarted:
            self._discard()
            self.restarts += 1
        return error

    def _ensure(self) -> _Worker:
        worker = self._worker
        if worker is not None:
            status = worker.exit_status()
            if status is None:
                return worker
            # Died between requests (killed from outside): note why, start afresh.
            self._fail(self._died(worker, status))
        try:
            worker = _Worker(self.policy)
        except OSError as exc:
            raise self._fail(
                SandboxError("start_failed", f"cannot start a worker: {exc}")
            ) from None
        self._worker = worker
        deadline = time.monotonic() + self.policy.start_timeout_s
        init = {"policy": self.policy.model_dump(), "tmp_dir": worker.tmp_dir}
        init["parent_pid"] = os.getpid()
        init["id"] = nonce()
        try:
            worker.channel.send(wire.encode(init), deadline)
            hello = worker.channel.recv(deadline)
            if not isinstance(hello, dict) or hello.get("id") != init["id"]:
                raise wire.ChannelGarbage("the worker's hello does not answer the init")
        except (wire.ChannelClosed, wire.ChannelTimeout, wire.ChannelGarbage) as exc:
            status = worker.exit_status(wait_s=1.0)
            cause = f"exit status {status}" if status is not None else type(exc).__name__
            raise self._fail(
                SandboxError(
                    "start_failed",
                    f"worker failed to start ({cause}): {worker.log_tail(800).strip()}",
                    log_tail=worker.log_tail(),
                )
            ) from None
        self.info = hello["result"]
        return worker

    # -- requests ---------------------------------------------------------------------------
    def _died(self, worker: _Worker, status: int) -> SandboxError:
        return _classify_exit(status, self.policy, worker.log_tail(), worker.cpu_seconds())

    def _request(self, msg: dict[str, Any], timeout: float | None = None) -> Any:
        wall = timeout or self.policy.wall_timeout_s
        if timeout:
            msg["cpu"] = timeout  # a longer request gets the CPU to match
        budget = float(msg.get("cpu", self.policy.cpu_seconds))
        msg["id"] = request_id = nonce()
        with self._lock:
            worker = self._ensure()
            deadline = time.monotonic() + wall
            try:
                worker.channel.send(wire.encode(msg), deadline)
                response = self._reply(worker, deadline, budget)
            except _CpuSpent as spent:
                raise self._fail(
                    SandboxError(
                        "cpu_limit",
                        f"cpu limit: more than {budget:g} s of CPU in one request "
                        f"(at least {spent.used:.1f} s, measured by the parent)",
                    )
                ) from None
            except wire.ChannelTimeout:
                status = worker.exit_status()
                if status is not None:
                    raise self._fail(self._died(worker, status)) from None
                cpu = worker.cpu_seconds()
                # Tells a busy worker from a blocked one (counts its whole life, start-up too).
                used = f" (the worker used {cpu:.1f} s of CPU)" if cpu is not None else ""
                raise self._fail(
                    SandboxError("timeout", f"timeout: no answer within {wall:g} s{used}")
                ) from None
            except wire.ChannelClosed:
                status = worker.exit_status(wait_s=2.0)
                if status is None:
                    raise self._fail(
                        SandboxError("protocol", "protocol: the worker closed its output")
                    ) from None
                raise self._fail(self._died(worker, status)) from None
            except wire.ChannelGarbage as exc:
                raise self._fail(SandboxError("protocol", f"protocol: {exc}")) from None
            if not isinstance(response, dict) or "ok" not in response:
                raise self._fail(SandboxError("protocol", "protocol: malformed response"))
            if response.get("id") != request_id:
                raise self._fail(
                    SandboxError(
                        "protocol",
                        f"protocol: a reply that does not answer this {msg['op']} request "
                        "(forged, stale or replayed frame)",
                    )
                )
            if response["ok"] is True:
                result = response.get("result")
                shape = _RESULT_SHAPES.get(msg["op"])
                if shape is not None and not shape(result):
                    raise self._fail(
                        SandboxError(
                            "protocol", f"protocol: a {msg['op']} reply of the wrong shape"
                        )
                    )
                return result
            error = response.get("error")
            kind = error.get("kind") if isinstance(error, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            violations = response.get("violations") or []
            if (
                response["ok"] is not False
                or kind not in WORKER_KINDS
                or not isinstance(message, str)
                or not isinstance(violations, list)
            ):
                raise self._fail(SandboxError("protocol", "protocol: malformed error reply"))
            raise self._fail(SandboxError(kind, message, violations=[str(v) for v in violations]))

    @staticmethod
    def _reply(worker: _Worker, deadline: float, budget: float) -> Any:
        """The worker's answer by ``deadline``, while its CPU in this request stays within
        ``budget``: measured here, from outside, so no code in the worker can lift it (the
        worker's own soft limit is only the fast path). A request cannot use more CPU than
        wall time (one thread), so nothing is measured before ``budget`` seconds have passed:
        an answer in time costs nothing, and the CPU used from then on is a lower bound on
        the request's, which ends it at ``budget`` more (at most twice its budget in all)."""
        check, mark = time.monotonic() + budget, None
        while True:
            try:
                return worker.channel.recv(min(deadline, check))
            except wire.ChannelTimeout:
                now, cpu = time.monotonic(), worker.cpu_seconds()
                if now >= deadline or cpu is None:
                    raise
                if mark is None:
                    mark = cpu
                elif cpu - mark >= budget:
                    raise _CpuSpent(cpu - mark) from None
                check = now + max(budget - (cpu - mark), 0.05)

    def load(self, name: str, source: str, *, timeout: float | None = None) -> list[LoadedService]:
        """Execute untrusted module source as module ``name``; returns its services."""
        msg = {"op": "load", "name": name, "source": source}
        return self._services(self._request(msg, timeout))

    def describe(self, *, world: int | None = None) -> list[LoadedService]:
        """The services of the mounted World, as ``load`` describes them."""
        return self._services(self._request(_on({"op": "describe"}, world)))

    def _services(self, found: list[dict]) -> list[LoadedService]:
        try:
            return [LoadedService.from_json(item) for item in found]
        except (KeyError, TypeError, AttributeError, ValueError):
            with self._lock:
                raise self._fail(
                    SandboxError("protocol", "protocol: a service description of the wrong shape")
                ) from None

    def mount(
        self,
        services: Sequence[str],
        *,
        seed: int = 0,
        size: int | None = 20,
        states: dict[str, dict] | None = None,
        pool_seed: int | None = None,
        timeout: float | None = None,
        world: int | None = None,
    ) -> list[str]:
        """Build the worker's World from service refs (``module:Class`` of loaded source, or
        ``library.services.<mod>:<Class>``), with ``states`` or seeded from
        ``seed_pool(pool_seed or seed)`` with ``size`` records (None: empty states).
        ``world``: mount it under that id (replacing the World there) instead of as the
        worker's main World, so several envs can share the worker. Returns the qualified
        tool names."""
        msg = {"op": "mount", "services": list(services), "seed": seed, "size": size}
        msg |= {"states": states, "pool_seed": pool_seed}
        return self._request(_on(msg, world), timeout)["tools"]

    def call(self, tool: str, args: dict | None = None, *, world: int | None = None) -> dict:
        """One tool call; returns the runtime's envelope."""
        msg = {"op": "call", "tool": tool, "args": args}
        if world is not None:
            msg["world"] = world
        return self._request(msg)

    def calls(
        self, calls: Iterable[tuple[str, dict | None]], *, timeout: float | None = None
    ) -> list[dict]:
        """Many tool calls in one round trip (the deadline covers the whole batch)."""
        return self._request({"op": "calls", "calls": [list(c) for c in calls]}, timeout)

    def state_hash(self) -> str:
        return self._request({"op": "state_hash"})

    def export_states(self, *, world: int | None = None) -> dict[str, dict]:
        return self._request(_on({"op": "export_states"}, world))

    def load_states(self, states: dict[str, dict], *, world: int | None = None) -> None:
        self._request(_on({"op": "load_states", "states": states}, world))

    def snapshot(self, *, world: int | None = None) -> int:
        return self._request(_on({"op": "snapshot"}, world))

    def restore(self, token: int, *, world: int | None = None) -> None:
        self._request(_on({"op": "restore", "token": token}, world))

    def new_world(self, service: str, *, seed: int = 0, size: int = 10) -> int:
        """One more World in the worker, of one loaded service, seeded like ``mount``;
        returns its id for the ``world`` argument of call, snapshot, restore, view..."""
        return self._request({"op": "world_new", "service": service, "seed": seed, "size": size})

    def view(self, *, world: int | None = None) -> dict[str, Any]:
        """``{"now": iso clock, "states": {service: records by collection (by alias)}}``."""
        return self._request(_on({"op": "view"}, world))

    def digest(self, *, world: int | None = None) -> str:
        """A hash of the world's records as ``view`` would report them, dumped afresh."""
        return self._request(_on({"op": "digest"}, world))

    def ping(self) -> None:
        """A request with no effect: a stale or forged frame still in the pipe shows here."""
        self._request({"op": "ping"})

    def tool_schemas(self, fmt: str = "openai", *, world: int | None = None) -> list[dict]:
        return self._request(_on({"op": "tool_schemas", "fmt": fmt}, world))

    def invoke(self, target: str, payload: Any = None, *, timeout: float | None = None) -> Any:
        """Run a trusted function inside the worker; see ``library.sandbox.worker.invoke``."""
        return self._request({"op": "invoke", "target": target, "payload": payload}, timeout)


def _on(msg: dict[str, Any], world: int | None) -> dict[str, Any]:
    if world is not None:
        msg["world"] = world
    return msg
