"""The worker's kernel-level privileges, each layer tried alone: code that switched the
in-process guard off (``GUARD_OFF``) and, where a test says so, runs without seccomp and
Landlock (``kernel_filters=False``) still meets the uid, the PID namespace and the hard
limits. Each test fails when its layer is removed."""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from library.sandbox import Sandbox, SandboxPolicy
from tests.test_sandbox_hostile import GUARD_OFF, POLICY, run_hostile, shm_segments, source

BARE = POLICY.model_copy(update={"kernel_filters": False})


def probe(sb: Sandbox, body: str, name: str = "probe") -> dict:
    """Run ``body`` (which fills ``results``) as a tool with the guard off; its results."""
    body = "results = {}\n" + body + "\nreturn json.dumps(results)"
    src = source(body, GUARD_OFF).replace("import os\n", "import json\nimport os\n", 1)
    src = src.replace('        return "survived"\n', "")
    sb.load(name, src)
    sb.mount([f"{name}:Hostile"], size=None)
    envelope = sb.call("hostile__go")
    assert envelope["success"], envelope  # no violation recorded: the guard is off
    return json.loads(envelope["data"])


ATTEMPT = """
def attempt(name, fn):
    try:
        fn()
        results[name] = "allowed"
    except OSError as exc:
        results[name] = exc.errno
    except ValueError as exc:  # resource.setrlimit's word for EPERM on a hard limit
        results[name] = str(exc)
"""


def layers(sb: Sandbox) -> dict[str, bool]:
    return sb.start()["protections"]


def kernel_gives_pid_namespaces() -> bool:
    """Whether this process may make a PID namespace (asked of a child, not of the worker:
    a worker that lost its namespace must fail the test, not skip it)."""
    code = "import ctypes, sys; sys.exit(ctypes.CDLL(None).unshare(0x20000000) != 0)"
    return subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="a non-root parent keeps its uid")
def test_a_root_parents_worker_is_not_root(tmp_path: Path) -> None:
    """Root becomes ``nobody`` even with the interpreter under a private home (pyenv in
    /root, mounted in reach in the worker's namespace): a root-only file stays unreadable
    and a root-owned folder unwritable with seccomp and Landlock off."""
    secret = tmp_path / "secret"
    secret.write_text("key")
    secret.chmod(0o600)
    with Sandbox(BARE) as sb:
        info = sb.start()
        assert info["uid"] != 0 and info["protections"]["not_root"], info["privileges"]
        body = ATTEMPT + (
            f"attempt('read_secret', lambda: open({str(secret)!r}).read())\n"
            f"attempt('write_folder', lambda: open({str(tmp_path / 'x')!r}, 'w').close())\n"
            "results['uid'] = os.getuid()"
        )
        results = probe(sb, body)
    assert results == {"read_secret": errno.EACCES, "write_folder": errno.EACCES, "uid": 65534}
    assert not (tmp_path / "x").exists()


def test_the_worker_sees_no_host_process() -> None:
    """PID 1 of its own namespace: the parent (whose pid the init message carries) cannot be
    signalled, reniced or re-pinned, and /proc lists the worker alone, with seccomp and
    Landlock off. Outside a PID namespace the same calls answer EPERM, not ESRCH."""
    parent = os.getpid()
    nice, affinity = os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0)
    if not kernel_gives_pid_namespaces():
        pytest.skip("no PID namespaces for this process (the worker reports it)")
    with Sandbox(BARE) as sb:
        assert layers(sb)["pid_namespace"]
        body = ATTEMPT + (
            f"attempt('kill_parent', lambda: os.kill({parent}, 0))\n"
            f"attempt('setpriority_parent', lambda: os.setpriority(os.PRIO_PROCESS, {parent}, 7))\n"
            f"attempt('affinity_parent', lambda: os.sched_setaffinity({parent}, {{0}}))\n"
            "results['getppid'] = os.getppid()\n"
            "results['getpid'] = os.getpid()\n"
            "results['proc'] = sorted(p for p in os.listdir('/proc') if p.isdigit())"
        )
        results = probe(sb, body)
    assert results == {
        "kill_parent": errno.ESRCH,
        "setpriority_parent": errno.ESRCH,
        "affinity_parent": errno.ESRCH,
        "getppid": 0,
        "getpid": 1,
        "proc": ["1"],
    }
    assert os.getpriority(os.PRIO_PROCESS, 0) == nice
    assert os.sched_getaffinity(0) == affinity


