"""SFT with TRL on a chat export: the tiny model, the loss mask, the CLI's errors, the flow.

``data/chat_sample.jsonl`` holds three real records of ``exports/chat.jsonl`` from
``compoworld run`` on the bundled corpus (the three shortest), each with its ``tools`` narrowed
to the tools its conversation calls, so the file stays small.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from tasks.training import latest_chat_export
from training.sft import SFTSettings, build_trainer, file_sha256, load_records, main, train
from training.tiny import build_tiny, qwen3_chat_template
from warehouse import Warehouse

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "chat_sample.jsonl"


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("sft")
    metrics = train(SFTSettings(data=str(DATA), out=str(out), max_steps=3, batch_size=2))
    return out, metrics


def test_sft_writes_model_and_metrics(trained: tuple[Path, dict[str, Any]]) -> None:
    out, returned = trained
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics == json.loads(json.dumps(returned, default=str))
    assert metrics["steps"] == 3 and metrics["samples"] == 3
    assert [x["step"] for x in metrics["losses"]] == [1, 2, 3]
    assert all(math.isfinite(x["loss"]) for x in metrics["losses"])
    assert metrics["final_loss"] == metrics["losses"][-1]["loss"]
    assert metrics["loss_finite"] and metrics["wall_seconds"] > 0
    assert metrics["device"] == "cpu" and metrics["precision"] == "fp32"
    assert metrics["torch_version"].startswith("2.") and metrics["trl_version"].startswith("1.")
    assert metrics["data_path"] == str(DATA) and metrics["data_sha256"] == file_sha256(DATA)
    assert metrics["assistant_only_loss"] is True
    assert 0 < metrics["trained_tokens"] < metrics["tokens"]
    assert (out / "model" / "model.safetensors").is_file()


def test_trained_model_reloads_and_generates(trained: tuple[Path, dict[str, Any]]) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out, _ = trained
    model = AutoModelForCausalLM.from_pretrained(out / "model")
    tok = AutoTokenizer.from_pretrained(out / "model")
    assert tok.chat_template == qwen3_chat_template()  # the inference template, not training
    rec = load_records(DATA)[0]
    prompt = tok.apply_chat_template(
        rec["messages"][:2],
        tools=json.loads(rec["tools"]),
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )
    n = prompt["input_ids"].shape[1]
    gen = model.generate(**prompt, max_new_tokens=6, do_sample=False)
    assert n < gen.shape[1] <= n + 6
    assert isinstance(tok.decode(gen[0, n:]), str)


def _assistant_text(m: dict[str, Any]) -> str:
    """What qwen3_training.jinja puts between {% generation %} and {% endgeneration %}."""
    content = m.get("content") or ""
    text = "<think>\n\n</think>\n\n" + content
    for i, call in enumerate(m.get("tool_calls") or []):
        fn = call["function"]
        if i > 0 or content:
            text += "\n"
        text += (
            f'<tool_call>\n{{"name": "{fn["name"]}", "arguments": {fn["arguments"]}}}\n</tool_call>'
        )
    return text + "<|im_end|>\n"


def _spans(labels: list[int]) -> list[list[int]]:
    spans: list[list[int]] = []
    prev = -100
    for x in labels:
        if x != -100:
            if prev == -100:
                spans.append([])
            spans[-1].append(x)
        prev = x
    return spans


def test_loss_mask_is_the_assistant_turns_exactly(tmp_path: Path) -> None:
    records = load_records(DATA)
    model, tok = build_tiny(records)
    settings = SFTSettings(data=str(DATA), out=str(tmp_path), max_steps=1)
    trainer, facts = build_trainer(settings, records, model, tok)
    assert facts["assistant_only_loss"] and facts["samples"] == len(records)
    for rec, labels in zip(records, trainer.train_dataset["labels"], strict=True):
        decoded = [tok.decode(s, clean_up_tokenization_spaces=False) for s in _spans(labels)]
        expected = [_assistant_text(m) for m in rec["messages"] if m["role"] == "assistant"]
        assert decoded == expected  # no system, user or tool token is trained


def test_missing_data_file_exits_2_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "training.sft", "--data", str(missing), "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and str(missing) in proc.stderr


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("", "empty"),
        ("\n  \n", "empty"),
        ('{"messages": [{"role": "assistant", "content": "ok"}]}\nnot json\n', ":2: not valid"),
        ('{"messages": [{"role": "user", "content": "hi"}]}\n', ":1: no assistant message"),
    ],
)
def test_bad_data_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, why: str
) -> None:
    bad = tmp_path / "chat.jsonl"
    bad.write_text(content)
    assert main(["--data", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and why in err
    assert not (tmp_path / "out" / "metrics.json").exists()


def test_missing_trl_says_install_the_train_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "trl", None)  # `import trl` now raises ImportError
    assert main(["--data", str(DATA), "--out", str(tmp_path)]) == 3
    assert "pip install -e '.[train]'" in capsys.readouterr().err


def test_latest_chat_export_defaults_to_the_home_file(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    assert latest_chat_export(wh, tmp_path) == (str(tmp_path / "exports" / "chat.jsonl"), None)


def test_train_sft_flow_failure_carries_stderr(prefect_harness: None, home: Path) -> None:
    from flows.settings import warehouse_root
    from flows.training import train_sft
    from tasks.training import TrainingFailed

    missing = home / "elsewhere" / "chat.jsonl"
    with pytest.raises(TrainingFailed, match="exited with code 2") as info:
        train_sft(export_path=str(missing), max_steps=1)
    assert str(missing) in str(info.value)
    wh = Warehouse(warehouse_root())
    assert wh.count("training_runs") == 0
    runs = wh.query("SELECT status, error FROM runs WHERE flow = 'train-sft'").to_pylist()
    assert runs[0]["status"] == "failed" and str(missing) in runs[0]["error"]


def test_sft_command_one_process_or_accelerate() -> None:
    from tasks.training import SFTRequest

    one = SFTRequest(data="d.jsonl", out_dir="o", python="py", max_steps=5)
    assert one.command()[:5] == ["py", "-m", "training.sft", "--data", "d.jsonl"]
    assert "--lr" not in one.command()
    many = SFTRequest(data="d.jsonl", out_dir="o", python="py", processes=4, lr=1e-4)
    cmd = many.command()
    assert cmd[:3] == ["py", "-m", "accelerate.commands.launch"]
    assert cmd[cmd.index("--num_processes") + 1] == "4"
    assert cmd[cmd.index("-m", 3) + 1] == "training.sft"
    assert cmd[cmd.index("--lr") + 1] == "0.0001"


def test_training_imports_neither_prefect_nor_torch_up_front() -> None:
    code = (
        "import sys, training.sft, training.tiny;"
        "print(sorted(m for m in ('prefect', 'torch', 'trl') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
