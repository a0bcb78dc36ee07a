# Two commands for a newcomer: `make demo` runs the main job, `make test` runs the tests.
# Both create .venv if it is missing and install what they need.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP_FLAGS := --quiet --disable-pip-version-check --no-warn-script-location
export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
export PREFECT_LOGGING_LEVEL ?= WARNING
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 120
export LITELLM_LOCAL_MODEL_COST_MAP ?= True

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install $(PIP_FLAGS) --upgrade pip 2>&1 | { grep -v "is ignored" || true; }

# Prefect's database is created here, once, rather than by the first run's temporary server
# (its migrations add ~5 s to that run's start-up); a no-op when it is up to date.
$(VENV)/.control: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install $(PIP_FLAGS) -e '.[control]' 2>&1 | { grep -v "is ignored" || true; }
	mkdir -p "$${PREFECT_HOME:-$$HOME/.prefect}"
	$(BIN)/python -m prefect server database upgrade -y > /dev/null
	@touch $@

$(VENV)/.test: $(VENV)/.control
	$(BIN)/python -m pip install $(PIP_FLAGS) -e '.[control,test,scale,train,serve]' 2>&1 | { grep -v "is ignored" || true; }
	$(BIN)/python -c "import pytest, hypothesis, prefect, prefect_dask, prefect_ray, torch, trl, mcp, openenv, verifiers"
	@touch $@

demo: $(VENV)/.control
	$(BIN)/compoworld run

test: $(VENV)/.test
	$(BIN)/python -m pytest -q -n 2 --durations=30

lint: $(VENV)/.test
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(VENV)/.control
	$(BIN)/python bench/env_step.py

clean:
	rm -rf $(VENV) .compoworld
