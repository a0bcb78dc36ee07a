"""``Task``: a verified, self-contained unit of work for an agent, and its warehouse row."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from pydantic import BaseModel, Field

from library.compose.plan import show
from library.rubric import Criterion, load_criteria

CAPABILITIES = (
    "sequential-dependency",
    "cross-service",
    "selection-rule",
    "threshold",
    "guard",
    "answer",
)


def plan_shape(tools: Sequence[str], capabilities: Iterable[str]) -> str:
    """A plan's near-duplicate key (``Task.shape``), known before the task is built."""
    return _digest([list(tools), sorted(capabilities)], size=8)


def _digest(value: Any, size: int = 12) -> str:
    payload = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return hashlib.blake2b(payload, digest_size=size).hexdigest()


class Task(BaseModel):
    """Everything needed to run, judge and train on one task.

    ``initial_state``: per service, the exported state (``World.export_states()`` form) the
    task starts from; services not listed (``distractor_services``, for gateway mode) are
    seeded from the shared pool with ``seed``. ``gold_plan``: tool calls with bound
    arguments, where each argument came from (``binds``) and what the instruction says of
    it (``text``). ``rubric``: criterion dicts (``library.rubric``). ``answer``: the facts
    the final reply must state.
    """

    task_id: str
    seed: int
    services: list[str]
    distractor_services: list[str] = Field(default_factory=list)
    domain: str
    capabilities: list[str]
    difficulty: str
    instruction: str
    template_instruction: str
    literals: list[str] = Field(default_factory=list)
    initial_state: dict[str, Any]
    gold_plan: list[dict[str, Any]]
    rubric: list[dict[str, Any]]
    answer: list[dict[str, Any]] = Field(default_factory=list)
    # The final reply of a faithful agent: what it changed and the asked values (verified
    # against the rubric at composition).
    gold_reply: str = ""
    split: str = "sft"
    # The workflow the plan follows (``onboarding``, ``escalation``...; "" for none).
    motif: str = ""
    # Per selection rule, the records it must tell apart from the chosen one:
    # ``{"step", "service", "collection", "id", "path", "why": "matched" | "distractor"}``.
    decoys: list[dict[str, Any]] = Field(default_factory=list)
    # Rules that live in the environment (a policy note, a settings record) and that the
    # instruction only points to: ``{"service", "collection", "id", "text", "step"}``.
    house_rules: list[dict[str, Any]] = Field(default_factory=list)
    # The mutation gate's verdict: ``{"mutants", "caught", "catch_rate", "by_kind":
    # {kind: [caught, total]}, "escaped": [kind, ...]}``.
    mutation: dict[str, Any] = Field(default_factory=dict)

    def criteria(self) -> list[Criterion]:
        return load_criteria(self.rubric)

    def gold_answer(self) -> str:
        """A final reply that states every answer fact (the composed summary when there is
        one)."""
        return self.gold_reply or self.gold_answer_for(self.answer)

    @staticmethod
    def gold_answer_for(answer: Sequence[dict[str, Any]]) -> str:
        if not answer:
            return "Done."
        return " ".join(f"The {a['label']} is {show(a['value'])}." for a in answer)

    def rule_count(self) -> int:
        """House rules the agent must follow: selection rules, thresholds, guards and the
        rules that live in the environment."""
        selects = sum(1 for s in self.gold_plan if s.get("select"))
        thresholds = sum(
            1
            for s in self.gold_plan
            for b in (s.get("binds") or {}).values()
            if b.get("rule") == "threshold" and "policy" not in b
        )
        guards = sum(
            1 for c in self.rubric if c.get("kind") in ("record_unchanged", "collection_untouched")
        )
        return selects + thresholds + guards + len(self.house_rules)

    def shape(self) -> str:
        """What makes two tasks near-duplicates: the same tool sequence and the same rules."""
        return plan_shape([s["tool"] for s in self.gold_plan], self.capabilities)

    def to_row(self) -> dict[str, Any]:
        """A row of the ``tasks`` table (JSON-shaped values stay Python objects)."""
        return {
            "task_id": self.task_id,
            "seed": self.seed,
            "services": list(self.services),
            "distractor_services": list(self.distractor_services),
            "domain": self.domain,
            "capabilities": list(self.capabilities),
            "difficulty": self.difficulty,
            "instruction": self.instruction,
            "template_instruction": self.template_instruction,
            "literals": list(self.literals),
            "initial_state": self.initial_state,
            "gold_plan": self.gold_plan,
            "rubric": self.rubric,
            "answer": self.answer,
            "gold_reply": self.gold_reply,
            "split": self.split,
            "motif": self.motif,
            "decoys": self.decoys,
            "house_rules": self.house_rules,
            "mutation": self.mutation,
            "catch_rate": self.mutation.get("catch_rate"),
            "escaped": list(self.mutation.get("escaped") or ()),
            "rules": self.rule_count(),
            "steps": len(self.gold_plan),
            "writes": sum(1 for s in self.gold_plan if s.get("write")),
        }


def task_id(
    seed: int,
    services: Sequence[str],
    plan: Sequence[dict],
    rubric: Sequence[dict],
    initial_digest: str,
) -> str:
    calls = [[s["tool"], s["arguments"]] for s in plan]
    return _digest([seed, list(services), calls, list(rubric), initial_digest])


def state_digest(initial_state: dict[str, Any]) -> str:
    return _digest(initial_state, size=16)


def split_key(seed: int, subject: Sequence[str] | None, tid: str) -> str:
    """What decides a task's split: its world and the record the request is about, so that
    near twins (the same person's offboarding asked twice, with the same records) never sit
    on both sides of the line between training and evaluation; a task about no record
    found first is split by its own id."""
    return _digest([seed, list(subject)]) if subject else tid


def pick_split(tid: str, weights: Sequence[tuple[str, float]]) -> str:
    """A split from the id alone: stable whatever else is composed in the same run."""
    total = sum(w for _, w in weights)
    point = int(tid[:8], 16) / 0xFFFFFFFF * total
    for name, w in weights:
        if point < w:
            return name
        point -= w
    return weights[-1][0]


# The hard band: as deep as the paper's public trajectories.
HARD_SERVICES, HARD_RULES, HARD_STEPS = 5, 6, 15


def band(task: Task) -> str:
    """``hard`` for tasks of the hard band (>= 5 services, >= 6 house rules, >= 15 steps);
    otherwise ``easy`` or ``medium`` by size and rules."""
    steps, services = len(task.gold_plan), len(task.services)
    if services >= HARD_SERVICES and steps >= HARD_STEPS and task.rule_count() >= HARD_RULES:
        return "hard"
    return "easy" if difficulty(steps, services, task.capabilities) == "easy" else "medium"


def difficulty(steps: int, services: int, capabilities: Sequence[str]) -> str:
    score = (
        steps
        + services
        + sum(2 for c in capabilities if c in ("selection-rule", "threshold", "guard"))
    )
    if score <= 8:
        return "easy"
    return "medium" if score <= 13 else "hard"
