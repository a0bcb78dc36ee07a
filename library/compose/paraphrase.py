"""An optional paraphrase of the template instruction by a model (through ``LLMClient``,
hence litellm). It must keep every required literal verbatim; otherwise the template text
stays, so a model can only make an instruction read better, never make it unsolvable."""

from __future__ import annotations

from collections.abc import Sequence

from library.compose.task import Task
from library.llm import LLMClient, LLMError

PURPOSE = "compose.paraphrase"
SYSTEM = (
    "You rewrite task instructions for an assistant that works in business software. "
    "Rewrite the instruction the way a busy colleague would write it: natural, varied and "
    "concise. Keep every step, rule, condition and restriction, in the same order. Copy "
    "every quoted value exactly, character for character. Do not add names, values or "
    "steps. Reply with the rewritten instruction only."
)


def missing_literals(text: str, literals: Sequence[str]) -> list[str]:
    return [lit for lit in literals if lit not in text]


def paraphrase(instruction: str, literals: Sequence[str], client: LLMClient) -> str | None:
    """The model's rewrite, or None when it drops a literal (or the call fails)."""
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": instruction},
    ]
    try:
        reply = client.complete(messages, purpose=PURPOSE).content.strip()
    except LLMError:
        return None
    if not reply or missing_literals(reply, literals):
        return None
    return reply


def paraphrase_task(task: Task, client: LLMClient) -> tuple[Task, bool]:
    """(the task with a paraphrased instruction, True) or (the task unchanged, False)."""
    text = paraphrase(task.template_instruction, task.literals, client)
    if text is None:
        return task, False
    return task.model_copy(update={"instruction": text}), True
