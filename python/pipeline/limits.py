"""The limits a user may meet: seeds, counts, sizes and times, and the ranges a command-line option
and a suite key share (an :class:`~pipeline.validation.Interval` each). Some sizes a user may raise
through environment variables (:func:`env_limit`, e.g. ``MLFS_MAX_FOLD_BYTES``).

The seed range, the ML-kNN and grid options, the per-task budgets, the p-grid size, the fold-size limit and the
longest info list a ranking record keeps come from ``definitions.json``
(:mod:`pipeline.definitions`), which ``run_suite`` reads too. Limits that code a result's
fingerprint covers keeps beside that code, so that a new limit here never makes results stale:
``names.MAX_NAME_LENGTH``, ``methods.base.MAX_EXACT_INTEGER`` and ``rankings.MAX_INDEX_CHARS``.

The limits of the protocols' input files (``pipeline.protocols``) are the last section. Constants
that bound no input stay with the code they tune and are not named ``MAX_*``: tolerances
(``protocols.motion.distribution.IMAGINARY_TOLERANCE``), facts of a format
(``data.matheader.DEFLATE_EXPANSION_BOUND``), work sizes (``protocols.har.classifiers.SVM_SEARCH_ROWS``)
and algorithm switches (``stats.signed_rank.EXACT_TEST_NONZERO_CUTOFF``: the exact test up to that many
differences); a protocol's published settings keep the reference's name, which a comment cites
(``protocols.forecast.benchmarks.gift_eval.MAX_WINDOWS``, ``protocols.motion.features.BAILANDO_MAX_FRAMES``).
"""

from __future__ import annotations

import os
import re
import sys

from .definitions import (DEFAULT_MAX_FOLD_BYTES, MAX_FOLD_BYTES_VARIABLE, MAX_GRID_POINTS,  # noqa: F401
                          MAX_RECORDED_INFO_NUMBERS, MAX_SEED, RUN_OPTION_RANGES, SEED_RANGE, TASK_BUDGET_DEFAULTS,
                          TASK_BUDGET_RANGES, definitions)  # (listed here)
from .errors import ConfigError
from .validation import option_range


def env_limit(variable: str, default: int) -> int:
    """The positive integer in environment ``variable``, or ``default`` when it is unset.

    Raises
    ------
    ConfigError
        If the variable is set to anything but a positive integer.
    """
    text = os.environ.get(variable)
    if text is None:
        return default
    try:
        limit = int(text)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise ConfigError("must be a positive integer", field=variable, found=repr(text))
    return limit


#: Counts: the most folds (or hold-out repeats) one export makes (a mistyped count must not run
#: for days), the largest worker count and --max-tasks. (The ML-kNN and grid options' bounds:
#: RUN_OPTION_RANGES.)
MAX_FOLDS = 1000
MAX_JOBS = 1024
MAX_TASKS_LIMIT = 10_000_000
#: The default of --max-tasks: several full paper suites (17 datasets x 5 folds x 11 methods = 935
#: tasks), while a mistyped sweep of a million combinations is refused before it is expanded.
DEFAULT_MAX_TASKS = 10_000
#: The longest claim age (30 days). (A task's time and memory budgets: TASK_BUDGET_RANGES.)
MAX_CLAIM_STALE_AFTER = 30 * 24 * 3600.0
#: Sizes of what a user writes: a suite file, a parameter file (a few hundred bytes in use), a
#: path a run writes, a display map's entries, a caption note; a score table (one row per data
#: set: a few KB) and the longest header row read when looking for repeated method names.
MAX_SUITE_BYTES = 1 << 20
MAX_PARAMS_FILE_BYTES = 1 << 20
MAX_PATH_CHARS = 1024
MAX_DISPLAY_MAP_ENTRIES = 2000
MAX_CAPTION_NOTE_CHARS = 1000
MAX_SCORE_BYTES = 16 * 2**20
MAX_HEADER_CHARS = 1 << 20
#: The results explorer (pipeline.report html): the largest page written — Plotly's script (about
#: 4.8 MB) plus the data of the full 17-dataset paper (about 2 MB); a larger page is refused with a
#: way out rather than written — and the run records its provenance shows, newest first (a folder
#: resumed many times has hundreds).
MAX_EXPLORER_PAGE_BYTES = 10 * 1024 * 1024
MAX_EXPLORER_RUN_RECORDS = 20
#: The most bytes of a code file read for a fingerprint or a signature (a plug-in's .py or .m, a
#: shipped module; the largest shipped code file has 38 KB), from definitions.json, which Octave's
#: mlfs_code_fingerprint and mlfs_plugin_clashes read too. (Read here, not in pipeline.definitions,
#: which the fingerprint of every Python method covers.)
MAX_CODE_FILE_BYTES = int(definitions()["code_files"]["max_bytes"])
#: Largest entry of the fingerprints' cache read back (one holds a hash and a module's relative imports).
MAX_CACHE_ENTRY_BYTES = 1 << 20
#: How code files are hashed for a fingerprint (pipeline.runner.fingerprint, mlfs_code_fingerprint.m):
#: recorded with each fingerprint, so that a result made under another scheme says so when it is stale.
FINGERPRINT_SCHEME = str(definitions()["code_files"]["fingerprint_scheme"])
#: The most bytes of a dataset's source file (ARFF, XML, .mat), downloaded or read, unless the
#: environment variable named here sets another limit: a download stops past it (and its partial
#: file is removed), and a larger file is refused before it is read. 64 MiB is about 20 times the
#: largest file of the registered datasets in the shared data (Social.mat, 3.3 MB); liac-arff
#: takes about 7 times an ARFF file's size while it reads it.
DEFAULT_MAX_DATASET_FILE_BYTES = 64 * 2**20
MAX_DATASET_FILE_BYTES_VARIABLE = "MLFS_MAX_DATASET_FILE_BYTES"
#: The most dimensions and name bytes a MAT v5 variable header may declare before it is refused
#: (pipeline.data.matheader): MATLAB allows far more, a fold's arrays have 2.
MAX_MAT_DIMENSIONS = 32
MAX_MAT_NAME_BYTES = 4096
#: The characters of this machine's name kept in the name of a temporary or a claim
#: (pipeline.fileio): with a result name of names.MAX_NAME_LENGTH characters, the temporary's name
#: stays within the 255 bytes of a file name.
MAX_HOST_LENGTH = 40

