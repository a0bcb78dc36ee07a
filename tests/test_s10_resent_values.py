"""An update asks only for what changes: a value the record already holds is resent as it
is, never stated as a change ("On the key with the address of the input, set the address to
the input's address": the key was found by that address)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from library.compose import composed, make_env
from library.compose.spec_library import spec_library

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
MAILSCRIPT = SPECS / "openapi" / "mailscript.com.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"


def _record(state: dict[str, Any], rid: Any) -> dict[str, Any] | None:
    for records in state.values():
        if isinstance(records, dict) and isinstance(records.get(rid), dict):
            return records[rid]
    return None


def test_an_update_states_only_values_that_change() -> None:
    library = spec_library([MAILSCRIPT, GMAIL])
    env = make_env(library.classes, library.nodes)
    updates = 0
    for task in itertools.islice(composed(env, seed=0, max_candidates=6000), 12):
        for step in task.gold_plan:
            if step["kind"] != "update":
                continue
            service = step["tool"].split("__")[0]
            args = step["arguments"]
            record = next(
                (r for v in args.values() if (r := _record(task.initial_state[service], v))),
                None,
            )
            assert record is not None
            changed = {n for n, v in args.items() if record.get(n) != v}
            for label, _ in step["text"]["values"]:
                updates += 1
                assert label.split()[0] in changed, (task.instruction, label)
    assert updates >= 10
