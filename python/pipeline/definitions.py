"""The definitions both languages read: ``definitions.json``, shipped beside this module, and one
file per shipped method, ``methods/definitions/<METHOD>.json``.

Python builds the shipped methods' defaults and ranges, the seed range and the limits below from
them; MATLAB/Octave reads the same files with ``jsondecode`` (``matlab/util/mlfs_definitions.m``
and ``mlfs_method_definition.m``, which find them from the MATLAB folder in a checkout and in an
installed package). So changing a default or adding a range of a shipped method is a change to
that method's file, and both front doors use it.

Keys of ``definitions.json``: ``seed``, the range of every random seed; ``run_options``, the
default and range of each ML-kNN and grid option shared by the command lines, a suite's keys and
``run_suite``; ``task_budgets``, the default and range of each per-task budget
(``task_timeout`` in seconds, ``task_memory`` in bytes, null: none) shared by the command lines and
a suite's ``run`` keys; ``max_grid_points``, the most points a p-grid may have; ``result_files``, the
largest, deepest JSON file (and longest text in it) a run reads back; ``recorded_info``, the
longest list of numbers a ranking record keeps from a method's info; ``recorded_warnings``, the
most distinct warning messages a ranking record lists and the longest one; ``ranking_files``, the bytes
a ranking file may hold per feature and beyond; ``fold_files``, the fold-size limit and the
environment variable that changes it. A range is a declaration of
:class:`~pipeline.validation.Interval`.

A method's file holds ``{"defaults": {...}, "ranges": {...}}``: the default of each parameter (a
number written without a point or exponent is an integer parameter, ``"max_iter": 10``; a real
one is written with a point, ``"alpha": 1.0``: the default's type is the type a given value must
have) and what a parameter may be beyond its type. A method's defaults decide what its results
are, so its fingerprint covers its file (:mod:`pipeline.runner.fingerprint`), and only its own.
``definitions.json`` is no code a result's fingerprint covers: its ranges and limits only decide
which values and files are refused, never what an admitted value produces.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

from .errors import ConfigError
from .validation import Interval

DEFINITIONS_FILE = Path(__file__).resolve().with_name("definitions.json")
#: The folder of the shipped methods' definitions, ``<METHOD>.json`` each.
METHOD_DEFINITIONS_DIR = DEFINITIONS_FILE.parent / "methods" / "definitions"


@functools.cache
def definitions() -> dict:
    """The decoded ``definitions.json`` (read once)."""
    try:
        return json.loads(DEFINITIONS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the package's definitions: {exc}", file=DEFINITIONS_FILE) from None


def declared_interval(*keys: str) -> Interval:
    """The interval declared at ``definitions()[keys[0]][keys[1]]...``."""
    declaration = definitions()
    for key in keys:
        declaration = declaration[key]
    return Interval.from_declaration(declaration, where=".".join(keys))


@dataclasses.dataclass(frozen=True)
class MethodDefinition:
    """A shipped method's ``methods/definitions/<METHOD>.json``: its defaults, and the range of
    each parameter that has one."""

    defaults: dict
    ranges: dict[str, Interval]


def method_definition_file(method: str) -> Path:
    """Where the package keeps the definition of shipped method ``method``."""
    return METHOD_DEFINITIONS_DIR / f"{method}.json"


def method_definition(method: str) -> MethodDefinition:
    """The definition of shipped method ``method`` (a fresh copy of its defaults at each call).

    Raises
    ------
    ConfigError
        When the file is missing or unreadable, or holds other keys than ``defaults`` and
        ``ranges``, a default that is not a number, text or true/false, or a bad range.
    """
    file = method_definition_file(method)
    try:
        declared = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the definition of method {method}: {exc}", file=file) from None
    if not isinstance(declared, dict) or set(declared) != {"defaults", "ranges"} or not all(
            isinstance(part, dict) for part in declared.values()):
        raise ConfigError(f"the definition of method {method} is not of the expected form", file=file,
                          expected='{"defaults": {...}, "ranges": {...}}')
    for name, value in declared["defaults"].items():
        if not isinstance(value, (bool, int, float, str)):
            raise ConfigError(f"the default of parameter {name!r} of method {method} is not a number, text or "
                              "true/false", file=file, field=f"defaults.{name}", found=type(value).__name__)
    ranges = {name: Interval.from_declaration(declaration, where=f"{file.name}: ranges.{name}")
              for name, declaration in declared["ranges"].items()}
    return MethodDefinition(defaults=declared["defaults"], ranges=ranges)


#: Every random seed (splits, random starts, statistics): the seeds of NumPy and MT19937 streams.
#: :mod:`pipeline.limits` lists it with the other limits; the method harness reads it here, so
#: that the fingerprint of a method's results does not cover the whole limits registry.
SEED_RANGE = dataclasses.replace(declared_interval("seed"), spelled_as_span=True)
MAX_SEED = int(SEED_RANGE.high)

#: Default of each run option (``mlknn_k``, ``k_min``, ``p_target``, ...).
RUN_OPTION_DEFAULTS = {name: entry["default"] for name, entry in definitions()["run_options"].items()}
#: Range of each run option, spelled as the command lines spell it ("a number in (0, 1]").
RUN_OPTION_RANGES = {name: dataclasses.replace(declared_interval("run_options", name, "range"), spelled_as_span=True)
                     for name in RUN_OPTION_DEFAULTS}
#: Default of each per-task budget (``task_timeout`` seconds, ``task_memory`` bytes or None).
TASK_BUDGET_DEFAULTS = {name: entry["default"] for name, entry in definitions()["task_budgets"].items()}
#: Range of each per-task budget, spelled as the command lines spell it.
TASK_BUDGET_RANGES = {name: dataclasses.replace(declared_interval("task_budgets", name, "range"), spelled_as_span=True)
                      for name in TASK_BUDGET_DEFAULTS}
#: Most points a p-grid may have: with k = round(p * d), more points than features add nothing,
#: and a step such as 1e-300 must be refused before numpy.arange tries to allocate it.
MAX_GRID_POINTS = int(definitions()["max_grid_points"])
#: Most bytes the arrays of one fold file may take as float64 (1 GiB, about 9 times the largest
#: registered dataset, bibtex), unless the environment variable named here sets another limit.
DEFAULT_MAX_FOLD_BYTES = int(definitions()["fold_files"]["max_bytes"])
MAX_FOLD_BYTES_VARIABLE = definitions()["fold_files"]["variable"]
#: The longest array of numbers a method's info may record (longer ones are left out of the record).
MAX_RECORDED_INFO_NUMBERS = int(definitions()["recorded_info"]["max_numbers"])
#: The most distinct warning messages a ranking record lists, and the longest one (cut beyond).
MAX_RECORDED_WARNINGS = int(definitions()["recorded_warnings"]["max_messages"])
MAX_WARNING_CHARS = int(definitions()["recorded_warnings"]["max_message_chars"])
