"""GRPO on our World with TRL's real trainer: the data selected from the warehouse (lineage
that replays bit for bit), the pass-rate band, two training steps whose logged rewards are
the judge's CFRR for the same transcripts, and bad inputs that stop with a clear error.

Only the language model's generation is scripted (a wrapper around the tiny model's
``generate``): per group, one rollout carries out the task's gold plan through the gateway,
one stops a call short and one does nothing, so the group's rewards differ. Everything else is
real: TRL's tool-calling loop and parser, our environments, judge and reward, the optimizer.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from library.compose import Task, compose_tasks
from library.judge import judge_group
from library.rollout import InProcessEnv, Rollout, replay_rollout
from library.services import reference_service_classes
from training.data import (
    Band,
    SelectionError,
    built_code,
    reproduce,
    select_rl_tasks,
    task_from_row,
)
from training.environment import (
    EnvClock,
    MissingServices,
    TaskBook,
    WorldEnvironment,
    backend_factory,
)
from training.grpo import GRPOSettings, finish, main, prepare
from training.scripted import script_generation
from training.sft import InputError
from warehouse import Warehouse

CLASSES = reference_service_classes()
G = 3  # the full plan, all of it but its last call, nothing


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    composed = compose_tasks(CLASSES, 6, seed=0).tasks
    # The two shortest plans: the scripted transcripts stay short, so the steps stay fast.
    short = sorted(composed, key=lambda t: (len(t.gold_plan), t.task_id))[:2]
    return [t.model_copy(update={"split": "rl"}) for t in short]


def _warehouse(root: Path, tasks: list[Task], extra: list[Task] = ()) -> Warehouse:
    wh = Warehouse(root)
    wh.append("tasks", [t.to_row() for t in tasks])
    for t in extra:
        wh.append("tasks", [t.to_row()])
    return wh


# -- data from the warehouse -------------------------------------------------------------------
def test_selection_streams_tasks_and_replays_bit_for_bit(tmp_path: Path, tasks: list[Task]) -> None:
    wh = _warehouse(tmp_path / "wh", tasks)
    where = f"t.task_id <> 'none' and t.difficulty = '{tasks[0].difficulty}'"
    ds, lineage = select_rl_tasks(wh, where=where, cache_dir=tmp_path / "cache")
    expected = sorted(t.task_id for t in tasks if t.difficulty == tasks[0].difficulty)
    assert ds["task_id"] == expected and lineage.rows == len(expected)
    assert lineage.where == where and "t.split = 'rl'" in lineage.sql
    assert set(lineage.files) == {"tasks"}
    assert lineage.selected_files and all(f.endswith(".parquet") for f in lineage.selected_files)
    assert set(lineage.selected_files) <= set(lineage.files["tasks"])
    prompt = ds[0]["prompt"]
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert Task.model_validate_json(ds[0]["task"]).task_id == ds[0]["task_id"]

    # New tasks land later: a fresh selection sees them, the recorded one replays unchanged.
    more = [t.model_copy(update={"task_id": f"{t.task_id}x"}) for t in tasks]
    wh.append("tasks", [t.to_row() for t in more])
    ids, digest = reproduce(json.loads(json.dumps(lineage.to_dict())))
    assert ids == expected and digest == lineage.digest
    fresh, fresh_lineage = select_rl_tasks(wh, where=where, cache_dir=tmp_path / "cache")
    assert len(fresh) == 2 * len(expected) and fresh_lineage.digest != lineage.digest


def test_band_keeps_tasks_with_signal_and_reports_the_rest(
    tmp_path: Path, tasks: list[Task]
) -> None:
    wh = _warehouse(tmp_path / "wh", tasks)
    half, solved = tasks  # the reference policy solves one of two, and the other always
    rollouts, scores = [], []
    for task, completed in ((half, [True, False]), (solved, [True, True])):
        for i, done in enumerate(completed):
            rid = f"{task.task_id}-{i}"
            rollouts.append(
                Rollout(
                    rollout_id=rid,
                    task_id=task.task_id,
                    group_id=f"g-{task.task_id}",
                    sample=i,
                    policy="ref",
                    mode="gateway",
                    messages=[],
                    tools=[],
                    status="finished",
                ).to_row()
            )
            scores.append(
                {
                    "rollout_id": rid,
                    "task_id": task.task_id,
                    "group_id": f"g-{task.task_id}",
                    "completed": done,
                    "rubric_score": 1.0 if done else 0.5,
                    "reward": 1.0 if done else 0.2,
                    "advantage": 0.0,
                }
            )
    wh.append("rollouts", rollouts)
    wh.append("rollout_scores", scores)
    ds, lineage = select_rl_tasks(wh, band=Band("ref", 0.1, 0.9), cache_dir=tmp_path / "c")
    assert ds["task_id"] == [half.task_id]
    report = lineage.band
    assert report["kept_ids"] == [half.task_id] and report["too_easy"] == 1
    assert report["pass_rates"][half.task_id]["pass_rate"] == 0.5
    assert set(lineage.files) == {"tasks", "rollouts", "rollout_scores"}
    with pytest.raises(SelectionError, match=r"no task is in the pass-rate band.*2 too easy"):
        select_rl_tasks(wh, band=Band("ref", 0.0, 0.4), cache_dir=tmp_path / "c")


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("t.domain = 'no such domain'", "the selection is empty"),
        ("t.no_such_column = 1", "the selection query failed"),
        ("1 = 1; DROP TABLE tasks", "does not parse"),
    ],
)
def test_bad_selections_stop_with_a_clear_error(
    tmp_path: Path, tasks: list[Task], where: str, message: str
) -> None:
    wh = _warehouse(tmp_path / "wh", tasks)
    with pytest.raises(SelectionError, match=message):
        select_rl_tasks(wh, where=where)


def test_malformed_rubric_and_missing_services_stop_before_training(
    tmp_path: Path, tasks: list[Task]
) -> None:
    row = tasks[0].to_row()
    row["rubric"] = "[{not json"
    wh = Warehouse(tmp_path / "wh")
    wh.append("tasks", [row])
    with pytest.raises(SelectionError, match=f"task '{tasks[0].task_id}' is malformed"):
        select_rl_tasks(wh)
    with pytest.raises(MissingServices, match=r"no code: \['ghost'\]"):
        backend_factory(["crm", "ghost"], CLASSES, {})


def test_grpo_cli_exits_2_on_an_empty_selection(
    tmp_path: Path, tasks: list[Task], capsys: pytest.CaptureFixture[str]
) -> None:
    _warehouse(tmp_path / "wh", tasks)
    args = ["--warehouse", str(tmp_path / "wh"), "--out", str(tmp_path / "out")]
    assert main([*args, "--where", "t.domain = 'nowhere'"]) == 2
    err = capsys.readouterr().err
    assert "error: the selection is empty" in err and "nowhere" in err
    assert not (tmp_path / "out" / "metrics.json").exists()


def _service_rows(name: str, code: str, built_at: dt.datetime, verified: bool) -> tuple:
    sid = f"{name}-{built_at:%H%M%S}"
    service = {
        "service_id": sid,
        "name": name,
        "code": code,
        "code_hash": sid,
        "input_hash": sid,
        "tier": "compiler",
        "status": "verified" if verified else "rejected",
        "attempts": 0,
        "tools_total": 1,
        "tools_verified": int(verified),
        "built_at": built_at,
        "duration_s": 0.0,
    }
    tool = {
        "service_id": sid,
        "service": name,
        "tool": "t",
        "tool_id": f"{sid}-t",
        "status": "verified" if verified else "rejected",
    }
    return service, tool


def test_generated_services_run_in_sandbox_workers_as_they_run_in_process(
    tmp_path: Path,
) -> None:
    """Generated code (as it comes from the warehouse) runs in sandbox workers; what the
    judge reads there is what the same code gives in process."""
    from library.compiler import compile_service, load_service
    from library.compose.corpus import bundled_specs

    # Three services: two alone give a cross-service task too rarely to count on.
    specs = bundled_specs(["crm", "mail", "helpdesk"])
    code = {name: compile_service(spec).source for name, spec in specs.items()}
    wh = Warehouse(tmp_path / "wh")
    old, new = dt.datetime(2026, 1, 1, tzinfo=dt.UTC), dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    builds = [("crm", "old code", old, True), ("crm", code["crm"], new, True)]
    builds += [("mail", code["mail"], new, True), ("helpdesk", code["helpdesk"], new, True)]
    builds += [("files", "x", new, False)]  # files: rejected
    rows = [_service_rows(*b) for b in builds]
    wh.append("services", [r[0] for r in rows])
    wh.append("service_tools", [r[1] for r in rows])
    assert built_code(wh, ["crm", "mail", "helpdesk", "files"]) == code  # latest verified

    classes = [load_service(src) for src in code.values()]
    task = compose_tasks(classes, 1, seed=1).tasks[0]
    factory, where, close = backend_factory(task.services, CLASSES, code)
    assert where == f"sandbox workers ({len(task.services)} generated services)"
    # Gateway distractors with code are mounted too (as the rollout stage mounts them).
    first, *others = task.services
    _, with_distractor, close_other = backend_factory([first], [], code, others)
    close_other()
    assert with_distractor == where
    book, clock = TaskBook(), EnvClock()
    seen = []
    try:
        mounted = [c for c in classes if c.name in task.services]
        for backend in (factory, lambda: InProcessEnv(mounted)):
            env = WorldEnvironment(backend, book, clock)
            env.reset(task_id=task.task_id, task=task.model_dump_json())
            results = [env.call_tool(s["tool"], s["arguments"]) for s in task.gold_plan]
            seen.append((env.list_services(), results, env._final_states()))
            env._close()
    finally:
        close()
    assert seen[0] == seen[1]
    assert all(json.loads(r)["success"] for r in seen[0][1])


# -- two GRPO steps ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, tasks: list[Task]) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("grpo")
    _warehouse(root / "wh", tasks)
    settings = GRPOSettings(
        warehouse=str(root / "wh"),
        out=str(root / "out"),
        max_steps=2,
        num_generations=G,
        batch_size=G,
        max_completion_length=6000,
        max_tool_calls=3,
        lora=True,  # adapters trained, then merged into the saved model
    )
    prep = prepare(settings)
    with pytest.raises(InputError, match="multiple of --num-generations"):
        GRPOSettings(warehouse="x", num_generations=3, batch_size=4).check()
    written = script_generation(prep.trainer.model, prep.tokenizer, tasks, G)
    metrics = finish(prep)
    return {"metrics": metrics, "written": written, "out": root / "out"}


def test_two_steps_log_the_judges_cfrr_for_the_same_transcripts(
    trained: dict[str, Any], tasks: list[Task]
) -> None:
    metrics, out = trained["metrics"], trained["out"]
    assert metrics["steps"] == 2 and metrics["loss_finite"]
    assert json.loads((out / "metrics.json").read_text())["per_step"] == json.loads(
        json.dumps(metrics["per_step"])
    )
    records = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert len(records) == 2 * G
    # The tasks as the trainer read them: from the warehouse, which writes JSON with sorted
    # keys, so a list tool returns records in id order there (the in-memory task keeps the
    # order composition injected them in). Replay what the trainer ran.
    stored = Warehouse(out.parent / "wh").query("select * from tasks").to_pylist()
    by_id = {row["task_id"]: task_from_row(row) for row in stored}
    assert set(by_id) == {t.task_id for t in tasks}
    groups: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault(rec["rollout"]["group_id"], []).append(rec)
    assert len(groups) == 2
    for step, (_, members) in zip(metrics["per_step"], groups.items(), strict=True):
        task = by_id[members[0]["rollout"]["task_id"]]
        replayed = []
        for rec in members:
            rollout = Rollout.model_validate(rec["rollout"])
            env = InProcessEnv(CLASSES)
            result = replay_rollout(task, rollout, env)  # the transcript's calls, afresh
            assert result.matches and result.calls == len(
                [c for m in rollout.messages for c in m.get("tool_calls") or []]
            )
            replayed.append(rollout.model_copy(update={"final_states": env.final_states()}))
        judged = judge_group(task, replayed)
        logged = [rec["score"]["reward"] for rec in members]
        assert logged == pytest.approx(judged.rewards, abs=1e-12)
        assert judged.completed == [True, False, False]  # full plan, a call short, nothing
        assert len(set(judged.rewards)) == G  # a signal: the rewards differ
        # The trainer's logged step reward is the mean of the judge's rewards.
        assert step["reward"] == pytest.approx(sum(judged.rewards) / G, abs=1e-6)
        assert step["cfrr_mean"] == pytest.approx(step["reward"], abs=1e-6)
        assert step["completion_rate"] == pytest.approx(1 / G, abs=1e-6)
        kinds = {c.kind for c in judged.criteria}
        assert set(step["pass_rate_by_kind"]) == kinds
        assert step["resets"] == G and step["tool_calls"] > 0 and step["env_s"] > 0


def test_the_run_records_its_lineage_and_model(trained: dict[str, Any], tasks: list[Task]) -> None:
    metrics, out = trained["metrics"], trained["out"]
    lineage = metrics["lineage"]
    assert lineage["rows"] == len(tasks) and lineage["files"]["tasks"]
    assert reproduce(lineage)[1] == metrics["data_sha256"] == lineage["digest"]
    assert metrics["services"].startswith("in-process")
    assert (out / "model" / "model.safetensors").is_file()
    assert (out / "adapter" / "adapter_model.safetensors").is_file()
    assert 0 < metrics["env_share"] < 1
