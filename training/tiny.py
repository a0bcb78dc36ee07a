"""A tiny causal LM and tokenizer built locally, for smoke runs and CPU tests (no Hub access).

The tokenizer is a byte-level BPE trained with the ``tokenizers`` library on the chat records
themselves (message text, tool-call arguments, tool schemas). Its chat template is TRL's bundled
copy of the Qwen3 template, byte for byte, so TRL recognises it: with ``assistant_only_loss``
the SFT trainer swaps in the matching ``qwen3_training.jinja`` (``{% generation %}`` markers,
end-of-turn token inside the mask), and GRPO can parse the ``<tool_call>`` blocks it renders.
The model is a two-layer Qwen3 with hidden size 64 (~0.2M parameters); ``size="0.5b"`` gives
Qwen3-0.6B's widths with 32 layers (~0.5B parameters with this small vocabulary), randomly
initialised too, for the GPU check (``training/gpu_check.py``).
"""

from __future__ import annotations

import importlib.resources
import json
import os
from collections.abc import Iterable, Iterator
from typing import Any

# Control tokens of the Qwen3 template. The first three are "special" (skipped when decoding
# with skip_special_tokens); the tool and think tags are plain added tokens, as in Qwen's own
# tokenizer, so a decoded completion keeps them and its tool calls stay parseable.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TAG_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
TAG_TOKENS += ["<think>", "</think>"]
# What the template writes around the tools, so the vocabulary has merges for it.
TEMPLATE_TEXT = (
    "system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    "</tools>\n\nFor each function call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, '
    '"arguments": <args-json-object>}\n</tool_call>\nuser\nassistant\n<think>\n\n</think>\n\n'
)
MAX_CORPUS_CHARS = 1_000_000  # enough for the merges; bounds the tokenizer's training time
# Model shapes (Qwen3Config fields). "0.5b": Qwen3-0.6B's hidden size, heads and MLP width;
# 32 layers instead of 28 bring it to ~0.5B parameters without Qwen's 151k-token embedding.
SIZES: dict[str, dict[str, int]] = {
    "tiny": {
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
    },
    "0.5b": {
        "hidden_size": 1024,
        "intermediate_size": 3072,
        "num_hidden_layers": 32,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 128,
    },
}


def qwen3_chat_template() -> str:
    """TRL's bundled Qwen3 template (exact text: TRL matches templates by identity)."""
    return (importlib.resources.files("trl") / "chat_templates" / "qwen3.jinja").read_text(
        encoding="utf-8"
    )


def corpus(records: Iterable[dict[str, Any]], limit: int = MAX_CORPUS_CHARS) -> Iterator[str]:
    """Texts to train the tokenizer on: what the chat template will render from the records."""
    yield TEMPLATE_TEXT
    used = len(TEMPLATE_TEXT)
    for rec in records:
        tools = rec.get("tools")
        texts = [tools if isinstance(tools, str) else json.dumps(tools or [])]
        for m in rec.get("messages") or []:
            texts.append(m.get("content") or "")
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                args = fn.get("arguments")
                args = args if isinstance(args, str) else json.dumps(args)
                texts.append(f'{{"name": "{fn.get("name", "")}", "arguments": {args}}}')
        for text in texts:
            if used >= limit:
                return
            used += len(text)
            yield text


def build_tokenizer(records: Iterable[dict[str, Any]], vocab_size: int = 2048) -> Any:
    """A byte-level BPE tokenizer trained on the records, with the Qwen3 chat template."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(records), trainer=trainer)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        model_max_length=32768,
    )
    hf.chat_template = qwen3_chat_template()
    return hf


def build_model(tokenizer: Any, seed: int = 0, size: str = "tiny") -> Any:
    """A randomly initialised Qwen3 of shape ``SIZES[size]`` sized for the tokenizer."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    if size not in SIZES:
        raise ValueError(f"unknown model size {size!r} (one of {', '.join(SIZES)})")
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        **SIZES[size],
        max_position_embeddings=32768,  # rotary: no parameters per position
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def build_tiny(
    records: Iterable[dict[str, Any]],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    vocab_size: int = 2048,
    seed: int = 0,
    size: str = "tiny",
) -> tuple[Any, Any]:
    """(model, tokenizer), both built here; saved to ``out_dir`` when given (a folder that
    ``from_pretrained`` and ``--model`` accept). ``size`` is a key of ``SIZES``."""
    tokenizer = build_tokenizer(records, vocab_size=vocab_size)
    model = build_model(tokenizer, seed=seed, size=size)
    if out_dir is not None:
        model.save_pretrained(out_dir)
        tokenizer.save_pretrained(out_dir)
    return model, tokenizer
