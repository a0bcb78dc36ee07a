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

# uv resolves and installs the extras in about a minute where pip took 4-13 minutes on 2 cores
# (pip's resolver and byte-compiling torch). uv does not read pip's configuration: the folder
# that holds this machine's CPU torch wheel (pip's find-links) is passed on, and where there is
# none torch is installed by pip first, so that uv never pulls a CUDA build from the index.
UV_VERSION := 0.13.8
ifeq ($(origin FIND_LINKS),undefined)  # worked out once, not asked of pip at every use
FIND_LINKS := $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
endif
# --compile-bytecode: where PYTHONDONTWRITEBYTECODE is set (it is here, and in CI) nothing
# writes .pyc at import, so without it every process compiles prefect, torch ... from source
# (this doubled the test suite's CPU time).
UV_INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(if $(FIND_LINKS),--find-links $(FIND_LINKS))

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: $(BIN)/python
	$(BIN)/python -m pip install $(PIP_FLAGS) uv==$(UV_VERSION) 2>&1 | { grep -v "is ignored" || true; }

# Prefect's database is created here, once, rather than by the first run's temporary server
# (its migrations add ~5 s to that run's start-up); a no-op when it is up to date.
$(VENV)/.control: $(BIN)/uv pyproject.toml
	$(UV_INSTALL) -e '.[control]'
	mkdir -p "$${PREFECT_HOME:-$$HOME/.prefect}"
	$(BIN)/python -m prefect server database upgrade -y > /dev/null
	@touch $@

$(VENV)/.test: $(VENV)/.control
	$(if $(FIND_LINKS),,$(BIN)/python -m pip install $(PIP_FLAGS) torch==2.13.0)
	$(UV_INSTALL) -e '.[control,test,scale,train,serve]'
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
