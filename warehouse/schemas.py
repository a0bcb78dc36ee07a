"""Versioned Arrow schemas, one per warehouse table.

Bump a table's ``version`` when its columns change: files of each version live under
``<table>/v<version>/`` and the DuckDB view reads them all with ``union_by_name``, so
older batches stay queryable (new columns read as NULL).

JSON-shaped columns are stored as JSON strings (Arrow would otherwise unify dict columns
across rows and invent nulls); query them with DuckDB's ``->>`` operators.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class TableSchema:
    name: str
    version: int
    schema: pa.Schema
    description: str


TABLES: dict[str, TableSchema] = {}


def register(name: str, version: int, description: str, *fields: pa.Field) -> TableSchema:
    if name in TABLES:
        raise ValueError(f"table {name!r} is registered twice")
    table = TableSchema(name, version, pa.schema(list(fields)), description)
    TABLES[name] = table
    return table


def table_schema(name: str) -> TableSchema:
    try:
        return TABLES[name]
    except KeyError:
        known = ", ".join(sorted(TABLES))
        raise KeyError(f"unknown warehouse table {name!r}; tables: {known}") from None


JSON = pa.string()
TS = pa.timestamp("us", tz="UTC")

RUNS = register(
    "runs",
    1,
    "One row per pipeline run (flow), written when the run ends.",
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("flow", pa.string(), nullable=False),
    pa.field("status", pa.string(), nullable=False),
    pa.field("started_at", TS, nullable=False),
    pa.field("ended_at", TS, nullable=False),
    pa.field("duration_s", pa.float64(), nullable=False),
    pa.field("parameters", JSON),
    pa.field("summary", JSON),
    pa.field("error", pa.string()),
)

SPECS = register(
    "specs",
    1,
    "One row per ingested tool (ToolSpec). Batch id = content hash of the source document, "
    "so re-ingesting the same content adds nothing.",
    pa.field("tool_id", pa.string(), nullable=False),
    pa.field("doc_hash", pa.string(), nullable=False),
    pa.field("service", pa.string(), nullable=False),
    pa.field("name", pa.string(), nullable=False),
    pa.field("description", pa.string()),
    pa.field("format", pa.string(), nullable=False),
    pa.field("format_version", pa.string()),
    pa.field("source_file", pa.string(), nullable=False),
    pa.field("source_pointer", pa.string(), nullable=False),
    pa.field("input_schema", JSON, nullable=False),
    pa.field("output_schema", JSON),
    pa.field("http_method", pa.string()),
    pa.field("http_path", pa.string()),
    pa.field("http", JSON),
    pa.field("resource", pa.string()),
    pa.field("verb", pa.string()),
    pa.field("access", pa.string(), nullable=False),
    pa.field("access_source", pa.string(), nullable=False),
    pa.field("fields", JSON),
    pa.field("id_refs", JSON),
    pa.field("input_semantics", pa.list_(pa.string())),
    pa.field("output_semantics", pa.list_(pa.string())),
    pa.field("vendor", JSON),
    pa.field("ingested_at", TS, nullable=False),
)

SPEC_ERRORS = register(
    "spec_errors",
    1,
    "Every dropped operation (severity 'error') or loss in a kept one ('warning') from ingestion, "
    "with the file, the JSON pointer and a message a person can act on.",
    pa.field("doc_hash", pa.string(), nullable=False),
    pa.field("source_file", pa.string(), nullable=False),
    pa.field("pointer", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("severity", pa.string(), nullable=False),
    pa.field("message", pa.string(), nullable=False),
    pa.field("service", pa.string()),
    pa.field("tool", pa.string()),
    pa.field("ingested_at", TS, nullable=False),
)


# -- build stage (services generated from specs) -----------------------------------------------
SERVICES = register(
    "services",
    1,
    "One row per built service: its generated code and how it was built.",
    pa.field("service_id", pa.string(), nullable=False),  # hash of name + inputs + code
    pa.field("name", pa.string(), nullable=False),
    pa.field("code", pa.string(), nullable=False),
    pa.field("code_hash", pa.string(), nullable=False),
    pa.field("input_hash", pa.string(), nullable=False),  # hash of the tool specs built from
    pa.field("tier", pa.string(), nullable=False),  # compiler | coding_agent | mixed | world_model
    pa.field("status", pa.string(), nullable=False),  # verified | partial | rejected
    pa.field("attempts", pa.int32(), nullable=False),  # coding-agent rounds (0: compiler only)
    pa.field("tools_total", pa.int32(), nullable=False),
    pa.field("tools_verified", pa.int32(), nullable=False),
    pa.field("doc_hashes", JSON),
    pa.field("built_at", TS, nullable=False),
    pa.field("duration_s", pa.float64(), nullable=False),
)
SERVICE_TOOLS = register(
    "service_tools",
    1,
    "Where each tool of a built service ended: verified (which tier), world_model, or rejected.",
    pa.field("service_id", pa.string(), nullable=False),
    pa.field("service", pa.string(), nullable=False),
    pa.field("tool", pa.string(), nullable=False),
    pa.field("tool_id", pa.string(), nullable=False),
    pa.field("tier", pa.string()),  # compiler | coding_agent | world_model | null when rejected
    pa.field("status", pa.string(), nullable=False),  # verified | world_model | rejected
    pa.field("access", pa.string()),
    pa.field("reason", pa.string()),
)
SERVICE_CHECKS = register(
    "service_checks",
    1,
    "Every conformance check run on a built service.",
    pa.field("service_id", pa.string(), nullable=False),
    pa.field("service", pa.string(), nullable=False),
    pa.field("tool", pa.string(), nullable=False),
    pa.field("check", pa.string(), nullable=False),
    pa.field("passed", pa.bool_(), nullable=False),
    pa.field("detail", pa.string()),
    pa.field("duration_s", pa.float64()),
    pa.field("tier", pa.string()),
)
LLM_CALLS = register(
    "llm_calls",
    1,
    "Every language-model call, replayable by prompt hash.",
    pa.field("call_id", pa.string(), nullable=False),
    pa.field("purpose", pa.string(), nullable=False),
    pa.field("prompt_hash", pa.string(), nullable=False),
    pa.field("model", pa.string(), nullable=False),
    pa.field("temperature", pa.float64()),
    pa.field("attempt", pa.int32()),
    pa.field("request_messages", JSON, nullable=False),
    pa.field("request_tools", JSON),
    pa.field("response_message", JSON),
    pa.field("finish_reason", pa.string()),
    pa.field("prompt_tokens", pa.int64()),
    pa.field("completion_tokens", pa.int64()),
    pa.field("latency_s", pa.float64(), nullable=False),
    pa.field("cost_usd", pa.float64()),
    pa.field("error", pa.string()),
    pa.field("created_at", TS, nullable=False),
)


# -- graph and composition ---------------------------------------------------------------------
GRAPH_EDGES = register(
    "graph_edges",
    1,
    "Tool -> tool edges of the dependency graph: an output of `source` can fill an input of "
    "`target` (same semantic type across services, or an id reference within one).",
    pa.field("graph_id", pa.string(), nullable=False),  # hash of the verified tool set
    pa.field("source", pa.string(), nullable=False),  # qualified tool name service__tool
    pa.field("target", pa.string(), nullable=False),
    pa.field("source_service", pa.string(), nullable=False),
    pa.field("source_tool", pa.string(), nullable=False),
    pa.field("target_service", pa.string(), nullable=False),
    pa.field("target_tool", pa.string(), nullable=False),
    pa.field("keys", pa.list_(pa.string()), nullable=False),  # semantic keys linking them
    pa.field("cross_service", pa.bool_(), nullable=False),
    pa.field("weight", pa.float64(), nullable=False),
)
TASKS = register(
    "tasks",
    2,
    "Verified cross-service tasks: instruction, initial state, gold plan and rubric.",
    pa.field("task_id", pa.string(), nullable=False),
    pa.field("seed", pa.int64(), nullable=False),
    pa.field("services", pa.list_(pa.string()), nullable=False),
    pa.field("distractor_services", pa.list_(pa.string())),
    pa.field("domain", pa.string(), nullable=False),
    pa.field("capabilities", pa.list_(pa.string()), nullable=False),
    pa.field("difficulty", pa.string(), nullable=False),
    pa.field("instruction", pa.string(), nullable=False),
    pa.field("template_instruction", pa.string()),
    pa.field("literals", pa.list_(pa.string())),
    pa.field("initial_state", JSON, nullable=False),
    pa.field("gold_plan", JSON, nullable=False),
    pa.field("rubric", JSON, nullable=False),
    pa.field("answer", JSON),
    pa.field("gold_reply", pa.string()),  # a faithful agent's final reply
    pa.field("split", pa.string(), nullable=False),  # sft | rl | eval
    pa.field("motif", pa.string()),  # the workflow the plan follows ("" for none)
    pa.field("decoys", JSON),  # per selection rule, the records it must tell apart
    pa.field("house_rules", JSON),  # rules that live in the environment
    pa.field("mutation", JSON),  # the mutation gate's verdict, per kind
    pa.field("catch_rate", pa.float64()),  # share of the task's mutants its rubric catches
    pa.field("escaped", pa.list_(pa.string())),  # kinds of mutant that escaped
    pa.field("rules", pa.int32()),  # house rules: selections, thresholds, guards, env rules
    pa.field("steps", pa.int32()),
    pa.field("writes", pa.int32()),
    pa.field("compose_run", pa.string()),  # batch that made it
    pa.field("created_at", TS),
)

# -- rollouts, judging, curation, exports ------------------------------------------------------
ROLLOUTS = register(
    "rollouts",
    1,
    "One agent episode on a task: the OpenAI-format messages and what happened.",
    pa.field("rollout_id", pa.string(), nullable=False),
    pa.field("task_id", pa.string(), nullable=False),
    pa.field("group_id", pa.string(), nullable=False),  # the G rollouts of one task in one run
    pa.field("sample", pa.int32(), nullable=False),  # index within the group
    pa.field("policy", pa.string(), nullable=False),  # oracle | litellm:<model>
    pa.field("mode", pa.string(), nullable=False),  # direct | gateway
    pa.field("messages", JSON, nullable=False),
    pa.field("tools", JSON, nullable=False),  # the tool schemas exposed
    pa.field("final_answer", pa.string()),
    pa.field("final_state_hash", pa.string()),
    pa.field("final_states", JSON),
    pa.field("steps", pa.int32(), nullable=False),
    pa.field("tool_calls", pa.int32(), nullable=False),
    pa.field("invalid_tool_calls", pa.int32(), nullable=False),  # malformed, unknown, bad JSON
    pa.field("tool_errors", pa.int32(), nullable=False),  # error envelopes returned
    pa.field("prompt_tokens", pa.int64()),
    pa.field("completion_tokens", pa.int64()),
    pa.field("step_latency_s", pa.list_(pa.float64())),
    pa.field("step_prompt_tokens", pa.list_(pa.int64())),
    pa.field("step_completion_tokens", pa.list_(pa.int64())),
    pa.field("duration_s", pa.float64(), nullable=False),
    pa.field("status", pa.string(), nullable=False),  # finished | max_steps | timeout | error
    pa.field("error", pa.string()),
    pa.field("created_at", TS, nullable=False),
)
CRITERION_RESULTS = register(
    "criterion_results",
    1,
    "Pass or fail of each rubric criterion on each rollout.",
    pa.field("rollout_id", pa.string(), nullable=False),
    pa.field("task_id", pa.string(), nullable=False),
    pa.field("criterion", pa.int32(), nullable=False),  # index in the task's rubric
    pa.field("kind", pa.string(), nullable=False),
    pa.field("description", pa.string(), nullable=False),
    pa.field("passed", pa.bool_(), nullable=False),
    pa.field("weight", pa.float64(), nullable=False),  # w_c within the group
)
ROLLOUT_SCORES = register(
    "rollout_scores",
    1,
    "Per rollout: completion, rubric score and the Completion-Focused Rubric Reward.",
    pa.field("rollout_id", pa.string(), nullable=False),
    pa.field("task_id", pa.string(), nullable=False),
    pa.field("group_id", pa.string(), nullable=False),
    pa.field("completed", pa.bool_(), nullable=False),
    pa.field("rubric_score", pa.float64(), nullable=False),
    pa.field("reward", pa.float64(), nullable=False),
    pa.field("advantage", pa.float64(), nullable=False),
)
EXPORTS = register(
    "exports",
    1,
    "Every export written: what, where, how many records.",
    pa.field("export_id", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),  # chat_jsonl, hf_dataset, compoworld, rl_tasks
    pa.field("path", pa.string(), nullable=False),
    pa.field("records", pa.int64(), nullable=False),
    pa.field("rollout_ids", pa.list_(pa.string())),
    pa.field("task_ids", pa.list_(pa.string())),
    pa.field("report", JSON),
    pa.field("created_at", TS, nullable=False),
)

# -- evaluation --------------------------------------------------------------------------------
EVALUATIONS = register(
    "evaluations",
    1,
    "Policies compared on held-out tasks (`compoworld eval`, the evaluate flow): per policy "
    "and slice (all, domain, capability, difficulty), pass^1, pass^k (tau-bench: C(c,k)/C(n,k) "
    "per task, averaged), mean reward, each with a bootstrap confidence interval over tasks. "
    "The rollouts are in `rollouts` under `group_ids`.",
    pa.field("eval_id", pa.string(), nullable=False),  # one `compoworld eval` run
    pa.field("policy", pa.string(), nullable=False),  # oracle, scripted:P, litellm:M, local:M
    pa.field("mode", pa.string(), nullable=False),  # direct | gateway
    pa.field("splits", pa.list_(pa.string()), nullable=False),
    pa.field("k", pa.int32(), nullable=False),  # trials per task
    pa.field("slice_kind", pa.string(), nullable=False),  # all | domain | capability | difficulty
    pa.field("slice", pa.string(), nullable=False),
    pa.field("tasks", pa.int64(), nullable=False),
    pa.field("trials", pa.int64(), nullable=False),  # judged rollouts (infra faults left out)
    pa.field("pass1", pa.float64()),
    pa.field("pass1_lo", pa.float64()),
    pa.field("pass1_hi", pa.float64()),
    pa.field("passk", pa.float64()),  # null: no task of the slice had k judged trials
    pa.field("passk_lo", pa.float64()),
    pa.field("passk_hi", pa.float64()),
    pa.field("passk_tasks", pa.int64()),
    pa.field("mean_reward", pa.float64()),
    pa.field("mean_reward_lo", pa.float64()),
    pa.field("mean_reward_hi", pa.float64()),
    pa.field("pass_hat", JSON),  # {"1": pass^1, ..., "k": pass^k}
    pa.field("confidence", pa.float64(), nullable=False),
    pa.field("run", pa.string(), nullable=False),  # the rollouts' run name (group ids)
    pa.field("group_ids", pa.list_(pa.string())),  # slice "all" only: the policy's groups
    pa.field("plot", pa.string()),  # the picture beside the run
    pa.field("created_at", TS, nullable=False),
)

# -- training ----------------------------------------------------------------------------------
TRAINING_RUNS = register(
    "training_runs",
    2,
    "One row per finished training run (train-sft, train-rl flows): what was trained on what, "
    "where the model went, and the run's metrics.json. Failed runs are in `runs`. Data pulled "
    "from the warehouse is pinned: `query` over exactly the Parquet files in `data_files`.",
    pa.field("run_id", pa.string(), nullable=False),  # the flow run id; also the batch id
    pa.field("kind", pa.string(), nullable=False),  # sft | grpo
    pa.field("status", pa.string(), nullable=False),  # completed
    pa.field("started_at", TS, nullable=False),
    pa.field("finished_at", TS, nullable=False),
    pa.field("duration_s", pa.float64(), nullable=False),  # the subprocess, start to end
    pa.field("model", pa.string(), nullable=False),  # what it started from: tiny | a folder
    pa.field("model_dir", pa.string()),  # the trained model (weights + tokenizer)
    pa.field("data_path", pa.string(), nullable=False),
    pa.field("data_sha256", pa.string(), nullable=False),
    pa.field("export_id", pa.string()),  # the `exports` row of the data, when known
    pa.field("samples", pa.int64()),
    pa.field("steps", pa.int64(), nullable=False),
    pa.field("final_loss", pa.float64()),
    pa.field("train_loss", pa.float64()),  # mean over the run
    pa.field("device", pa.string()),  # cpu | cuda
    pa.field("out_dir", pa.string(), nullable=False),
    pa.field("python", pa.string()),  # the training environment's interpreter
    pa.field("parameters", JSON),
    pa.field("metrics", JSON),  # metrics.json as written
    pa.field("query", pa.string()),  # the selection's SQL (data from the warehouse)
    pa.field("where_clause", pa.string()),  # the user's --where within it
    pa.field("data_files", JSON),  # table -> the Parquet files the query read
    pa.field("selection", JSON),  # RL: the pass-rate band, per-task pass rates, what was kept
    pa.field("mean_reward", pa.float64()),  # RL: mean CFRR over the run's steps
    pa.field("completion_rate", pa.float64()),  # RL: share of rollouts that completed
)
