"""Hostile inputs outside the sandbox: SQL, spec files, racing writers, secrets, model faults.

One test per attack of issue 13 (items 4 to 8); each fails when its defence is removed.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import threading
import traceback
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from flows.cli import app
from library.compose import Task, compose_tasks
from library.ingest import Unreadable, read_document
from library.judge import judge_group, judge_rollouts
from library.llm import LLMCallError, LLMClient, MemoryCallStore
from library.llm.testing import DROP, ScriptedModel
from library.redact import redact
from library.rollout import InProcessEnv, LiteLLMPolicy, Rollout, RolloutSettings, run_groups
from library.services import reference_service_classes
from tasks.compose import write_tasks
from tasks.curate import curate
from tasks.ingest import discover, ingest_files
from tasks.llm_store import WarehouseCallStore
from tasks.rollout import write_judged
from tasks.runs import recorded_run
from warehouse import Warehouse, WarehouseError

from .warehouse_rows import run_row

# -- compoworld sql is read-only (item 4) ---------------------------------------------------


@pytest.fixture
def cli_home(home: Path) -> Warehouse:
    """A home whose warehouse holds one ``runs`` row, as ``compoworld sql`` sees it."""
    wh = Warehouse(home / "warehouse")
    wh.append("runs", [run_row("r1")], batch_id="b1")
    return wh


def _sql(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["sql", *args])
    return result.exit_code, result.output


def test_sql_explain_analyze_copy_into_the_warehouse_is_refused(cli_home: Warehouse) -> None:
    folder = cli_home.table_dir("runs")
    code, out = _sql(f"EXPLAIN /* x */ ANALYZE COPY (SELECT * FROM runs) TO '{folder}/x.parquet'")
    assert code == 2 and "EXPLAIN ANALYZE runs the statement" in out
    assert cli_home.count("runs") == 1  # the attack doubled the table
    assert [p.name for p in folder.iterdir()] == ["b1.parquet"]


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("COPY runs TO '{folder}/y.parquet'", "COPY statements are not allowed"),
        ("EXPLAIN (ANALYZE) SELECT 1", "EXPLAIN ANALYZE"),
        ("EXPLAIN COPY runs TO '{folder}/y.parquet'", "EXPLAIN of COPY statement"),
        ("ATTACH '{folder}/x.db' AS x", "ATTACH statements are not allowed"),
        ("INSTALL httpfs", "INSTALL (LOAD) statements are not allowed"),
        ("LOAD httpfs", "LOAD statements are not allowed"),
        ("SET enable_external_access = true", "SET statements are not allowed"),
        ("PRAGMA enable_profiling", "PRAGMA statements are not allowed"),
        ("SELECT 1; COPY runs TO '{folder}/y.parquet'", "one statement at a time (2 given"),
    ],
)
def test_sql_refuses_everything_but_one_query(cli_home: Warehouse, sql: str, reason: str) -> None:
    folder = cli_home.table_dir("runs")
    with pytest.raises(WarehouseError, match="read-only") as info:
        cli_home.query_readonly(sql.format(folder=folder))
    assert reason in str(info.value)
    assert [p.name for p in folder.iterdir()] == ["b1.parquet"]


def test_sql_plain_explain_and_queries_still_work(cli_home: Warehouse) -> None:
    assert cli_home.query_readonly("EXPLAIN SELECT * FROM runs").num_rows == 1
    assert cli_home.query_readonly("SELECT count(*) AS n FROM runs").to_pylist() == [{"n": 1}]


@pytest.mark.parametrize(
    "source",
    [
        "read_csv('http://127.0.0.1:9/x.csv')",  # the attack: DuckDB installed httpfs and fetched
        "read_csv('/etc/passwd')",
        "read_parquet('{outside}')",
    ],
)
def test_sql_cannot_reach_files_or_the_network(
    cli_home: Warehouse, tmp_path: Path, source: str
) -> None:
    outside = tmp_path / "outside.parquet"
    Warehouse(tmp_path / "other").append("runs", [run_row("x")], batch_id="o")
    outside.write_bytes(next((tmp_path / "other").rglob("o.parquet")).read_bytes())
    code, out = _sql(f"SELECT * FROM {source.format(outside=outside)}")
    assert code == 2 and "reaches outside the warehouse" in out


def test_sql_connection_is_locked_down(cli_home: Warehouse) -> None:
    con = cli_home.locked_connection()
    try:

        def setting(name: str) -> object:
            return con.sql(f"SELECT current_setting('{name}') AS v").to_arrow_table()[0][0].as_py()

        assert setting("enable_external_access") is False
        assert setting("autoinstall_known_extensions") is False
        assert setting("autoload_known_extensions") is False
        assert str(cli_home.root) in str(setting("allowed_directories"))
        with pytest.raises(Exception, match="configuration has been locked"):
            con.execute("SET autoload_known_extensions = true")
    finally:
        con.close()


def test_sql_csv_writes_list_columns_as_json(cli_home: Warehouse) -> None:
    code, out = _sql(
        "SELECT ['crm', 'mail'] AS services, {'a': 1} AS s, NULL::VARCHAR[] AS e", "-f", "csv"
    )
    assert code == 0, out
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["services", "s", "e"]
    assert json.loads(rows[1][0]) == ["crm", "mail"] and json.loads(rows[1][1]) == {"a": 1}
    assert rows[1][2] == ""


# -- writers racing on one warehouse (item 6) -----------------------------------------------

CONTACTS = {"c1": {"id": "c1", "name": "Alice", "title": "Engineer"}}


def small_task(task_id: str) -> Task:
    return Task(
        task_id=task_id,
        seed=0,
        services=["crm"],
        domain="sales",
        capabilities=["answer"],
        difficulty="easy",
        instruction=f"Tell me the total ({task_id}).",
        template_instruction="",
        initial_state={"crm": {"contacts": CONTACTS}},
        gold_plan=[],
        rubric=[{"kind": "answer_contains", "value": 42}],
    )


def small_group(task: Task) -> list[Rollout]:
    return [
        Rollout(
            rollout_id=f"{task.task_id}-r{sample}",
            task_id=task.task_id,
            group_id=f"{task.task_id}-g",
            sample=sample,
            policy="test",
            mode="direct",
            messages=[],
            tools=[],
            final_answer=answer,
            final_states={"crm": {"contacts": CONTACTS}},
            status="finished",
        )
        for sample, answer in enumerate(["42", "no idea"])
    ]


Writer = Callable[[Warehouse], object]


class PausingWarehouse(Warehouse):
    """A writer that stops right after it first reads ``table`` (its check), until released."""

    def __init__(self, root: str | Path, table: str) -> None:
        super().__init__(root)
        self.table, self.checked, self.release = table, threading.Event(), threading.Event()

    def query(self, sql: str, params: Any = None) -> pa.Table:
        result = super().query(sql, params)
        reads_table = f'"{self.table}"' in sql or f" {self.table}" in sql
        if reads_table and not self.checked.is_set():
            self.checked.set()
            assert self.release.wait(10), "the test never released the first writer"
        return result


def interleave(root: str | Path, table: str, first: Writer, second: Writer) -> bool:
    """Run ``first`` up to its check, then ``second`` (on another Warehouse of the same
    folder), then the rest of ``first``. True when ``second`` had to wait for ``first``: it
    could not even read the table while ``first`` stood between its check and its write."""
    wh_a, wh_b = PausingWarehouse(root, table), PausingWarehouse(root, table)
    wh_b.release.set()
    a = threading.Thread(target=first, args=(wh_a,))
    b = threading.Thread(target=second, args=(wh_b,))
    a.start()
    assert wh_a.checked.wait(10)
    b.start()
    waited = not wh_b.checked.wait(0.4)
    if not waited:
        b.join(10)  # the second writer ran through: let it finish before the first goes on
    wh_a.release.set()
    a.join(10)
    b.join(10)
    assert not a.is_alive() and not b.is_alive()
    return waited


@pytest.mark.parametrize("where", ["folder", "url"])
def test_overlapping_write_tasks_write_each_task_once(tmp_path: Path, where: str) -> None:
    # A local folder locks a file; a warehouse at a URL, this process's threads.
    location = str(tmp_path) if where == "folder" else f"memory://race-{uuid.uuid4().hex}"
    tasks = [small_task(f"t{i}") for i in range(6)]
    waited = interleave(
        location,
        "tasks",
        lambda wh: write_tasks(wh, tasks[:4], run="a"),
        lambda wh: write_tasks(wh, tasks[2:], run="b"),
    )
    ids = Warehouse(location).query("select task_id from tasks").column(0).to_pylist()
    assert sorted(ids) == [f"t{i}" for i in range(6)]  # the attack stored 10 rows for 6 ids
    assert waited


def test_overlapping_write_judged_write_each_rollout_once(tmp_path: Path) -> None:
    tasks = [small_task(f"t{i}") for i in range(3)]
    rollouts = [r for t in tasks for r in small_group(t)]
    judged = judge_rollouts(tasks, rollouts)
    waited = interleave(
        tmp_path,
        "rollouts",
        lambda wh: write_judged(wh, rollouts[:4], judged[:2]),
        lambda wh: write_judged(wh, rollouts[2:], judged[1:]),
    )
    wh = Warehouse(tmp_path)
    for table in ("rollouts", "criterion_results", "rollout_scores"):  # one criterion a task
        ids = wh.query(f"select rollout_id from {table}").column(0).to_pylist()
        assert sorted(ids) == sorted(r.rollout_id for r in rollouts), table
    assert waited


def test_append_absent_keeps_units_whole_and_reruns_add_nothing(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    rows = [run_row("r1", flow="a"), run_row("r1", flow="b"), run_row("r2")]
    assert wh.append_absent("runs", rows, key="run_id", prefix="runs") == 3
    assert wh.append_absent("runs", [*rows, run_row("r3")], key="run_id", prefix="runs") == 1
    assert wh.count("runs") == 4
    with pytest.raises(KeyError, match="unknown warehouse table"):
        wh.append_absent("nope", rows, key="run_id", prefix="x")


# -- secrets never stored (item 7) and model faults (item 8) --------------------------------

KEY_VAR = "CW_TEST_MODEL_AUTH"  # a name that does not say "key": only the setting names it
CONFIGURED_KEY = "plain-configured-value-5150-zz"  # no credential shape: only its value tells
ECHO_401 = (
    401,
    {
        "error": {
            "message": f"bad header Authorization: Bearer sk-proj-AbCdEf0123456789xyz; "
            f"configured {CONFIGURED_KEY}"
        }
    },
)
SECRETS = ("sk-proj-AbCdEf0123456789xyz", CONFIGURED_KEY)


@pytest.fixture(scope="module")
def real_task() -> Task:
    return compose_tasks(reference_service_classes(), 1, seed=0).tasks[0]


@pytest.fixture(scope="module")
def litellm_loaded() -> None:
    """Import litellm once (seconds on a busy machine), outside any test's own time."""
    with ScriptedModel([400]) as server, pytest.raises(LLMCallError):
        LLMClient(server.settings()).complete([{"role": "user", "content": "warm up"}])


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, litellm_loaded: None) -> Iterator[ScriptedModel]:
    monkeypatch.setenv(KEY_VAR, CONFIGURED_KEY)
    with ScriptedModel() as server:
        yield server


