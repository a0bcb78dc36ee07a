"""A priority is a priority: a field named ``priority`` (``urgency``, ``severity``) whose spec
lists no values is seeded with a word of that scale (``high``, ``critical``), never a slug of
some system (``shipping-digest``), as a checklist's ``Review the Q3 budget`` of priority
``analytics-sync`` reads as nonsense. Checked on the vocabulary and on the real VTEX task
spec, whose ``priority`` is a bare string."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from library.seed import vocab
from tests.spec_envs import spec_env

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
VTEX = SPECS / "openapi" / "vtex.local__VTEX-Do-API.json"
SCALE = {"low", "normal", "medium", "high", "urgent", "critical"}


@pytest.mark.parametrize(
    "field", ["priority", "task_priority", "urgency", "severity", "priority_level"]
)
def test_an_untyped_priority_is_a_word_of_its_scale(field: str) -> None:
    values = {vocab.token(field, random.Random(k)) for k in range(40)}
    assert values <= SCALE, values
    assert len(values) >= 3, values


def test_other_names_keep_their_slugs() -> None:
    # the rule reads the field's meaning, not every token
    assert "-" in vocab.token("job_name", random.Random(0))
    assert vocab.token("plan_level", random.Random(0)) in {"basic", "standard", "premium"}


def test_real_task_spec_seeds_priorities_not_slugs() -> None:
    world, _ = spec_env(VTEX).world(0)
    tasks = world.services["vtex_local_vtex_do_api"].state.tasks.values()
    priorities = [t.model_dump(mode="json")["priority"] for t in tasks]
    assert priorities
    assert set(priorities) <= SCALE, priorities
