# Two front doors: `make demo` (set up + run the k-grid benchmark on the shipped demo folds)
# and `make test` (set up + run the whole test suite, as CI does). Each does its own set-up.
# `make test-fast` is the lane for daily work: see below.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup-core setup octave latex slurm chromium demo test test-fast bench docs-img clean FORCE

# The core (k-grid/p-grid benchmark, tables, Octave bridge) and, for the tests, everything else:
# the sibling protocols' stack (torch, librosa, ...) and the test tools.
$(VENV)/.core-installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -c requirements.lock -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml requirements.lock $(VENV)/.core-installed
	$(PY) -m pip install -c requirements.lock -e ".[dev]"
	$(PY) -c "from pipeline.protocols.motion.beats import compile_beat_tracking; compile_beat_tracking()"
	touch $@

setup-core: $(VENV)/.core-installed
setup: $(VENV)/.dev-installed

# GNU Octave runs the MATLAB side of the suite (Debian/Ubuntu; about one minute), on OpenBLAS:
# Debian's Octave links the reference BLAS, on which the baselines run several times slower;
# libopenblas0-pthread takes over libblas.so.3 and liblapack.so.3 through Debian's alternatives.
OCTAVE_PACKAGES := octave libopenblas0-pthread

octave:
	@if ! command -v octave-cli >/dev/null 2>&1 || { command -v dpkg >/dev/null 2>&1 && \
	    ! dpkg -s libopenblas0-pthread >/dev/null 2>&1; }; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    --no-install-recommends $(OCTAVE_PACKAGES); fi

# pdflatex compiles every generated table in the tests; poppler's pdftotext measures the type
# sizes of the compiled PDF and pdftoppm renders its pages (docs/img).
latex:
	@{ command -v pdflatex && command -v pdftotext && command -v pdftoppm; } >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	  --no-install-recommends texlive-latex-base texlive-latex-recommended texlive-latex-extra poppler-utils; }

# SLURM's daemons and commands with MUNGE: tests/paper/test_paper_slurm.py starts a single-node
# cluster of its own (private configuration, free ports) and runs job arrays on it, as root.
slurm:
	@{ command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged; } >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	  --no-install-recommends slurm-wlm munge; }

# Headless chromium opens the results explorer (python -m pipeline.report html) from file:// in its
# browser test, driven over the DevTools pipe (tests/report/headless_browser.py); also docs/img/explorer.png.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	  --no-install-recommends chromium; }

DEMO_METHODS := DAGFS LABELCORR VARIANCE RANDOM

demo: setup-core
	$(PY) -m pipeline.kgrid --engine python --datasets demo --methods $(DEMO_METHODS) \
	  --results-dir results/demo_kgrid --skip-existing
	$(PY) -m pipeline.tables --results-dir results/demo_kgrid --methods $(DEMO_METHODS) \
	  --ref-method DAGFS --out-dir results/demo_kgrid/tables

# Tests run on PYTEST_WORKERS processes (pytest-xdist, an idle worker takes tests queued for a busy
# one: the longest tests otherwise leave one core idle at the end; each has its own Octave session and
# exported folds, and every test writes only below its own tmp_path). Every run prints its 30 slowest
# tests and writes each test's time to build/test-reports/ (JUnit XML, gitignored).
# One worker per core: a warm checkout beside another job ran faster on two per core (whole suite
# 14:41 -> 12:43, test-fast 3:58 -> 3:17), but a fresh clone on a quiet machine, which the time budget
# is about, ran slower (13:04 and 13:21 on 2 workers, 13:42 and 14:14 on 4, 2 cores).
PYTEST_WORKERS ?= $(shell nproc)
# The tests start several hundred commands (python -m pipeline...): each compiles the package again
# where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE), about 0.3 s a start.
unexport PYTHONDONTWRITEBYTECODE
PYTEST := $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal --durations=30

# make test: everything, as CI runs it (.ci/run), after installing the venv, Octave, TeX, chromium and SLURM.
test: setup octave latex chromium slurm
	$(PYTEST) --junitxml=build/test-reports/test.xml

# make test-fast: everything but the tests that start GNU Octave (marker `octave`), the sibling
# protocols' tests (marker `protocols`: HAR, steering, motion, forecast; torch & co.) and the
# `slow` ones. It reuses the venv of `make setup`; it installs no Octave, only TeX
# (`make latex`), which the table tests compile with. The markers are applied in tests/conftest.py.
test-fast: setup latex
	$(PYTEST) --junitxml=build/test-reports/test-fast.xml -m "not octave and not protocols and not slow"

# Every bench script records its figures in bench/results.json, then the "Latest measurements"
# section of docs/performance.md is regenerated from it (docs/benchmarks.md). A failing script does not stop the others;
# `make bench` fails at the end. Long scripts run a subset, which their figures' names state
# (bench_paper records it as bench_paper_subset, beside the full paper's entry);
# BENCH_PEERS names a folder with optional peers (fev, GluonTS). One script: make bench-run-bench_tables
BENCH_SCRIPTS := $(sort $(wildcard bench/bench_*.py))
BENCH_PEERS ?=
BENCH_ARGS_bench_paper := --datasets emotions yeast scene medical --folds 2
BENCH_ARGS_bench_har_protocol := --quick
BENCH_ARGS_bench_growth := --quick
BENCH_ARGS_bench_forecast_metrics = $(if $(BENCH_PEERS),--peers-dir $(BENCH_PEERS))

bench: setup octave
	$(MAKE) -k $(BENCH_SCRIPTS:bench/%.py=bench-run-%); status=$$?; \
	  $(PY) bench/render_performance.py && exit $$status

bench-run-%: FORCE
	$(PY) bench/$*.py $(BENCH_ARGS_$*)

FORCE:

# README's picture of the compiled paper tables: a synthetic 12-method x 17-dataset result set
# through pipeline.tables --pdf (two-column article), one page rendered by pdftoppm.
docs-img: setup latex chromium
	$(PY) scripts/paper_tables_png.py docs/img/paper_tables.png
	$(PY) scripts/explorer_png.py docs/img/explorer.png

clean:
	rm -rf $(VENV) .pytest_cache
