"""The parameters a person sets on a factory or nightly run from the Prefect UI.

Each is a pydantic-typed flow parameter: the UI's form shows its description and refuses a
value outside the schema (a count below 1, a mode other than direct or gateway), and the flow
validates the rest before it starts (a spec path that does not exist, a URL that is not http,
a task runner it cannot parse), failing the run with a message that names the parameter.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlparse

from pydantic import AfterValidator, Field

from flows.runners import TaskRunnerSettingError, check_runner


def _spec_source(value: str) -> str:
    """A spec folder, file or glob on the worker's disk, or an http(s) URL of one document."""
    value = value.strip()
    if not value:
        raise ValueError("a spec source is empty: give a folder, a file, a glob or a URL")
    parsed = urlparse(value)
    if parsed.scheme in ("http", "https"):
        if not parsed.netloc:
            raise ValueError(f"spec URL {value!r} names no host")
        return value
    if parsed.scheme and len(parsed.scheme) > 1:  # one letter: a Windows drive
        raise ValueError(f"spec source {value!r}: only http and https URLs are fetched")
    if any(c in value for c in "*?[") or Path(value).expanduser().exists():
        return value
    raise ValueError(f"no spec file or folder at {value!r} (on the machine running the flow)")


def _runner(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    try:
        check_runner(value)
    except TaskRunnerSettingError as exc:
        raise ValueError(str(exc)) from None
    return value.strip()


SpecSource = Annotated[str, AfterValidator(_spec_source)]

Specs = Annotated[
    list[SpecSource] | None,
    Field(
        description="Spec folders, files, globs or http(s) URLs to ingest "
        "(empty: the bundled corpus)."
    ),
]
TaskCount = Annotated[int, Field(ge=1, le=1_000_000, description="Tasks to compose.")]
GroupSize = Annotated[
    int, Field(ge=1, le=64, description="G: rollouts per task and policy (a group).")
]
Mode = Annotated[
    Literal["direct", "gateway"],
    Field(
        description="How the model policy sees the tools: direct (each tool) or gateway (the "
        "four meta-tools). The oracle runs in both."
    ),
]
Model = Annotated[
    str | None,
    Field(
        description="The model policy: a litellm model name with its provider prefix, e.g. "
        "hosted_vllm/qwen3-8b (empty: $COMPOWORLD_LLM_MODEL; none set: the oracle alone)."
    ),
]
Workers = Annotated[int, Field(ge=1, le=256, description="Sandboxed processes per batch.")]
BatchSize = Annotated[int, Field(ge=1, le=100_000, description="Items per batch.")]
TaskRunner = Annotated[
    str | None,
    AfterValidator(_runner),
    Field(
        description="Where batches run: threads[:N], dask[:N|:tcp://host:port] or "
        "ray[:N|:host:port] (empty: $COMPOWORLD_TASK_RUNNER, else threads:2)."
    ),
]


def policy_env(mode: str, model: str | None) -> dict[str, str]:
    """The settings the rollout stage reads for ``mode`` and ``model``."""
    env = {"COMPOWORLD_ROLLOUT_MODE": mode}
    if model:
        env["COMPOWORLD_LLM_MODEL"] = model
    return env


@contextmanager
def scoped_env(values: dict[str, str]) -> Iterator[None]:
    """``values`` in ``os.environ`` for the block, the old values back after.

    Why the environment: the stages read their model and rollout settings from it, and
    batches on a local Dask or Ray cluster made for the run inherit it.
    """
    old = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
