"""A person's own record keeps an id of their own name: where ids are handles of the
holder's name (tau's 'matthew_oliver_823'), a record made someone else's for a request
(the store user who wrote the refund e-mail) takes a handle of the new holder's name, and
no other user is left listing the same orders."""

from __future__ import annotations

import re

import pytest

from library.compose import ComposeConfig, compose_tasks, make_env
from library.compose.spec_library import spec_library
from tests.spec_envs import SPECS

RETAIL = SPECS / "functions" / "tau_bench" / "retail.json"
GMAIL = SPECS / "mcp" / "docker" / "gmail-mcp.json"


@pytest.mark.skipif(not (RETAIL.is_file() and GMAIL.is_file()), reason="specs not present")
def test_a_store_user_made_the_customer_who_wrote_in_has_an_id_of_their_name() -> None:
    library = spec_library([RETAIL, GMAIL])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    by_mail = 0
    for seed in (0, 1, 2):
        for task in compose_tasks([], 20, env=env, seed=seed).tasks:
            users = task.initial_state["retail"]["users"]
            for uid, user in users.items():
                first = re.sub(r"[^a-z]", "", str(user["first_name"]).lower())
                assert uid.startswith(first + "_"), (uid, user["first_name"], task.instruction)
            listed = [o for user in users.values() for o in user.get("order_ids") or ()]
            assert len(listed) == len(set(listed)), task.instruction
            by_mail += task.gold_plan[0]["tool"].startswith("gmail")
    assert by_mail >= 3  # requests that open on a customer's e-mail were composed
