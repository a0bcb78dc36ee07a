"""After a plan makes a record, "the booking" is the new one: no older record of that kind is
what a later step acts on."""

from __future__ import annotations

from library.compose import ComposeConfig, make_env
from tests.compose_walks import finished_walks, forced
from tests.libraries import bundled_library


def test_no_step_acts_on_an_older_record_of_a_kind_the_plan_made() -> None:
    # scheduling here made a room booking, then checked in another, 9 times in 46 walks
    library = bundled_library(["workplace", "docs", "identity", "sheets", "meetings", "hr"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    for walker in finished_walks(env, 100, "made", forced("scheduling")):
        made: dict[tuple[str, str], set[str]] = {}
        for step in walker.steps:
            entity = step.entity
            if entity is None or not step.write:
                continue
            kind = (entity.service, entity.collection)
            if entity.created and step.tool.kind == "create":
                made.setdefault(kind, set()).add(entity.id)
                continue
            # "make a booking ... then check in the booking" is the new one
            assert entity.id in made.get(kind, {entity.id}), (step.text, entity.the)
