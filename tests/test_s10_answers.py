"""A question in a request asks for what the person asking does not know: never a value the
request itself states (the name of the customer it opens with)."""

from __future__ import annotations

import itertools

from library.compose import composed, make_env
from tests.libraries import bundled_library


def test_no_answer_is_a_value_the_request_states() -> None:
    lib = bundled_library()
    env = make_env(lib.classes, lib.nodes)
    asked = 0
    for task in itertools.islice(composed(env, seed=909), 40):
        for row in task.answer:
            asked += 1
            value = str(row["value"])
            assert value not in task.instruction, (task.task_id, row["label"], value)
    assert asked >= 8  # the first 40 tasks of seed 909 ask for values (two asked a name they gave)
