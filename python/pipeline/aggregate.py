"""Read MLFS result files into tidy tables: per-fold scalars, fold means, score matrices, curves.

This is the only place that knows the results layout (``docs/results-schema.md``). It reduces each
fold's curve to one number — the mean over the grid points (k-grid) or the value at the grid point
nearest to ``p_target`` (p-grid) — and then summarises each (dataset, method, metric) over folds
with the mean and the *sample* standard deviation (ddof = 1).

Missing folds are never averaged away silently: :meth:`ResultSet.check_complete` raises a
``DataError`` listing every missing file unless the caller explicitly allows incomplete cells, in
which case each cell carries its own ``n_folds`` and the gaps are returned as notes.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .runner.history import RUN_HISTORY_FOLDER
from .errors import ConfigError, DataError
from .evaluation.grids import p_target_index
from .evaluation.metrics import METRICS
from .names import validate_name

GRIDS = ("kgrid", "pgrid")
LOWER_IS_BETTER = frozenset({"hamming_loss", "one_error"})
METRIC_DISPLAY = {"micro_f1": "Micro-F1", "macro_f1": "Macro-F1", "hamming_loss": "Hamming Loss",
                  "micro_pr_auc": "Micro PR-AUC", "macro_pr_auc": "Macro PR-AUC",
                  "avg_precision": "AvgPrec", "one_error": "One-error"}
METRIC_TABLE_STEM = {"micro_f1": "microf1", "macro_f1": "macrof1", "hamming_loss": "hamming",
                     "micro_pr_auc": "micro_pr_auc", "macro_pr_auc": "macro_pr_auc",
                     "avg_precision": "avg_precision", "one_error": "one_error"}
MAIN_METRICS = ("micro_f1", "macro_f1", "hamming_loss")
GRID_TOLERANCE = 1e-9


def _file_pattern(grid: str) -> re.Pattern:
    return re.compile(rf"^(?P<dataset>.+)_fold(?P<fold>\d+)_{grid}_metrics\.json$")


@dataclass
class FoldResult:
    """One metrics file: the grid (k or p values) and the seven curves aligned with it."""

    method: str
    dataset: str
    fold: int
    x: np.ndarray
    curves: dict[str, np.ndarray]
    path: Path
    p_target_file: float | None = None


def _as_curve(value, path: Path, key: str, size: int) -> np.ndarray:
    if not isinstance(value, list) or len(value) != size:
        raise DataError("metric curve must be a list aligned with the grid", file=path, field=key,
                        expected=f"list of {size} numbers", found=type(value).__name__
                        if not isinstance(value, list) else f"{len(value)} entries")
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def read_fold_result(path: str | Path, method: str, dataset: str, fold: int, grid: str) -> FoldResult:
    """Parse and validate one ``_kgrid_metrics.json`` / ``_pgrid_metrics.json`` file."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read metrics file: {exc}", file=path) from None
    if not isinstance(obj, dict):
        raise DataError("metrics file must hold a JSON object", file=path)
    if obj.get("grid_mode", grid) != grid:
        raise DataError("wrong grid mode", file=path, field="grid_mode", expected=grid,
                        found=obj.get("grid_mode"))
    x_key = "k_values" if grid == "kgrid" else "p_values"
    x = obj.get(x_key)
    if not isinstance(x, list) or not x:
        raise DataError("grid missing or empty", file=path, field=x_key, expected="non-empty list")
    curves = {m: _as_curve(obj.get(m), path, m, len(x)) for m in METRICS}
    p_target_file = obj.get("p_target") if grid == "pgrid" else None
    return FoldResult(method, dataset, fold, np.asarray(x, dtype=float), curves, path, p_target_file)


def discover_files(results_dir: str | Path, methods: Sequence[str], grid: str) -> dict[tuple[str, str, int], Path]:
    """Map (method, dataset, fold) to its metrics file for every listed method."""
    root = Path(results_dir)
    pattern = _file_pattern(grid)
    found = {}
    for method in methods:
        folder = root / validate_name(method, "method")
        if not folder.is_dir():
            raise DataError("method folder not found in the results directory", file=folder)
        for path in sorted(folder.glob(f"*_fold*_{grid}_metrics.json")):
            match = pattern.match(path.name)
            if match:
                found[(method, match["dataset"], int(match["fold"]))] = path
    return found


