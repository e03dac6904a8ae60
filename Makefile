# Two entry points: `make demo` and `make test`. Both create (or reuse) .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m converter.demo samples

# Every test, on all cores (pytest-xdist). The interop tests provision Java's jars into
# .cache/ on first use; later runs reuse them and the compiled harnesses.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto

# Everything but the interop tests (Java) and the long corpus walks: under a minute.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n auto -m "not interop and not slow"

bench: $(STAMP)
	$(BIN)/python bench/run.py

# Long fuzz run over every reader; FUZZ_INPUTS and FUZZ_WORKERS size it.
FUZZ_INPUTS ?= 1000000
FUZZ_WORKERS ?= 2
fuzz: $(STAMP)
	$(BIN)/python -m fuzz.run --inputs $(FUZZ_INPUTS) --workers $(FUZZ_WORKERS)

clean:
	rm -rf $(VENV) build *.egg-info