def one_by_one(task: Task, policy: Any, group_size: int = 2) -> list[Rollout]:
    """A group of ``group_size`` episodes run one after another (the script's order)."""
    settings = RolloutSettings(group_size=group_size, concurrency=1)
    env = lambda: InProcessEnv(reference_service_classes())  # noqa: E731
    [group] = asyncio.run(run_groups([task], policy, env, settings))
    return group


def model_policy(model: ScriptedModel, store: Any, **settings: Any) -> LiteLLMPolicy:
    llm = model.settings(api_key_env=KEY_VAR, **settings)
    return LiteLLMPolicy(LLMClient(llm, store))


def test_a_401_echoing_the_key_never_reaches_the_warehouse(
    tmp_path: Path, model: ScriptedModel, real_task: Task
) -> None:
    wh = Warehouse(tmp_path)
    model.add(ECHO_401, "All done.")
    rollouts = one_by_one(real_task, model_policy(model, WarehouseCallStore(wh)))
    write_judged(wh, rollouts, judge_rollouts([real_task], rollouts))
    stored = json.dumps(
        [wh.query(f"select * from {t}").to_pylist() for t in ("llm_calls", "rollouts")],
        default=str,
    )
    assert "[REDACTED]" in stored and "Authorization" in stored
    for secret in SECRETS:
        assert secret not in stored  # the attack stored the 401 body verbatim, twice
        assert secret not in (rollouts[0].error or "")


