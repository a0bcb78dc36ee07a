"""Agent rollouts: environments (in-process or sandboxed), policies (a litellm model or the
oracle), and the engine that runs groups of episodes concurrently into ``Rollout`` records.

Names load lazily: importing one part does not pull in the engine, the LLM client or
composition.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from library.rollout.engine import (
        RolloutSettings,
        run_episode,
        run_group,
        run_groups,
        run_groups_sync,
    )
    from library.rollout.env import (
        Env,
        InProcessEnv,
        Mode,
        SandboxEnv,
        SandboxEnvPool,
    )
    from library.rollout.policies import AssistantTurn, LiteLLMPolicy, OraclePolicy, Policy
    from library.rollout.prompt import opening_messages, system_prompt
    from library.rollout.record import Rollout, group_key, rollout_key
    from library.rollout.replay import ReplayResult, replay_rollout

_EXPORTS = {
    "AssistantTurn": "library.rollout.policies",
    "Env": "library.rollout.env",
    "InProcessEnv": "library.rollout.env",
    "LiteLLMPolicy": "library.rollout.policies",
    "Mode": "library.rollout.env",
    "OraclePolicy": "library.rollout.policies",
    "Policy": "library.rollout.policies",
    "ReplayResult": "library.rollout.replay",
    "Rollout": "library.rollout.record",
    "RolloutSettings": "library.rollout.engine",
    "SandboxEnv": "library.rollout.env",
    "SandboxEnvPool": "library.rollout.env",
    "group_key": "library.rollout.record",
    "opening_messages": "library.rollout.prompt",
    "replay_rollout": "library.rollout.replay",
    "rollout_key": "library.rollout.record",
    "run_episode": "library.rollout.engine",
    "run_group": "library.rollout.engine",
    "run_groups": "library.rollout.engine",
    "run_groups_sync": "library.rollout.engine",
    "system_prompt": "library.rollout.prompt",
}

__all__ = [
    "AssistantTurn",
    "Env",
    "InProcessEnv",
    "LiteLLMPolicy",
    "Mode",
    "OraclePolicy",
    "Policy",
    "ReplayResult",
    "Rollout",
    "RolloutSettings",
    "SandboxEnv",
    "SandboxEnvPool",
    "group_key",
    "opening_messages",
    "replay_rollout",
    "rollout_key",
    "run_episode",
    "run_group",
    "run_groups",
    "run_groups_sync",
    "system_prompt",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'library.rollout' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
