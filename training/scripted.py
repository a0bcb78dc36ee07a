"""A scripted language model for GRPO tests and benches: only generation is replaced; TRL's
tool-calling loop and parser, the environments, the judge, the reward and the optimizer stay
real.

``script_generation(model, tokenizer, tasks, group_size)`` swaps ``model.generate`` for a
script that, on a task's first turn, writes the gateway calls of its gold plan (Qwen3
``<tool_call>`` blocks, as the tiny model's template parses them): the group's first rollout
the whole plan, the second all of it but its last call, the others nothing. Once tool results
are in, a rollout that made every call replies with the task's gold reply, others "Done.".
So a group's rollouts complete, nearly complete and fail: rewards that differ.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from library.compose.task import Task


def calls_text(steps: Sequence[dict[str, Any]]) -> str:
    """Gold-plan steps as gateway ``call_tool`` calls in the Qwen3 format."""
    return "".join(
        "<tool_call>\n"
        + json.dumps(
            {
                "name": "call_tool",
                "arguments": {"tool_name": s["tool"], "arguments": s["arguments"]},
            }
        )
        + "\n</tool_call>"
        for s in steps
    )


def reply_for(task: Task, sample: int, results: int) -> str:
    """What the script writes for rollout ``sample`` after ``results`` tool results."""
    if results == 0:
        plans = {0: task.gold_plan, 1: task.gold_plan[:-1]}
        plan = plans.get(sample, [])
        return calls_text(plan) if plan else "Nothing to do."
    return task.gold_reply if results == len(task.gold_plan) else "Done."


def script_generation(
    model: Any, tokenizer: Any, tasks: Sequence[Task], group_size: int
) -> list[str]:
    """Replace ``model.generate`` with the script; returns the log of what it wrote."""
    import torch

    by_instruction = {t.instruction: t for t in tasks}
    written: list[str] = []

    def generate(input_ids: Any, attention_mask: Any = None, **_: Any) -> Any:
        rows = []
        for r, ids in enumerate(input_ids):
            text = tokenizer.decode(ids[attention_mask[r].bool()], skip_special_tokens=False)
            task = next(t for i, t in by_instruction.items() if i in text)
            # First turns come as whole groups: row r is rollout r % G of its group.
            reply = reply_for(task, r % group_size, text.count("<tool_response>"))
            written.append(reply)
            rows.append(tokenizer(reply + "<|im_end|>", add_special_tokens=False)["input_ids"])
        width = max(len(x) for x in rows)
        pad = tokenizer.pad_token_id
        new = torch.tensor([x + [pad] * (width - len(x)) for x in rows])
        return torch.cat([input_ids, new.to(input_ids.device)], dim=1)

    model.generate = generate
    return written
