"""Requests on real retail specs read as a person writes them: a user's details fetched by
id are the user already found (not "the order referenced by that user"), and new delivery
addresses are different houses, not one house number for every customer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from library.compose import ComposeConfig, compose_tasks, make_env
from library.compose.render import render_instruction
from library.compose.spec_library import spec_library

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
RETAIL = SPECS / "functions" / "tau_bench" / "retail.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"


def _step(tool: str, text: dict, stated: dict | None = None, **binds: dict) -> dict:
    return {
        "tool": tool,
        "write": text["kind"] not in ("lookup", "fetch"),
        "arguments": dict(stated or {}),
        "binds": {**{n: {"from": "user"} for n in stated or {}}, **binds},
        "text": {"service": "Retail", **text},
    }


def test_a_users_details_fetched_by_id_are_the_user_already_found() -> None:
    email = '"ann.lee@example.com"'
    find = {"kind": "lookup", "noun": "user", "nouns": "users", "label": "user",
            "by": [["email", email]]}  # fmt: skip
    plan = [
        _step("retail.find_user_id_by_email", find, {"email": "ann.lee@example.com"}),
        _step(
            "retail.get_user_details",
            {"kind": "fetch", "noun": "user", "label": "user", "via": "the user"},
            user_id={"step": 0, "field": "user_id"},
        ),
        _step(
            "retail.cancel_pending_order",
            {"kind": "action", "summary": "cancel the order listed on the user"},
            order_id={"step": 1, "field": "order_ids"},
        ),
    ]
    text = render_instruction(plan, goal=f"Ann Lee ({email}) wrote in.", variant=0)
    assert "Cancel Ann's order in Retail" in text, text
    assert "referenced by" not in text, text


@pytest.mark.skipif(not (RETAIL.is_file() and GMAIL.is_file()), reason="specs not present")
def test_new_delivery_addresses_are_different_houses() -> None:
    library = spec_library([RETAIL, GMAIL])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    numbers: list[str] = []
    for seed in (1, 2):
        for task in compose_tasks([], 30, env=env, seed=seed, max_candidates=600).tasks:
            for step in task.gold_plan:
                if step["tool"].endswith("modify_pending_order_address"):
                    numbers += re.findall(r"\d+", step["arguments"]["address1"])[:1]
        if len(numbers) >= 4:
            break
    assert len(numbers) >= 4
    assert len(set(numbers)) >= len(numbers) // 2, numbers


def test_an_address_region_is_quoted_as_stated_and_a_status_is_said_plainly() -> None:
    from library.compose.realism import plain_value

    assert plain_value("state", '"Hesse"') == '"Hesse"'  # checked as written: say it so
    assert plain_value("state", '"NY"') == '"NY"'
    assert plain_value("state", '"active"') == "active"
    assert plain_value("status", '"open"') == "open"