#: Ranges a command-line option and a suite key share.
FOLD_COUNT = option_range(1, MAX_FOLDS)
#: Width a table part may take, in pt (``--table-width``, suite ``tables.table_width``).
TABLE_WIDTH_PT = option_range(100, 2000)
JOB_COUNT = option_range(1, MAX_JOBS)
TASK_COUNT = option_range(1, MAX_TASKS_LIMIT)
TASK_TIMEOUT = TASK_BUDGET_RANGES["task_timeout"]
TASK_MEMORY = TASK_BUDGET_RANGES["task_memory"]
DEFAULT_TASK_TIMEOUT = float(TASK_BUDGET_DEFAULTS["task_timeout"])
DEFAULT_TASK_MEMORY = TASK_BUDGET_DEFAULTS["task_memory"]

#: Units of a memory size (``8GiB``, ``512 MiB``, ``2GB``, ``1000000`` bytes): binary and decimal.
MEMORY_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
                "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_MEMORY_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")


def parse_memory_size(value) -> int:
    """The bytes a memory size stands for: an integer (bytes) or a text ``<number><unit>`` with a
    unit of :data:`MEMORY_UNITS` (``8GiB``, ``1.5 GB``). ValueError saying what is expected."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError("a memory size such as 8GiB, 512MiB or a whole number of bytes")
    if isinstance(value, int):
        return value
    match = _MEMORY_SIZE.fullmatch(value)
    if match is None or match.group(2) not in MEMORY_UNITS and match.group(2) != "":
        raise ValueError(f"a memory size such as 8GiB, 512MiB or a whole number of bytes (units: "
                         f"{', '.join(MEMORY_UNITS)})")
    number, unit = match.groups()
    if not unit and "." in number:
        raise ValueError("a whole number of bytes, or a size with a unit such as 1.5GiB")
    return int(round(float(number) * MEMORY_UNITS[unit or "B"]))


def format_memory_size(size: float) -> str:
    """``size`` bytes in the largest binary unit that keeps it at least 1: ``8 GiB``, ``300.5 MiB``."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        if size >= MEMORY_UNITS[unit]:
            return f"{size / MEMORY_UNITS[unit]:.4g} {unit}"
    return f"{int(size)} B"
CLAIM_STALE_AFTER = option_range(0, MAX_CLAIM_STALE_AFTER, low_open=True)


