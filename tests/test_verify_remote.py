"""Conformance judged in the parent over what a sandbox worker answers: the same verdicts as
the in-process suite, and none that the untrusted module can forge from inside the worker."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest

from library.sandbox import Sandbox, SandboxError, SandboxPolicy
from library.toolspec import ToolSpec
from library.verify import run_conformance
from library.verify.remote import run_remote_conformance
from tasks.build import verify_in_sandbox
from tests import test_conformance as tc
from tests.test_sandbox import assert_dead

POLICY = SandboxPolicy(wall_timeout_s=10, cpu_seconds=5)
HEADER = """
import random
from library.runtime import DateTime, ErrorCode, Record, Ref, Service, State, ToolError, tool
from library.seed import SeedPool
NoteId = Ref["notes"]
"""
VARIANTS = (
    tc.Notes,
    tc.WrongRecord,
    tc.UpdateLost,
    tc.DeleteKeeps,
    tc.BadOutput,
    tc.MutatingRead,
    tc.SilentMiss,
    tc.Permissive,
)


def notes_source(cls: type, body: str = "") -> str:
    """The notes service and one variant as untrusted module text (``body`` runs on load)."""
    classes = [tc.Note, tc.NotesState, tc.Notes] + ([cls] if cls is not tc.Notes else [])
    text = HEADER + body + "\n" + "\n\n".join(inspect.getsource(c) for c in classes)
    # The variant alone is the module's service (the build takes the first one named notes).
    return text + ("\ndel Notes\n" if cls is not tc.Notes else "")


@pytest.fixture(scope="module")
def shared() -> Iterator[Sandbox]:
    with Sandbox(POLICY) as sb:
        yield sb


@pytest.fixture
def sandbox(shared: Sandbox) -> Iterator[Sandbox]:
    yield shared
    shared.restart()  # a hostile module's patches live as long as its worker


def tool_specs() -> list[ToolSpec]:
    extra = {"format": "openai", "source_file": "notes.json", "source_pointer": "", "doc_hash": "d"}
    return [ToolSpec.model_validate({"id": s["name"], **extra, **s}) for s in tc.SPECS]


def rows(results: list) -> list[tuple[str, str, bool, str]]:
    return [(r.tool, r.check, r.passed, r.detail) for r in results]


@pytest.mark.parametrize("cls", VARIANTS, ids=lambda c: c.__name__)
def test_remote_verdicts_match_the_in_process_suite(shared: Sandbox, cls: type) -> None:
    loaded = shared.load(f"notes_{cls.__name__.lower()}", notes_source(cls))
    found = next(s for s in loaded if s.class_name == cls.__name__)
    remote = run_remote_conformance(shared, found, tc.SPECS)
    assert rows(remote) == rows(run_conformance(cls, tc.SPECS))


# Module bodies that try to make the suite pass a broken service from inside the worker.
FORGERIES = {
    # The attack that worked when conformance ran in the worker.
    "replace-run-conformance": """
_sys = __import__('typing').sys
_mods = _sys.modules
_conf = _mods.get('library.verify.conformance')
if _conf is not None:
    _conf.run_conformance = lambda *a, **k: []
""",
    # The in-process guard switched off, then the real os and ctypes: still only data.
    "switch-off-the-guard": """
_sys = __import__('typing').sys
_sys.modules['library.sandbox.guard'].AuditGuard.__call__ = lambda *a: None
__builtins__['__import__'] = _sys.modules['builtins'].__import__
import ctypes, os
_sys.modules['library.sandbox.guard'].record = lambda v: None
""",
    # Every call "succeeds" and every state hashes alike.
    "patch-the-runtime": """
_sys = __import__('typing').sys
_world = _sys.modules['library.runtime.world']
_world.World.call = lambda self, tool, args=None: {'success': True, 'data': {}}
_world.hash_state = lambda state: 'same'
""",
}


@pytest.mark.parametrize("body", FORGERIES.values(), ids=FORGERIES.keys())
def test_a_module_cannot_forge_its_own_verdict(sandbox: Sandbox, body: str) -> None:
    specs = tool_specs()
    verified, checks, reason = verify_in_sandbox(
        sandbox, "notes", notes_source(tc.DeleteKeeps, body), specs, 0
    )
    assert reason == ""
    assert checks and verified["delete_note"] is False
    assert any(c["tool"] == "delete_note" and not c["passed"] for c in checks)


FIND_PIPE = """
_sys = __import__('typing').sys
_json = __import__('json')
f = _sys._getframe()
while 'writer' not in f.f_locals:
    f = f.f_back
_writer, _msg = f.f_locals['writer'], f.f_locals['msg']
"""


def forged_frame(with_nonce: bool) -> str:
    nonce = "_msg['id']" if with_nonce else "12345"
    return (
        FIND_PIPE
        + f"_body = _json.dumps({{'ok': True, 'id': {nonce}, 'result': "
        + "{'success': True, 'data': 'forged'}}).encode()\n"
        + "_writer.write(len(_body).to_bytes(4, 'big') + _body)\n_writer.flush()\n"
    )


def forging_source(with_nonce: bool) -> str:
    tool = forged_frame(with_nonce).replace("\n", "\n        ")
    get = '        return self.get("notes", note_id)'  # get_note's body, its first use
    return notes_source(tc.Notes).replace(get, f"        {tool}\n{get}", 1)


@pytest.mark.parametrize("with_nonce", [False, True], ids=["guessed-id", "copied-id"])
def test_a_forged_reply_frame_kills_the_worker(sandbox: Sandbox, with_nonce: bool) -> None:
    src = forging_source(with_nonce)
    assert "_writer.write" in src
    sandbox.load("forger", src)
    sandbox.mount(["forger:Notes"], size=3)
    pid = sandbox.pid
    with pytest.raises(SandboxError) as err:
        sandbox.call("notes__get_note", {"note_id": "x"})
        # A frame carrying the copied id passes once; the real reply behind it is stale.
        sandbox.ping()
    assert err.value.kind == "protocol" and "does not answer" in err.value.reason
    assert sandbox.pid is None and pid is not None
    assert_dead(pid)


def test_a_forging_service_is_rejected_with_the_reason(sandbox: Sandbox) -> None:
    specs = tool_specs()
    verified, checks, reason = verify_in_sandbox(sandbox, "notes", forging_source(True), specs, 0)
    assert verified == {} and checks == []
    assert reason.startswith("sandbox: protocol:") and "does not answer" in reason


def test_composed_tasks_are_judged_again_with_services_isolated() -> None:
    """The compose stage's second verdict: each service (loaded as untrusted text) in its own
    worker, the gold plan replayed and the rubric judged here."""
    import sys

    from library.compose import compose_tasks
    from library.services import reference_service_classes
    from library.verify.tasks import recheck_tasks

    classes = {c.name: c for c in reference_service_classes()}
    task = compose_tasks(list(classes.values()), 1, seed=0).tasks[0]
    sources, homes = {}, {}
    for name in task.services:
        module = f"gen_{name}"
        sources[module] = inspect.getsource(sys.modules[classes[name].__module__])
        homes[name] = module
    planless = task.model_copy(update={"task_id": "planless", "gold_plan": []})
    trivial = task.model_copy(update={"task_id": "trivial", "rubric": []})
    verdicts = recheck_tasks([task, planless, trivial], sources, homes)
    assert verdicts[task.task_id] is None
    assert (verdicts["planless"] or "").startswith("the gold plan fails")
    assert verdicts["trivial"] == "doing nothing passes every criterion"
