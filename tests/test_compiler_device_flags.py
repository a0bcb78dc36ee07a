"""A service that is one device: its parameterless switches (``toggle_wifi()``,
``connect_vpn()``) flip or set boolean flags of the one device record, and the parameterless
checks that name a flag (``check_wifi_status()``) read that record, so what a toggle changed
the check shows. A check that names no flag stays unverified, with its reason."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from library.compiler import compile_service, load_service, plan_service
from library.compiler.model import Kind
from library.ingest import ingest_document
from library.runtime import World
from library.runtime.world import qualified
from library.seed.pool import seed_pool
from library.verify import build_service

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"


def _function(name: str, description: str, access: str) -> dict:
    params = {"type": "object", "properties": {}, "required": []}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": params},
        "x-tool-type": access,
    }


CABIN = [
    _function("toggle_reading_lights", "Turns the reading lights on or off.", "write"),
    _function("enable_heater", "Switches the seat heater on.", "write"),
    _function("disable_heater", "Switches the seat heater off.", "write"),
    _function("check_cabin_status", "Shows whether the reading lights and heater are on.", "read"),
    _function("check_tire_pressure", "Shows the pressure of each tire.", "read"),
]


def _cabin() -> list:
    specs, _ = ingest_document(orjson.dumps(CABIN), source_file="cabin.json")
    return specs


def _world(specs: list) -> tuple[World, str]:
    cls = load_service(compile_service(specs).source)
    world = World([cls()], seed=0)
    world.seed_states(seed_pool(), size=3)
    return world, cls.name


def test_switches_are_flags_of_one_device() -> None:
    plan = plan_service(_cabin())
    tools = {t.name: t for t in plan.tools}
    device = plan.records[tools["toggle_reading_lights"].resource]
    assert device.singleton
    for name in ("enable_heater", "disable_heater", "check_cabin_status"):
        assert tools[name].resource == device.resource
    assert device.fields["reading_lights"].type.kind is Kind.BOOL
    assert device.fields["heater_enabled"].type.kind is Kind.BOOL
    assert tools["toggle_reading_lights"].action is not None
    assert tools["toggle_reading_lights"].action.flips
    # a check that names no flag has nothing to show: it is not made a read of the device
    assert "check_tire_pressure" in plan.skipped


def test_a_check_shows_what_a_switch_changed() -> None:
    world, name = _world(_cabin())

    def status() -> dict:
        envelope = world.call(qualified(name, "check_cabin_status"), {})
        assert envelope["success"], envelope
        return envelope["data"]

    before = status()["reading_lights"]
    assert world.call(qualified(name, "toggle_reading_lights"), {})["success"]
    assert status()["reading_lights"] is (not before)
    assert world.call(qualified(name, "toggle_reading_lights"), {})["success"]
    assert status()["reading_lights"] is before
    for _ in range(2):  # a setter sets, whatever the flag was
        assert world.call(qualified(name, "enable_heater"), {})["success"]
        assert status()["heater_enabled"] is True
    assert world.call(qualified(name, "disable_heater"), {})["success"]
    assert status()["heater_enabled"] is False


def test_switches_and_checks_verify() -> None:
    built = build_service(_cabin())
    for name in ("toggle_reading_lights", "enable_heater", "disable_heater", "check_cabin_status"):
        assert name in built.verified, built.outcomes[name]
    assert built.outcomes["check_tire_pressure"].outcome == "skipped"


@pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")
def test_phone_checks_read_the_flags_toggles_flip() -> None:
    specs, _ = ingest_document(SPECS / "functions/tau2/telecom_user.json")
    built = build_service(specs)
    for name in ("check_wifi_status", "check_vpn_status", "check_network_status", "toggle_data"):
        assert name in built.verified, built.outcomes[name]
    assert "check_sim_status" not in built.verified  # names no flag
    world, name = _world(specs)
    before = world.call(qualified(name, "check_wifi_status"), {})["data"]["wifi"]
    assert world.call(qualified(name, "toggle_wifi"), {})["success"]
    assert world.call(qualified(name, "check_wifi_status"), {})["data"]["wifi"] is (not before)
