"""Every path and file name of a results folder (docs/results-schema.md)::

    <root>/<FOLDER>/<DATASET>_fold<i>_scores.csv, _ranking.csv, _ranking.json, _time.txt,
                    _kgrid_metrics.json, _pgrid_metrics.json        one task's files (:class:`TaskFiles`)
    <root>/<FOLDER>/<DATASET>_fold<i>_tuning.json                  a tuned method's selection
    <root>/<FOLDER>/<DATASET>_fold<i>_out_of_budget.json           a task stopped at its budget
    <root>/<FOLDER>/<DATASET>_fold<i>_candidates/<id>.json         one tuning candidate's record
    <root>/<FOLDER>/.<DATASET>_fold<i>[_c<id>].claim               the claim of a task being computed
    <root>/_reference/<DATASET>_fold<i>_all_features.json          the all-features reference
    <root>/runs/<RUN_ID>.json, .log                                 the run history (:mod:`pipeline.runner.history`)
    <root>/failures.json                                           the failed tasks of the last run
    <tables folder>/.made_from.json                                what a tables or report folder was made from

``<FOLDER>`` is a method's name, or a variant of it (:func:`variant_folder`): ``METHOD__name_value...``
for a parameter sweep or one seed of a multi-seed method.

The suffixes and separators are data (``layout.json`` beside this module), so that the MATLAB/Octave
side (``matlab/util/mlfs_results_layout.m``) reads the same names instead of a copy of them.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..names import validate_name

LAYOUT_FILE = Path(__file__).resolve().parent / "layout.json"
_LAYOUT = json.loads(LAYOUT_FILE.read_text(encoding="utf-8"))
TASK_SUFFIXES: dict[str, str] = _LAYOUT["task_suffixes"]
#: The results folder of the all-features reference, and the pseudo-method of the runner's task that
#: writes it (:mod:`pipeline.runner.reference`): no method name can start with ``_``, so it never
#: clashes with a method's folder.
REFERENCE_FOLDER: str = _LAYOUT["reference_folder"]
#: The run history's folder in a results folder; no method may be named so (pipeline.names).
RUN_HISTORY_FOLDER: str = _LAYOUT["run_history_folder"]
#: The record of what a tables or report folder was made from (:func:`~.staleness.stamp_staleness`).
MADE_FROM_FILE: str = _LAYOUT["made_from_file"]
GRIDS = ("kgrid", "pgrid")
#: The end of an out-of-budget record's name (:func:`out_of_budget_path`).
OUT_OF_BUDGET_SUFFIX: str = _LAYOUT["out_of_budget_suffix"]
_VARIANT_SEPARATOR: str = _LAYOUT["variant_separator"]
_SEED_VARIANT = re.compile(re.escape(_VARIANT_SEPARATOR + "seed" + _LAYOUT["variant_value_separator"]) + "[0-9]+$")


def task_stem(dataset: str, fold: int) -> str:
    """``<DATASET>_fold<i>``: the start of every file name of one (dataset, fold)."""
    return f"{dataset}{_LAYOUT['fold_infix']}{int(fold)}"


@dataclass(frozen=True)
class TaskFiles:
    """The files of one (folder, dataset, fold) task."""

    scores: Path
    ranking: Path
    ranking_record: Path
    time: Path
    kgrid: Path
    pgrid: Path

    def metrics(self, mode: str) -> Path:
        return self.kgrid if mode == "kgrid" else self.pgrid

    def all(self) -> tuple[Path, ...]:
        return (self.scores, self.ranking, self.ranking_record, self.time, self.kgrid, self.pgrid)


def task_files(root: str | Path, folder: str, dataset: str, fold: int) -> TaskFiles:
    """The files of task ``folder/dataset/fold`` under the results folder ``root`` (names validated)."""
    validate_name(folder, "method")
    validate_name(dataset, "dataset")
    stem = Path(root) / folder / task_stem(dataset, fold)
    return TaskFiles(**{key: Path(f"{stem}{suffix}") for key, suffix in TASK_SUFFIXES.items()})


def metrics_name(dataset: str, fold: int, grid: str) -> str:
    """``<DATASET>_fold<i>_<grid>_metrics.json``."""
    return task_stem(dataset, fold) + TASK_SUFFIXES[grid]


def metrics_glob(grid: str) -> str:
    """The glob pattern of a method folder's metrics files of ``grid``."""
    return "*" + TASK_SUFFIXES[grid]


def metrics_name_pattern(grid: str) -> re.Pattern:
    """The metrics file name of ``grid`` with the groups ``dataset`` and ``fold``."""
    # DOTALL: a name with a newline must reach validate_name, not be skipped as a non-match.
    return re.compile(rf"(?P<dataset>.+){re.escape(_LAYOUT['fold_infix'])}(?P<fold>[0-9]+)"
                      rf"{re.escape(TASK_SUFFIXES[grid])}", re.DOTALL)


