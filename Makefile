# Two entry points for a fresh machine: `make demo` (install, start the embedded database, answer a question
# with the embedded local model, or MODEL=provider/name) and `make test` (install, run the test suite). Both are
# idempotent. `make setup SYSTEM_PACKAGES="--tap --browser"` also installs DaCHS and Chromium (as CI does).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
QUESTION ?= How many objects have more than 50 detections?
MODEL ?=
SYSTEM_PACKAGES ?=
# Test workers: one per core (most tests wait on servers, not on the CPU); TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= auto

.PHONY: setup demo test lint docs

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/setup.sh $(SYSTEM_PACKAGES)
	touch $@

demo: setup
	$(PY) -m db up
	$(PY) -m ask "$(QUESTION)" $(if $(MODEL),--model $(MODEL))

test: setup
	$(PY) -m pytest -n $(TEST_WORKERS)

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The documentation site, offline, into site/: warnings are errors and every internal link is checked.
docs: setup
	$(PY) -m mkdocs build --strict --quiet
