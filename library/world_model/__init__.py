"""The world-model tier: tools that no service implements reliably, simulated by a model whose
answers are validated (output schema, State schema) before they are returned or applied.

In process (trusted classes): ``with_simulated_tools`` / ``simulated_service``. For services
in sandbox workers (production): ``remote.SandboxedWorldModel``, which answers and checks in
the parent and only hands the worker an accepted state."""

from library.world_model.answer import Answer, AnswerError, InvalidAnswer, apply_patch, parse_answer
from library.world_model.cache import (
    AnswerCache,
    DirectoryAnswerCache,
    MemoryAnswerCache,
    cache_key,
)
from library.world_model.mount import simulated_service, simulated_tool_def, with_simulated_tools
from library.world_model.prompt import state_slice
from library.world_model.simulator import Simulation, WorldModelSettings, WorldModelTool

__all__ = [
    "Answer",
    "AnswerCache",
    "AnswerError",
    "DirectoryAnswerCache",
    "InvalidAnswer",
    "MemoryAnswerCache",
    "Simulation",
    "WorldModelSettings",
    "WorldModelTool",
    "apply_patch",
    "cache_key",
    "parse_answer",
    "simulated_service",
    "simulated_tool_def",
    "state_slice",
    "with_simulated_tools",
]
