"""A service that is one device keeps its parameterless actions on the device (mutants of
library/compiler/device.py that survived the other tests, bench/mutation.py): beside the
switches of test_compiler_device_flags, ``reboot_console()`` (an action) and
``reset_cabin()`` (an update) are transitions of the one device record, not tools of a
``consoles`` or ``cabins`` collection of their own."""

from __future__ import annotations

import orjson

from library.compiler import plan_service
from library.ingest import ingest_document
from tests.test_compiler_device_flags import CABIN, _function

MORE = [
    _function("reset_cabin", "Resets the cabin to its defaults.", "write"),
    _function("reboot_console", "Restarts the console.", "write"),
]


def test_parameterless_updates_and_actions_act_on_the_device() -> None:
    specs, errors = ingest_document(orjson.dumps(CABIN + MORE), source_file="cabin.json")
    assert specs, errors
    tools = {t.name: t for t in plan_service(specs).tools}
    device = tools["toggle_reading_lights"].resource
    assert tools["reset_cabin"].resource == device
    assert tools["reboot_console"].resource == device
