from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
SHARED_SPECS = ROOT.parent / "shared" / "specs"

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def migrated_prefect_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Prefect database with every migration applied, made once for the whole run (the
    test workers share it; a lock makes the first one build it). Every temporary server of
    the tests starts from a copy, as on a machine where `make demo` has migrated it once:
    migrating a new database costs ~10 CPU-seconds, at every server start otherwise."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    home = shared / "prefect-migrated"
    with FileLock(str(shared / "prefect-migrated.lock")):
        if not (home / "done").exists():
            home.mkdir(exist_ok=True)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
            upgrade = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
            subprocess.run(upgrade, env=env | {"PREFECT_HOME": str(home)}, check=True, timeout=300)
            (home / "done").touch()
    return home / "prefect.db"


def seeded_prefect_home(path: Path, migrated: Path) -> Path:
    """``path`` as a PREFECT_HOME whose database is a copy of the migrated one."""
    path.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(migrated, path / "prefect.db")
    return path


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory, migrated_prefect_db: Path):
    """A temporary local Prefect API for the whole session (start-up is paid once)."""
    os.environ["PREFECT_HOME"] = str(tmp_path_factory.mktemp("prefect-home"))
    import prefect.testing.utilities as harness

    def migrated_dir() -> str:  # the harness's database folder, its database already made
        folder = tmp_path_factory.mktemp("harness-db")
        shutil.copyfile(migrated_prefect_db, folder / "prefect-test.db")  # the name it uses
        return str(folder)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(harness, "mkdtemp", migrated_dir)
        with harness.prefect_test_harness(server_startup_timeout=90):
            yield


def command_env(*, session_api: bool, **extra: str) -> dict[str, str]:
    """The environment a ``compoworld`` command runs in from a test, plus ``extra``.

    Without ``session_api`` no Prefect API is configured, so a command that runs a flow boots
    its own temporary server, as on a person's machine. With it the command uses the
    session's temporary API (``prefect_harness`` must be active): booting a server costs
    ~20 CPU-seconds, and the booting path has its own tests in test_cli_run.py."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    # Served flows and workers look for scheduled runs every 2 s, not 10: a run a test
    # triggers starts without the idle wait (nothing else about them changes).
    env |= {"PREFECT_RUNNER_POLL_FREQUENCY": "2", "PREFECT_WORKER_QUERY_SECONDS": "2"}
    if session_api:
        from prefect.settings import PREFECT_API_URL

        env["PREFECT_API_URL"] = str(PREFECT_API_URL.value())
    return env | extra


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated $COMPOWORLD_HOME."""
    monkeypatch.setenv("COMPOWORLD_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: a long end-to-end test (scheduled first; keep them few)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Long tests first: with -n 2 the short ones then fill in around them, instead of one
    # long test running alone at the end while the other worker idles.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if getattr(config.option, "loadgroup", False):  # set on xdist's workers only
        _group_modules_with_shared_fixtures(items)
        _suffix_xdist_groups(items)


def _group_modules_with_shared_fixtures(items: list[pytest.Item]) -> None:
    """The tests of a module that defines a module-scoped fixture run on one worker (one
    xdist group per module): spread over both, each worker built the fixture (a library,
    a batch of composed tasks: 5-60 s each), some twice where its tests were interleaved
    with another module's. A test that already has a group keeps it."""
    from _pytest.fixtures import FixtureFunctionDefinition

    shares: dict[str, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None or item.get_closest_marker("xdist_group") is not None:
            continue
        name = module.__name__
        if name not in shares:
            shares[name] = any(
                isinstance(v, FixtureFunctionDefinition)
                and v._fixture_function_marker.scope == "module"
                for v in vars(module).values()
            )
        if shares[name]:
            item.add_marker(pytest.mark.xdist_group(f"module-{name.rsplit('.', 1)[-1]}"))


def _suffix_xdist_groups(items: list[pytest.Item]) -> None:
    """``--dist loadgroup`` schedules by an ``@group`` suffix of each test's id. xdist 3.8
    adds it by setting ``Node._nodeid``, which pytest 9.2 no longer reads (the id is built
    from ``Node._id``), so its groups are silently ignored: the suffix is added here."""
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # an older pytest, where xdist's own suffix works
        return
    for item in items:
        groups = sorted({str(m.args[0]) for m in item.iter_markers("xdist_group") if m.args})
        if groups and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")  # type: ignore[attr-defined]


# The uninterrupted factory run that several end-to-end tests read (see factory_reference).
REFERENCE_SPECS = ("crm.yaml", "helpdesk.yaml")
REFERENCE_TASKS, REFERENCE_GROUP = 4, 2
FACTORY_REFERENCE = pytest.mark.xdist_group("factory-reference")


@dataclass(frozen=True)
class FactoryRun:
    home: Path  # its COMPOWORLD_HOME
    completed: bool
    summary: dict[str, Any]


@pytest.fixture(scope="session")
def factory_reference(
    prefect_harness: None, tmp_path_factory: pytest.TempPathFactory
) -> FactoryRun:
    """One uninterrupted factory run in this process (two bundled services, four tasks,
    groups of two) on the session's API, made once and only read afterwards: the factory
    flow's own test inspects it, the crash test and the Dask test compare their rows with
    it. Their tests carry ``FACTORY_REFERENCE`` (one xdist group), so one worker makes it."""
    from flows.factory import factory
    from tasks.ingest import bundled_corpus

    home = tmp_path_factory.mktemp("factory-reference") / "home"
    specs = [str(bundled_corpus() / "openapi" / f) for f in REFERENCE_SPECS]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COMPOWORLD_HOME", str(home))
        patch.delenv("COMPOWORLD_WAREHOUSE", raising=False)
        state = factory(
            spec_paths=specs, tasks=REFERENCE_TASKS, group_size=REFERENCE_GROUP, return_state=True
        )
    done = state.is_completed()
    return FactoryRun(home, done, state.result() if done else {})


@pytest.fixture
def reference_home(factory_reference: FactoryRun) -> Iterator[Path]:
    """The reference run's home as this test's $COMPOWORLD_HOME (to be read, not written)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COMPOWORLD_HOME", str(factory_reference.home))
        yield factory_reference.home