def test_a_failed_call_raises_without_the_providers_text(model: ScriptedModel) -> None:
    model.add(ECHO_401)
    with pytest.raises(LLMCallError) as info:
        LLMClient(model.settings(api_key_env=KEY_VAR)).complete([{"role": "user", "content": "hi"}])
    shown = "".join(traceback.format_exception(info.value))  # what a log of the failure shows
    assert "[REDACTED]" in shown
    assert not any(secret in shown for secret in SECRETS)
    assert (info.value.kind, info.value.status_code) == ("AuthenticationError", 401)


class LeakyPolicy:
    """A policy whose failure message carries a token (a provider SDK used directly)."""

    name = "leaky"

    async def act(self, messages: Any, tools: Any, *, sample: int) -> Any:
        raise RuntimeError("upstream said: Bearer ghp_0123456789abcdefghijABCDEFGHIJ")


def test_any_episode_error_is_redacted(real_task: Task) -> None:
    [rollout] = one_by_one(real_task, LeakyPolicy(), group_size=1)
    assert rollout.status == "error"
    assert rollout.error is not None and "Bearer [REDACTED]" in rollout.error
    assert "ghp_" not in rollout.error


def test_a_failed_run_is_recorded_redacted(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(RuntimeError), recorded_run(wh, "demo", {}, run_id="r1"):
        raise RuntimeError(f"the gateway refused api_key={CONFIGURED_KEY}")
    [error] = wh.query("select error from runs").column(0).to_pylist()
    assert "api_key=[REDACTED]" in error and CONFIGURED_KEY not in error


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (500, "InternalServerError"),
        (502, "BadGatewayError"),
        (DROP, "InternalServerError"),  # litellm's name for a connection closed mid-request
        ((200, {"object": "chat.completion", "model": "scripted", "choices": []}), "EmptyResponse"),
        (520, "APIError"),  # a 5xx litellm has no class for
    ],
)
def test_server_faults_are_retried_and_recorded(
    tmp_path: Path, model: ScriptedModel, fault: Any, kind: str
) -> None:
    wh = Warehouse(tmp_path)
    model.add(fault, "hello")
    client = LLMClient(model.settings(max_retries=2), WarehouseCallStore(wh))
    reply = client.complete([{"role": "user", "content": "hi"}])
    assert reply.content == "hello" and model.hits == 2
    rows = wh.query("select attempt, error from llm_calls order by attempt").to_pylist()
    assert [r["attempt"] for r in rows] == [1, 2]
    assert rows[0]["error"].startswith(kind) and rows[1]["error"] is None


