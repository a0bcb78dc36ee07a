"""``TransformersPolicy``: a causal LM loaded with ``transformers`` that generates in this
process, so a local checkpoint (the tiny model of ``training/tiny.py``, an SFT or GRPO output
folder) rolls out and is evaluated on CPU without a server.

The prompt is the tokenizer's chat template over the transcript and the offered tools (the
Qwen3 template renders them in ``<tools>`` and asks for ``<tool_call>`` blocks); the reply's
``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` blocks become OpenAI tool calls,
the rest its text. Greedy decoding by default (a rerun gives the same rollouts); with a
temperature, sample i of a group draws from a generator seeded with i. Only local files are
read (``local_files_only``): nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from library.rollout.policies import AssistantTurn

_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def parse_reply(text: str, turn: int) -> dict[str, Any]:
    """An OpenAI assistant message from generated text: each well-formed ``<tool_call>``
    block (a JSON object with a string ``name``) becomes a call; the remaining text (thinking
    dropped) is the content. A malformed block stays in the content, where it reads as an
    answer, as a model's broken call would to a user."""
    calls = []
    content = text
    for i, match in enumerate(_TOOL_CALL.finditer(text)):
        try:
            body = orjson.loads(match.group(1))
        except orjson.JSONDecodeError:
            continue
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            continue
        arguments = body.get("arguments", {})
        calls.append(
            {
                "id": f"call_{turn}_{i}",
                "type": "function",
                "function": {
                    "name": body["name"],
                    "arguments": arguments
                    if isinstance(arguments, str)
                    else orjson.dumps(arguments).decode(),
                },
            }
        )
        content = content.replace(match.group(0), "")
    content = _THINK.sub("", content).strip()
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
    elif message["content"] is None:
        message["content"] = ""
    return message


class TransformersPolicy:
    def __init__(
        self,
        model_dir: str | Path,
        *,
        name: str | None = None,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        max_prompt_tokens: int | None = None,
    ) -> None:
        path = Path(model_dir)
        if not (path / "config.json").is_file():  # before importing torch: seconds
            raise FileNotFoundError(f"no model folder at {path} (config.json missing)")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a bar per load is noise in a command's output
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        self.model.eval()
        self.torch = torch
        self.name = f"local:{name or path.name}"
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        limit = getattr(self.model.config, "max_position_embeddings", None) or 32768
        self.max_prompt_tokens = max_prompt_tokens or max(1, limit - max_new_tokens)
        # One generation at a time: the engine runs episodes concurrently, the model is one.
        self._lock = threading.Lock()

    async def act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, sample: int
    ) -> AssistantTurn:
        return await asyncio.to_thread(self._act, messages, tools, sample)

    def _act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], sample: int
    ) -> AssistantTurn:
        start = time.perf_counter()
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        text = self.tokenizer.apply_chat_template(
            messages, tools=tools or None, add_generation_prompt=True, tokenize=False
        )
        ids = self.tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"]
        ids = ids[:, -self.max_prompt_tokens :]  # the newest turns matter most
        kwargs: dict[str, Any] = {
            "max_new_tokens": self.max_new_tokens,
            "pad_token_id": self.tokenizer.pad_token_id,
            "attention_mask": self.torch.ones_like(ids),
        }
        if self.temperature > 0:
            kwargs.update(do_sample=True, temperature=self.temperature)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with self._lock, self.torch.inference_mode():
            if self.temperature > 0:
                self.torch.manual_seed(sample)
            out = self.model.generate(ids, **kwargs)
        new = out[0, ids.shape[1] :]
        reply = self.tokenizer.decode(new, skip_special_tokens=True)
        return AssistantTurn(
            parse_reply(reply, turn),
            prompt_tokens=int(ids.shape[1]),
            completion_tokens=int(new.shape[0]),
            latency_s=time.perf_counter() - start,
        )
