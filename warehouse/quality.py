"""Data-quality suites (Great Expectations) over the ``tasks``, ``rollouts`` and
``rollout_scores`` tables.

GX's SQL path fails on DuckDB 2 (STACK.md §3.2), so each table is pulled through DuckDB
into a pandas frame and validated with GX's pandas datasource. What GX has no expectation
for (JSON shapes, references across tables) is computed here into a derived column that
holds None for a good row and the reason for a bad one; GX then expects that column to be
null, so the report carries the row ids and, per row, why.

GX takes ~2.3 s to import, so it is imported inside ``validate_tables`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson
import pyarrow as pa

from warehouse.store import Warehouse

SPLITS = ("sft", "rl", "eval")
DIFFICULTIES = ("easy", "medium", "hard")
MODES = ("direct", "gateway")
ROLLOUT_STATUSES = ("finished", "max_steps", "timeout", "error")
ROLES = ("system", "user", "assistant", "tool")
SAMPLE_ROWS = 20  # row ids kept per failure; the count is always exact
_ROW = "_row"  # the id column GX reports unexpected rows by


# -- JSON shape checks: None when fine, else a short reason ------------------------------------
def _json(value: Any) -> tuple[Any, str | None]:
    if value is None:
        return None, "is null"
    try:
        return orjson.loads(value), None
    except orjson.JSONDecodeError as exc:
        return None, f"is not JSON ({exc.msg})"


def json_object_problem(value: Any) -> str | None:
    data, err = _json(value)
    if err:
        return err
    return None if isinstance(data, dict) else f"is a JSON {type(data).__name__}, not an object"


def json_list_problem(value: Any, *, item_key: str | None = None) -> str | None:
    """A non-empty JSON list of objects (each with ``item_key`` when given)."""
    data, err = _json(value)
    if err:
        return err
    if not isinstance(data, list):
        return f"is a JSON {type(data).__name__}, not a list"
    if not data:
        return "is an empty list"
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            return f"item {i} is not an object"
        if item_key and not isinstance(item.get(item_key), str):
            return f"item {i} has no {item_key!r}"
    return None


def tools_problem(value: Any) -> str | None:
    """A JSON list of OpenAI function tools (an empty list is allowed: a no-tool episode)."""
    data, err = _json(value)
    if err:
        return err
    if not isinstance(data, list):
        return "is not a JSON list"
    for i, t in enumerate(data):
        fn = t.get("function") if isinstance(t, dict) else None
        if not isinstance(t, dict) or t.get("type") != "function" or not isinstance(fn, dict):
            return f"tool {i} is not {{type: function, function: {{...}}}}"
        if not isinstance(fn.get("name"), str) or not fn["name"]:
            return f"tool {i} has no function name"
    return None


def messages_problem(value: Any) -> str | None:
    """An OpenAI chat list: system? then user first, known roles, well-formed tool calls, and
    every tool message answering an earlier tool call."""
    data, err = _json(value)
    if err:
        return err
    if not isinstance(data, list) or not data:
        return "is not a non-empty JSON list"
    if not all(isinstance(m, dict) and m.get("role") in ROLES for m in data):
        return f"has a message that is not an object with a role in {ROLES}"
    first = 1 if data[0]["role"] == "system" else 0
    if len(data) <= first or data[first]["role"] != "user":
        return "does not start with system/user"
    call_ids: set[str] = set()
    for i, m in enumerate(data):
        if m["role"] == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or not isinstance(call.get("id"), str):
                    return f"message {i}: a tool call lacks id or function"
                if not isinstance(fn.get("name"), str) or not isinstance(fn.get("arguments"), str):
                    return f"message {i}: a tool call lacks a name or string arguments"
                call_ids.add(call["id"])
        elif m["role"] == "tool" and m.get("tool_call_id") not in call_ids:
            return f"message {i}: tool_call_id {m.get('tool_call_id')!r} answers no earlier call"
    return None


# -- suites ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Refs:
    """Ids of the full tables, for references checked in pandas."""

    task_ids: frozenset[str]
    rollout_ids: frozenset[str]


@dataclass(frozen=True, slots=True)
class Check:
    column: str
    expectation: str  # class name in great_expectations.expectations
    why: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Derived:
    """A column computed from ``source`` per row: None when fine, else the reason."""

    source: str
    rule: Callable[[Any, Refs], str | None]
    why: str

    @property
    def column(self) -> str:
        return f"{self.source}__problem"


@dataclass(frozen=True, slots=True)
class Suite:
    table: str
    id_column: str
    checks: tuple[Check, ...]
    derived: tuple[Derived, ...] = ()


def _unique_id(col: str) -> tuple[Check, ...]:
    return (
        Check(col, "ExpectColumnValuesToNotBeNull", f"{col} must be set"),
        Check(col, "ExpectColumnValuesToBeUnique", f"{col} must be unique"),
    )


def _at_least_zero(*cols: str) -> tuple[Check, ...]:
    return tuple(
        Check(c, "ExpectColumnValuesToBeBetween", f"{c} must be >= 0", {"min_value": 0})
        for c in cols
    )


def _unit(*cols: str) -> tuple[Check, ...]:
    return tuple(
        Check(
            c,
            "ExpectColumnValuesToBeBetween",
            f"{c} must be in [0, 1]",
            {"min_value": 0, "max_value": 1},
        )
        for c in cols
    )


def _in(col: str, values: Iterable[str]) -> Check:
    allowed = sorted(values)
    why = f"{col} must be one of {allowed}"
    return Check(col, "ExpectColumnValuesToBeInSet", why, {"value_set": allowed})


def _not_blank(col: str) -> Check:
    why = f"{col} must not be empty"
    return Check(col, "ExpectColumnValuesToNotMatchRegex", why, {"regex": r"^\s*$"})


def _services(value: Any, _: Refs) -> str | None:
    if not value or not all(isinstance(s, str) and s for s in value):
        return "is not a non-empty list of names"
    return None


def _rubric(value: Any, _: Refs) -> str | None:
    return json_list_problem(value, item_key="kind")


def _steps(value: Any, _: Refs) -> str | None:
    return json_list_problem(value)


def _object(value: Any, _: Refs) -> str | None:
    return json_object_problem(value)


def _messages(value: Any, _: Refs) -> str | None:
    return messages_problem(value)


def _tools(value: Any, _: Refs) -> str | None:
    return tools_problem(value)


def _known_task(value: Any, refs: Refs) -> str | None:
    return None if value in refs.task_ids else f"{value!r} is not in the tasks table"


def _known_rollout(value: Any, refs: Refs) -> str | None:
    return None if value in refs.rollout_ids else f"{value!r} is not in the rollouts table"


_POLICY = Check(
    "policy",
    "ExpectColumnValuesToMatchRegex",
    "policy must be 'oracle' or 'litellm:<model>'",
    {"regex": r"^(?:oracle|litellm:\S+)$"},
)
SUITES: dict[str, Suite] = {
    "tasks": Suite(
        "tasks",
        "task_id",
        (
            *_unique_id("task_id"),
            _in("split", SPLITS),
            _in("difficulty", DIFFICULTIES),
            _not_blank("instruction"),
            _not_blank("domain"),
        ),
        (
            Derived("services", _services, "services must be a non-empty list"),
            Derived("rubric", _rubric, "rubric must be a non-empty JSON list of criteria"),
            Derived("gold_plan", _steps, "gold_plan must be a non-empty JSON list of steps"),
            Derived("initial_state", _object, "initial_state must be a JSON object"),
        ),
    ),
    "rollouts": Suite(
        "rollouts",
        "rollout_id",
        (
            *_unique_id("rollout_id"),
            _POLICY,
            _in("mode", MODES),
            _in("status", ROLLOUT_STATUSES),
            *_at_least_zero("steps", "tool_calls", "invalid_tool_calls", "tool_errors"),
            *_at_least_zero("duration_s"),
        ),
        (
            Derived("task_id", _known_task, "every rollout's task_id must exist in tasks"),
            Derived(
                "messages", _messages, "messages must be an OpenAI chat list starting system/user"
            ),
            Derived("tools", _tools, "tools must be a JSON list of OpenAI function tools"),
        ),
    ),
    "rollout_scores": Suite(
        "rollout_scores",
        "rollout_id",
        (*_unique_id("rollout_id"), *_unit("rubric_score", "reward")),
        (Derived("rollout_id", _known_rollout, "every score must belong to a rollout"),),
    ),
}


# -- report ------------------------------------------------------------------------------------
@dataclass(slots=True)
class QualityFailure:
    table: str
    expectation: str
    column: str | None
    unexpected_count: int
    sample_rows: list[str]
    why: str


@dataclass(slots=True)
class QualityReport:
    success: bool
    failures: list[QualityFailure]
    rows: dict[str, int]  # rows checked per table
    evaluated: int  # expectations run

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_markdown(self) -> str:
        verdict = "passed" if self.success else "FAILED"
        checked = ", ".join(f"{t} {n} rows" for t, n in self.rows.items())
        lines = [
            f"## Data quality: {verdict}",
            "",
            f"{self.evaluated} expectations over {checked}; {len(self.failures)} failed.",
        ]
        if self.failures:
            lines += ["", "| table | column | expectation | rows | row ids | why |"]
            lines.append("|---|---|---|---|---|---|")
            for f in self.failures:
                ids = ", ".join(f.sample_rows)
                if f.unexpected_count > len(f.sample_rows):
                    ids += ", …"
                cells = [
                    f.table,
                    f.column or "",
                    f.expectation,
                    str(f.unexpected_count),
                    ids,
                    f.why,
                ]
                cells = [" ".join(c.split()).replace("|", "\\|") for c in cells]
                lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


# -- running -----------------------------------------------------------------------------------
def _pull(wh: Warehouse, table: str, id_column: str, ids: Iterable[str] | None) -> pa.Table:
    if ids is None:
        return wh.query(f'SELECT * FROM "{table}"')
    return wh.query(
        f'SELECT * FROM "{table}" WHERE list_contains(?::VARCHAR[], "{id_column}")',
        [sorted(set(ids))],
    )


def _frame(suite: Suite, table: pa.Table, refs: Refs) -> Any:
    """The pandas frame GX sees: the checked columns, the derived ones and a row reference."""
    cols = sorted({c.column for c in suite.checks})
    frame = table.select(cols).to_pandas()
    ids = table.column(suite.id_column).to_pylist()
    frame[_ROW] = [
        i if i is not None else f"<row {n}: no {suite.id_column}>" for n, i in enumerate(ids)
    ]
    for d in suite.derived:
        frame[d.column] = [d.rule(v, refs) for v in table.column(d.source).to_pylist()]
    return frame


def _failure(suite: Suite, result: Any, why: str) -> QualityFailure | None:
    cfg = result.expectation_config
    column = cfg.kwargs.get("column")
    shown = column.removesuffix("__problem") if column else None
    raised = (result.exception_info or {}).get("raised_exception")
    if raised:
        message = result.exception_info.get("exception_message")
        return QualityFailure(suite.table, cfg.type, shown, 0, [], f"{why}; GX raised: {message}")
    if result.success:
        return None
    found = result.result.get("unexpected_index_list") or []
    rows = list(dict.fromkeys(str(r[_ROW]) for r in found))
    derived = column is not None and column.endswith("__problem")
    examples = "; ".join(
        f"{r[_ROW]}: {r.get(column) if derived else repr(r.get(column))}" for r in found[:3]
    )
    return QualityFailure(
        table=suite.table,
        expectation=cfg.type,
        column=shown,
        unexpected_count=int(result.result.get("unexpected_count") or len(found)),
        sample_rows=rows[:SAMPLE_ROWS],
        why=f"{why} — {examples}" if examples else why,
    )


def validate_tables(
    wh: Warehouse,
    *,
    rollout_ids: Iterable[str] | None = None,
    task_ids: Iterable[str] | None = None,
    tables: Iterable[str] = ("tasks", "rollouts", "rollout_scores"),
) -> QualityReport:
    """Run the suites; ``rollout_ids``/``task_ids`` restrict them to the rows about to be used
    (an append-only warehouse cannot drop an old bad row, which must not block every export).
    References (rollout -> task, score -> rollout) are always checked against the full tables.
    """
    import great_expectations as gx
    import great_expectations.expectations as gxe

    refs = Refs(
        frozenset(wh.query("SELECT DISTINCT task_id FROM tasks").column(0).to_pylist()),
        frozenset(wh.query("SELECT DISTINCT rollout_id FROM rollouts").column(0).to_pylist()),
    )
    scope = {"tasks": task_ids, "rollouts": rollout_ids, "rollout_scores": rollout_ids}
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = {"globally": False, "metric_calculations": False}
    source = context.data_sources.add_pandas(name="warehouse")
    failures: list[QualityFailure] = []
    rows: dict[str, int] = {}
    evaluated = 0
    for name in tables:
        suite = SUITES[name]
        table = _pull(wh, name, suite.id_column, scope[name])
        rows[name] = table.num_rows
        if table.num_rows == 0:
            continue  # nothing to check (GX cannot compute metrics on an empty frame)
        gx_suite = gx.ExpectationSuite(name=f"{name}_suite")
        whys: dict[tuple[str, str], str] = {}  # GX reorders results; find reasons by key
        planned = [
            (getattr(gxe, c.expectation)(column=c.column, **c.kwargs), c.why) for c in suite.checks
        ]
        planned += [(gxe.ExpectColumnValuesToBeNull(column=d.column), d.why) for d in suite.derived]
        for expectation, why in planned:
            gx_suite.add_expectation(expectation)
            whys[(expectation.expectation_type, expectation.column)] = why
        batch = (
            source.add_dataframe_asset(name=name)
            .add_batch_definition_whole_dataframe("whole")
            .get_batch(batch_parameters={"dataframe": _frame(suite, table, refs)})
        )
        result = batch.validate(
            gx_suite,
            result_format={"result_format": "COMPLETE", "unexpected_index_column_names": [_ROW]},
        )
        found: list[QualityFailure] = []
        for res in result.results:
            evaluated += 1
            cfg = res.expectation_config
            failure = _failure(suite, res, whys[(cfg.type, cfg.kwargs["column"])])
            if failure is not None:
                found.append(failure)
        failures += sorted(found, key=lambda f: (f.column or "", f.expectation))
    return QualityReport(not failures, failures, rows, evaluated)
