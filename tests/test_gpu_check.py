"""The GPU check's driver (training/gpu_check.py): its CPU smoke mode run the way a user runs
it (``training/gpu_check.sh --cpu-smoke`` in a fresh process), the printed figures' shape,
and the plan of the GPU mode (which needs a GPU and is not run here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from training.gpu_check import (
    JSON_PREFIX,
    NOT_RUN_NOTE,
    CheckSettings,
    DeviceMemory,
    Phase,
    parse_args,
    plan,
    ratios,
    run_phase,
    smoke_settings,
)

ROOT = Path(__file__).resolve().parents[1]
NUM = r"[\d,]+\.?\d*"


def test_gpu_plan_uses_the_entry_points_options() -> None:
    phases = {p.name: p for p in plan(CheckSettings(), "/m", "/wh", "/runs")}
    assert list(phases) == ["sft-project", "sft-plain", "grpo-project", "grpo-plain"]
    grpo = phases["grpo-project"].argv
    assert "--use-vllm" in grpo and grpo[grpo.index("--vllm-mode") + 1] == "colocate"
    assert "--bf16" in grpo and "--gradient-checkpointing" in grpo
    assert grpo[grpo.index("--max-steps") + 1] == "5"
    plain = phases["grpo-plain"].argv
    assert "--use-vllm" not in plain and "--no-bf16" in plain
    assert "--no-gradient-checkpointing" in plain
    sft = phases["sft-project"].argv
    assert sft[sft.index("--max-steps") + 1] == "20" and "--gradient-checkpointing" in sft
    assert phases["sft-plain"].fp32 and not phases["sft-project"].fp32
    # The training modules' own parsers take every option the plan gives them.
    from training import grpo as grpo_mod
    from training import sft as sft_mod

    assert grpo_mod.parse_args(grpo).use_vllm and grpo_mod.parse_args(grpo).split == ""
    assert sft_mod.parse_args(sft).max_steps == 20
    smoke = plan(smoke_settings(), "/m", "/wh", "/runs")
    assert all("--use-vllm" not in p.argv and "--bf16" not in p.argv for p in smoke)


def test_smoke_settings_from_the_flag_or_the_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_args(["--cpu-smoke"]).mode == "cpu-smoke"
    monkeypatch.setenv("GPU_CHECK_CPU_SMOKE", "1")
    cs = parse_args([])
    assert (cs.mode, cs.size, cs.sft_steps, cs.grpo_steps, cs.use_vllm) == (
        "cpu-smoke",
        "tiny",
        2,
        1,
        False,
    )
    rows = [
        {"kind": "sft", "config": c, "tokens_per_s": t, "step_s": s, "peak_mem_gib": m}
        for c, t, s, m in (("project", 200.0, 0.5, 1.0), ("plain", 100.0, 1.0, 2.0))
    ]
    assert ratios(rows) == {"sft": {"tokens_per_s": 2.0, "step_s": 0.5, "peak_mem": 0.5}}


def test_a_run_in_its_own_process_reports_the_entry_points_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The GPU mode's path: a worker process per run, its output relayed, its exit code kept
    (a bad model folder is the entry points' exit 2, before torch loads)."""
    argv = ["--data", str(tmp_path / "none.jsonl"), "--model", str(tmp_path / "nope")]
    phase = Phase("sft", "plain", [*argv, "--out", str(tmp_path / "sft-plain")], fp32=True)
    rc, tail, peak = run_phase(phase, tmp_path / "r.json", sys.executable, gpu=False)
    assert rc == 2 and peak is None
    assert any("model folder not found" in line for line in tail)
    assert "  | error: model folder not found" in capsys.readouterr().out
    assert not (tmp_path / "r.json").exists()
    with DeviceMemory(period=0.01) as sampler:
        time.sleep(0.05)
    if sampler._read is None:  # neither NVML nor nvidia-smi (this machine): no figure
        assert sampler.peak is None
    else:
        assert sampler.peak is not None and sampler.peak > 0


@pytest.mark.slow
def test_cpu_smoke_run_prints_the_figures(tmp_path: Path) -> None:
    env = {**os.environ, "COMPOWORLD_TRAIN_PYTHON": sys.executable, "HF_HUB_OFFLINE": "1"}
    out = tmp_path / "check"
    proc = subprocess.run(
        ["bash", str(ROOT / "training" / "gpu_check.sh"), "--cpu-smoke", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = proc.stdout
    assert NOT_RUN_NOTE in text and "GPU path: not run (CPU smoke mode)." in text
    for kind, steps in (("sft", 2), ("grpo", 1)):
        for config in ("project", "plain"):
            row = rf"^{kind} {config}\s+{steps}\s+{NUM}\s+{NUM}\s+{NUM}\s+(-|{NUM})"
            row += rf"\s+{NUM}r\s+-\s+{NUM}\s+fp32"
            assert re.search(row, text, re.M), (row, text[-2000:])
        ratio = (
            rf"^ratio {kind} project/plain: tokens/s x{NUM}, step time x{NUM}, peak memory x{NUM}$"
        )
        assert re.search(ratio, text, re.M), text[-2000:]
    assert re.search(r"^total [\d.]+ s \(within the 480 s budget\)$", text, re.M)

    line = next(x for x in text.splitlines() if x.startswith(JSON_PREFIX))
    report = json.loads(line.removeprefix(JSON_PREFIX))
    assert report == json.loads((out / "gpu_check.json").read_text())
    assert report["mode"] == "cpu-smoke" and report["gpu_path_run"] is False
    assert report["failures"] == [] and report["model"]["size"] == "tiny"
    runs = {(r["kind"], r["config"]): r for r in report["runs"]}
    assert set(runs) == {(k, c) for k in ("sft", "grpo") for c in ("project", "plain")}
    for (kind, config), r in runs.items():
        assert r["steps"] == (2 if kind == "sft" else 1)
        assert r["tokens_per_s"] > 0 and r["step_s"] > 0 and r["peak_mem_gib"] > 0
        assert r["peak_mem_kind"] == "cpu-rss" and r["device_peak_gib"] is None
        assert r["wall_s"] > r["step_s"]  # the whole run: set-up and every step
        assert r["use_vllm"] is False and r["precision"] == "fp32"
        assert r["gradient_checkpointing"] is (config == "project")
    assert runs[("grpo", "project")]["generated_tokens_per_s"] > 0
    assert set(report["ratios"]) == {"sft", "grpo"}