ALL_FEATURES_SUFFIX: str = _LAYOUT["all_features_suffix"]
#: The suffixes of a task's files that hold its values: the metrics files and the all-features reference.
METRICS_SUFFIXES: tuple[str, ...] = (TASK_SUFFIXES["kgrid"], TASK_SUFFIXES["pgrid"], ALL_FEATURES_SUFFIX)


def task_file_pattern() -> re.Pattern:
    """Any file (or candidates folder) of a task, with the groups ``dataset``, ``fold`` and ``part``
    (the suffix): its files, tuning record, candidates folder, out-of-budget record, all-features reference."""
    parts = (*TASK_SUFFIXES.values(), _LAYOUT["tuning_suffix"], ALL_FEATURES_SUFFIX, OUT_OF_BUDGET_SUFFIX,
             _LAYOUT["candidates_suffix"])
    return re.compile(rf"(?P<dataset>.+){re.escape(_LAYOUT['fold_infix'])}(?P<fold>[0-9]+)"
                      rf"(?P<part>{'|'.join(map(re.escape, parts))})", re.DOTALL)


def all_features_glob() -> str:
    """The glob pattern of the all-features reference files in the reference folder."""
    return "*" + ALL_FEATURES_SUFFIX


def ranking_record_name(dataset: str, fold: int) -> str:
    return task_stem(dataset, fold) + TASK_SUFFIXES["ranking_record"]


def tuning_path(root: str | Path, folder: str, dataset: str, fold: int) -> Path:
    """Where the tuning record of one (method variant, dataset, outer fold) lives."""
    return Path(root) / folder / (task_stem(dataset, fold) + _LAYOUT["tuning_suffix"])


def out_of_budget_path(root: str | Path, folder: str, dataset: str, fold: int) -> Path:
    """Where the record of task ``folder/dataset/fold`` stopped at its budget lives (until it finishes)."""
    return Path(root) / validate_name(folder, "method") / (task_stem(validate_name(dataset, "dataset"), fold)
                                                             + OUT_OF_BUDGET_SUFFIX)


def out_of_budget_name_pattern() -> re.Pattern:
    """An out-of-budget record's file name with the groups ``dataset`` and ``fold`` (no leading zeros)."""
    return re.compile(rf"(?P<dataset>.+){re.escape(_LAYOUT['fold_infix'])}(?P<fold>0|[1-9][0-9]*)"
                      rf"{re.escape(OUT_OF_BUDGET_SUFFIX)}", re.DOTALL)


def candidate_id(params_json: str) -> str:
    """A candidate's short name in file names: the first 16 hex digits of its parameters' SHA-256."""
    return hashlib.sha256(params_json.encode("utf-8")).hexdigest()[:16]


def candidate_path(root: str | Path, folder: str, dataset: str, fold: int, params_json: str) -> Path:
    """Where the record of the tuning candidate with parameters ``params_json`` lives."""
    return (Path(root) / folder / (task_stem(dataset, fold) + _LAYOUT["candidates_suffix"])
            / f"{candidate_id(params_json)}.json")


def claim_path(root: str | Path, folder: str, dataset: str, fold: int, candidate: str | None = None) -> Path:
    """Where the claim of task ``folder/dataset/fold`` lives; a tuning candidate's (its parameters'
    canonical JSON) is told apart by its id."""
    tag = "" if candidate is None else f"_c{candidate_id(candidate)}"
    return Path(root) / folder / f"{_LAYOUT['claim_prefix']}{task_stem(dataset, fold)}{tag}{_LAYOUT['claim_suffix']}"


def all_features_path(root: str | Path, dataset: str, fold: int) -> Path:
    """``<root>/_reference/<DATASET>_fold<i>_all_features.json``: one fold's all-features reference."""
    return Path(root) / REFERENCE_FOLDER / (task_stem(dataset, fold) + ALL_FEATURES_SUFFIX)


def failures_path(root: str | Path) -> Path:
    """The failed or interrupted tasks of the last run in the results folder ``root``."""
    return Path(root) / _LAYOUT["failures_file"]


def variant_folder(method: str, values: Iterable[tuple[str, object]]) -> str:
    """The results folder of a method run with other parameter values: ``METHOD__name_value__...``
    in the given order (a parameter sweep's swept names, or ``seed`` for one seed of a multi-seed
    method); the method's own name without values. Values are written as ``str`` writes them."""
    return _VARIANT_SEPARATOR.join([method, *(f"{name}{_LAYOUT['variant_value_separator']}{value}"
                                              for name, value in values)])


def seed_folder(method: str, seed: int) -> str:
    """The results folder of one seed of a multi-seed method, e.g. ``LRDG__seed_3``."""
    return validate_name(variant_folder(method, [("seed", seed)]), "method label")


def is_seed_folder(folder: str) -> bool:
    return _SEED_VARIANT.search(folder) is not None


def variant_method(folder: str) -> str:
    """The method a results folder belongs to (the folder's name before its variant's values)."""
    return folder.split(_VARIANT_SEPARATOR)[0]


def mlknn_settings(k: int, smooth: float) -> dict:
    """The ML-kNN settings as every record holds them (``mlknn``): neighbours ``num`` and ``smooth``."""
    return {"num": int(k), "smooth": float(smooth)}
