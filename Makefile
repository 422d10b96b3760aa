# Two front doors: `make demo` (set up + run the k-grid benchmark on the shipped demo folds)
# and `make test` (set up + run the whole test suite). Each does its own set-up.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup octave latex demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e ".[dev]"
	touch $@

setup: $(VENV)/.installed

# GNU Octave runs the MATLAB side of the suite (Debian/Ubuntu; about one minute), on OpenBLAS:
# Debian's Octave links the reference BLAS, on which the baselines run several times slower;
# libopenblas0-pthread takes over libblas.so.3 and liblapack.so.3 through Debian's alternatives.
OCTAVE_PACKAGES := octave libopenblas0-pthread

octave:
	@if ! command -v octave-cli >/dev/null 2>&1 || { command -v dpkg >/dev/null 2>&1 && \
	    ! dpkg -s libopenblas0-pthread >/dev/null 2>&1; }; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    --no-install-recommends $(OCTAVE_PACKAGES); fi

# pdflatex compiles every generated table in the tests.
latex:
	@command -v pdflatex >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	  texlive-latex-base texlive-latex-recommended texlive-latex-extra; }

DEMO_METHODS := DAGFS LABELCORR VARIANCE RANDOM

demo: setup
	$(PY) -m pipeline.kgrid --engine python --datasets demo --methods $(DEMO_METHODS) \
	  --results-dir results/demo_kgrid --skip-existing
	$(PY) -m pipeline.tables --results-dir results/demo_kgrid --methods $(DEMO_METHODS) \
	  --ref-method DAGFS --out-dir results/demo_kgrid/tables

test: setup octave latex
	$(PY) -m pytest -q

bench: setup octave
	for f in bench/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache
