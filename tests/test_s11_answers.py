"""A question in a request asks for what the person asking does not know: never a value the
request itself states ("A delivery problem for Megan Rivera (megan.rivera@...) ... tell me
the name of the shipment's recipient" asked for "Megan Rivera"). The rule came in as
194778b and was reverted (36f05af) because fixtures rested on such tasks; they now take
their answer tasks where real ones are (tests/test_compose.py, tests/test_rollout.py)."""

from __future__ import annotations

import itertools

from library.compose import composed, make_env
from library.services import reference_service_classes
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


def test_the_reference_services_ask_no_name_they_state() -> None:
    # In that small library every answer asked the name of the person whose address the
    # request gives: with the rule, none is asked, and the tasks are still composed.
    env = make_env(reference_service_classes())
    tasks = list(itertools.islice(composed(env, seed=3), 12))
    assert len(tasks) == 12
    for task in tasks:
        for row in task.answer:
            assert str(row["value"]) not in task.instruction, (task.task_id, row["label"])
