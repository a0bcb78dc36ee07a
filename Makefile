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
# Bytecode. This machine and CI set PYTHONDONTWRITEBYTECODE, so nothing writes .pyc at import
# and, left so, every process compiles prefect, torch ... from source (it doubled the suite's
# CPU time). The control extra is compiled at install (`make demo`'s processes start fast
# whatever the environment says). The test extras (torch, transformers, ray ...: 160 CPU-s to
# compile all of their 30,000 files) are compiled as they are imported instead: the install
# check imports the heavy stack once with bytecode writing on, and so does the test command
# (into the virtualenv and the gitignored __pycache__ folders), so each module is compiled
# once, by the first process that needs it.
UV_INSTALL = $(BIN)/uv pip install --quiet --python $(BIN)/python $(if $(FIND_LINKS),--find-links $(FIND_LINKS))
WRITE_BYTECODE := PYTHONDONTWRITEBYTECODE=
TRAIN_IMPORTS := torch, transformers, trl, peft, datasets
CONTROL_IMPORTS := pytest, hypothesis, prefect, prefect.server.api.server, prefect_dask, prefect_ray, litellm, mcp, openenv, verifiers, flows.factory

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: $(BIN)/python
	$(BIN)/python -m pip install $(PIP_FLAGS) uv==$(UV_VERSION) 2>&1 | { grep -v "is ignored" || true; }

$(VENV)/.control: $(BIN)/uv pyproject.toml
	$(UV_INSTALL) --compile-bytecode -e '.[control]'
	@touch $@

# Prefect's database is created here, once, rather than by the demo's temporary server (its
# migrations add ~5 s to that run's start-up); a no-op when it is up to date. The tests do
# not need it: they run their own temporary servers.
$(VENV)/.prefect-db: $(VENV)/.control
	mkdir -p "$${PREFECT_HOME:-$$HOME/.prefect}"
	$(BIN)/python -m prefect server database upgrade -y > /dev/null
	@touch $@

# Two processes import the heavy stack (each half compiles while the other does).
$(VENV)/.test: $(VENV)/.control
	$(if $(FIND_LINKS),,$(BIN)/python -m pip install $(PIP_FLAGS) torch==2.13.0)
	$(UV_INSTALL) -e '.[control,test,scale,train,serve]'
	{ $(WRITE_BYTECODE) $(BIN)/python -c "import $(TRAIN_IMPORTS)" & train=$$!; \
	  $(WRITE_BYTECODE) $(BIN)/python -c "import $(CONTROL_IMPORTS)"; wait $$train; }
	@touch $@

demo: $(VENV)/.prefect-db
	$(BIN)/compoworld run

# --dist loadgroup: the tests that read one factory run (tests/conftest.factory_reference)
# share a worker, so that the run is made once.
test: $(VENV)/.test
	$(WRITE_BYTECODE) $(BIN)/python -m pytest -q -n 2 --dist loadgroup --durations=30

lint: $(VENV)/.test
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(VENV)/.control
	$(BIN)/python bench/env_step.py

clean:
	rm -rf $(VENV) .compoworld