RAISE_LIMITS = (
    ATTEMPT
    + """
r = __import__('typing').sys.modules['resource']
attempt('cpu_hard', lambda: r.setrlimit(r.RLIMIT_CPU, (r.RLIM_INFINITY, r.RLIM_INFINITY)))
attempt('as_hard', lambda: r.setrlimit(r.RLIMIT_AS, (r.RLIM_INFINITY, r.RLIM_INFINITY)))
attempt('fsize_hard', lambda: r.setrlimit(r.RLIMIT_FSIZE, (r.RLIM_INFINITY, r.RLIM_INFINITY)))
results['limits'] = {n: list(r.getrlimit(getattr(r, n))) for n in ('RLIMIT_CPU', 'RLIMIT_AS')}
"""
)


@pytest.mark.parametrize("policy", [POLICY, BARE], ids=["kernel-filters", "no-seccomp"])
def test_the_code_cannot_raise_its_hard_limits(policy: SandboxPolicy) -> None:
    """Hard CPU (the worker's life) and memory limits: raising one needs CAP_SYS_RESOURCE,
    which the worker never has; seccomp refuses all but the CPU one besides."""
    with Sandbox(policy) as sb:
        assert layers(sb)["cpu_hard_limit"]
        results = probe(sb, RAISE_LIMITS)
    refused = {errno.EPERM, "not allowed to raise maximum limit"}
    assert results.pop("cpu_hard") in refused and results.pop("as_hard") in refused, results
    assert results.pop("fsize_hard") in refused
    assert results["limits"] == {
        "RLIMIT_CPU": [results["limits"]["RLIMIT_CPU"][0], int(policy.cpu_lifetime_s)],
        "RLIMIT_AS": [policy.memory_mb << 20, policy.memory_mb << 20],
    }


# Everything the code can do to its own CPU limit: ignore SIGXCPU, lift the soft limit to the
# hard one, then burn.
LIFT_CPU = """
_sys = __import__('typing').sys
_sys.modules['signal'].signal(_sys.modules['signal'].SIGXCPU, _sys.modules['signal'].SIG_IGN)
r = _sys.modules['resource']
r.setrlimit(r.RLIMIT_CPU, (r.getrlimit(r.RLIMIT_CPU)[1],) * 2)
n = 0
while True:
    n += 1
"""


def test_a_lifted_cpu_budget_still_ends_the_request() -> None:
    """The per-request budget holds even when the code lifted the kernel's soft limit: the
    parent measures the worker's CPU itself and kills it (else: the wall-clock timeout)."""
    policy = POLICY.model_copy(update={"cpu_seconds": 1, "wall_timeout_s": 15})
    with Sandbox(policy) as sb:
        err = run_hostile(sb, source(LIFT_CPU, GUARD_OFF))
    assert err.kind == "cpu_limit" and "measured by the parent" in err.reason, err


def test_the_lifetime_cpu_cap_kills_with_its_reason() -> None:
    """The hard RLIMIT_CPU ends a worker that used its whole life's CPU (SIGKILL from the
    kernel, however the code treats SIGXCPU), reported as the CPU limit."""
    policy = POLICY.model_copy(
        update={"cpu_seconds": 30, "cpu_lifetime_s": 3, "wall_timeout_s": 20}
    )
    with Sandbox(policy) as sb:
        err = run_hostile(sb, source(LIFT_CPU, GUARD_OFF))
    assert err.kind == "cpu_limit" and "hard RLIMIT_CPU" in err.reason, err


def test_namespaces_alone_keep_ipc_and_network_inside() -> None:
    """With seccomp and Landlock off: SysV shared memory the worker makes dies with its IPC
    namespace (none left on the host), and its sockets reach nothing (an empty network
    namespace), not even the host's loopback."""
    before = shm_segments()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        body = ATTEMPT + (
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "seg = libc.shmget(0, 1 << 20, 0o1600)\n"  # IPC_PRIVATE, IPC_CREAT: kept on exit
            "results['shmget'] = 'made' if seg >= 0 else ctypes.get_errno()\n"
            "sock = [c for c in ().__class__.__base__.__subclasses__() "
            "if c.__name__ == 'socket'][0]\n"
            f"attempt('connect', lambda: sock(2, 1).connect(('127.0.0.1', {port})))"
        )
        with Sandbox(BARE) as sb:
            results = probe(sb, body)
        with pytest.raises(BlockingIOError):
            server.accept()
    assert results == {"shmget": "made", "connect": errno.ENETUNREACH}
    assert shm_segments() == before
