"""What the compose stage asks of its shards: no more tasks than it keeps."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pytest

from library.compose import ComposeConfig, compose_tasks, composed, make_env, shard_size
from library.compose.compose import NONE_REQUIRED
from library.llm import LLMSettings
from tasks.build import BuildSettings, build_services
from tasks.compose import compose_stage
from tasks.ingest import bundled_corpus, ingest_paths
from warehouse import Warehouse

from .libraries import bundled_library


def test_a_shard_stops_once_it_has_n_tasks_touching_a_required_service() -> None:
    """The nightly's new service: tasks that miss it are turned away as they come (before
    the costly checks), not composed and dropped afterwards."""
    lib = bundled_library(["crm", "helpdesk", "voice"])
    free = compose_tasks(lib.classes, 4, nodes=lib.nodes, seed=0).tasks
    missed = [s for t in free for s in ("voice", "crm", "helpdesk") if s not in t.services]
    assert missed, [t.services for t in free]
    out = compose_tasks(lib.classes, 2, nodes=lib.nodes, seed=0, require_any={missed[0]})
    assert len(out.tasks) == 2
    assert all(missed[0] in t.services for t in out.tasks)
    assert out.rejections.get(NONE_REQUIRED, 0) > 0  # crm + helpdesk walks were drawn too


def test_one_shard_composes_exactly_what_is_asked() -> None:
    """Merging drops only what two shards both made: one shard composes ``n``, two a
    margin over half of it each."""
    assert shard_size(7, 1) == 7
    assert 2 * shard_size(1000, 2) > 1000 * 1.15


def test_a_merge_short_of_n_is_topped_up_from_other_worlds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shards that together fall short of ``n`` (here each composes one task a round) are
    asked once more, on the next seed's worlds, for what is missing."""
    wh = Warehouse(tmp_path / "wh")
    ingest_paths(
        [str(bundled_corpus() / "openapi" / s) for s in ("crm.yaml", "helpdesk.yaml")], wh.root
    )
    build_services(wh, BuildSettings(llm=LLMSettings(model=None)))
    monkeypatch.setattr("tasks.compose.shard_size", lambda n, shards: 1)
    notes: list[tuple[int, int, str]] = []
    summary = compose_stage(wh, 4, workers=2, on_progress=lambda *a: notes.append(a))
    # More than one round of two one-task shards can give (merging may still drop a repeat).
    assert summary.composed == summary.written >= 3
    assert [total for _, total, _ in notes] == [4, 4, 6, 6, 6, 6]  # a second round of shards
    assert len(set(wh.query("select task_id from tasks").column(0).to_pylist())) >= 3


def test_the_task_stream_is_compose_tasks_one_by_one() -> None:
    """``composed`` yields what ``compose_tasks`` returns, in order: a test looking for one
    kind of task can stop at the first one and still see the tasks it would have seen."""
    lib = bundled_library(["crm", "helpdesk", "mail"])
    env = make_env(lib.classes, lib.nodes)
    whole = compose_tasks([], 4, env=env, seed=3).tasks
    streamed = list(islice(composed(env, 3), 4))
    assert [t.task_id for t in streamed] == [t.task_id for t in whole]


def test_caps_lifted_for_a_starving_run_come_back() -> None:
    """A run that starves under the share caps has them lifted for the next ``RELIEF``
    tasks, then back (twice as long a relief the next time): one narrow stretch no longer
    leaves the rest of a long run uncapped."""
    from types import SimpleNamespace

    from library.compose.compose import Balance

    balance = Balance(SimpleNamespace(config=ComposeConfig()))  # type: ignore[arg-type]
    task = SimpleNamespace(motif="refund", capabilities=[], difficulty="easy", domain="sales")
    for _ in range(Balance.WARM_UP):
        balance.add(SimpleNamespace(**vars(task), services=["crm", f"s{balance.total}"]))  # type: ignore[arg-type]
    assert balance.over(["crm"], "sales") is not None  # crm is in every task: capped
    for _ in range(balance.patience):
        balance.miss()
    assert balance.lifted and balance.over(["crm"], "sales") is None
    for _ in range(Balance.RELIEF):
        balance.add(SimpleNamespace(**vars(task), services=["crm"]))  # type: ignore[arg-type]
    assert not balance.lifted and balance.over(["crm"], "sales") is not None
    for _ in range(balance.patience):
        balance.miss()
    assert balance.lifted and balance.relief == 2 * Balance.RELIEF