def test_rate_limited_rollouts_are_kept_out_of_rewards_and_exports(
    tmp_path: Path, model: ScriptedModel, real_task: Task
) -> None:
    wh = Warehouse(tmp_path)
    model.add(429, 429, "All done.")  # sample 0: rate-limited past its one retry
    infra, answered = one_by_one(real_task, model_policy(model, MemoryCallStore(), max_retries=1))
    assert infra.status == "infra_error" and "RateLimitError" in (infra.error or "")
    assert answered.status == "finished"
    [judged] = judge_rollouts([real_task], [infra, answered])
    alone = judge_group(real_task, [answered])
    assert judged.rollout_ids == [answered.rollout_id] and judged.excluded == (infra.rollout_id,)
    assert (judged.rewards, judged.advantages) == (alone.rewards, alone.advantages)
    write_judged(wh, [infra, answered], [judged])
    statuses = wh.query("select rollout_id, status from rollouts").to_pylist()
    assert {r["rollout_id"]: r["status"] for r in statuses}[infra.rollout_id] == "infra_error"
    scored = wh.query("select rollout_id from rollout_scores").column(0).to_pylist()
    assert scored == [answered.rollout_id]
    assert curate(wh).reasons[infra.rollout_id] == "infrastructure"


def test_a_request_fault_is_the_agents_and_stays_judged(
    model: ScriptedModel, real_task: Task
) -> None:
    model.add(400, "All done.")
    bad, answered = one_by_one(real_task, model_policy(model, MemoryCallStore()))
    assert bad.status == "error"  # a bad request: the agent's own, so it is judged
    [judged] = judge_rollouts([real_task], [bad, answered])
    assert judged.rollout_ids == [bad.rollout_id, answered.rollout_id] and not judged.excluded


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.DEF_123-456~xyz", "Authorization: Bearer [REDACTED]"),
        ("basic dXNlcjpwYXNzd29yZA==", "basic [REDACTED]"),
        ("key sk-ant-api03-AAAAAAAAAAAAAAAA ok", "key [REDACTED] ok"),
        ("hf_abcdefghijklmnopqrstu", "[REDACTED]"),
        (
            "ghp_0123456789abcdefghijABCD and github_pat_0123456789abcdefghijAB",
            "[REDACTED] and [REDACTED]",
        ),
        ("slack xoxb-1234567890-abcdef", "slack [REDACTED]"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstu", "[REDACTED]"),
        ("aws AKIAIOSFODNN7EXAMPLE.", "aws [REDACTED]."),
        ("jwt eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2Q", "jwt [REDACTED]"),
        ('{"api_key": "opaque-value-1"}', '{"api_key": "[REDACTED]"}'),
        ("password=hunter22, user=bob", "password=[REDACTED], user=bob"),
        ("GET /v1/models?key=opaque1&x=1", "GET /v1/models?key=[REDACTED]&x=1"),
        (
            "the env's NOT_SO_SECRET value: opaque-env-value-1",
            "the env's NOT_SO_SECRET value: [REDACTED]",
        ),
        ("given: opaque-given-value-1", "given: [REDACTED]"),
        ("task-sk-1 bearer of news; token validation; 12 rows", None),  # unchanged
    ],
)
def test_redact_removes_each_credential_shape(text: str, expected: str | None) -> None:
    env = {"NOT_SO_SECRET": "opaque-env-value-1", "HOME": "/root"}
    assert redact(text, ["opaque-given-value-1"], env=env) == (expected or text)