def dataset_file_limit() -> int:
    """The most bytes a dataset source file may have: ``$MLFS_MAX_DATASET_FILE_BYTES`` if set, else
    :data:`DEFAULT_MAX_DATASET_FILE_BYTES`."""
    return env_limit(MAX_DATASET_FILE_BYTES_VARIABLE, DEFAULT_MAX_DATASET_FILE_BYTES)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def worker_count(requested: int, n_items: int, option: str = "--jobs") -> int:
    """How many worker processes to start for ``n_items`` pieces of work: ``requested``, capped by
    the work (an idle worker only costs memory and start-up) and by the usable cores (CPU-bound
    workers beyond them only compete). Above the cores, says so once on stderr."""
    cores = usable_cores()
    count = max(1, min(requested, n_items, cores))
    if requested > cores:
        print(f"note: {option} {requested} is more than the {cores} usable cores; starting {count} "
              f"worker process(es) for {n_items} task(s)", file=sys.stderr)
    return count


def available_memory() -> tuple[int, str]:
    """(bytes this process can still allocate, which bound that is), from what Linux tells:
    the room left under its address-space limit (``ulimit -v``) and the machine's available
    memory plus free swap. Elsewhere (no ``/proc``) there is no bound: (a huge number, "")."""
    bounds = []
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm") as handle:
                used = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            bounds.append((max(0, soft - used), f"left under the address-space limit of {soft} bytes"))
        with open("/proc/meminfo") as handle:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in handle if line.split()[1:]}
        if "MemAvailable" in info:
            bounds.append((info["MemAvailable"] + info.get("SwapFree", 0), "memory available plus free swap"))
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return min(bounds) if bounds else (1 << 62, "")


# The protocols (pipeline.protocols): limits on the files a user hands to them, here so that each
# limit has one home; numbers only, so the core imports none of the protocols' libraries.

#: The defaults of the motion and steering commands' ``--max-bytes`` (the data one input file may
#: hold or declare; real files of 1,000 motions with audio are about 1.2 GB) and ``--max-elements``
#: (the Python objects one pickled value may expand to once shared references are followed).
DEFAULT_PROTOCOL_MAX_BYTES = 8 * 2**30
DEFAULT_PROTOCOL_MAX_ELEMENTS = 10**7
#: How deep the containers of a pickle may nest (result files nest about 4 deep: dict -> list ->
#: dict -> array).
MAX_PICKLE_DEPTH = 64
#: The highest audio sample rate a motion result or WAV file may declare, in Hz.
MAX_AUDIO_SAMPLE_RATE = 1_000_000
#: HAR: the declared array data of one ``.npy``/``.npz`` file (all members together), unless the
#: environment variable named here sets another limit; the arrays of one ``.npz``; a JSON file
#: (a label table, a results file); a label or group name of a label table.
DEFAULT_HAR_MAX_ARRAY_BYTES = 4 * 2**30
HAR_MAX_ARRAY_BYTES_VARIABLE = "MLFS_HAR_MAX_BYTES"
HAR_MAX_NPZ_MEMBERS = 64
HAR_MAX_JSON_BYTES = 16 * 2**20
HAR_MAX_LABEL_CHARS = 200
#: Steering: a CSV or Parquet table's bytes (for Parquet also its uncompressed data) and rows,
#: unless the environment variables named here set other limits; a JSON file (splits, run metrics).
DEFAULT_STEERING_MAX_TABLE_BYTES = 2 * 2**30
STEERING_MAX_TABLE_BYTES_VARIABLE = "MLFS_STEERING_MAX_BYTES"
DEFAULT_STEERING_MAX_ROWS = 30_000_000
STEERING_MAX_ROWS_VARIABLE = "MLFS_STEERING_MAX_ROWS"
STEERING_MAX_JSON_BYTES = 64 * 2**20
#: Forecasting: an experiment's ``config.json`` and a benchmark table read back (a full GIFT-Eval
#: table is about 100 KB) by ``compare_models``; and the defaults of the task-list and dataset
#: limits (pipeline.protocols.forecast.limits.Limits, documented in docs/forecast.md; windows and
#: points are raised with ``--max-windows`` and ``--max-points``).
FORECAST_MAX_CONFIG_BYTES = 8 * 2**20
FORECAST_MAX_TABLE_BYTES = 64 * 2**20
FORECAST_MAX_TASK_FILE_BYTES = 8 * 2**20
FORECAST_MAX_TASKS = 10_000
FORECAST_MAX_TARGETS = 10_000
FORECAST_MAX_WINDOWS = 1_000
FORECAST_MAX_PREDICTION_LENGTH = 100_000
FORECAST_MAX_POINTS = 500_000_000
FORECAST_MAX_SERIES = 10_000_000
