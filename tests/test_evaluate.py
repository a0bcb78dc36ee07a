"""Evaluation that compares policies: tau-bench's pass^k, slices and intervals computed by
hand; the scripted and local-transformers policies; and ``compoworld eval`` run as a user
runs it (a fresh process on a small warehouse, its printed table and stored rows checked)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from library.evaluation import TaskInfo, Trial, bootstrap, pass_hat_k, summarize
from library.llm import LLMSettings
from library.rollout.local_policy import parse_reply
from library.rollout.scripted import GIVE_UP, ScriptedPolicy
from tasks.build import BuildSettings, build_services
from tasks.compose import compose_stage
from tasks.evaluate import EvaluationError, evaluate, markdown, parse_policy
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.rollout import load_tasks
from warehouse import Warehouse

from .conftest import command_env

SERVICES = ("openapi/crm.yaml", "openapi/helpdesk.yaml")


def test_pass_hat_k_is_taus_estimator() -> None:
    assert pass_hat_k(4, 2, 1) == 0.5
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)  # C(2,2)/C(4,2)
    assert pass_hat_k(4, 3, 2) == pytest.approx(3 / 6)
    assert pass_hat_k(4, 1, 2) == 0.0
    assert pass_hat_k(4, 4, 4) == 1.0
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)


def _trials(task: str, outcomes: list[bool], reward: float) -> list[Trial]:
    return [Trial(task, i, ok, reward if ok else 0.25) for i, ok in enumerate(outcomes)]


def test_summary_by_slice_on_hand_computed_trials() -> None:
    tasks = {
        "a": TaskInfo("finance", ("lookup", "write"), "easy"),
        "b": TaskInfo("finance", ("write",), "hard"),
        "c": TaskInfo("support", ("lookup",), "hard"),
    }
    trials = (
        _trials("a", [True] * 4, 1.0)
        + _trials("b", [True, True, False, False], 1.0)
        + _trials("c", [True], 1.0)  # fewer than k trials: left out of pass^k only
    )
    out = {(m.slice_kind, m.slice): m for m in summarize("p", trials, tasks, 2)}
    overall = out["all", "all"]
    assert overall.tasks == 3 and overall.trials == 9
    assert overall.pass1.value == pytest.approx((1 + 0.5 + 1) / 3)
    assert overall.passk.value == pytest.approx((1 + 1 / 6) / 2) and overall.passk.tasks == 2
    assert overall.pass_hat[1] == pytest.approx(0.75)  # over the tasks with k trials
    # Mean reward: per task first (a: 1.0, b: 0.625, c: 1.0), then over tasks.
    assert overall.mean_reward.value == pytest.approx((1 + 0.625 + 1) / 3)
    assert out["domain", "finance"].pass1.value == pytest.approx(0.75)
    assert out["capability", "lookup"].tasks == 2  # a task counts under each capability
    assert out["difficulty", "hard"].passk.value == pytest.approx(1 / 6)
    assert out["domain", "support"].passk.value is None  # no task with k trials
    lo, hi = overall.pass1.lo, overall.pass1.hi
    assert lo is not None and hi is not None and lo <= overall.pass1.value <= hi and lo < hi
    again = {(m.slice_kind, m.slice): m for m in summarize("p", trials, tasks, 2)}
    assert again["all", "all"].pass1 == overall.pass1  # seeded: the same interval


def test_bootstrap_interval_narrows_with_more_tasks() -> None:
    few = bootstrap([1.0, 0.0] * 5, seed="x")
    many = bootstrap([1.0, 0.0] * 200, seed="x")
    assert few.value == many.value == 0.5
    assert (many.hi - many.lo) < (few.hi - few.lo)  # type: ignore[operator]
    assert bootstrap([1.0] * 7).lo == 1.0


def test_parse_reply_reads_qwen_tool_calls() -> None:
    text = (
        "<think>hm</think>Let me look.\n<tool_call>\n"
        '{"name": "crm__get_contact", "arguments": {"contact_id": "ct_1"}}\n</tool_call>'
        "<tool_call>not json</tool_call>"
    )
    message = parse_reply(text, 3)
    [call] = message["tool_calls"]
    assert call["id"] == "call_3_0" and call["function"]["name"] == "crm__get_contact"
    assert call["function"]["arguments"] == '{"contact_id":"ct_1"}'
    assert message["content"] == "Let me look.\n<tool_call>not json</tool_call>"
    assert parse_reply("plain answer", 0) == {"role": "assistant", "content": "plain answer"}


def test_policy_specs() -> None:
    assert str(parse_policy("scripted")) == "scripted:0.5"
    assert str(parse_policy("litellm:hosted_vllm/q")) == "litellm:hosted_vllm/q"
    for bad in ("scripted:2", "gpt", "local:", "oracle:x"):
        with pytest.raises(EvaluationError):
            parse_policy(bad)


@pytest.fixture(scope="module")
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse of two compiled services and a few composed tasks."""
    home = tmp_path_factory.mktemp("eval") / "home"
    wh = Warehouse(home / "warehouse")
    ingest_paths([str(bundled_corpus() / s) for s in SERVICES], wh.root)
    build_services(wh, BuildSettings(llm=LLMSettings(model=None)))
    compose_stage(wh, 6, seed=3, min_services=2)
    return home


