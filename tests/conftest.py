from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_SPECS = ROOT.parent / "shared" / "specs"

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory):
    """A temporary local Prefect API for the whole session (start-up is paid once)."""
    os.environ["PREFECT_HOME"] = str(tmp_path_factory.mktemp("prefect-home"))
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
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
