"""The coding-agent tier: a model writes or repairs a service module in a verify-and-repair
loop, for the tools the compiler tier cannot express."""

from library.coding_agent.agent import (
    AgentResult,
    AgentRound,
    CodingAgent,
    CodingAgentSettings,
    Verifier,
    VerifyOutcome,
    extract_code,
)
from library.coding_agent.prompt import RUNTIME_API, build_messages

__all__ = [
    "RUNTIME_API",
    "AgentResult",
    "AgentRound",
    "CodingAgent",
    "CodingAgentSettings",
    "Verifier",
    "VerifyOutcome",
    "build_messages",
    "extract_code",
]
