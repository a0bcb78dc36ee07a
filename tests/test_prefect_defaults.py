"""Every entry point turns Prefect's telemetry off and narrows its API's CORS origins, not only
the CLI: each one is imported in a fresh interpreter whose environment sets neither."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from flows.settings import apply_prefect_defaults, server_env

from .conftest import ROOT

REPORT = (
    "import json\n"
    "from prefect._internal.analytics.enabled import is_telemetry_enabled\n"
    "from prefect.settings import get_current_settings\n"
    "s = get_current_settings()\n"
    "print(json.dumps([s.server.analytics_enabled, is_telemetry_enabled(),"
    " s.server.api.cors_allowed_origins]))\n"
)
ENTRY_POINTS = {
    "factory": "from flows.factory import factory\n",
    # A worker's flow-run process imports Prefect first, then loads prefect.yaml's entrypoint
    # (its server settings are read by then; what counts there is the SDK's telemetry). The
    # nightly flow imports the factory's module too: two in one.
    "deployment": (
        "import prefect\n"
        "from prefect.flows import load_flow_from_entrypoint\n"
        "load_flow_from_entrypoint('flows/nightly.py:nightly_expansion')\n"
    ),
}
# Prefect's SDK telemetry is off in CI anyway: these would hide a missing default.
CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "BUILDKITE", "CI_NAME", "TF_BUILD")
UNSET = (
    "PREFECT_SERVER_ANALYTICS_ENABLED",
    "DO_NOT_TRACK",
    "PREFECT_SERVER_API_CORS_ALLOWED_ORIGINS",
    "PREFECT_SERVER_CORS_ALLOWED_ORIGINS",
    *CI_VARS,
)


def test_every_entry_point_turns_telemetry_off_and_cors_to_loopback() -> None:
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", code + REPORT],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, code in ENTRY_POINTS.items()
    }
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (name, err[-3000:])
        server_analytics, sdk_telemetry, origins = json.loads(out.strip().splitlines()[-1])
        assert sdk_telemetry is False, name
        if name != "deployment":
            assert server_analytics is False, name
            assert origins == "http://127.0.0.1:4200,http://localhost:4200", name


def test_the_users_own_cors_origins_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(
        "PREFECT_SERVER_CORS_ALLOWED_ORIGINS", "https://ui.example.org"
    )  # older name
    apply_prefect_defaults()
    assert "PREFECT_SERVER_API_CORS_ALLOWED_ORIGINS" not in os.environ  # it would win over it
    assert os.environ["DO_NOT_TRACK"] == "1"
    assert server_env(4300) == {}


def test_a_server_on_another_port_allows_that_ports_loopback_pages() -> None:
    # The default set on import, so also what the test process's children inherit.
    assert server_env(4300) == {
        "PREFECT_SERVER_API_CORS_ALLOWED_ORIGINS": "http://127.0.0.1:4300,http://localhost:4300"
    }
