"""The definitions both languages read: ``definitions.json``, shipped beside this module.

Python builds the shipped methods' ranges and the seed range from it; MATLAB/Octave reads the same
file with ``jsondecode`` (``matlab/util/mlfs_definitions.m``, which finds it from the MATLAB folder
in a checkout and in an installed package). So adding a range to a shipped method is a change to
this one file, and both front doors refuse a value outside it.

Keys: ``seed``, the range of every random seed; ``run_options``, the default and range of each
ML-kNN and grid option shared by the command lines, a suite's keys and ``run_suite``;
``max_grid_points``, the most points a p-grid may have; ``result_files``, the largest and deepest
JSON file a run reads back; ``method_ranges``, per shipped method,
what each parameter may be beyond its type. A range is a declaration of
:class:`~pipeline.validation.Interval`.
The file is no code a result's fingerprint covers: a range only decides which values are refused,
never what an admitted value produces.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

from .errors import ConfigError
from .validation import Interval

DEFINITIONS_FILE = Path(__file__).resolve().with_name("definitions.json")


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


def method_ranges(method: str) -> dict[str, Interval]:
    """Parameter -> range of a shipped method (empty for a method without declared ranges)."""
    declared = definitions()["method_ranges"].get(method, {})
    return {name: declared_interval("method_ranges", method, name) for name in declared}


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
#: Most points a p-grid may have: with k = round(p * d), more points than features add nothing,
#: and a step such as 1e-300 must be refused before numpy.arange tries to allocate it.
MAX_GRID_POINTS = int(definitions()["max_grid_points"])
#: Most bytes the arrays of one fold file may take as float64 (1 GiB, about 9 times the largest
#: registered dataset, bibtex), unless the environment variable named here sets another limit.
DEFAULT_MAX_FOLD_BYTES = int(definitions()["fold_files"]["max_bytes"])
MAX_FOLD_BYTES_VARIABLE = definitions()["fold_files"]["variable"]
