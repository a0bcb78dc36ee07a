"""Records a service holds one of and that tools only set or act on, never create, list or
name (a car's headlights, a phone's Wi-Fi): ``setHeadlights(mode)`` sets the one record,
``toggle_wifi()`` and ``reboot_device()`` are kept as transitions of it. Compiled from
../shared/specs and verified."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compiler import compile_service, load_service, plan_service
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


def test_parameterless_device_actions_act_on_the_one_record() -> None:
    specs, _ = ingest_document(SPECS / "functions/tau2/telecom_user.json")
    plan = plan_service(specs)
    tools = {t.name: t for t in plan.tools}
    for name in ("toggle_wifi", "connect_vpn", "disconnect_vpn", "reboot_device"):
        assert tools[name].verb == "action", plan.skipped.get(name)
        assert plan.records[tools[name].resource].singleton
    built = build_service(specs)
    for name in ("toggle_wifi", "toggle_airplane_mode", "connect_vpn", "reboot_device"):
        assert name in built.verified, built.outcomes[name]
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    state = world.services[cls.name].state
    before = len(state.transitions)
    assert world.call(qualified(cls.name, "reboot_device"), {})["success"]
    assert world.call(qualified(cls.name, "reseat_sim_card"), {})["success"]
    state = world.services[cls.name].state
    # switches set flags of the device (tests/test_compiler_device_flags.py); actions that
    # change no flag are kept as transitions
    assert [t.action for t in state.transitions[before:]] == ["reboot_device", "reseat_sim_card"]