def list_methods(results_dir: str | Path) -> list[str]:
    """Sub-folders of ``results_dir`` (sorted), i.e. every method that has results (not the run history)."""
    root = Path(results_dir)
    if not root.is_dir():
        raise DataError("results directory not found", file=root)
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and p.name != RUN_HISTORY_FOLDER)


@dataclass
class ResultSet:
    """All fold results of one run for the chosen methods, datasets and grid."""

    grid: str
    methods: list[str]
    datasets: list[str]
    results: dict[tuple[str, str, int], FoldResult]
    results_dir: Path
    expected_folds: dict[str, list[int]] = field(default_factory=dict)

    def missing(self) -> list[tuple[str, str, int]]:
        """(method, dataset, fold) triples expected but absent, sorted."""
        return sorted((m, d, f) for d in self.datasets for m in self.methods
                      for f in self.expected_folds[d] if (m, d, f) not in self.results)

    def check_complete(self, allow_incomplete: bool = False) -> list[str]:
        """Raise DataError naming the missing files, or (if allowed) return them as notes."""
        missing = self.missing()
        if not missing:
            return []
        names = [f"{m}/{d}_fold{f}_{self.grid}_metrics.json" for m, d, f in missing]
        if not allow_incomplete:
            shown = ", ".join(names[:8]) + (f", ... ({len(names) - 8} more)" if len(names) > 8 else "")
            raise DataError(f"{len(names)} result files missing ({shown}); rerun them, restrict "
                            "--methods/--datasets, or pass --allow-incomplete to average each cell "
                            "over the folds it has (flagged in the tables)", file=self.results_dir)
        return [f"missing: {n}" for n in names]


def load_results(results_dir: str | Path, methods: Sequence[str], grid: str = "kgrid", *,
                 datasets: Iterable[str] | None = None, n_folds: int | None = None) -> ResultSet:
    """Load every metrics file of ``methods`` (and ``datasets``, if given) for ``grid``.

    Parameters
    ----------
    n_folds : int, optional
        Expected folds 0..n_folds-1 for every dataset. By default the folds expected for a dataset
        are the union of the folds any method has for it.
    """
    if grid not in GRIDS:
        raise ConfigError("unknown grid", field="grid", expected=" or ".join(GRIDS), found=grid)
    files = discover_files(results_dir, methods, grid)
    wanted = None if datasets is None else {validate_name(d, "dataset") for d in datasets}
    files = {key: p for key, p in files.items() if wanted is None or key[1] in wanted}
    names = sorted({d for _, d, _ in files} | (wanted or set()))
    if not names:
        raise DataError(f"no *_{grid}_metrics.json files for the chosen methods", file=results_dir)
    results = {key: read_fold_result(path, *key, grid) for key, path in sorted(files.items())}
    expected = {d: list(range(n_folds)) if n_folds else sorted({f for _, dd, f in results if dd == d})
                for d in names}
    return ResultSet(grid, list(methods), names, results, Path(results_dir), expected)


def fold_scalar(result: FoldResult, metric: str, *, p_target: float | None = None) -> float:
    """The fold's single value: curve mean over the grid (k-grid) or value nearest ``p_target``."""
    curve = result.curves[metric]
    if p_target is None:
        return float(curve.mean())
    return float(curve[p_target_index(result.x, p_target)])


def fold_table(results: ResultSet, *, p_target: float | None = None) -> pd.DataFrame:
    """Tidy per-fold scalars: columns dataset, method, fold, metric, value."""
    if results.grid == "pgrid" and p_target is None:
        raise ConfigError("p-grid aggregation needs p_target", field="p_target")
    target = p_target if results.grid == "pgrid" else None
    rows = [(d, m, f, metric, fold_scalar(r, metric, p_target=target))
            for (m, d, f), r in results.results.items() for metric in METRICS]
    return pd.DataFrame(rows, columns=["dataset", "method", "fold", "metric", "value"])


