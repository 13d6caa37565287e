# Two commands on a fresh clone (Python >= 3.10 and PyPI are all they need):
#   make demo   runs the main job on a bundled real dataset and writes a report
#   make docs   builds the documentation site (user guide, API reference, executed gallery)
#               into docs/_build/html; IXPLAIN_DOCS_QUICK=1 make docs runs the gallery on fewer rows
#   make test   runs the whole test suite (pytest with doctests, ruff, mypy) and the
#               performance guard (ratios to the anchor libraries, see benchmarks/guard.py)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed
# `make demo` needs only the command-line extra (quicker on a fresh clone); `make test` and
# `make install` install everything (`.[dev]` includes `.[cli]`, so they refresh both stamps).
DEMO_STAMP = $(VENV)/.installed-cli
DOCS_STAMP = $(VENV)/.installed-docs

.PHONY: demo test install lint typecheck pytest guard clean docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[cli]"
	touch $(DEMO_STAMP)

$(DOCS_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

install: $(STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/ixplain stream

pytest: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

# about 1.5 minutes: fails when a speed ratio to scikit-learn, sage-importance or ixai falls
# below its floor (the anchors are in the dev extra)
guard: $(STAMP)
	$(BIN)/python benchmarks/guard.py --quick

test: lint typecheck pytest guard

# the site, offline (open docs/_build/html/index.html); warnings are errors, references checked
# (-n); the gallery (examples/) is executed. IXPLAIN_DOCS_QUICK=1: fewer rows per example.
docs: $(DOCS_STAMP)
	MPLBACKEND=Agg OMP_NUM_THREADS=1 $(BIN)/python -m sphinx -b html -W --keep-going -n -q docs docs/_build/html

clean:
	rm -rf $(VENV) ixplain-output
