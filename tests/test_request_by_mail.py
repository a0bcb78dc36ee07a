"""A request that arrives as a customer's e-mail came in lately."""

from __future__ import annotations

import datetime as dt

from library.compose import ComposeConfig, make_env
from tests.compose_walks import finished_walks, forced
from tests.libraries import bundled_library


def test_a_request_waiting_on_us_came_in_lately() -> None:
    """The e-mail a request opens on ("Change to my trip", "Please cancel my order") was
    sent a few hours to three days before the request's now, not weeks ago, and none of
    its times is ahead of now."""
    library = bundled_library(["mail", "storefront", "hotels", "flights", "helpdesk", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    seen = 0
    # (requests by mail are a quarter of the walks that open in time; up to 12 batches)
    for tag in ("lately", *(f"lately{k}" for k in range(2, 13))):
        for walker in finished_walks(env, 80, tag, forced("refund", "travel")):
            if not walker.by_mail or walker.steps[0].entity is None:
                continue
            now = walker.base.clock
            record = walker.steps[0].entity.record
            times = [
                dt.datetime.fromisoformat(str(v).replace("Z", "+00:00"))
                for k, v in record.items()
                if k.endswith(("_at", "date")) and v
            ]
            assert times, record
            seen += 1
            for t in times:
                assert now - dt.timedelta(days=3) <= t <= now, (record, now)
        if seen >= 4:
            break
    assert seen >= 4, seen
