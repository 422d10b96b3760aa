"""The all-features reference: ML-kNN on every feature of a fold, once per (dataset, fold).

Every MLFS table compares the selections with ML-kNN given all d features. The runner computes it
as one more task per (dataset, fold) (:func:`reference_task`), claimed, resumed and checked for
freshness like a method's task, and writes ``<RESULTS_DIR>/_reference/<DATASET>_fold<i>_all_features.json``
(docs/results-schema.md). The folder name starts with ``_``, which no method name can, so it never
clashes with a method's folder and the loaders that list method folders never take it for one.
The evaluator scores the identity ranking at k = d: the canonical distances over all columns in
their order, exactly what ``MLKNN_train``/``MLkNN.fit`` use.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..data.folds import fold_path, load_fold, sha256_file
from ..errors import ConfigError
from ..evaluation.metrics import LATER_METRICS, METRICS
from ..fileio import atomic_write_json, remove_abandoned_temporaries
from ..results.digest import content_unchanged, with_digest
from ..results.layout import REFERENCE_FOLDER, all_features_path
from ..results.staleness import evaluator_changed, sha256_or_none, staleness
from .fingerprint import evaluator_fingerprint
from .freshness import FOLD_CHANGED, METRICS_EDITED, NO_METRICS, NO_METRICS_DIGEST
from .records import runtime_versions
from .tasks import Task


def reference_task(dataset: str, fold: int) -> Task:
    """The task that writes the all-features reference of one fold."""
    return Task(REFERENCE_FOLDER, dataset, fold)


def reference_tasks(folds: dict[str, list[int]]) -> list[Task]:
    """One reference task per (dataset, fold), datasets in the given order."""
    return [reference_task(dataset, fold) for dataset, indices in folds.items() for fold in indices]


def reference_staleness(path: Path, fold_file: Path, mlknn: dict, evaluator: str, evaluator_code: dict,
                        *, overwrite: bool) -> str | None:
    """Why the reference must be (re)computed, or None if the file can be kept.

    Raises
    ------
    ConfigError
        If the file was made with other ML-kNN settings and ``overwrite`` is off (as for metrics files).
    """
    from ..results.schema import Provenance, read_all_features_file  # pydantic: imported when a record is read

    def all_metrics(record) -> str | None:
        absent = [key for key in METRICS if key not in record.metrics]
        if not absent:
            return None
        if all(key in LATER_METRICS for key in absent):
            return f"made before the evaluator computed {', '.join(absent)}"
        return "the reference file is partial or unreadable"

    def same_settings(record) -> str | None:
        if record.mlknn == mlknn:
            return None
        if not overwrite:
            raise ConfigError("result exists with other settings (ML-kNN); use --overwrite or another results "
                              "folder", file=path)
        return "other settings (--overwrite)"

    def same_fold(record) -> str | None:
        recorded = (record.provenance or Provenance()).fold_sha256
        return None if recorded == sha256_or_none(fold_file) else FOLD_CHANGED

    def unedited(record) -> str | None:
        if record.content_sha256 is None:
            return NO_METRICS_DIGEST
        return None if content_unchanged(path, record.content_sha256) else METRICS_EDITED

    return staleness(path, read_all_features_file, "reference file", NO_METRICS, [
        all_metrics, same_settings, same_fold, unedited,
        lambda record: evaluator_changed(record.provenance or Provenance(), evaluator, evaluator_code)])


def reference_reason(task: Task, settings) -> str | None:
    """:func:`reference_staleness` of ``task`` under the run's settings (``--overwrite`` recomputes)."""
    path = all_features_path(settings.results_dir, task.dataset, task.fold)
    stale = reference_staleness(path, fold_path(settings.data_dir, task.dataset, task.fold), settings.mlknn,
                                settings.evaluator, evaluator_fingerprint(settings.evaluator),
                                overwrite=settings.overwrite)
    return "--overwrite" if settings.overwrite and stale is None else stale


def run_reference(task: Task, settings, bench, reason: str | None) -> dict:
    """Score ML-kNN on every feature of the fold and write the reference file; return its record.

    ``bench`` is the worker's :class:`~pipeline.runner.run.Workbench` (its evaluator and git state).
    """
    from ..results.schema import ALL_FEATURES_SCHEMA

    path = all_features_path(settings.results_dir, task.dataset, task.fold)
    remove_abandoned_temporaries(path, unnamed_after=0.0)
    fold_file = fold_path(settings.data_dir, task.dataset, task.fold)
    fold = load_fold(fold_file, dataset=task.dataset, index=task.fold)
    d = fold.n_features
    started = time.perf_counter()
    curves = bench.evaluator.evaluate(fold.X_train, fold.Y_train, fold.X_test, fold.Y_test, np.arange(1, d + 1),
                                      [d], num=settings.mlknn_k, smooth=settings.mlknn_smooth,
                                      context=f"{task.key} ({reason})")
    seconds = time.perf_counter() - started
    record = {
        "schema": ALL_FEATURES_SCHEMA, "dataset": task.dataset, "fold": int(task.fold), "n_features": int(d),
        "n_train": int(fold.X_train.shape[0]), "n_test": int(fold.X_test.shape[0]), "n_labels": int(fold.n_labels),
        "mlknn": settings.mlknn, "metrics": {key: float(curves[key][0]) for key in METRICS},
        "time_eval_seconds": seconds,
        "provenance": {"fold_sha256": sha256_file(fold_file), "ranking_sha256": None, "engine": None,
                       "evaluator": settings.evaluator,
                       "code": {"method": None, "evaluator": evaluator_fingerprint(settings.evaluator)},
                       "git": bench.git, "versions": runtime_versions()},
    }
    atomic_write_json(path, with_digest(record))
    return record