def p_target_used(results: ResultSet, p_target: float) -> tuple[float, list[str]]:
    """The grid point used for ``p_target`` (identical in every file) and notes on mismatches."""
    used = {float(r.x[p_target_index(r.x, p_target)]) for r in results.results.values()}
    if max(used) - min(used) > GRID_TOLERANCE:
        raise DataError(f"the p grids differ between files: p_target {p_target} maps to {sorted(used)}",
                        file=results.results_dir)
    notes = []
    value = min(used)
    if abs(value - p_target) > GRID_TOLERANCE:
        notes.append(f"p_target {p_target} is not on the grid; the nearest point p = {value:g} is used")
    file_targets = sorted({r.p_target_file for r in results.results.values()
                           if r.p_target_file is not None and abs(r.p_target_file - p_target) > GRID_TOLERANCE})
    if file_targets:
        notes.append(f"the evaluator wrote *_at_p_target for p_target {file_targets}; "
                     f"tables use the curve value at p = {value:g} instead")
    return value, notes


def summarise(folds: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample std (ddof=1; NaN for a single fold) per dataset, method and metric.

    A NaN fold value makes the cell's mean NaN: it is reported, not dropped.
    Columns: dataset, method, metric, mean, std, n_folds.
    """
    grouped = folds.groupby(["dataset", "method", "metric"], sort=False)["value"]
    out = grouped.agg(mean=lambda v: float(np.mean(v.to_numpy())),
                      std=lambda v: float(np.std(v.to_numpy(), ddof=1)) if len(v) > 1 else math.nan,
                      n_folds="size").reset_index()
    return out


def score_frames(means: pd.DataFrame, metric: str, methods: Sequence[str],
                 datasets: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Datasets x methods frames of mean, std and n_folds for one metric (NaN where missing)."""
    sub = means[means["metric"] == metric]
    frames = tuple(sub.pivot(index="dataset", columns="method", values=col)
                   .reindex(index=list(datasets), columns=list(methods)) for col in ("mean", "std", "n_folds"))
    return frames


def complete_rows(matrix: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Rows of ``matrix`` with a finite value for every method, and the names of the others."""
    finite = np.isfinite(matrix.to_numpy(dtype=float)).all(axis=1)
    return matrix[finite], [str(d) for d in matrix.index[~finite]]


def mean_curves(results: ResultSet, metric: str) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """Per dataset and method: (x, mean over folds, sample std over folds) of a metric curve.

    All folds of a (dataset, method) must share the grid (within 1e-9), else DataError.
    """
    out: dict[str, dict[str, tuple]] = {}
    for dataset in results.datasets:
        for method in results.methods:
            folds = [r for (m, d, _), r in sorted(results.results.items()) if m == method and d == dataset]
            if not folds:
                continue
            x = folds[0].x
            for r in folds[1:]:
                if r.x.shape != x.shape or np.abs(r.x - x).max() > GRID_TOLERANCE:
                    raise DataError("folds of one dataset have different grids", file=r.path,
                                    expected=x.tolist(), found=r.x.tolist())
            stack = np.vstack([r.curves[metric] for r in folds])
            std = stack.std(axis=0, ddof=1) if len(folds) > 1 else np.full(x.shape, np.nan)
            out.setdefault(dataset, {})[method] = (x, stack.mean(axis=0), std)
    return out


def curve_over_datasets(per_dataset: dict[str, dict[str, tuple]], method: str) -> tuple[np.ndarray, np.ndarray]:
    """Unweighted mean over datasets of a method's fold-mean curves, on the grid points every
    dataset has (k-grids end at min(300, d), so the common k range is the smallest one)."""
    curves = [per_dataset[d][method] for d in per_dataset if method in per_dataset[d]]
    if not curves:
        return np.array([]), np.array([])
    common = sorted(set.intersection(*(set(np.round(x, 9).tolist()) for x, _, _ in curves)))
    values = [np.array([dict(zip(np.round(x, 9).tolist(), mean))[c] for c in common]) for x, mean, _ in curves]
    return np.array(common), np.mean(values, axis=0)
