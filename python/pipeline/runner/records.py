"""What the result files of one task hold (docs/results-schema.md).

The metrics record of one grid, the per-grid-point counts of constant features, and the ranking
record (``_ranking.json``): the method, its parameters, the code that ranked and its timings.
"""

from __future__ import annotations

import platform
from numbers import Number

import numpy as np

from .. import __version__
from ..documents import RESULT_LIMITS, parse_document
from ..errors import PipelineError
from ..evaluation.grids import k_grid, p_grid, p_target_index, p_to_k
from ..evaluation.metrics import METRICS
from ..fileio import dumps_json
from ..limits import MAX_RECORDED_INFO_NUMBERS
from ..method_warnings import INFO_KEY, warnings_summary
from .tasks import GridSpec


def grid_points(grid: GridSpec, d: int) -> tuple[list[int], list[float] | None]:
    """Return (k per grid entry, p per grid entry or None) for a fold with d features."""
    if grid.mode == "kgrid":
        return k_grid(d, grid.k_min, grid.k_max, grid.k_step), None
    p_values = [float(p) for p in p_grid(grid.p_min, grid.p_max, grid.p_step)]
    return list(p_to_k(p_values, d)), p_values


def metrics_record(*, grid: GridSpec, folder: str, dataset: str, fold_index: int, fold, params: dict,
                   mlknn: dict, curves: dict, ranking: np.ndarray) -> dict:
    """The ``_kgrid``/``_pgrid_metrics.json`` content of one grid (timings and provenance added by the caller).

    ``curves`` holds the metrics at every distinct k the grid needs (and possibly more).
    """
    k_per_entry, p_values = grid_points(grid, fold.n_features)
    index = {int(k): i for i, k in enumerate(curves["k_values"])}
    rows = [index[int(k)] for k in k_per_entry]
    record = {
        "grid_mode": grid.mode, "method": folder, "dataset": dataset, "fold": int(fold_index),
        "k_values": [int(k) for k in k_per_entry], "grid": grid.describe(), "mlknn": mlknn, "params": params,
        "n_features": int(fold.n_features), "n_labels": int(fold.n_labels),
        "n_train": int(fold.X_train.shape[0]), "n_test": int(fold.X_test.shape[0]),
        "macro_pr_auc_labels_used": int(curves["macro_pr_auc_labels_used"]),
        "macro_pr_auc_labels_total": int(curves["macro_pr_auc_labels_total"]),
    }
    for key in METRICS:
        values = [float(curves[key][r]) for r in rows]
        record[key] = values
        record[f"{key}_mean"] = float(np.mean(values))
    if p_values is not None:
        target = p_target_index(p_values, grid.p_target)
        record.update(p_values=p_values, p_target=float(grid.p_target), p_target_used=p_values[target])
        for key in METRICS:
            record[f"{key}_at_p_target"] = record[key][target]
    record.update(constant_feature_counts(fold.X_train, ranking, k_per_entry))
    return record


def constant_feature_counts(X_train: np.ndarray, ranking: np.ndarray, k_per_entry: list[int]) -> dict:
    """How many selected features are constant on the training part, per grid entry.

    A constant column carries no information for ML-kNN; a selection made mostly of them scores
    0 (docs/results-schema.md). ``degenerate`` marks an entry whose selection is more than half
    constant although non-constant features were left unselected. Twin: ``mlfs_constant_feature_counts.m``.
    """
    constant = np.ptp(X_train, axis=0) == 0
    selected = np.cumsum(constant[np.asarray(ranking, dtype=np.int64) - 1])
    n_nonconstant = int(constant.size - constant.sum())
    counts = [int(selected[k - 1]) for k in k_per_entry]
    degenerate = [2 * c > k and c > max(0, k - n_nonconstant) for c, k in zip(counts, k_per_entry)]
    return {"n_constant_features": int(constant.sum()), "n_constant_selected": counts, "degenerate": degenerate}


def union_of_k(grids, d: int) -> list[int]:
    """Every distinct k the grids need for a fold with d features, ascending (one evaluation pass)."""
    return sorted({k for grid in grids for k in grid_points(grid, d)[0]})


def ranking_record(*, folder: str, dataset: str, fold_index: int, params: dict, training: str, engine: str,
                   code: dict, git: dict, timing: dict, info: dict, engine_versions: dict) -> dict:
    """The ``_ranking.json`` content: what made the ranking, when checked for freshness, and how long it took.

    ``training``: the SHA-256 of the training part it was computed from (:func:`~pipeline.runner.inner.training_sha256`).
    ``versions`` holds Python's and NumPy's and the engine's own (e.g. Octave with its BLAS);
    ``warnings`` the summary of the numerical warnings of the method's call (:mod:`pipeline.method_warnings`).
    """
    return {"method": folder, "dataset": dataset, "fold": int(fold_index), "params": params,
            "training_sha256": training, "engine": engine,
            "code": code, "git": git, **timing, "info": recordable_info(info),
            "warnings": warnings_summary(info.get(INFO_KEY, [])),
            "versions": {**runtime_versions(), **engine_versions}}


def recordable_info(info: dict) -> dict:
    """The method's info without its scores (in ``_scores.csv``), without what the engine added (its
    time, its warnings: recorded apart) and without entries too large to
    record, or that the strict reader would refuse when the record is read back (a text of more
    than 10 000 characters, a 30-digit integer, 40 levels of nesting): kept, such an entry would
    make the ranking look unreadable, and computed again, at every resume."""
    kept = {}
    for key, value in info.items():
        if key in ("scores", "compute_seconds", INFO_KEY):
            continue
        size = np.size(value) if not isinstance(value, (str, dict)) else 1
        if (isinstance(value, (str, Number, dict)) or size <= MAX_RECORDED_INFO_NUMBERS) and _reads_back(key, value):
            kept[key] = value
    return kept


def _reads_back(key, value) -> bool:
    """Whether ``{key: value}`` as written passes the strict reader of result files."""
    if not isinstance(key, str) or (isinstance(value, str) and len(value) > RESULT_LIMITS.max_string_chars):
        return False  # before serialising a text that may be very long
    try:
        parse_document(dumps_json({key: value}), "info", kind="json", limits=RESULT_LIMITS)
    except (PipelineError, ValueError, TypeError, RecursionError):
        return False
    return True


def runtime_versions() -> dict:
    return {"pipeline": __version__, "numpy": np.__version__, "python": platform.python_version()}
