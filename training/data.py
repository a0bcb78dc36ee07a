"""Training data pulled from the warehouse: SQL selections streamed into ``datasets``, with
lineage that reproduces a run's data bit for bit.

A selection is one read-only ``SELECT`` over the warehouse tables, filtered by a SQL
``--where`` fragment (``t`` is the ``tasks`` table; for trajectories ``r`` is ``rollouts`` and
``s`` is ``rollout_scores``), for example ``t.domain = 'finance' and s.reward >= 0.9``.

Lineage: the warehouse is append-only Parquet, so a selection is pinned to the files that
exist when it starts. Every table the query references is read through a view over exactly
those files (not the table's glob), and the run records the query, its parameters and, per
table, the files (for the main table, only the files its selected rows came from). Replaying
the recorded query over the recorded files (``reproduce``) gives the same rows in the same
order, whatever was appended since; ``digest`` is a hash of the rows, to check that.

Streaming: DuckDB hands the result over as Arrow record batches, which
``datasets.Dataset.from_generator`` writes to its on-disk Arrow cache batch by batch, so the
selection is never held in memory whole. The untrusted ``--where`` runs on the warehouse's
locked connection (no files outside the warehouse, no network, no extensions) and the query
must stay one ``SELECT``.

This module never imports Prefect (it runs in the training environment).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from library.compose.task import Task
from library.rollout.env import meta_tool_schemas
from library.rollout.prompt import opening_messages
from library.rollout.record import chat_features
from warehouse import Warehouse
from warehouse.schemas import TABLES

ROWS_PER_BATCH = 256  # record batches DuckDB hands over; bounds the memory of a selection
FILE_COLUMN = "_lineage_file"  # the Parquet file a selected row came from (dropped later)
_TASK_JSON = ("initial_state", "gold_plan", "rubric", "answer", "decoys", "house_rules")
_TASK_JSON += ("mutation",)


class SelectionError(ValueError):
    """A selection that cannot be used: bad SQL, nothing selected, a malformed task."""


@dataclass(slots=True)
class Lineage:
    """What a selection read: enough to replay it bit for bit (``reproduce``)."""

    kind: str  # rl_tasks | sft_trajectories
    warehouse: str
    where: str | None
    sql: str  # the query, over views named like the tables
    params: dict[str, Any]
    files: dict[str, list[str]]  # table -> Parquet files its view read (sorted)
    rows: int = 0
    digest: str = ""  # blake2b of the selected rows, in order
    selected_files: list[str] = field(default_factory=list)  # the main table's files used
    band: dict[str, Any] | None = None  # the pass-rate band's report, when one was applied

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def table_files(wh: Warehouse, names: Sequence[str]) -> dict[str, list[str]]:
    """The Parquet files of each table now, every version folder (the views' globs)."""
    con = wh.connection()
    try:
        out = {}
        for name in names:
            pattern = f"{wh.location}/{name}/v*/*.parquet"
            rows = con.sql(f"SELECT file FROM glob({_quote(pattern)}) ORDER BY file").fetchall()
            out[name] = [r[0] for r in rows]
        return out
    finally:
        con.close()


def _pin_views(con: duckdb.DuckDBPyConnection, files: Mapping[str, list[str]]) -> None:
    """Views named like the tables over exactly ``files`` (an empty table for none)."""
    for name, paths in files.items():
        if paths:
            listed = ", ".join(_quote(p) for p in paths)
            con.execute(
                f'CREATE OR REPLACE VIEW "{name}" AS '
                f"SELECT * FROM read_parquet([{listed}], union_by_name=true)"
            )
        else:
            empty = pa.Table.from_batches([], schema=TABLES[name].schema)
            con.register(f"_empty_{name}", empty)
            con.execute(f'CREATE OR REPLACE VIEW "{name}" AS SELECT * FROM "_empty_{name}"')


def _main_source(table: str, files: list[str]) -> str:
    """The main table with the file of each row, for the lineage of what was selected."""
    if not files:
        return f'(SELECT *, NULL::VARCHAR AS {FILE_COLUMN} FROM "{table}")'
    listed = ", ".join(_quote(p) for p in files)
    return (
        f"(SELECT * EXCLUDE (filename), filename AS {FILE_COLUMN} "
        f"FROM read_parquet([{listed}], union_by_name=true, filename=true))"
    )


def _check_select(con: duckdb.DuckDBPyConnection, sql: str) -> list[str]:
    """The tables ``sql`` reads, or a SelectionError when it is not exactly one SELECT."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise SelectionError(f"the --where clause does not parse: {exc}") from None
    if len(statements) != 1 or statements[0].type.name != "SELECT":
        raise SelectionError("the --where clause must stay inside one SELECT (no ';')")
    # Names from the parser alone: a bare connection, not the pinned views' catalog. Where
    # the parser cannot tell, the lineage names every table (more than read, never less).
    with duckdb.connect() as bare:
        try:
            return sorted(n for n in bare.get_table_names(sql) if n in TABLES)
        except duckdb.Error:
            return sorted(TABLES)


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    """The rows ``sql`` selects; a bad column or type is the user's --where: a SelectionError."""
    try:
        return con.sql(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]
    except duckdb.Error as exc:
        raise SelectionError(f"the selection query failed: {exc}") from None


def _locked(wh: Warehouse, files: Mapping[str, list[str]]) -> duckdb.DuckDBPyConnection:
    con = wh.locked_connection()
    _pin_views(con, files)
    return con


def stream_batches(
    warehouse: str, sql: str, params: Mapping[str, Any], files: Mapping[str, list[str]]
) -> Iterator[pa.RecordBatch]:
    """The rows of ``sql`` over the pinned ``files``, as Arrow record batches."""
    con = _locked(Warehouse(warehouse), files)
    try:
        reader = con.sql(sql, params=dict(params) or None).to_arrow_reader(ROWS_PER_BATCH)
        yield from reader
    except duckdb.Error as exc:
        raise SelectionError(f"the selection query failed: {exc}") from None
    finally:
        con.close()


def rows_digest(batches: Iterator[Mapping[str, list[Any]]]) -> str:
    """A hash of rows in order, the same however they are chunked into batches."""
    h = hashlib.blake2b(digest_size=16)
    for batch in batches:
        names = sorted(batch)
        for i in range(len(batch[names[0]]) if names else 0):
            row = {n: batch[n][i] for n in names}
            h.update(orjson.dumps(row, option=orjson.OPT_SORT_KEYS, default=str))
            h.update(b"\n")
    return h.hexdigest()


# -- RL: tasks -----------------------------------------------------------------------------------
def task_from_row(row: Mapping[str, Any]) -> Task:
    """A ``tasks`` row (JSON columns as text) as a Task, or a SelectionError naming it."""
    data = {k: v for k, v in row.items() if k in Task.model_fields and v is not None}
    try:
        for key in _TASK_JSON:
            if isinstance(data.get(key), str):
                data[key] = orjson.loads(data[key])
        return Task.model_validate(data)
    except (orjson.JSONDecodeError, ValueError) as exc:
        raise SelectionError(f"task {row.get('task_id')!r} is malformed: {exc}") from None


def rl_query(
    where: str | None, split: str | None, limit: int | None, source: str = '"tasks"'
) -> tuple[str, dict[str, Any]]:
    """The selection's SQL over ``source`` (the tasks view, or its files with the file of
    each row) and its parameters."""
    conditions: list[str] = []
    params: dict[str, Any] = {}  # none yet: get_table_names cannot bind parameters
    if split:
        conditions.append(f"t.split = {_quote(split)}")
    if where and where.strip():
        conditions.append(f"({where})")
    sql = f"SELECT t.* FROM {source} AS t"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    sql += " ORDER BY t.task_id"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return sql, params


def rl_record(row: Mapping[str, Any], mode: str) -> dict[str, Any]:
    """A GRPO example: the opening messages (the rollout engine's own), the task as JSON for
    the environment's ``reset``, and columns to slice metrics by."""
    task = task_from_row(row)
    return {
        "prompt": opening_messages(task, mode),
        "task_id": task.task_id,
        "task": task.model_dump_json(),
        "domain": task.domain,
        "difficulty": task.difficulty,
        FILE_COLUMN: row.get(FILE_COLUMN),
    }


def _rl_features() -> Any:
    from datasets import Features, List, Value

    message = {"role": Value("string"), "content": Value("string")}
    columns = {"prompt": List(message), "task_id": Value("string"), "task": Value("string")}
    columns |= {"domain": Value("string"), "difficulty": Value("string")}
    return Features({**columns, FILE_COLUMN: Value("string")})


def _rl_rows(
    warehouse: str, sql: str, params_json: str, files_json: str, mode: str
) -> Iterator[dict[str, Any]]:
    # Plain arguments only: ``datasets`` fingerprints them to name its cache, and pinned
    # files plus the query fully determine the rows.
    params, files = orjson.loads(params_json), orjson.loads(files_json)
    for batch in stream_batches(warehouse, sql, params, files):
        for row in batch.to_pylist():
            yield rl_record(row, mode)


@dataclass(slots=True)
class Band:
    """RL task selection by difficulty: a task is kept when its reference policy's pass rate
    (the share of its rollouts that complete it) lies in [low, high]. Tasks every rollout
    solves or none solves give every rollout of a GRPO group the same reward: no signal."""

    policy: str
    low: float = 0.05
    high: float = 0.95
    min_rollouts: int = 1

    def __post_init__(self) -> None:
        if not 0.0 <= self.low <= self.high <= 1.0:
            raise SelectionError(f"the band must satisfy 0 <= low <= high <= 1, not {self}")


def pass_rates(
    con: duckdb.DuckDBPyConnection, policy: str, task_ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Per task: the reference policy's rollouts, completions and pass rate (judged ones)."""
    rows = con.sql(
        "SELECT s.task_id, count(*) AS rollouts, count(*) FILTER (WHERE s.completed) AS solved, "
        "avg(s.reward) AS mean_reward "
        "FROM rollout_scores s JOIN rollouts r USING (rollout_id) "
        "WHERE r.policy = $policy AND s.task_id IN (SELECT unnest($ids)) "
        "GROUP BY s.task_id ORDER BY s.task_id",
        params={"policy": policy, "ids": list(task_ids)},
    ).fetchall()
    return {
        tid: {"rollouts": n, "solved": k, "pass_rate": k / n, "mean_reward": mean}
        for tid, n, k, mean in rows
    }


def apply_band(
    con: duckdb.DuckDBPyConnection, band: Band, candidates: Sequence[str]
) -> tuple[list[str], dict[str, Any]]:
    """(kept task ids, the report: per-task pass rates and why each task went)."""
    rates = pass_rates(con, band.policy, candidates)
    kept, too_easy, too_hard, unmeasured = [], [], [], []
    for tid in candidates:
        rate = rates.get(tid)
        if rate is None or rate["rollouts"] < band.min_rollouts:
            unmeasured.append(tid)
        elif rate["pass_rate"] > band.high:
            too_easy.append(tid)
        elif rate["pass_rate"] < band.low:
            too_hard.append(tid)
        else:
            kept.append(tid)
    report = {
        **asdict(band),
        "candidates": len(candidates),
        "kept": len(kept),
        "too_easy": len(too_easy),
        "too_hard": len(too_hard),
        "unmeasured": len(unmeasured),
        "pass_rates": rates,
        "kept_ids": kept,
    }
    return kept, report


def select_rl_tasks(
    wh: Warehouse,
    *,
    where: str | None = None,
    split: str | None = "rl",
    limit: int | None = None,
    mode: str = "gateway",
    band: Band | None = None,
    cache_dir: str | Path | None = None,
) -> tuple[Any, Lineage]:
    """The RL tasks the selection picks (then, with ``band``, those whose reference pass
    rate lies in it), as a ``datasets.Dataset`` of GRPO examples, and its lineage."""
    from datasets import Dataset

    snapshot = table_files(wh, list(TABLES))
    con = _locked(wh, snapshot)
    try:
        plain, _ = rl_query(where, split, limit)
        referenced = set(_check_select(con, plain))
        report = None
        if band is not None:
            candidates_sql, params = rl_query(where, split, limit)
            try:
                candidates = [
                    r[0]
                    for r in con.sql(
                        f"SELECT task_id FROM ({candidates_sql})", params=params or None
                    ).fetchall()
                ]
            except duckdb.Error as exc:
                raise SelectionError(f"the selection query failed: {exc}") from None
            kept, report = apply_band(con, band, candidates)
            referenced |= {"rollouts", "rollout_scores"}
            if not kept:
                raise SelectionError(
                    f"no task is in the pass-rate band [{band.low}, {band.high}] of reference "
                    f"policy {band.policy!r}: {report['candidates']} candidates, "
                    f"{report['too_easy']} too easy, {report['too_hard']} too hard, "
                    f"{report['unmeasured']} without its rollouts"
                )
            ids = ", ".join(_quote(t) for t in kept)
            where = f"({where}) AND t.task_id IN ({ids})" if where else f"t.task_id IN ({ids})"
            limit = None  # the limit chose the candidates
        selected = _count(con, rl_query(where, split, limit)[0])
    finally:
        con.close()
    if selected == 0:
        raise SelectionError(
            f"the selection is empty: no task of split {split!r} matches --where {where!r} "
            f"in {wh.location} ({len(snapshot['tasks'])} task files)"
        )
    files = {name: snapshot[name] for name in sorted({*referenced, "tasks"})}
    sql, params = rl_query(where, split, limit, _main_source("tasks", files["tasks"]))
    lineage = Lineage("rl_tasks", wh.location, where, sql, params, files)
    lineage.band = report
    try:
        dataset = Dataset.from_generator(
            _rl_rows,
            features=_rl_features(),
            gen_kwargs={
                "warehouse": wh.location,
                "sql": sql,
                "params_json": orjson.dumps(params).decode(),
                "files_json": orjson.dumps(files).decode(),
                "mode": mode,
            },
            cache_dir=str(cache_dir) if cache_dir else None,
        )
    except Exception as exc:  # datasets wraps the generator's errors
        cause = exc if isinstance(exc, SelectionError) else (exc.__cause__ or exc.__context__)
        if isinstance(cause, SelectionError):
            raise cause from None
        raise
    lineage.selected_files = sorted(set(dataset[FILE_COLUMN]) - {None})
    dataset = dataset.remove_columns(FILE_COLUMN)
    lineage.rows = len(dataset)
    lineage.digest = rows_digest(dataset.iter(batch_size=ROWS_PER_BATCH))
    return dataset, lineage


# -- SFT: judged trajectories --------------------------------------------------------------------
SFT_SOURCE = (
    '"rollouts" AS r JOIN "rollout_scores" AS s ON s.rollout_id = r.rollout_id '
    'JOIN "tasks" AS t ON t.task_id = r.task_id'
)


def sft_query(where: str | None) -> str:
    """Completed, finished rollouts (``r``) with their scores (``s``) and tasks (``t``),
    filtered by ``where``; the record's file comes from ``rollouts``."""
    conditions = ["s.completed", "r.status = 'finished'"]
    if where and where.strip():
        conditions.append(f"({where})")
    return (
        f"SELECT r.rollout_id, r.messages, r.tools FROM {SFT_SOURCE} "
        f"WHERE {' AND '.join(conditions)} ORDER BY r.rollout_id"
    )


def _sft_features() -> Any:
    from datasets import Value

    return chat_features(rollout_id=Value("string"))


def sft_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """A chat record: the OpenAI messages as stored (only the format's keys: the features
    fix them), and the offered tools as JSON text (TRL parses it)."""
    messages = orjson.loads(row["messages"])
    keys = ("role", "content", "tool_calls", "tool_call_id")
    return {
        "messages": [{k: m.get(k) for k in keys} for m in messages],
        "tools": row["tools"],
        "rollout_id": row["rollout_id"],
    }


def _sft_rows(warehouse: str, sql: str, files_json: str) -> Iterator[dict[str, Any]]:
    for batch in stream_batches(warehouse, sql, {}, orjson.loads(files_json)):
        for row in batch.to_pylist():
            yield sft_record(row)


def select_sft_trajectories(
    wh: Warehouse, *, where: str | None = None, cache_dir: str | Path | None = None
) -> tuple[Any, Lineage]:
    """Completed rollouts picked by ``where`` (over ``r``, ``s``, ``t``) as a
    ``datasets.Dataset`` of chat records, streamed, and the selection's lineage."""
    from datasets import Dataset

    snapshot = table_files(wh, list(TABLES))
    sql = sft_query(where)
    con = _locked(wh, snapshot)
    try:
        referenced = _check_select(con, sql)
        selected = _count(con, sql)
    finally:
        con.close()
    if selected == 0:
        raise SelectionError(
            f"the selection is empty: no completed rollout matches --where {where!r} in "
            f"{wh.location}"
        )
    files = {name: snapshot[name] for name in referenced}
    lineage = Lineage("sft_trajectories", wh.location, where, sql, {}, files)
    dataset = Dataset.from_generator(
        _sft_rows,
        features=_sft_features(),
        gen_kwargs={
            "warehouse": wh.location,
            "sql": sql,
            "files_json": orjson.dumps(files).decode(),
        },
        cache_dir=str(cache_dir) if cache_dir else None,
    )
    lineage.rows = len(dataset)
    lineage.digest = rows_digest(dataset.iter(batch_size=ROWS_PER_BATCH))
    lineage.selected_files = files.get("rollouts", [])
    return dataset, lineage


def reproduce(lineage: Mapping[str, Any], mode: str = "gateway") -> tuple[list[str], str]:
    """Replay a recorded selection over its recorded files: (task ids in order, digest)."""
    files = lineage["files"]
    rows = _rl_rows(
        lineage["warehouse"],
        lineage["sql"],
        orjson.dumps(lineage["params"]).decode(),
        orjson.dumps(files).decode(),
        mode,
    )
    records = [{k: v for k, v in r.items() if k != FILE_COLUMN} for r in rows]
    columns = {k: [r[k] for r in records] for k in records[0]} if records else {}
    return [r["task_id"] for r in records], rows_digest(iter([columns]))


def built_code(wh: Warehouse, names: Sequence[str]) -> dict[str, str]:
    """Service name -> the code of its latest build with a verified tool, for ``names``
    (generated code: it runs in sandbox workers only)."""
    if not names:
        return {}
    rows = wh.query(
        "WITH latest AS (SELECT * FROM services WHERE name IN (SELECT unnest($names)) "
        "QUALIFY row_number() OVER (PARTITION BY name ORDER BY built_at DESC) = 1) "
        "SELECT l.name, l.code FROM latest l WHERE EXISTS (SELECT 1 FROM service_tools t "
        "WHERE t.service_id = l.service_id AND t.status = 'verified') ORDER BY l.name",
        {"names": list(names)},
    ).to_pylist()
    return {r["name"]: r["code"] for r in rows}


def gateway_tools() -> list[dict[str, Any]]:
    """The tools every gateway-mode example offers (the same four for every task)."""
    return [dict(t) for t in meta_tool_schemas()]