# -- hostile spec files (item 5) ------------------------------------------------------------

GOOD_SPEC = {"tools": [{"name": "ping", "description": "Ping.", "inputSchema": {"type": "object"}}]}


def spec_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "a_good.json").write_text(json.dumps(GOOD_SPEC))
    (folder / "z_good.json").write_text(
        json.dumps({**GOOD_SPEC, "tools": [{**GOOD_SPEC["tools"][0], "name": "pong"}]})
    )
    return folder


def ingest_folder(folder: Path, wh_root: Path, **kw: Any) -> dict[str, str]:
    """Ingest a folder; the error kind and message reported per file name."""
    found = discover([str(folder)])
    ingest_files(found.files, wh_root, workers=1, refused=found.refused, **kw)
    rows = Warehouse(wh_root).query("select source_file, kind, message from spec_errors")
    return {Path(r["source_file"]).name: f"{r['kind']}: {r['message']}" for r in rows.to_pylist()}


def ingested_tools(wh_root: Path) -> list[str]:
    return sorted(Warehouse(wh_root).query("select name from specs").column(0).to_pylist())


def test_a_symlink_to_dev_zero_is_refused_and_the_rest_ingests(tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    (folder / "m_zero.json").symlink_to("/dev/zero")  # the attack: MemoryError, later files lost
    errors = ingest_folder(folder, tmp_path / "wh")
    assert "outside" in errors["m_zero.json"] and "not followed" in errors["m_zero.json"]
    assert ingested_tools(tmp_path / "wh") == ["ping", "pong"]


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    fifo = folder / "m_x.json"
    os.mkfifo(fifo)  # the attack: the ingest hung forever on open
    out: dict[str, dict[str, str]] = {}
    worker = threading.Thread(
        target=lambda: out.update(errors=ingest_folder(folder, tmp_path / "wh")), daemon=True
    )
    worker.start()
    worker.join(10)
    hung = worker.is_alive()
    if hung:  # release the blocked reader, so the failure is reported and nothing is left
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
    assert not hung, "the ingest blocked on the FIFO"
    assert out["errors"]["m_x.json"] == "unreadable: a FIFO, not a regular file: not read"
    assert ingested_tools(tmp_path / "wh") == ["ping", "pong"]


def test_a_device_named_directly_is_refused(tmp_path: Path) -> None:
    wh_root = tmp_path / "wh"
    stats = ingest_files(["/dev/zero"], wh_root, workers=1)
    assert stats.errors == {("unreadable", "error"): 1}
    [message] = Warehouse(wh_root).query("select message from spec_errors").column(0).to_pylist()
    assert message == "a character device, not a regular file: not read"


def test_a_symlink_inside_the_folder_is_followed(tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    (folder / "b_link.json").symlink_to(folder / "a_good.json")
    assert ingest_folder(folder, tmp_path / "wh") == {}
    assert ingested_tools(tmp_path / "wh") == ["ping", "pong"]


def test_a_document_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    folder = spec_folder(tmp_path)
    (folder / "m_big.json").write_bytes(b"[" + b"0," * 600 + b"0]")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("library.ingest.document.MAX_BYTES", 1000)  # a smaller limit, same reader
        errors = ingest_folder(folder, tmp_path / "wh")
    assert (
        errors["m_big.json"]
        == "too_large: larger than the limit of 1,000 bytes a document: not read"
    )
    assert ingested_tools(tmp_path / "wh") == ["ping", "pong"]


def test_the_reader_never_holds_more_than_the_limit(tmp_path: Path) -> None:
    sparse = tmp_path / "huge.json"
    with sparse.open("wb") as f:
        f.truncate(64 * 2**20)  # 64 MiB of holes: no disk used
    tracemalloc.start()
    try:
        with pytest.raises(Unreadable, match="larger than the limit of 1,000 bytes"):
            read_document(sparse, max_bytes=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20, f"{peak} bytes held to refuse a 1,000-byte limit"


def slow_document(tools: int = 1) -> bytes:
    """A real document that takes a while to parse: nested schema aliases (~0.02 s a tool),
    each schema under the ingest's node cap (10,000 nodes) so the parse is slow, not cut."""
    lines = ["x0: &x0 {type: object, properties: {a: {type: string}, b: {type: string}}}"]
    for i in range(1, 5):
        refs = ", ".join(f"p{j}: *x{i - 1}" for j in range(10))
        lines.append(f"x{i}: &x{i} {{type: object, properties: {{{refs}}}}}")
    lines.append("tools:")
    lines += [f"  - {{name: t{i}, description: d, inputSchema: *x4}}" for i in range(tools)]
    return "\n".join(lines).encode()


def test_a_parse_whose_interrupt_was_lost_is_refused_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timer's interrupt can land where Python drops exceptions (a finalizer): a parse
    that ran past its limit is refused though it finished."""
    import contextlib

    import tasks.ingest as ingest_task

    monkeypatch.setattr(ingest_task, "_alarm", lambda seconds: contextlib.nullcontext())
    folder = spec_folder(tmp_path)
    (folder / "m_slow.yaml").write_bytes(slow_document(10))
    errors = ingest_folder(folder, tmp_path / "wh", time_limit_s=0.02)
    assert errors["m_slow.yaml"].startswith("timeout: parsing took longer than the 0.02 s")
    assert ingested_tools(tmp_path / "wh") == ["ping", "pong"]


@pytest.mark.parametrize("thread", ["main", "other"])
def test_a_document_that_parses_too_long_is_stopped(tmp_path: Path, thread: str) -> None:
    folder = spec_folder(tmp_path)
    # On the main thread, long enough (~4 s) that a parse left running would still be seen.
    (folder / "m_slow.yaml").write_bytes(slow_document(200 if thread == "main" else 10))
    out: dict[str, dict[str, str]] = {}

    def run() -> None:
        out["errors"] = ingest_folder(folder, tmp_path / "wh", time_limit_s=0.02)

    if thread == "main":  # the CLI and the pool's workers: a timer interrupts the parse
        run()
        parsing = [t for t in threading.enumerate() if t.name.startswith("ingest-parse")]
        assert not parsing, "the parse was left running instead of interrupted"
    else:  # a Prefect task's thread: the parse is abandoned, the stage goes on
        worker = threading.Thread(target=run)
        worker.start()
        worker.join(30)
    assert out["errors"]["m_slow.yaml"].startswith("timeout: parsing took longer than the 0.02 s")
    assert ingested_tools(tmp_path / "wh") == ["ping", "pong"]
