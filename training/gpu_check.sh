#!/usr/bin/env bash
# GPU check (issue 14, item 8): on a machine with one GPU, under 8 minutes, a randomly
# initialised ~0.5B Qwen3-shaped model (built here, nothing downloaded) does 20 SFT steps and
# 5 GRPO steps with vLLM colocate on composed tasks, then the same steps with TRL's plain
# settings (no vLLM, fp32, no gradient checkpointing); prints tokens/s, step time and peak GPU
# memory of each, and the ratios. The logic is training/gpu_check.py (see its docstring).
#
#   training/gpu_check.sh                  # the GPU check
#   training/gpu_check.sh --cpu-smoke      # the same driver on CPU: tiny model, no vLLM
#   training/gpu_check.sh --out DIR        # keep the warehouse, model, runs and gpu_check.json
#
# The interpreter is the training environment's (pip install -e '.[gpu]'):
# $COMPOWORLD_TRAIN_PYTHON, else .venv-train/bin/python, else .venv/bin/python, else python3.
# GPU_CHECK_TIMEOUT_S (default 600) stops a run that hangs (the target is under 480 s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY="${COMPOWORLD_TRAIN_PYTHON:-}"
if [[ -z "$PY" ]]; then
  for candidate in .venv-train/bin/python .venv/bin/python; do
    if [[ -x "$candidate" ]]; then PY="$candidate"; break; fi
  done
fi
PY="${PY:-python3}"

export HF_HUB_OFFLINE=1 TRL_EXPERIMENTAL_SILENCE=1 TOKENIZERS_PARALLELISM=false
export HF_DATASETS_DISABLE_PROGRESS_BARS=1 PYTHONUNBUFFERED=1
export VLLM_LOGGING_LEVEL="${VLLM_LOGGING_LEVEL:-WARNING}"

exec timeout --signal=TERM --kill-after=30 "${GPU_CHECK_TIMEOUT_S:-600}" \
  "$PY" -m training.gpu_check "$@"
