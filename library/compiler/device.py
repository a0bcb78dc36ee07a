"""Device state: the switches of a service that is one device (a phone, a car's cabin) and the
checks that read them.

A parameterless write named for a switch (``toggle_wifi()``, ``connect_vpn()``,
``disable_bluetooth()``) and declaring no output flips or sets a boolean flag of the device
(``wifi``, ``vpn_connected``, ``bluetooth_enabled``). Where a service has two switches or more,
they act on one record, the device, with every parameterless write without output whose
resource nothing else acts on (``reboot_device()``, kept as a transition) and every
parameterless read without output that names one of its flags (``check_wifi_status()``,
``check_network_status()``: "shows airplane mode status ... whether data roaming is enabled"):
such a read answers the device, flags included, so what a toggle changed, the check shows.
A parameterless read that names no flag (``check_sim_status()``) is left alone: nothing says
what it would show.
"""

from __future__ import annotations

from collections import defaultdict

from library.compiler.model import FieldPlan, Kind, RecordPlan, TypeSpec
from library.compiler.naming import field_attr
from library.ingest.naming import tokens
from library.toolspec import ToolSpec

# switch word -> (the flag's suffix, the value it sets; None: it flips the flag)
SWITCHES: dict[str, tuple[str, bool | None]] = {
    "toggle": ("", None),
    "connect": ("connected", True),
    "disconnect": ("connected", False),
    "enable": ("enabled", True),
    "disable": ("enabled", False),
    "turn_on": ("on", True),
    "turn_off": ("on", False),
    "switch_on": ("on", True),
    "switch_off": ("on", False),
}
DEVICE_NAMES = ("devices", "device_states")  # the device's collection, the first one free
MIN_SWITCHES = 2  # one switch alone is a record's setting, not a device's


def switch(spec: ToolSpec) -> tuple[str, tuple[str, ...], bool | None] | None:
    """(flag field, the words naming what it switches, the value set or None to flip) of a
    parameterless switch: ``toggle_airplane_mode`` -> (``airplane_mode``, (airplane, mode),
    None), ``connect_vpn`` -> (``vpn_connected``, (vpn,), True)."""
    if spec.access != "write" or _takes_or_answers(spec):
        return None
    words = tokens(spec.name)
    for n in (2, 1):
        head = "_".join(words[:n])
        if head in SWITCHES and len(words) > n:
            suffix, value = SWITCHES[head]
            what = words[n:]
            return "_".join((*what, suffix) if suffix else what), what, value
    return None


def device_resources(
    specs: list[ToolSpec], resources: dict[str, str | None]
) -> tuple[dict[str, str | None], dict[str, tuple[str, bool | None]]]:
    """Each tool's resource, the device's members moved onto the device; and the switches
    (tool -> (flag, value)). Unchanged where the service has fewer than two switches."""
    by_resource: dict[str | None, list[ToolSpec]] = defaultdict(list)
    for spec in specs:
        by_resource[resources.get(spec.name)].append(spec)

    def alone(spec: ToolSpec) -> bool:  # only parameterless tools act on its resource
        resource = resources.get(spec.name)
        return resource is not None and not any(_takes_or_answers(s) for s in by_resource[resource])

    found = {s.name: sw for s in specs if (sw := switch(s)) is not None and alone(s)}
    if len(found) < MIN_SWITCHES:
        return resources, {}
    members = set(found)
    for spec in specs:
        if spec.name in members or not alone(spec):
            continue
        if spec.access == "write" and str(spec.verb) in ("update", "action"):
            members.add(spec.name)  # ``reboot_device()``: a transition of the device
        elif spec.access == "read" and str(spec.verb) == "read" and _names_flag(spec, found):
            members.add(spec.name)
    others = {r for name, r in resources.items() if name not in members}
    device = next((d for d in DEVICE_NAMES if d not in others), None)
    if device is None:
        return resources, {}
    moved = {name: (device if name in members else r) for name, r in resources.items()}
    return moved, {name: (flag, value) for name, (flag, _, value) in found.items()}


def add_switch_fields(record: RecordPlan, switches: dict[str, tuple[str, bool | None]]) -> None:
    """The device's flags: one boolean field per switched thing, always set."""
    taken = {f.attr for f in record.fields.values()} | {"id"}
    for flag, _ in switches.values():
        if flag in record.fields:
            continue
        attr = field_attr(flag, taken)
        taken.add(attr)
        record.fields[flag] = FieldPlan(flag, attr, TypeSpec(Kind.BOOL, "bool"), True)


def _takes_or_answers(spec: ToolSpec) -> bool:
    return bool(spec.input_schema.get("properties")) or spec.output_schema is not None


def _names_flag(spec: ToolSpec, found: dict[str, tuple[str, tuple[str, ...], bool | None]]) -> bool:
    """The read's name or description names a switched thing (``data`` in "whether mobile data
    is enabled")."""
    text = (*tokens(spec.name), *tokens(spec.description))
    for _, what, _ in found.values():
        n = len(what)
        if any(text[i : i + n] == what for i in range(len(text) - n + 1)):
            return True
    return False