def test_scripted_policy_solves_its_share(small_home: Path) -> None:
    task = load_tasks(Warehouse(small_home / "warehouse"), limit=1)[0]
    policy = ScriptedPolicy(task, success_rate=0.5)
    solved = [policy.solves(i) for i in range(400)]
    assert 150 < sum(solved) < 250
    assert [policy.solves(i) for i in range(400)] == solved  # deterministic
    failing = solved.index(False)
    tools = [{"type": "function", "function": {"name": task.gold_plan[0]["tool"]}}]
    messages: list[dict] = [{"role": "user", "content": task.instruction}]
    for _ in range(len(task.gold_plan) + 1):
        turn = asyncio.run(policy.act(messages, tools, sample=failing)).message
        messages.append(turn)
        if not turn.get("tool_calls"):
            break
    assert messages[-1]["content"] == GIVE_UP
    assert sum(1 for m in messages if m.get("tool_calls")) == len(task.gold_plan) // 2


def test_bad_selection_stops_with_a_clear_error(small_home: Path) -> None:
    wh = Warehouse(small_home / "warehouse")
    with pytest.raises(EvaluationError, match="no tasks in split"):
        evaluate(wh, ["oracle"], splits=["nonexistent"], k=1)
    with pytest.raises(EvaluationError, match="named twice"):
        evaluate(wh, ["oracle", "oracle"], k=1)
    with pytest.raises(EvaluationError, match="no model folder"):
        evaluate(wh, ["local:/nonexistent/model"], splits=["sft", "rl", "eval"], k=1)


def _row(out: str, policy: str) -> list[str]:
    line = next(line for line in out.splitlines() if re.match(rf"\W*{re.escape(policy)}\b", line))
    return re.findall(r"\d+\.\d\d", line)


@pytest.mark.slow
def test_eval_command_compares_oracle_scripted_and_tiny(
    prefect_harness: None, small_home: Path
) -> None:
    env = command_env(
        session_api=True,  # a configured server, as after `compoworld server`
        COMPOWORLD_HOME=str(small_home),
        PREFECT_HOME=str(small_home.parent / "prefect"),
        COLUMNS="200",
    )
    args = ["--policy", "oracle", "--policy", "scripted", "--policy", "tiny"]
    # Six tasks, two tries each: enough that a policy solving half of them misses some.
    args += ["--split", "sft", "--split", "rl", "--split", "eval", "--k", "2", "--limit", "6"]
    args += ["--max-new-tokens", "16"]
    cmd = [sys.executable, "-m", "flows.cli", "eval", *args]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    oracle, scripted, tiny = _row(out, "oracle"), _row(out, "scripted:0.5"), _row(out, "local:")
    # Each row: pass^1 [lo, hi], pass^2 [lo, hi], mean reward [lo, hi].
    assert oracle[:3] == ["1.00", "1.00", "1.00"] and oracle[3] == "1.00"
    assert float(scripted[0]) < 1.0 and float(tiny[0]) < 1.0
    assert float(scripted[3]) <= float(scripted[0])  # pass^k never exceeds pass^1
    plot = Path(re.search(r"plot: (\S+)", out).group(1))  # type: ignore[union-attr]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    wh = Warehouse(small_home / "warehouse")
    rows = wh.query(
        "select policy, pass1, passk, k, tasks, trials from evaluations where slice_kind = 'all'"
    ).to_pylist()
    by_policy = {r["policy"]: r for r in rows}
    assert set(by_policy) == {"oracle", "scripted:0.5", "local:tiny-eval"}
    assert by_policy["oracle"]["pass1"] == 1.0 and by_policy["oracle"]["trials"] == 12
    assert all(r["k"] == 2 and r["tasks"] == 6 for r in rows)
    assert (
        wh.query("select count(*) from evaluations where slice_kind = 'domain'")
        .column(0)[0]
        .as_py()
        >= 3
    )
    runs = wh.query("select status from runs where flow = 'evaluate'").column(0).to_pylist()
    assert runs == ["completed"]


def test_in_process_evaluation_stores_rows_and_markdown(small_home: Path) -> None:
    wh = Warehouse(small_home / "warehouse")
    report = evaluate(wh, ["oracle", "scripted:0"], splits=["sft", "rl", "eval"], k=1, limit=2)
    oracle, never = (r.overall() for r in report.results)
    assert oracle.pass1.value == 1.0 and never.pass1.value == 0.0
    assert 0.0 < never.mean_reward.value < 0.5  # half the plan: some criteria, no completion
    text = markdown(report)
    assert f"# Evaluation {report.eval_id}" in text
    assert "| oracle | 2 | 1.000 [1.000, 1.000]" in text and "| scripted:0 | 2 | 0.000" in text
    stored = wh.query(
        "select count(*) from evaluations where eval_id = $id", {"id": report.eval_id}
    ).column(0)[0]
    assert stored.as_py() == len(report.rows()) > 2
