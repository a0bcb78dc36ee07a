"""``redact``: the one scrub of credentials from text bound for the warehouse or a log.

Model errors echo what the server saw (a 401 body with ``Bearer sk-...``, a URL with
``?key=...``), and exceptions carry them into rows (``llm_calls.error``, ``rollouts.error``,
``runs.error``) and tracebacks. Every such text passes through ``redact`` first. It removes:

* the values of secrets it is given (the configured API key) and of every environment
  variable whose name says it holds one (``*API_KEY*``, ``*TOKEN*``, ``*SECRET*``,
  ``*PASSWORD*``, ``*CREDENTIAL*``), at least 8 characters long;
* what looks like a credential whatever its origin: ``Bearer``/``Basic`` tokens, OpenAI,
  Anthropic, Stripe, Hugging Face, GitHub, Slack, Google and AWS key shapes, JWTs, and the
  value of ``api_key=``, ``"authorization": ...``, ``password: ...`` and ``?key=`` pairs.

What it cannot know (a credential of an unknown shape under an innocent name) it leaves.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

REDACTED = "[REDACTED]"
_MIN_SECRET = 8  # shorter values would redact ordinary words
_SECRET_NAME = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # Authorization schemes: keep the scheme, drop the credential.
    (re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{8,}"), rf"\1\2{REDACTED}"),
    # Key shapes: sk-..., sk-proj-..., sk-ant-..., sk_live_..., hf_..., ghp_..., github_pat_,
    # xoxb-..., AIza..., AKIA..., JWTs.
    (
        re.compile(
            r"\b(?:sk|rk|pk)[-_][A-Za-z0-9_-]{8,}"
            r"|\bhf_[A-Za-z0-9]{16,}"
            r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
            r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
            r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
            r"|\bAIza[0-9A-Za-z_-]{30,}"
            r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
            r"|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
        ),
        REDACTED,
    ),
    # name = value pairs, in JSON, headers, query strings and prose.
    (
        re.compile(
            r"(?i)((?:api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|"
            r"client[_-]?secret|secret[_-]?key|password|passwd|authorization|x-api-key)"
            r"[\"']?\s*[:=]\s*[\"']?)(?!\[REDACTED\]|(?:bearer|basic)\s)([^\s\"',;&}{]{4,})"
        ),
        rf"\1{REDACTED}",
    ),
    (re.compile(r"(?i)([?&](?:key|api_key|token|access_token|sig)=)[^&\s\"']+"), rf"\1{REDACTED}"),
]


def environment_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of the environment variables whose names say they hold a credential."""
    env = os.environ if env is None else env
    return [v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET]


def redact(
    text: str, secrets: Iterable[str | None] = (), env: Mapping[str, str] | None = None
) -> str:
    """``text`` with every credential replaced by ``[REDACTED]`` (see the module docstring):
    the given ``secrets``, the environment's (``env``, default ``os.environ``), and every
    credential-shaped string."""
    known = {s for s in (*secrets, *environment_secrets(env)) if s and len(s) >= _MIN_SECRET}
    for value in sorted(known, key=len, reverse=True):  # longest first: no partial leftovers
        text = text.replace(value, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
