# Two commands on a fresh clone (Python >= 3.10 and PyPI are all they need):
#   make demo   runs the main job on a bundled real dataset and writes a report
#   make test   runs the whole test suite (pytest with doctests, ruff, mypy)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test install lint typecheck pytest clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/ixplain stream

pytest: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck pytest

clean:
	rm -rf $(VENV) ixplain-output
