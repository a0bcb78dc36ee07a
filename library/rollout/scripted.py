"""``ScriptedPolicy``: a policy that solves a known share of its episodes, to check that an
evaluation tells policies apart (the oracle solves every episode; a model, some).

Each episode flips a coin seeded by (task, sample, seed): heads, it is the oracle (the gold
plan, then the closing answer); tails, it stops after the first half of the oracle's turns
and says it could not finish, so some rubric criteria pass and completion fails. The coin
depends on the sample, not on the task alone, so a task is solved in some of its K trials
and pass^k falls below pass^1, as with a sampled model. Deterministic: a rerun gives the
same transcripts.
"""

from __future__ import annotations

import hashlib
from typing import Any

from library.compose.task import Task
from library.rollout.policies import AssistantTurn, OraclePolicy

GIVE_UP = "I could not finish this request."


class ScriptedPolicy:
    def __init__(self, task: Task, *, success_rate: float = 0.5, seed: int = 0) -> None:
        if not 0.0 <= success_rate <= 1.0:
            raise ValueError(f"success_rate must be in [0, 1], not {success_rate}")
        self.task = task
        self.success_rate = success_rate
        self.seed = seed
        self.name = f"scripted:{success_rate:g}"
        self._oracle = OraclePolicy(task)

    def solves(self, sample: int) -> bool:
        digest = hashlib.blake2b(
            f"{self.seed}:{self.task.task_id}:{sample}".encode(), digest_size=8
        ).digest()
        return int.from_bytes(digest) / 2**64 < self.success_rate

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, sample: int
    ) -> AssistantTurn:
        if not self.solves(sample):
            gateway = any(t.get("function", {}).get("name") == "call_tool" for t in tools)
            turns = self._oracle._gateway if gateway else self._oracle._direct
            turn = sum(1 for m in messages if m.get("role") == "assistant")
            if turn >= len(turns) // 2:
                return AssistantTurn({"role": "assistant", "content": GIVE_UP})
        return await self._oracle.act(messages, tools, sample=sample)
