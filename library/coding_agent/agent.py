"""``CodingAgent``: write or repair a service module with a model, verifying every candidate
and feeding the failures back, for up to K rounds."""

from __future__ import annotations

import ast
import math
import re
import threading
from collections.abc import Callable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from library.coding_agent.prompt import build_messages, format_failures
from library.llm import LLMClient, settings_from_env
from library.toolspec import ToolSpec

ENV_PREFIX = "COMPOWORLD_CODING_"

_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
NO_CODE = "the reply contained no ```python code block; reply with the complete module"


class CodingAgentSettings(BaseModel):
    """Env variables ``COMPOWORLD_CODING_<FIELD>``; the model itself is ``LLMSettings``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_rounds: int = Field(3, ge=1, description="K: model rounds before giving up")
    max_failures_shown: int = Field(30, ge=1, description="failures quoted in a prompt")
    max_failure_chars: int = Field(8000, ge=200)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CodingAgentSettings:
        return settings_from_env(cls, ENV_PREFIX, env)


class VerifyOutcome(BaseModel):
    """What a verifier says about one candidate module."""

    model_config = ConfigDict(frozen=True)

    passed: bool
    failures: list[str] = Field(default_factory=list)


Verifier = Callable[[str], VerifyOutcome]


class AgentRound(BaseModel):
    """One model round: which call (see ``llm_calls``), the code it gave, what verify said."""

    model_config = ConfigDict(frozen=True)

    round: int
    call_id: str
    prompt_hash: str
    replayed: bool
    code: str | None
    passed: bool
    failures: list[str]
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None


class AgentResult(BaseModel):
    """``code`` is the passing module, or else the candidate with the fewest failures."""

    model_config = ConfigDict(frozen=True)

    code: str | None
    passed: bool
    rounds: int
    transcript: list[AgentRound]
    failures: list[str] = Field(default_factory=list, description="those of the returned code")

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd or 0.0 for r in self.transcript)


def extract_code(reply: str) -> str | None:
    """The module in a reply: the longest fenced block, or the whole reply if it is bare
    Python that defines a class (some models skip the fence)."""
    blocks = [b.strip() for b in _FENCE.findall(reply)]
    blocks = [b for b in blocks if b]
    if blocks:
        return max(blocks, key=len) + "\n"
    text = reply.strip()
    if "class " in text:
        return None if syntax_error(text) else text + "\n"
    return None


# CPython 3.11's parser is not thread-safe ("AST constructor recursion depth mismatch"), and
# build jobs run the agent from several threads.
_PARSE_LOCK = threading.Lock()


def syntax_error(code: str) -> str | None:
    try:
        with _PARSE_LOCK:
            ast.parse(code)
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    return None


def check(verify: Verifier, code: str) -> VerifyOutcome:
    """Run the verifier, never raising: a syntax error is reported without it (saving a
    sandbox start), a crashing verifier becomes a failure the model is shown."""
    error = syntax_error(code)
    if error is not None:
        return VerifyOutcome(passed=False, failures=[error])
    try:
        return verify(code)
    except Exception as exc:
        return VerifyOutcome(
            passed=False, failures=[f"verifier raised {type(exc).__name__}: {exc}"]
        )


def _score(code: str | None, failures: list[str]) -> float:
    """Lower is better: code that does not even parse ranks below any that does."""
    if code is None or syntax_error(code) is not None:
        return math.inf
    return len(failures)


class CodingAgent:
    """Repairs (or writes) one service module. Model errors (``ModelNotConfigured``,
    ``LLMCallError``) propagate: the build stage decides what a model outage means."""

    def __init__(self, client: LLMClient, settings: CodingAgentSettings | None = None) -> None:
        self.client = client
        self.settings = settings if settings is not None else CodingAgentSettings.from_env()

    def repair(
        self,
        service_name: str,
        specs: list[ToolSpec],
        current_code: str | None,
        verify: Verifier,
    ) -> AgentResult:
        s = self.settings
        failures: list[str] = []
        if current_code:
            # Code that already passes needs no model at all.
            outcome = check(verify, current_code)
            if outcome.passed:
                return AgentResult(code=current_code, passed=True, rounds=0, transcript=[])
            failures = outcome.failures
        best: tuple[str | None, list[str]] = (current_code, failures)
        code = current_code
        transcript: list[AgentRound] = []
        for round_no in range(1, s.max_rounds + 1):
            shown = format_failures(failures, s.max_failures_shown, s.max_failure_chars)
            messages = build_messages(service_name, specs, code, shown, round_no, s.max_rounds)
            reply = self.client.complete(messages, purpose=f"coding_agent/{service_name}")
            candidate = extract_code(reply.content)
            if candidate is None:
                # Keep the previous code in play and tell the model what went wrong.
                kept = [f for f in failures if f != NO_CODE]
                outcome = VerifyOutcome(passed=False, failures=[NO_CODE, *kept])
            else:
                outcome = check(verify, candidate)
                code = candidate
            rec = reply.record
            transcript.append(
                AgentRound(
                    round=round_no,
                    call_id=rec.call_id,
                    prompt_hash=rec.prompt_hash,
                    replayed=reply.replayed,
                    code=candidate,
                    passed=outcome.passed,
                    failures=outcome.failures,
                    prompt_tokens=rec.prompt_tokens,
                    completion_tokens=rec.completion_tokens,
                    cost_usd=rec.cost_usd,
                )
            )
            if outcome.passed:
                return AgentResult(
                    code=candidate, passed=True, rounds=round_no, transcript=transcript
                )
            failures = outcome.failures
            # Ties keep the earlier candidate: a later one is no better for being later.
            if candidate is not None and _score(candidate, failures) < _score(*best):
                best = (candidate, failures)
        return AgentResult(
            code=best[0],
            passed=False,
            rounds=s.max_rounds,
            transcript=transcript,
            failures=best[1],
        )
