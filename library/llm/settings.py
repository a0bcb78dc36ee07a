"""Model settings, read from the environment so no code or config file names a model."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

ENV_PREFIX = "COMPOWORLD_LLM_"

M = TypeVar("M", bound=BaseModel)


def settings_from_env(cls: type[M], prefix: str, env: Mapping[str, str] | None = None) -> M:
    """``cls`` with each field read from ``<prefix><FIELD>`` where set; pydantic coerces the
    strings. The variable names follow from the field names, so they cannot drift apart."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for name in cls.model_fields:
        raw = env.get(prefix + name.upper())
        if raw is not None and raw.strip() != "":
            values[name] = raw.strip()
    return cls.model_validate(values)


def env_names(cls: type[BaseModel], prefix: str) -> list[str]:
    return [prefix + name.upper() for name in cls.model_fields]


class LLMSettings(BaseModel):
    """Which model to call and how. Every field has an env variable ``COMPOWORLD_LLM_<FIELD>``
    (``COMPOWORLD_LLM_MODEL``, ``COMPOWORLD_LLM_API_BASE``, ...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = Field(
        None, description="litellm model name with provider prefix, e.g. hosted_vllm/qwen3-8b"
    )
    api_base: str | None = Field(None, description="OpenAI-compatible base URL, with /v1")
    api_key_env: str | None = Field(
        None,
        description="name of the env variable holding the API key (the key itself is never "
        "stored); unset: litellm's provider default such as OPENAI_API_KEY",
    )
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(3, ge=0, description="retries of transient errors per call")
    backoff_s: float = Field(1.0, ge=0, description="first retry delay; doubles per retry")
    backoff_max_s: float = Field(30.0, ge=0)
    input_cost_per_token: float | None = Field(None, ge=0)
    output_cost_per_token: float | None = Field(None, ge=0)
    replay_only: bool = Field(
        False,
        description="never call the model: answer from recorded calls only (deterministic "
        "reruns, CI); a prompt with no recording raises ModelNotConfigured",
    )

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, prefix: str = ENV_PREFIX
    ) -> LLMSettings:
        return settings_from_env(cls, prefix, env)

    @property
    def configured(self) -> bool:
        return bool(self.model)

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None
